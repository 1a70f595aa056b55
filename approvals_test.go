package tambala_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// pendingOf is the approval err says the move waits for.
func pendingOf(t *testing.T, err error) tambala.Approval {
	t.Helper()
	require.ErrorIs(t, err, tambala.ErrApprovalPending)
	var pe *tambala.ApprovalPendingError
	require.True(t, errors.As(err, &pe))
	return pe.Approval
}

// TestFourEyes: an operator's funding or deposit above its asset's
// threshold waits for a second staff member with the role; nothing moves
// until then, the requester and the automation never approve, the same
// request again finds the same approval, and two approvers at once
// approve it once.
func TestFourEyes(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		ctx := p.ctx
		bot := p.e.Operator()
		org, err := bot.CreateOrganization(ctx, tambala.NewOrganization{Name: "Big Ltd", Assets: deskAssets(), V2Access: tambala.V2Enabled})
		require.NoError(t, err)
		balance := func(a money.Asset) string {
			t.Helper()
			var b ledger.Balance
			require.NoError(t, s.View(context.Background(), func(tx store.Tx) error {
				var err error
				b, err = ledger.ReadBalance(tx, org.ID, a)
				return err
			}))
			return b.Available.String()
		}
		_, annToken := p.staffMember(t, "ann@operator.example", accounts.StaffOperations)
		_, boToken := p.staffMember(t, "bo@operator.example", accounts.StaffOperations, accounts.StaffSupport)
		_, deskToken := p.staffMember(t, "dee@operator.example", accounts.StaffDesk)
		face := func(token string) *tambala.Operator {
			op, err := p.e.Sessions().Operator(ctx, token)
			require.NoError(t, err)
			return op
		}
		ann, bo, desk := face(annToken), face(boToken), face(deskToken)

		// No threshold: no four-eyes.
		require.NoError(t, ann.Fund(ctx, org.ID, money.FromInt(money.MWK, 5000), "small-1"))
		assert.Equal(t, "5000.00", balance(money.MWK))
		forbidden := ann.Approvals().SetThreshold(ctx, "MWK", money.FromInt(money.MWK, 1000))
		require.NoError(t, forbidden)
		assert.Equal(t, errcode.Forbidden, errcode.Of(desk.Approvals().SetThreshold(ctx, "MWK", money.Amount{})), "desk sets no threshold")
		assert.Equal(t, errcode.ValidationError, errcode.Of(bot.Approvals().SetThreshold(ctx, "MWK", money.FromInt(money.USDT, 1))))
		require.NoError(t, bot.Approvals().SetThreshold(ctx, "USDT", money.FromInt(money.USDT, 10)))
		th, err := bo.Approvals().Thresholds(ctx)
		require.NoError(t, err)
		assert.Equal(t, "1000.00", th["MWK"].String())

		// At the threshold it moves; above it waits.
		require.NoError(t, ann.Fund(ctx, org.ID, money.FromInt(money.MWK, 1000), "at-1"))
		a := pendingOf(t, ann.Fund(ctx, org.ID, money.FromInt(money.MWK, 50_000), "big-1"))
		assert.Equal(t, approvals.Pending, a.Status)
		assert.Equal(t, approvals.Funding, a.Kind)
		assert.Equal(t, "ann@operator.example", a.RequestedBy.Email)
		assert.Equal(t, "6000.00", balance(money.MWK), "nothing moved")
		again := pendingOf(t, ann.Fund(ctx, org.ID, money.FromInt(money.MWK, 50_000), "big-1"))
		assert.Equal(t, a.ID, again.ID, "the same request finds the same approval")
		assert.Equal(t, errcode.Conflict, errcode.Of(bot.Fund(ctx, org.ID, money.FromInt(money.MWK, 50_001), "big-1")))

		// Who may not approve.
		_, err = ann.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrOwnRequest)
		_, err = bot.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrNotStaff)
		_, err = desk.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrWrongRole)
		assert.Equal(t, "6000.00", balance(money.MWK))

		// A second operations member approves: the money moves once.
		done, err := bo.Approvals().Approve(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, approvals.Approved, done.Status)
		assert.Equal(t, "bo@operator.example", done.DecidedBy.Email)
		assert.Equal(t, "56000.00", balance(money.MWK))
		_, err = bo.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrNotPending)
		require.NoError(t, ann.Fund(ctx, org.ID, money.FromInt(money.MWK, 50_000), "big-1"), "the same request after approval replays")
		assert.Equal(t, "56000.00", balance(money.MWK))
		trail, err := p.e.People().AuditTrail(ctx, tambala.PageRequest{Limit: 2}, tambala.AuditFilter{Org: org.ID})
		require.NoError(t, err)
		assert.Equal(t, tambala.AuditApprovalApproved, trail.Items[0].Action)
		assert.Equal(t, tambala.AuditOrgFunded, trail.Items[1].Action)
		assert.Equal(t, "bo@operator.example", trail.Items[1].Actor.Email, "the money's entry names the approver")
		assert.Contains(t, trail.Items[1].Summary, "requested by ann@operator.example")

		// The automation's request waits for staff too; a rejection ends it.
		r := pendingOf(t, bot.Fund(ctx, org.ID, money.FromInt(money.MWK, 2000), "bot-1"))
		assert.Equal(t, approvals.Automation, r.RequestedBy.Kind)
		_, err = bo.Approvals().Reject(ctx, r.ID, " ")
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		rejected, err := bo.Approvals().Reject(ctx, r.ID, "No such transfer arrived.")
		require.NoError(t, err)
		assert.Equal(t, approvals.Rejected, rejected.Status)
		assert.Equal(t, errcode.Conflict, errcode.Of(bot.Fund(ctx, org.ID, money.FromInt(money.MWK, 2000), "bot-1")))
		assert.Equal(t, "56000.00", balance(money.MWK))

		// A deposit recorded by hand above the USDT threshold.
		dep := tambala.Deposit{Network: "tron", Asset: "USDT", Amount: money.FromInt(money.USDT, 25), TxRef: "0xbig"}
		_, err = ann.Desk().RecordDeposit(ctx, org.ID, dep)
		d := pendingOf(t, err)
		assert.Equal(t, approvals.Deposit, d.Kind)
		assert.Equal(t, "0.000000", balance(money.USDT))
		_, err = bo.Approvals().Approve(ctx, d.ID)
		require.NoError(t, err)
		assert.Equal(t, "25.000000", balance(money.USDT))
		c, err := ann.Desk().RecordDeposit(ctx, org.ID, dep)
		require.NoError(t, err, "the same deposit again is its collection")
		assert.Equal(t, "25.000000", c.Resource.Amount.String())
		assert.Equal(t, "25.000000", balance(money.USDT))

		// Lists.
		pending, err := bo.Approvals().List(ctx, approvals.Pending, tambala.PageRequest{})
		require.NoError(t, err)
		assert.Empty(t, pending.Items)
		all, err := bo.Approvals().List(ctx, "", tambala.PageRequest{})
		require.NoError(t, err)
		assert.Len(t, all.Items, 3)

		// Two approvers at once: one approves, the other is conflict, and
		// the money moves once.
		_, carlToken := p.staffMember(t, "carl@operator.example", accounts.StaffOperations)
		carl := face(carlToken)
		race := pendingOf(t, bot.Fund(ctx, org.ID, money.FromInt(money.MWK, 3000), "race-1"))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, op := range []*tambala.Operator{bo, carl} {
			wg.Go(func() { _, errs[i] = op.Approvals().Approve(ctx, race.ID) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				assert.Equal(t, errcode.Conflict, errcode.Of(err), "the loser: %v", err)
			}
		}
		assert.Equal(t, 1, ok)
		assert.Equal(t, "59000.00", balance(money.MWK))
	})
}

// TestFourEyesRefundReturned: the desk's refund returned above the
// threshold waits for a second desk member, and credits once approved.
func TestFourEyesRefundReturned(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		_, annToken := enrolStaff(t, d.e, d.ctx, d.clock, "ann@operator.example", accounts.StaffDesk)
		_, boToken := enrolStaff(t, d.e, d.ctx, d.clock, "bo@operator.example", accounts.StaffDesk)
		_, opsToken := enrolStaff(t, d.e, d.ctx, d.clock, "ops@operator.example", accounts.StaffOperations)
		face := func(token string) *tambala.Operator {
			op, err := d.e.Sessions().Operator(d.ctx, token)
			require.NoError(t, err)
			return op
		}
		ann, bo, ops := face(annToken), face(boToken), face(opsToken)
		require.NoError(t, ops.Approvals().SetThreshold(d.ctx, "USDT", money.FromInt(money.USDT, 10)))

		o := d.toBank(t, "50")
		for _, cmd := range []orders.Command{orders.StartProcessing{}, orders.CoinsSent{}, orders.Fail{Code: orders.NotDelivered}} {
			_, err := ann.Desk().MoveOrder(d.ctx, o.ID, cmd)
			require.NoError(t, err, cmd.Name())
		}
		before := d.balance(t, d.org.ID, money.USDT)
		_, err := ann.Desk().MoveOrder(d.ctx, o.ID, orders.ReturnRefund{})
		a := pendingOf(t, err)
		assert.Equal(t, approvals.RefundReturned, a.Kind)
		assert.Equal(t, "desk", a.Role)
		assert.Equal(t, "50.000000", a.Amount.String())
		assert.Equal(t, before, d.balance(t, d.org.ID, money.USDT), "nothing moved")
		_, err = ops.Approvals().Approve(d.ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrWrongRole, "operations does not approve the desk's refund")
		_, err = ann.Approvals().Approve(d.ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrOwnRequest)
		_, err = bo.Approvals().Approve(d.ctx, a.ID)
		require.NoError(t, err)
		after := d.balance(t, d.org.ID, money.USDT)
		want, err := before.Available.Add(money.FromInt(money.USDT, 50))
		require.NoError(t, err)
		assert.Equal(t, want.String(), after.Available.String())
		got, err := ann.Desk().MoveOrder(d.ctx, o.ID, orders.ReturnRefund{})
		require.NoError(t, err, "made already: the order unchanged")
		assert.Equal(t, orders.RefundReturned, got.Refund.Status)
		d.check(t)
	})
}
