package tambala_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// TestPortalRapid drives random sign-ins (right and wrong passwords, an
// unknown email, three client addresses), sign-outs, session checks and
// clock moves, and checks after every step: no session is valid after its
// absolute limit or its sign-out, no account from one address (since its
// last successful sign-in from there), no account from every address
// (since its last successful sign-in) and no address is admitted more
// failures in a window than its policy allows, and the ledger is
// untouched.
func TestPortalRapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := 0
		rapid.Check(t, func(rt *rapid.T) {
			if cases++; cases > rapidCases(name) {
				return
			}
			s := open()
			defer s.Close()
			portalProperty(rt, s)
		})
	})
}

type rapidSession struct {
	token      string
	signedInAt time.Time
	signedOut  bool
}

func portalProperty(rt *rapid.T, s store.Store) {
	p := newPortalEnv(rt, s)
	portal := p.e.Sessions()
	emails := []string{"ada@example.com", "bob@example.com", "eve@example.com"}
	p.person(rt, p.org, emails[0])
	p.person(rt, p.org, emails[1])
	addrs := []string{"192.0.2.1", "198.51.100.2", "2001:db8::7"}
	accountFails := map[string][]time.Time{} // by email
	pairFails := map[string][]time.Time{}    // by email NUL address key
	addrFails := map[string][]time.Time{}
	var sessions []*rapidSession

	inWindow := func(ts []time.Time, w time.Duration) int {
		n := 0
		for _, t := range ts {
			if t.After(p.clock.Now().Add(-w)) {
				n++
			}
		}
		return n
	}
	rt.Repeat(map[string]func(*rapid.T){
		"signIn": func(rt *rapid.T) {
			email := rapid.SampledFrom(emails).Draw(rt, "email")
			addr := rapid.SampledFrom(addrs).Draw(rt, "addr")
			pw := portalPassword
			if !rapid.Bool().Draw(rt, "right") {
				pw = "a wrong password"
			}
			r, err := portal.SignIn(p.from(addr), email, pw)
			key := accounts.AddressKey(netip.MustParseAddr(addr))
			pair := email + "\x00" + key
			switch {
			case err == nil:
				accountFails[email], pairFails[pair] = nil, nil
				sessions = append(sessions, &rapidSession{token: r.Token, signedInAt: p.clock.Now()})
			case errors.Is(err, accounts.ErrInvalidCredentials):
				now := p.clock.Now()
				accountFails[email] = append(accountFails[email], now)
				pairFails[pair] = append(pairFails[pair], now)
				addrFails[key] = append(addrFails[key], now)
				if n := inWindow(pairFails[pair], accounts.AccountPolicy.Window); n > accounts.AccountPolicy.MaxFailures {
					rt.Fatalf("%s from %s: %d failures admitted in a window", email, key, n)
				}
				if n := inWindow(accountFails[email], accounts.AccountCapPolicy.Window); n > accounts.AccountCapPolicy.MaxFailures {
					rt.Fatalf("%s: %d failures admitted in a window", email, n)
				}
				if n := inWindow(addrFails[key], accounts.AddressPolicy.Window); n > accounts.AddressPolicy.MaxFailures {
					rt.Fatalf("%s: %d failures admitted in a window", key, n)
				}
			case errors.Is(err, accounts.ErrThrottled):
			default:
				rt.Fatalf("sign-in: %v", err)
			}
		},
		"signOut": func(rt *rapid.T) {
			if len(sessions) == 0 {
				rt.Skip("no session")
			}
			ss := rapid.SampledFrom(sessions).Draw(rt, "session")
			if err := portal.SignOut(p.ctx, ss.token); err != nil {
				rt.Fatalf("sign-out: %v", err)
			}
			ss.signedOut = true
		},
		"session": func(rt *rapid.T) {
			if len(sessions) == 0 {
				rt.Skip("no session")
			}
			ss := rapid.SampledFrom(sessions).Draw(rt, "session")
			_, err := portal.Session(p.ctx, ss.token)
			if err == nil && (ss.signedOut || !p.clock.Now().Before(ss.signedInAt.Add(accounts.AbsoluteTimeout))) {
				rt.Fatalf("a session signed in at %s, signed out %t, is valid at %s", ss.signedInAt, ss.signedOut, p.clock.Now())
			}
			if err != nil && !errors.Is(err, accounts.ErrSessionExpired) && !errors.Is(err, accounts.ErrSessionEnded) {
				rt.Fatalf("session: %v", err)
			}
		},
		"advance": func(rt *rapid.T) {
			d := rapid.SampledFrom([]time.Duration{time.Second, time.Minute, 10 * time.Minute, 29 * time.Minute,
				2 * time.Hour, 6 * time.Hour}).Draw(rt, "d")
			p.clock.Advance(d)
		},
	})
	if err := ledger.CheckStore(p.ctx, s); err != nil {
		rt.Fatal(err)
	}
}
