package tambala_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// updateCounter is a store that counts its write transactions.
type updateCounter struct {
	store.Store
	n atomic.Int64
}

func (s *updateCounter) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.n.Add(1)
	return s.Store.Update(ctx, fn)
}

// writes runs f and returns how many write transactions it made.
func (s *updateCounter) writes(f func()) int64 {
	before := s.n.Load()
	f()
	return s.n.Load() - before
}

// A staff member's order move through a session (Portal.Operator, then
// Desk.MoveOrder) is one write transaction: the session, the user
// and the role are checked inside the move's own, which extends the
// session too.
func TestSessionOrderMoveIsOneWrite(t *testing.T) {
	s := &updateCounter{Store: memstore.New()}
	d := newDeskEnv(t, s, nil)
	_, token := enrolStaff(t, d.e, d.ctx, d.clock, "desk@operator.example", accounts.StaffDesk)
	o := d.toBank(t, "10")
	d.clock.Advance(20 * time.Minute)
	n := s.writes(func() {
		op, err := d.e.StaffSessions().Operator(d.ctx, token)
		require.NoError(t, err)
		moved, err := op.Desk().MoveOrder(d.ctx, o.ID, orders.StartProcessing{})
		require.NoError(t, err)
		require.Equal(t, orders.Processing, moved.Status)
	})
	t.Logf("Portal.Operator + Operator.MoveOrder: %d write transactions", n)
	require.EqualValues(t, 1, n)
	// The move extended the session: 20 minutes on, past the idle limit of
	// the sign-in, it is live.
	d.clock.Advance(20 * time.Minute)
	_, err := d.e.StaffSessions().Session(d.ctx, token)
	require.NoError(t, err, "the move extended the session")
}

// An organization admin's key creation through a session (Portal.Admin,
// then OrgAdmin.CreateKey) is one write transaction.
func TestSessionKeyCreationIsOneWrite(t *testing.T) {
	s := &updateCounter{Store: memstore.New()}
	p := newPortalEnv(t, s)
	p.person(t, p.org, "ada@example.com")
	token := p.signIn(t, "ada@example.com").Token
	p.clock.Advance(20 * time.Minute)
	n := s.writes(func() {
		a, err := p.e.Sessions().Admin(p.ctx, token)
		require.NoError(t, err)
		_, key, err := a.CreateKey(p.ctx)
		require.NoError(t, err)
		require.True(t, key.Active())
	})
	t.Logf("Portal.Admin + OrgAdmin.CreateKey: %d write transactions", n)
	require.EqualValues(t, 1, n)
	p.clock.Advance(20 * time.Minute)
	_, err := p.e.Sessions().Session(p.ctx, token)
	require.NoError(t, err, "the key's creation extended the session")
}

// A call refused for its staff role, and a change that fails, extend the
// session as a call that succeeds does; a call refused because the
// organization is suspended does not.
func TestSessionExtendedByRefusedCalls(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	_, support := enrolStaff(t, d.e, d.ctx, d.clock, "support@operator.example", accounts.StaffSupport)
	o := d.toBank(t, "10")
	live := func(token, why string) {
		t.Helper()
		d.clock.Advance(20 * time.Minute)
		_, err := d.e.StaffSessions().Session(d.ctx, token)
		require.NoError(t, err, why)
	}

	d.clock.Advance(20 * time.Minute)
	op, err := d.e.StaffSessions().Operator(d.ctx, support)
	require.NoError(t, err)
	_, err = op.Desk().MoveOrder(d.ctx, o.ID, orders.StartProcessing{})
	requireCode(t, errcode.Forbidden, err)
	live(support, "a move refused for the role extended the session")

	_, desk := enrolStaff(t, d.e, d.ctx, d.clock, "desk@operator.example", accounts.StaffDesk)
	d.clock.Advance(20 * time.Minute)
	op, err = d.e.StaffSessions().Operator(d.ctx, desk)
	require.NoError(t, err)
	_, err = op.Desk().MoveOrder(d.ctx, o.ID, orders.Complete{})
	requireCode(t, errcode.Conflict, err)
	live(desk, "a move the order does not allow extended the session")

	p := newPortalEnv(t, memstore.New())
	p.person(t, p.org, "ada@example.com")
	token := p.signIn(t, "ada@example.com").Token
	a, err := p.e.Sessions().Admin(p.ctx, token)
	require.NoError(t, err)
	_, err = p.e.Operator().SetOrganizationStatus(p.ctx, p.org, tambala.OrgSuspended)
	require.NoError(t, err)
	p.clock.Advance(20 * time.Minute)
	_, _, err = a.CreateKey(p.ctx)
	requireCode(t, errcode.Forbidden, err)
	p.clock.Advance(20 * time.Minute)
	_, err = p.e.Sessions().Session(p.ctx, token)
	require.ErrorIs(t, err, accounts.ErrSessionExpired, "a call refused for the suspension extended the session")
}

// Portal.Changing checks a request's session without a write: a change
// made with its context extends the session inside its own transaction,
// and end extends it when no change did.
func TestPortalChanging(t *testing.T) {
	s := &updateCounter{Store: memstore.New()}
	p := newPortalEnv(t, s)
	p.person(t, p.org, "ada@example.com")
	token := p.signIn(t, "ada@example.com").Token

	// A form refused before any change: end extends the session.
	p.clock.Advance(20 * time.Minute)
	n := s.writes(func() {
		_, si, end, err := p.e.Sessions().Changing(p.ctx, token)
		require.NoError(t, err)
		require.Equal(t, "ada@example.com", si.User.Email)
		require.Equal(t, p.clock.Now().Add(accounts.IdleTimeout), si.Session.ExpiresAt)
		end()
		end()
	})
	require.EqualValues(t, 1, n, "end extends the session once")
	p.clock.Advance(20 * time.Minute)

	// A key created with the request's context: one write transaction,
	// which extends the session.
	n = s.writes(func() {
		ctx, _, end, err := p.e.Sessions().Changing(p.ctx, token)
		require.NoError(t, err)
		defer end()
		a, err := p.e.Sessions().Admin(ctx, token)
		require.NoError(t, err)
		_, _, err = a.CreateKey(ctx)
		require.NoError(t, err)
	})
	require.EqualValues(t, 1, n)
	p.clock.Advance(20 * time.Minute)
	_, err := p.e.Sessions().Session(p.ctx, token)
	require.NoError(t, err, "the change extended the session")

	// A session past its idle limit is refused, with nothing written.
	p.clock.Advance(accounts.IdleTimeout + time.Minute)
	n = s.writes(func() {
		_, _, end, err := p.e.Sessions().Changing(p.ctx, token)
		require.ErrorIs(t, err, accounts.ErrSessionExpired)
		end()
	})
	require.EqualValues(t, 0, n)
}
