package tambala_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/store"
)

// TestPruneSessions: sessions a day past their end or expiry and
// throttles that hold nothing are deleted; live ones, and the audit
// trail, are kept.
func TestPruneSessions(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		ctx := context.Background()
		count := func(bucket string) int {
			n := 0
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				return tx.Scan([]byte(bucket), store.ScanOptions{}, func(_, _ []byte) (bool, error) {
					n++
					return true, nil
				})
			}))
			return n
		}
		p.person(t, p.org, "ada@example.com")
		p.person(t, p.org, "bo@example.com")
		out := p.signIn(t, "ada@example.com")
		require.NoError(t, p.e.Sessions().SignOut(p.ctx, out.Token))
		_, err := p.e.Sessions().SignIn(p.from("203.0.113.9"), "bo@example.com", "not the password at all")
		assert.Error(t, err)
		require.Equal(t, 1, count("sessions"))
		require.Equal(t, 2, count("throttles.account"), "ada's, cleared by her sign-in, and bo's")
		require.Equal(t, 1, count("throttles.address"))

		n, err := p.e.Work().PruneSessions(ctx, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "only ada's cleared throttle holds nothing")
		assert.Equal(t, 1, count("throttles.account"))

		p.clock.Advance(accounts.SessionRetention - time.Minute)
		live := p.signIn(t, "ada@example.com") // a new session
		n, err = p.e.Work().PruneSessions(ctx, 0)
		require.NoError(t, err)
		assert.Equal(t, 3, n, "the old throttles go, and ada's cleared one again; the ended session is within its retention")
		assert.Equal(t, 2, count("sessions"))
		assert.Zero(t, count("throttles.account"))
		assert.Zero(t, count("throttles.address"))

		p.clock.Advance(2 * time.Minute)
		trail := len(p.actions(t, ""))
		n, err = p.e.Work().PruneSessions(ctx, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, 1, count("sessions"), "the ended session is gone")
		_, err = p.e.Sessions().Session(p.ctx, live.Token)
		require.NoError(t, err, "the live session is kept")
		_, err = p.e.Sessions().Session(p.ctx, out.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionUnknown)
		assert.Equal(t, trail, len(p.actions(t, "")), "the audit trail is never pruned")

		// Run's pruning loop calls it.
		p.clock.Advance(accounts.SessionRetention + time.Hour)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- p.e.Run(runCtx, tambala.LoopPruning) }()
		require.Eventually(t, func() bool { return count("sessions") == 0 }, 10*time.Second, 10*time.Millisecond)
		cancel()
		require.NoError(t, <-done)
	})
}
