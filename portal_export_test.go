package tambala

// SetPasswordWorkHook sets f to run before every password hash or
// verification e makes (nil: none), for the tests of package tambala_test
// that check none runs inside a store transaction.
func SetPasswordWorkHook(e *Engine, f func()) { e.passwordWorkHook = f }

// SetPasswordHashHook sets f to run as each password hash or
// verification of e takes its slot of the limiter, and the function f
// returns as the slot ends (nil: none), for the tests that count the
// hashes in flight.
func SetPasswordHashHook(e *Engine, f func() func()) { e.passwordHashHook = f }

// SetPasswordWork replaces e's limiters of password work with new ones
// of o (defaults filled in), for tests whose subject is not the limiter.
func SetPasswordWork(e *Engine, o PasswordWorkOptions) {
	o.defaults()
	for a := range e.hashers {
		e.hashers[a] = newHashing(o)
	}
}
