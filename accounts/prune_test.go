package accounts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/accounts"
)

// TestSessionPrunable: a session is kept SessionRetention past its end or
// its expiry, whichever came first.
func TestSessionPrunable(t *testing.T) {
	s, _, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	day := accounts.SessionRetention
	ended := s.End(accounts.EndLogout, t0.Add(5*time.Minute))
	tests := []struct {
		name string
		s    accounts.Session
		at   time.Duration
		want bool
	}{
		{"live", s, 0, false},
		{"expired (idle), within the retention", s, 30*time.Minute + day - time.Nanosecond, false},
		{"expired (idle), past the retention", s, 30*time.Minute + day, true},
		{"ended, within the retention", ended, 5*time.Minute + day - time.Nanosecond, false},
		{"ended, past the retention", ended, 5*time.Minute + day, true},
		{"touched at 20 min, then idle", s.Touch(t0.Add(20 * time.Minute)), 50*time.Minute + day - time.Second, false},
		{"touched at 20 min, past the retention", s.Touch(t0.Add(20 * time.Minute)), 50*time.Minute + day, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.s.Prunable(t0.Add(tt.at)), tt.name)
	}
}

// TestThrottleForgotten: a throttle is forgotten once it has no failure
// in its window and a whole window has passed since its lock ended.
func TestThrottleForgotten(t *testing.T) {
	p := accounts.AccountPolicy
	assert.True(t, accounts.Throttle{}.Forgotten(p, t0), "the zero throttle")
	one := accounts.Throttle{}.Fail(p, t0)
	assert.False(t, one.Forgotten(p, min(14)))
	assert.True(t, one.Forgotten(p, min(15)))
	locked := accounts.Throttle{}
	for range 5 {
		locked = locked.Fail(p, t0)
	}
	require.Equal(t, min(15), locked.LockedUntil)
	assert.False(t, locked.Forgotten(p, min(29)), "the failures are old but the doubling is remembered")
	assert.True(t, locked.Forgotten(p, min(30)))
}

// TestThrottleForgottenIsZero: deleting a forgotten throttle changes no
// answer: from then on it behaves as the zero throttle under any
// failures.
func TestThrottleForgottenIsZero(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom([]accounts.ThrottlePolicy{accounts.AccountPolicy, accounts.AddressPolicy}).Draw(t, "policy")
		var th accounts.Throttle
		now := t0
		for range rapid.IntRange(0, 40).Draw(t, "history") {
			now = now.Add(time.Duration(rapid.Int64Range(0, int64(20*time.Minute)).Draw(t, "gap")))
			if th.Wait(now) == 0 {
				th = th.Fail(p, now)
			}
		}
		now = now.Add(time.Duration(rapid.Int64Range(0, int64(2*time.Hour)).Draw(t, "pause")))
		if !th.Forgotten(p, now) {
			return
		}
		zero := accounts.Throttle{}
		for i := range rapid.IntRange(1, 40).Draw(t, "after") {
			if i > 0 {
				now = now.Add(time.Duration(rapid.Int64Range(0, int64(5*time.Minute)).Draw(t, "gap after")))
			}
			if th.Wait(now) != zero.Wait(now) {
				t.Fatalf("step %d at %s: waits %s, the zero throttle %s", i, now, th.Wait(now), zero.Wait(now))
			}
			if th.Wait(now) == 0 {
				th, zero = th.Fail(p, now), zero.Fail(p, now)
			}
		}
	})
}
