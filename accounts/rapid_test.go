package accounts_test

import (
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/accounts"
)

// gaps are times between two requests of a live session.
var gaps = []time.Duration{29 * time.Minute, 25 * time.Minute, 20 * time.Minute, 10 * time.Minute, time.Minute, 0, -3 * time.Minute}

// TestRapidSessionAbsoluteLimit: whatever the touches and rotations, a
// session is never live at or after SignedInAt plus AbsoluteTimeout, nor
// IdleTimeout after the last touch that took, nor (waiting for the second
// factor) SecondFactorTimeout after its token was made.
func TestRapidSessionAbsoluteLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stage := rapid.SampledFrom([]accounts.Stage{accounts.StageSignedIn, accounts.StageSecondFactor, accounts.StageEnrolTOTP}).Draw(t, "stage")
		s, _, err := accounts.NewSession("usr_1", stage, seeded(rapid.Uint64().Draw(t, "seed")), t0)
		if err != nil {
			t.Fatal(err)
		}
		signedIn := s.SignedInAt
		lastSeen := t0
		now := t0
		steps := rapid.IntRange(60, 150).Draw(t, "steps")
		for i := range steps {
			// Mostly forward within the idle limit, so that sessions live
			// long enough to meet the absolute limit, sometimes back
			// (clocks of several hosts), now and then a long pause.
			if rapid.IntRange(0, 49).Draw(t, "pause") == 49 {
				now = now.Add(time.Duration(rapid.Int64Range(0, int64(3*time.Hour)).Draw(t, "long")))
			} else {
				gap := rapid.SampledFrom(gaps).Draw(t, "gap")
				now = now.Add(gap - time.Duration(rapid.IntRange(0, 59).Draw(t, "jitter"))*time.Second)
			}
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 9:
				old, next, _, err := s.Rotate(accounts.StageSignedIn, seeded(uint64(i)), now)
				if err == nil {
					if !old.Ended() {
						t.Fatal("rotation leaves the old session live")
					}
					s, lastSeen = next, now
				}
			default:
				live := s.Check(now) == nil
				v := s.Touch(now)
				if live && now.After(lastSeen) {
					lastSeen = now
				}
				if !live && v != s {
					t.Fatal("Touch changed a session that is not live")
				}
				s = v
			}
			for _, at := range []time.Time{now, now.Add(time.Minute), signedIn.Add(accounts.AbsoluteTimeout), signedIn.Add(accounts.AbsoluteTimeout + time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(t, "late")))} {
				err := s.Check(at)
				if err == nil {
					if !at.Before(signedIn.Add(accounts.AbsoluteTimeout)) {
						t.Fatalf("live at %v, after the absolute limit %v", at, signedIn.Add(accounts.AbsoluteTimeout))
					}
					if !at.Before(lastSeen.Add(accounts.IdleTimeout)) {
						t.Fatalf("live at %v, idle since %v", at, lastSeen)
					}
					if s.Stage == accounts.StageSecondFactor && !at.Before(s.CreatedAt.Add(accounts.SecondFactorTimeout)) {
						t.Fatalf("waiting for the second factor at %v, since %v", at, s.CreatedAt)
					}
				}
			}
		}
	})
}

// TestRapidThrottleWindow: a throttle admits at most MaxFailures failures
// in any Window (between two successes), under the policies of sign-in
// and any other; and one failure never locks for longer than the larger
// of MaxDelay and Window.
func TestRapidThrottleWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom([]accounts.ThrottlePolicy{accounts.AccountPolicy, accounts.AddressPolicy, {
			MaxFailures: rapid.IntRange(1, 30).Draw(t, "max"),
			Window:      time.Duration(rapid.IntRange(1, 60).Draw(t, "window")) * time.Minute,
			BaseDelay:   time.Duration(rapid.IntRange(0, 120).Draw(t, "base")) * time.Second,
			MaxDelay:    time.Duration(rapid.IntRange(0, 120).Draw(t, "maxdelay")) * time.Minute,
		}}).Draw(t, "policy")
		var th accounts.Throttle
		var admitted []time.Time // failures since the last success
		now := t0
		for range rapid.IntRange(1, 300).Draw(t, "attempts") {
			now = now.Add(time.Duration(rapid.Int64Range(0, int64(4*time.Minute)).Draw(t, "gap")))
			if th.Wait(now) > 0 {
				continue // refused: not checked, no failure
			}
			if rapid.IntRange(0, 19).Draw(t, "success") == 0 {
				th, admitted = th.Succeed(), nil
				continue
			}
			th = th.Fail(p, now)
			admitted = append(admitted, now)
			if lock := th.Wait(now); lock > max(p.MaxDelay, p.Window) {
				t.Fatalf("locked for %v under %+v", lock, p)
			}
			n := 0
			for _, f := range admitted {
				if now.Sub(f) < p.Window {
					n++
				}
			}
			if n > p.MaxFailures {
				t.Fatalf("%d failures admitted within %v, policy %+v", n, p.Window, p)
			}
		}
	})
}

// TestRapidRecoveryCodesOnce: in any order and however typed, each
// recovery code works exactly once.
func TestRapidRecoveryCodesOnce(t *testing.T) {
	base, codes := enrolled(t)
	rapid.Check(t, func(t *rapid.T) {
		u := base
		used := map[int]bool{}
		for range rapid.IntRange(1, 40).Draw(t, "uses") {
			i := rapid.IntRange(0, len(codes)-1).Draw(t, "code")
			c := codes[i]
			switch rapid.IntRange(0, 3).Draw(t, "typed") {
			case 1:
				c = strings.ToUpper(c)
			case 2:
				c = strings.ReplaceAll(c, "-", "")
			case 3:
				c = strings.ReplaceAll(c, "-", " ")
			}
			v, err := u.UseRecoveryCode(c, t0)
			if used[i] {
				if err == nil {
					t.Fatalf("code %d worked twice", i)
				}
				continue
			}
			if err != nil {
				t.Fatalf("code %d refused the first time: %v", i, err)
			}
			used[i] = true
			u = v
			if left := u.TOTP.RecoveryCodesLeft(); left != len(codes)-len(used) {
				t.Fatalf("%d left after %d used", left, len(used))
			}
		}
	})
}

// TestRapidTOTPNoReplay: whatever codes are sent when, a code is accepted
// only for a step after the last accepted one, within one step of now.
func TestRapidTOTPNoReplay(t *testing.T) {
	base, _ := enrolled(t)
	rapid.Check(t, func(t *rapid.T) {
		u := base
		now := t0
		for range rapid.IntRange(1, 60).Draw(t, "tries") {
			now = now.Add(time.Duration(rapid.IntRange(0, 45).Draw(t, "dt")) * time.Second)
			at := now.Add(time.Duration(rapid.IntRange(-90, 90).Draw(t, "skew")) * time.Second)
			code, err := accounts.TOTPCode(u.TOTP.Secret, at)
			if err != nil {
				t.Fatal(err)
			}
			v, err := u.VerifyTOTP(code, now)
			step := accounts.TOTPStep(at)
			d := step - accounts.TOTPStep(now)
			want := step > u.TOTP.LastStep && d >= -1 && d <= 1
			if (err == nil) != want {
				t.Fatalf("code of step %d at step %d after step %d: err %v", step, accounts.TOTPStep(now), u.TOTP.LastStep, err)
			}
			if err == nil {
				if v.TOTP.LastStep != step {
					t.Fatalf("LastStep %d, want %d", v.TOTP.LastStep, step)
				}
				u = v
			}
		}
	})
}

// TestRapidPasswordRoundTrip: any password hashes and verifies, nothing
// else verifies against it, and NeedsRehash is true exactly for other
// parameters.
func TestRapidPasswordRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pw := rapid.StringN(0, 40, 4*accounts.MaxPasswordLength).Draw(t, "password")
		p := accounts.Params{
			Memory:     uint32(rapid.IntRange(8, 256).Draw(t, "memory")),
			Time:       uint32(rapid.IntRange(1, 2).Draw(t, "time")),
			Threads:    1,
			SaltLength: uint32(rapid.IntRange(8, 64).Draw(t, "salt")),
			KeyLength:  uint32(rapid.IntRange(16, 64).Draw(t, "key")),
		}
		h, err := accounts.HashPassword(pw, p, seeded(rapid.Uint64().Draw(t, "seed")))
		if err != nil {
			t.Fatal(err)
		}
		if !h.Verify(pw) {
			t.Fatalf("%q does not verify against its hash %s", pw, h)
		}
		other := pw + rapid.StringN(1, 3, -1).Draw(t, "suffix")
		if h.Verify(other) {
			t.Fatalf("%q verifies against the hash of %q", other, pw)
		}
		got, err := h.Params()
		if err != nil || got != p {
			t.Fatalf("Params() = %+v, %v; want %+v", got, err, p)
		}
		if h.NeedsRehash(p) {
			t.Fatal("NeedsRehash with the same parameters")
		}
		q := p
		switch rapid.IntRange(0, 4).Draw(t, "raise") {
		case 0:
			q.Memory++
		case 1:
			q.Time++
		case 2:
			q.Threads++
		case 3:
			q.SaltLength++
		case 4:
			q.KeyLength++
		}
		if !h.NeedsRehash(q) {
			t.Fatalf("no rehash from %+v to %+v", p, q)
		}
	})
}
