package tambala

// SetPasswordWorkHook sets f to run before every password hash or
// verification e makes (nil: none), for the tests of package tambala_test
// that check none runs inside a store transaction.
func SetPasswordWorkHook(e *Engine, f func()) { e.passwordWorkHook = f }
