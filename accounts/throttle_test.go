package accounts_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

func min(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func TestThrottleThreshold(t *testing.T) {
	var th accounts.Throttle
	for i := range 4 {
		require.Zero(t, th.Wait(t0), "failure %d", i+1)
		th = th.Fail(accounts.AccountPolicy, t0)
	}
	assert.Zero(t, th.Wait(t0), "four failures are admitted and a fifth attempt too")
	th = th.Fail(accounts.AccountPolicy, t0)
	assert.Equal(t, 15*time.Minute, th.Wait(t0), "five at once: locked until the first is 15 minutes old")
	assert.Equal(t, time.Minute, th.Wait(min(14)))
	assert.Zero(t, th.Wait(min(15)))
	assert.Len(t, th.Failures, 5)
	assert.Equal(t, 1, th.Lockouts)

	// A success clears the account.
	assert.Zero(t, th.Succeed())
}

// TestThrottleBackoff: failures spread over the window lock by the
// backoff delay, which doubles with each lock up to 15 minutes.
func TestThrottleBackoff(t *testing.T) {
	p := accounts.AccountPolicy
	var th accounts.Throttle
	steps := []struct {
		at       int // minute of the failure
		wait     time.Duration
		lockouts int
	}{
		{0, 0, 0}, {3, 0, 0}, {6, 0, 0}, {9, 0, 0},
		{12, 3 * time.Minute, 1}, // until max(12+1, 0+15)
		{15, 3 * time.Minute, 2}, // until max(15+2, 3+15)
		{18, 4 * time.Minute, 3}, // until max(18+4, 6+15)
		{22, 8 * time.Minute, 4}, // until max(22+8, 9+15)
		{30, 0, 4},               // 18, 22, 30 are left in the window
		{30, 0, 4},
		{30, 15 * time.Minute, 5}, // the delay is capped: until max(30+15, 18+15)
	}
	for i, s := range steps {
		require.Zero(t, th.Wait(min(s.at)), "step %d at %d is admitted", i, s.at)
		th = th.Fail(p, min(s.at))
		assert.Equal(t, s.wait, th.Wait(min(s.at)), "step %d at %d", i, s.at)
		assert.Equal(t, s.lockouts, th.Lockouts, "step %d at %d", i, s.at)
	}
	// 15 minutes after the lock ended with no failure, the doubling is
	// forgotten; before that it is not.
	early := th
	for _, at := range []int{59, 62, 65, 68, 71} {
		early = early.Fail(p, min(at))
	}
	assert.Equal(t, 6, early.Lockouts, "not yet forgotten at 59")
	assert.Equal(t, 15*time.Minute, early.Wait(min(71)), "so the delay stays at its cap: until max(71+15, 59+15)")
	quiet := th
	for _, at := range []int{60, 63, 66, 69, 72} {
		quiet = quiet.Fail(p, min(at))
	}
	assert.Equal(t, 1, quiet.Lockouts)
	assert.Equal(t, 3*time.Minute, quiet.Wait(min(72)), "until max(72+1, 60+15)")
}

func TestThrottleAddressPolicy(t *testing.T) {
	var th accounts.Throttle
	for i := range 19 {
		th = th.Fail(accounts.AddressPolicy, t0.Add(time.Duration(i)*time.Second))
	}
	assert.Zero(t, th.Wait(min(1)), "19 failures are admitted")
	th = th.Fail(accounts.AddressPolicy, min(1))
	assert.Equal(t, 14*time.Minute, th.Wait(min(1)), "the 20th locks until the first is 15 minutes old")
}

func TestThrottleFailWhileLocked(t *testing.T) {
	// A caller that records a failure it should have refused cannot make
	// the lock shorter, and the state stays bounded.
	var th accounts.Throttle
	for range 5 {
		th = th.Fail(accounts.AccountPolicy, t0)
	}
	until := th.LockedUntil
	for i := range 50 {
		th = th.Fail(accounts.AccountPolicy, t0.Add(time.Duration(i)*time.Second))
		assert.False(t, th.LockedUntil.Before(until))
		until = th.LockedUntil
	}
	assert.Len(t, th.Failures, 5)
}

func TestAdmit(t *testing.T) {
	var free accounts.Throttle
	assert.NoError(t, accounts.Admit(t0))
	assert.NoError(t, accounts.Admit(t0, free, free))
	locked := func(d time.Duration) accounts.Throttle { return accounts.Throttle{LockedUntil: t0.Add(d)} }
	tests := []struct {
		wait time.Duration
		msg  string
	}{
		{time.Second, "Too many sign-in attempts; try again in 1 minute."},
		{time.Minute, "Too many sign-in attempts; try again in 1 minute."},
		{time.Minute + time.Second, "Too many sign-in attempts; try again in 2 minutes."},
		{15 * time.Minute, "Too many sign-in attempts; try again in 15 minutes."},
	}
	for _, tt := range tests {
		err := accounts.Admit(t0, free, locked(tt.wait))
		assertCoded(t, err, errcode.RateLimited, accounts.ErrThrottled, tt.msg)
	}
	err := accounts.Admit(t0, locked(3*time.Minute), locked(9*time.Minute))
	assert.Equal(t, "Too many sign-in attempts; try again in 9 minutes.", errcode.Message(err), "the longest wait")
	assert.NoError(t, accounts.Admit(t0.Add(time.Hour), locked(3*time.Minute)))
	assertCoded(t, accounts.Throttled(0), errcode.RateLimited, accounts.ErrThrottled, "Too many sign-in attempts; try again in 1 minute.")
}

func TestAddressKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"::ffff:203.0.113.7":   "203.0.113.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"fe80::1%eth0":         "fe80::/64",
		"::1":                  "::/64",
	} {
		assert.Equal(t, want, accounts.AddressKey(netip.MustParseAddr(in)), in)
	}
	assert.Equal(t, "invalid IP", accounts.AddressKey(netip.Addr{}))
}
