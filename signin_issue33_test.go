package tambala_test

import (
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// TestSignInLockIsPerAddress (#33): an outsider who knows an email and
// fails from their own address locks only that address out of the
// account; the owner's right password from another address signs in,
// and the outsider stays locked.
func TestSignInLockIsPerAddress(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		p.person(t, p.org, "ada@example.com")
		attacker := p.from("203.0.113.9")
		for range 3 * accounts.AccountPolicy.MaxFailures {
			_, err := portal.SignIn(attacker, "ada@example.com", "wrong password here")
			require.Error(t, err)
		}
		_, err := portal.SignIn(attacker, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrThrottled, "the guessing address stays locked")
		r, err := portal.SignIn(p.from("198.51.100.7"), "ada@example.com", portalPassword)
		require.NoError(t, err, "the owner, elsewhere, is not locked out")
		assert.Equal(t, accounts.StageSignedIn, r.Stage)
	})
}

// TestSignInLockCap: failures from many addresses together lock the
// account for every address once AccountCapPolicy's are reached, so no
// more than it admits are ever checked in its window (ASVS 2.2.1).
func TestSignInLockCap(t *testing.T) {
	p := newPortalEnv(t, memstore.New())
	portal := p.e.Sessions()
	p.person(t, p.org, "ada@example.com")
	failed, addr := 0, 0
	for failed < accounts.AccountCapPolicy.MaxFailures {
		from := p.from(fmt.Sprintf("198.18.%d.%d", addr/200, addr%200+1))
		addr++
		for range accounts.AccountPolicy.MaxFailures {
			_, err := portal.SignIn(from, "ada@example.com", "wrong password here")
			if errors.Is(err, accounts.ErrInvalidCredentials) {
				failed++
			}
		}
	}
	assert.Equal(t, accounts.AccountCapPolicy.MaxFailures, failed)
	_, err := portal.SignIn(p.from("192.0.2.200"), "ada@example.com", portalPassword)
	require.ErrorIs(t, err, accounts.ErrThrottled, "the cap locks every address")
	p.clock.Advance(accounts.AccountCapPolicy.Window)
	_, err = portal.SignIn(p.from("192.0.2.200"), "ada@example.com", portalPassword)
	require.NoError(t, err)
}

// TestStaffSignInApart (#33): at Portal a staff member is an email no
// user has (one dummy verification, the same answer, no audit entry, and
// the throttles of the organizations' namespace), so failures there never
// lock the staff member at StaffPortal; and StaffPortal answers an
// organization's user alike.
func TestStaffSignInApart(t *testing.T) {
	p := newPortalEnv(t, memstore.New())
	var hashes atomic.Int32
	tambala.SetPasswordWorkHook(p.e, func() { hashes.Add(1) })
	inv, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Email: "desk@operator.example", StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	require.NoError(t, err)
	_, err = p.e.StaffSessions().AcceptInvitation(p.ctx, inv.Token, portalPassword)
	require.NoError(t, err)
	p.person(t, p.org, "ada@example.com")

	_, unknown := p.e.Sessions().SignIn(p.ctx, "nobody@operator.example", portalPassword)
	before := hashes.Load()
	_, err = p.e.Sessions().SignIn(p.ctx, "desk@operator.example", portalPassword)
	require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
	assert.Equal(t, unknown.Error(), err.Error())
	assert.Equal(t, before+1, hashes.Load(), "one (dummy) verification, as for an unknown email")
	for range 3 * accounts.AccountPolicy.MaxFailures {
		_, err = p.e.Sessions().SignIn(p.ctx, "desk@operator.example", "wrong password here")
		require.Error(t, err)
	}
	require.ErrorIs(t, err, accounts.ErrThrottled, "throttled at the portal as an unknown email is")
	r, err := p.e.StaffSessions().SignIn(p.ctx, "desk@operator.example", portalPassword)
	require.NoError(t, err, "the staff member signs in at the console, from the same address")
	assert.Equal(t, accounts.StageEnrolTOTP, r.Stage)
	for _, a := range p.actions(t, "") {
		assert.NotContains(t, []tambala.AuditAction{tambala.AuditSignInFailed, tambala.AuditLockedOut}, a)
	}

	_, err = p.e.StaffSessions().SignIn(p.ctx, "ada@example.com", portalPassword)
	require.ErrorIs(t, err, accounts.ErrInvalidCredentials, "an organization's user at the console")
	// A staff session is no session at the portal's second factor.
	_, err = p.e.Sessions().SecondFactor(p.ctx, r.Token, "000000")
	require.ErrorIs(t, err, accounts.ErrSessionUnknown)
}

// heapBytes reads the bytes of the heap's objects, live or not yet
// swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestSignInFlood (#33): 200 sign-ins at once from one address, with
// accounts.DefaultParams (19 MiB a hash): never more hashes run than
// MaxInFlight, every attempt beyond the address's share of slots and
// queue is refused at once (rate_limited, ErrBusy) without hashing, and
// the heap never grows past the documented bound.
func TestSignInFlood(t *testing.T) {
	s := memstore.New()
	defer s.Close()
	e, err := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.DefaultParams}})
	require.NoError(t, err)
	o := tambala.PasswordWorkOptions{MaxInFlight: 2, MaxWaiting: 8, PerAddress: 6, PerAccount: 2}
	tambala.SetPasswordWork(e, o)
	// The hashes that take a slot wait until every attempt the limiter
	// does not hold (running or queued) has been answered, so the count
	// of refusals does not depend on how fast hashes run; one beyond the
	// limit (none should be) goes on at once and is counted.
	const attempts = 200
	var inFlight, peak, hashed, answered atomic.Int32
	release := make(chan struct{})
	tambala.SetPasswordHashHook(e, func() func() {
		hashed.Add(1)
		n := inFlight.Add(1)
		for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
		}
		if n <= int32(o.MaxInFlight) {
			<-release
		}
		return func() { inFlight.Add(-1) }
	})

	runtime.GC()
	base := heapBytes()
	var maxHeap atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h := heapBytes(); h > maxHeap.Load() {
				maxHeap.Store(h)
			}
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	}()

	ctx := tambala.WithRequestInfo(t.Context(), tambala.RequestInfo{Address: netip.MustParseAddr("203.0.113.9")})
	var busy, failed, other atomic.Int32
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() {
			_, err := e.Sessions().SignIn(ctx, fmt.Sprintf("guess%d@example.net", i), "wrong password here")
			if answered.Add(1) == attempts-int32(o.PerAddress) {
				close(release)
			}
			switch {
			case errors.Is(err, accounts.ErrBusy):
				assert.Equal(t, errcode.RateLimited, errcode.Of(err))
				busy.Add(1)
			case errors.Is(err, accounts.ErrInvalidCredentials):
				failed.Add(1)
			case errors.Is(err, accounts.ErrThrottled):
				other.Add(1)
			default:
				t.Errorf("sign-in %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled

	assert.LessOrEqual(t, peak.Load(), int32(o.MaxInFlight), "hashes in flight")
	assert.Equal(t, int32(o.PerAddress), hashed.Load(), "hashed: the address's share, running or queued")
	assert.Equal(t, hashed.Load(), failed.Load(), "only the attempts answered after a check were hashed")
	assert.Equal(t, int32(attempts-o.PerAddress), busy.Load(), "the rest refused at once")
	assert.Zero(t, other.Load())
	// The bound of PasswordWorkOptions: MaxInFlight hashes of Memory KiB
	// each live, as much again of garbage before the collector runs (it
	// lets the heap double, GOGC=100) and once more of hashes started
	// while it runs, above twice what the heap held before, plus a margin
	// for the attempts' own small objects.
	hash := uint64(accounts.DefaultParams.Memory) << 10
	bound := 2*base + 3*uint64(o.MaxInFlight)*hash + 32<<20
	assert.LessOrEqual(t, maxHeap.Load(), bound, "peak heap %d MiB, bound %d MiB", maxHeap.Load()>>20, bound>>20)
	t.Logf("peak heap %d MiB (before %d MiB, bound %d MiB); %d hashed, %d refused at once", maxHeap.Load()>>20, base>>20, bound>>20, hashed.Load(), busy.Load())
}
