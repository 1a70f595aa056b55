package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/store"
)

// txWatchStore is a store that knows how many of its transactions are
// open.
type txWatchStore struct {
	store.Store
	open atomic.Int32
}

func (w *txWatchStore) View(ctx context.Context, fn func(store.Tx) error) error {
	w.open.Add(1)
	defer w.open.Add(-1)
	return w.Store.View(ctx, fn)
}

func (w *txWatchStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	w.open.Add(1)
	defer w.open.Add(-1)
	return w.Store.Update(ctx, fn)
}

// passwordWatch counts the password hashes and verifications of an engine
// and those that ran while a transaction of its store was open.
type passwordWatch struct {
	calls, inTx atomic.Int32
}

func watchPasswords(e *tambala.Engine, w *txWatchStore) *passwordWatch {
	pw := &passwordWatch{}
	tambala.SetPasswordWorkHook(e, func() {
		pw.calls.Add(1)
		if w.open.Load() > 0 {
			pw.inTx.Add(1)
		}
	})
	return pw
}

// TestPortalHashesOutsideTransactions checks that no password is hashed or
// verified (argon2id, about 50 ms at DefaultParams) while a transaction of
// the store is open: sign-in with the right and a wrong password, of an
// unknown email and a malformed one, with a rehash, the acceptance of an
// invitation, and password changes. A junk or used invitation token and a
// throttled sign-in cost no hashing at all.
func TestPortalHashesOutsideTransactions(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		w := &txWatchStore{Store: s}
		p := newPortalEnv(t, w)
		pw := watchPasswords(p.e, w)
		portal := p.e.Sessions()
		step := func(name string, hashes bool, fn func()) {
			t.Helper()
			before := pw.calls.Load()
			fn()
			if hashes {
				assert.Greater(t, pw.calls.Load(), before, "%s: no password work seen", name)
			} else {
				assert.Equal(t, before, pw.calls.Load(), "%s: password work", name)
			}
		}

		var inv tambala.Invited
		step("accept", true, func() {
			var err error
			inv, err = p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "ada@example.com"})
			require.NoError(t, err)
			_, err = portal.AcceptInvitation(p.ctx, inv.Token, portalPassword)
			require.NoError(t, err)
		})
		step("accept used", false, func() {
			_, err := portal.AcceptInvitation(p.ctx, inv.Token, portalPassword)
			require.ErrorIs(t, err, accounts.ErrInvitationUsed)
		})
		step("accept junk", false, func() {
			_, err := portal.AcceptInvitation(p.ctx, accounts.InvitationTokenPrefix+"junk", portalPassword)
			require.Error(t, err)
		})
		step("sign in", true, func() { p.signIn(t, "ada@example.com") })
		step("sign in, wrong password", true, func() {
			_, err := portal.SignIn(p.ctx, "ada@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		})
		step("sign in, unknown email", true, func() {
			_, err := portal.SignIn(p.ctx, "eve@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		})
		step("sign in, malformed email", true, func() {
			_, err := portal.SignIn(p.ctx, "not an email", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		})
		r := p.signIn(t, "ada@example.com")
		step("change password, wrong current", true, func() {
			err := portal.ChangePassword(p.ctx, r.Token, "wrong password here", "another fine passphrase")
			require.ErrorIs(t, err, accounts.ErrWrongPassword)
		})
		step("change password", true, func() {
			require.NoError(t, portal.ChangePassword(p.ctx, r.Token, portalPassword, "another fine passphrase"))
		})
		step("sign in, new password", true, func() {
			_, err := portal.SignIn(p.ctx, "ada@example.com", "another fine passphrase")
			require.NoError(t, err)
		})

		// Another engine, with other parameters, rehashes at sign-in.
		params := accounts.TestParams
		params.Time++
		e2, err := tambala.New(w, &tambala.Options{Clock: p.clock.Now, People: tambala.PeopleOptions{PasswordParams: params}})
		require.NoError(t, err)
		pw2 := watchPasswords(e2, w)
		_, err = e2.Sessions().SignIn(p.ctx, "ada@example.com", "another fine passphrase")
		require.NoError(t, err)
		assert.Equal(t, int32(2), pw2.calls.Load(), "verify and rehash")
		_, err = e2.Sessions().SignIn(p.ctx, "ada@example.com", "another fine passphrase")
		require.NoError(t, err)
		assert.Equal(t, int32(3), pw2.calls.Load(), "rehashed once")
		assert.Zero(t, pw2.inTx.Load(), "password work inside a transaction")

		// Throttled: refused before any hashing.
		for range accounts.AccountPolicy.MaxFailures {
			_, err := portal.SignIn(p.ctx, "bob@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		}
		step("sign in, throttled", false, func() {
			_, err := portal.SignIn(p.ctx, "bob@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrThrottled)
		})
		assert.Zero(t, pw.inTx.Load(), "password work inside a transaction")
	})
}

// TestPortalConcurrentSignInFailures runs 30 wrong sign-ins of one account
// at once, then 30 of as many unknown emails from one address: the
// password checks run outside the transactions, and each attempt's
// transaction checks the throttles again, so exactly the policy's
// failures are recorded and the rest are throttled.
func TestPortalConcurrentSignInFailures(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		// Room for all 30 at once: the subject is the throttles, not the
		// limiter of password work (TestSignInFlood).
		tambala.SetPasswordWork(p.e, tambala.PasswordWorkOptions{MaxWaiting: 30, PerAddress: 30, PerAccount: 30})
		portal := p.e.Sessions()
		p.person(t, p.org, "ada@example.com")

		attempts := func(ctx context.Context, email func(i int) string) (failed, throttled int) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Go(func() {
					_, err := portal.SignIn(ctx, email(i), "wrong password here")
					mu.Lock()
					defer mu.Unlock()
					switch {
					case errors.Is(err, accounts.ErrInvalidCredentials):
						failed++
					case errors.Is(err, accounts.ErrThrottled):
						throttled++
					default:
						t.Errorf("sign-in %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			return failed, throttled
		}

		failed, throttled := attempts(p.ctx, func(int) string { return "ada@example.com" })
		assert.Equal(t, accounts.AccountPolicy.MaxFailures, failed)
		assert.Equal(t, 30-accounts.AccountPolicy.MaxFailures, throttled)
		n := 0
		for _, a := range p.actions(t, p.org) {
			if a == tambala.AuditSignInFailed {
				n++
			}
		}
		assert.Equal(t, accounts.AccountPolicy.MaxFailures, n, "failures audited")

		failed, throttled = attempts(p.from("203.0.113.9"), func(i int) string { return fmt.Sprintf("guess%d@example.net", i) })
		assert.Equal(t, accounts.AddressPolicy.MaxFailures, failed)
		assert.Equal(t, 30-accounts.AddressPolicy.MaxFailures, throttled)
	})
}

// TestPortalSignInUserChangedMeanwhile changes the user between the
// password check and the transaction that records the outcome: the
// attempt is checked again against the new record, once; a record that
// changed again is refused as invalid credentials and counted as a
// failure.
func TestPortalSignInUserChangedMeanwhile(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		w := &txWatchStore{Store: s}
		p := newPortalEnv(t, w)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")

		// Disabled while the password is checked: checked again, refused.
		once := true
		tambala.SetPasswordWorkHook(p.e, func() {
			if once {
				once = false
				_, err := p.e.People().DisableUser(p.ctx, u.ID) // an Update: none may be open here
				require.NoError(t, err)
			}
		})
		_, err := portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrInvalidCredentials)

		// Enabled while checked: checked again, signed in.
		once = true
		tambala.SetPasswordWorkHook(p.e, func() {
			if once {
				once = false
				_, err := p.e.People().EnableUser(p.ctx, u.ID)
				require.NoError(t, err)
			}
		})
		_, err = portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.NoError(t, err)

		// Changed at every check: refused, and counted.
		flip := true
		tambala.SetPasswordWorkHook(p.e, func() {
			var err error
			if flip {
				_, err = p.e.People().DisableUser(p.ctx, u.ID)
			} else {
				_, err = p.e.People().EnableUser(p.ctx, u.ID)
			}
			flip = !flip
			require.NoError(t, err)
		})
		_, err = portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		acts := p.actions(t, p.org)
		assert.Equal(t, tambala.AuditSignInFailed, acts[len(acts)-1])
	})
}
