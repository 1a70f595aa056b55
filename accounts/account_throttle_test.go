package accounts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/accounts"
)

// TestAccountThrottle is the lock rule of #33 as a table: failures lock
// the (account, address) pair that made them; other addresses are
// admitted until the account's cap is reached, which locks every
// address; a completed sign-in clears its own pair and the cap, never
// another address's pair.
func TestAccountThrottle(t *testing.T) {
	const attacker, owner, third = "203.0.113.9", "198.51.100.7", "192.0.2.1"
	fails := func(a accounts.AccountThrottle, addr string, n int, at time.Time) accounts.AccountThrottle {
		for range n {
			a = a.Fail(addr, at)
		}
		return a
	}
	// capped fails from ever new addresses, 4 each (under the pair's
	// limit), until the cap's count is reached.
	capped := func(at time.Time) accounts.AccountThrottle {
		var a accounts.AccountThrottle
		for i := 0; len(a.Cap.Failures) < accounts.AccountCapPolicy.MaxFailures; i++ {
			n := accounts.AccountCapPolicy.MaxFailures - len(a.Cap.Failures)
			if n > 4 {
				n = 4
			}
			a = fails(a, string(rune('A'+i/26))+string(rune('a'+i%26)), n, at)
		}
		return a
	}
	cases := []struct {
		name  string
		state func() accounts.AccountThrottle
		addr  string
		at    time.Time
		wait  time.Duration // 0: admitted
	}{
		{"no failure", func() accounts.AccountThrottle { return accounts.AccountThrottle{} }, owner, t0, 0},
		{"four from the attacker: the attacker still admitted", func() accounts.AccountThrottle { return fails(accounts.AccountThrottle{}, attacker, 4, t0) }, attacker, t0, 0},
		{"five from the attacker: the attacker locked", func() accounts.AccountThrottle { return fails(accounts.AccountThrottle{}, attacker, 5, t0) }, attacker, t0, 15 * time.Minute},
		{"five from the attacker: the owner admitted", func() accounts.AccountThrottle { return fails(accounts.AccountThrottle{}, attacker, 5, t0) }, owner, t0, 0},
		{"a failure after the lock ends re-locks the attacker only", func() accounts.AccountThrottle {
			var a accounts.AccountThrottle
			for i := range 5 {
				a = a.Fail(attacker, min(i)) // locked until min(15)
			}
			return a.Fail(attacker, min(15))
		}, owner, min(15), 0},
		{"the attacker re-locked", func() accounts.AccountThrottle {
			var a accounts.AccountThrottle
			for i := range 5 {
				a = a.Fail(attacker, min(i)) // locked until min(15)
			}
			return a.Fail(attacker, min(15))
		}, attacker, min(15), 2 * time.Minute},
		{"the cap reached: every address locked", func() accounts.AccountThrottle { return capped(t0) }, third, t0, time.Hour},
		{"the cap's window passed", func() accounts.AccountThrottle { return capped(t0) }, third, t0.Add(time.Hour), 0},
		{"the owner's success clears its pair and the cap", func() accounts.AccountThrottle {
			a := fails(accounts.AccountThrottle{}, owner, 5, t0)
			return a.Succeed(owner)
		}, owner, t0, 0},
		{"the owner's success leaves the attacker locked", func() accounts.AccountThrottle {
			a := fails(accounts.AccountThrottle{}, attacker, 5, t0)
			return a.Succeed(owner)
		}, attacker, t0, 15 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := c.state()
			assert.Equal(t, c.wait, a.Wait(c.addr, c.at))
			err := accounts.Admit(c.at, a.Pair(c.addr), a.Cap)
			if c.wait == 0 {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, accounts.ErrThrottled)
			}
		})
	}
}

// TestAccountThrottleBounded: pairs that hold nothing are dropped at the
// next failure, and a throttle whose cap and pairs hold nothing is
// Forgotten.
func TestAccountThrottleBounded(t *testing.T) {
	a := accounts.AccountThrottle{}.Fail("a", t0).Fail("b", t0)
	assert.Len(t, a.Pairs, 2)
	assert.False(t, a.Forgotten(min(30)), "the cap's hour holds them")
	a = a.Fail("c", min(30))
	assert.Len(t, a.Pairs, 1, "a and b are past the pair's window")
	assert.Equal(t, "address", accounts.AccountThrottle{}.Fail("d", t0).Fail("d", t0).Fail("d", t0).Fail("d", t0).Fail("d", t0).
		Locked(accounts.AccountThrottle{}.Fail("d", t0).Fail("d", t0).Fail("d", t0).Fail("d", t0), "d", t0))
	assert.True(t, a.Forgotten(min(30).Add(2*time.Hour)))
}
