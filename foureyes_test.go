package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// fourEyesEnv is an organization with a payout succeeded and one pending
// at a provider that stopped answering, MWK and USDT thresholds, and two
// operations staff members.
type fourEyesEnv struct {
	w                *workerEnv
	ctx              context.Context
	org              string
	bot, ann, bo     *tambala.Operator
	annToken, boTok  string
	succeeded, stuck string
}

func newFourEyesEnv(t *testing.T) *fourEyesEnv {
	t.Helper()
	ctx := context.Background()
	w, lp := newLosingEnv(t, nil)
	f := &fourEyesEnv{w: w, ctx: ctx, org: w.p.Org.ID, bot: w.engine.Operator()}
	_, err := f.bot.SetAssets(ctx, f.org, deskAssets())
	require.NoError(t, err)
	_, err = f.bot.SetV2Access(ctx, f.org, tambala.V2Enabled)
	require.NoError(t, err)
	f.succeeded = w.payout(t, payouts.Momo, momo("111100000445", 5000))
	f.stuck = w.payout(t, payouts.Momo, momo("111100000445", 4000))
	w.run(t, 1, 0) // both pending at the provider, which stops answering
	lp.mu.Lock()
	lp.down = true
	lp.mu.Unlock()
	p, err := f.bot.BackOffice().ResolvePayout(ctx, f.succeeded, tambala.Resolution{Outcome: payouts.Succeeded, Reason: "paid per statement"})
	require.NoError(t, err)
	require.Equal(t, payouts.Succeeded, p.Status)
	// Before any staff: the thresholds apply at once.
	require.NoError(t, f.bot.Approvals().SetThreshold(ctx, "MWK", money.FromInt(money.MWK, 1000)))
	require.NoError(t, f.bot.Approvals().SetThreshold(ctx, "USDT", money.FromInt(money.USDT, 100)))
	var u tambala.User
	u, f.annToken = enrolStaff(t, w.engine, ctx, w.clock, "ann@operator.example", accounts.StaffOperations)
	_ = u
	_, f.boTok = enrolStaff(t, w.engine, ctx, w.clock, "bo@operator.example", accounts.StaffOperations)
	f.ann, f.bo = f.face(t, f.annToken), f.face(t, f.boTok)
	return f
}

func (f *fourEyesEnv) face(t *testing.T, token string) *tambala.Operator {
	t.Helper()
	op, err := f.w.engine.StaffSessions().Operator(f.ctx, token)
	require.NoError(t, err)
	return op
}

// books is the organization's MWK and USDT balances, available and held.
func (f *fourEyesEnv) books(t *testing.T) string {
	t.Helper()
	var out string
	require.NoError(t, f.w.store.View(f.ctx, func(tx store.Tx) error {
		for _, a := range []money.Asset{money.MWK, money.USDT} {
			b, err := ledger.ReadBalance(tx, f.org, a)
			if err != nil {
				return err
			}
			out += a.String() + " " + b.Available.String() + "/" + b.Held.String() + " "
		}
		return nil
	}))
	return out
}

// TestFourEyesEveryCreditingMove: every operator move that credits an
// organization above its asset's threshold (funding, deposit, OTC trade,
// collection by hand, payout resolved failed, payout clawed back) waits
// as a pending approval whoever asks, the automation or one staff
// member; that same credential cannot approve it, and a second staff
// member's approval makes the move, once.
func TestFourEyesEveryCreditingMove(t *testing.T) {
	f := newFourEyesEnv(t)
	ctx, org := f.ctx, f.org
	mwk := func(n int64) money.Amount { return money.FromInt(money.MWK, n) }
	usdt := func(n int64) money.Amount { return money.FromInt(money.USDT, n) }
	type credential struct {
		name string
		op   *tambala.Operator
		own  error // what approving its own request gives
	}
	bot := credential{"the automation", f.bot, approvals.ErrNotStaff}
	ann := credential{"one staff member", f.ann, approvals.ErrOwnRequest}
	cases := []struct {
		name string
		kind approvals.Kind
		by   credential
		move func(op *tambala.Operator) error
	}{
		{"funding by the token", approvals.Funding, bot, func(op *tambala.Operator) error {
			return op.Fund(ctx, org, mwk(90_000), "fund-big-1")
		}},
		{"funding by staff", approvals.Funding, ann, func(op *tambala.Operator) error {
			return op.Fund(ctx, org, mwk(90_000), "fund-big-2")
		}},
		{"deposit by the token", approvals.Deposit, bot, func(op *tambala.Operator) error {
			_, err := op.Desk().RecordDeposit(ctx, org, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: usdt(5000), TxRef: "0xbig1"})
			return err
		}},
		{"deposit by staff", approvals.Deposit, ann, func(op *tambala.Operator) error {
			_, err := op.Desk().RecordDeposit(ctx, org, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: usdt(5000), TxRef: "0xbig2"})
			return err
		}},
		{"OTC trade by the token", approvals.Trade, bot, func(op *tambala.Operator) error {
			_, err := op.Desk().RecordTrade(ctx, org, tambala.NewTrade{Ref: "otc-big", USDTAmount: usdt(1000), ClientRate: money.MustRate("1750")})
			return err
		}},
		{"OTC trade by staff", approvals.Trade, ann, func(op *tambala.Operator) error {
			_, err := op.Desk().RecordTrade(ctx, org, tambala.NewTrade{Ref: "otc-big-2", USDTAmount: usdt(1000), ClientRate: money.MustRate("1750")})
			return err
		}},
		{"collection by the token", approvals.Collection, bot, func(op *tambala.Operator) error {
			_, err := op.RecordCollection(ctx, org, tambala.NewCollection{Amount: mwk(90_000), RTPReferenceNumber: "rtp-1"})
			return err
		}},
		{"collection by staff", approvals.Collection, ann, func(op *tambala.Operator) error {
			_, err := op.RecordCollection(ctx, org, tambala.NewCollection{Amount: mwk(90_000), RTPReferenceNumber: "rtp-2"})
			return err
		}},
		{"payout resolved failed by the token", approvals.PayoutFailed, bot, func(op *tambala.Operator) error {
			_, err := op.BackOffice().ResolvePayout(ctx, f.stuck, tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined, Reason: "bounced"})
			return err
		}},
		{"payout clawed back by staff", approvals.PayoutClawback, ann, func(op *tambala.Operator) error {
			return op.BackOffice().ClawbackPayout(ctx, f.succeeded)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.books(t)
			a := pendingOf(t, c.move(c.by.op))
			assert.Equal(t, c.kind, a.Kind)
			assert.Equal(t, approvals.Pending, a.Status)
			assert.Equal(t, before, f.books(t), "nothing moved")
			if c.kind != approvals.Collection { // a collection has no reference of its own
				again := pendingOf(t, c.move(c.by.op))
				assert.Equal(t, a.ID, again.ID, "the same request finds the same approval")
			}
			_, err := c.by.op.Approvals().Approve(ctx, a.ID)
			assert.ErrorIs(t, err, c.by.own, "one credential cannot approve its own move")
			assert.Equal(t, before, f.books(t), "nothing moved")

			done, err := f.bo.Approvals().Approve(ctx, a.ID)
			require.NoError(t, err)
			assert.Equal(t, approvals.Approved, done.Status)
			after := f.books(t)
			assert.NotEqual(t, before, after, "the second staff member's approval moved the money")
			_, err = f.bo.Approvals().Approve(ctx, a.ID)
			assert.ErrorIs(t, err, approvals.ErrNotPending)
			assert.Equal(t, after, f.books(t), "once")
		})
	}

	// At or below the threshold nothing waits.
	before := f.books(t)
	_, err := f.bot.Desk().RecordTrade(ctx, org, tambala.NewTrade{Ref: "otc-small", USDTAmount: money.FromInt(money.USDT, 0).Abs(), ClientRate: money.MustRate("1750")})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, err = f.bot.Desk().RecordTrade(ctx, org, tambala.NewTrade{Ref: "otc-small", USDTAmount: mustParse(money.USDT, "0.5"), ClientRate: money.MustRate("1750")})
	require.NoError(t, err, "875 MWK is below the threshold")
	_, err = f.ann.RecordCollection(ctx, org, tambala.NewCollection{Amount: mwk(1000), RTPReferenceNumber: "rtp-small"})
	require.NoError(t, err)
	assert.NotEqual(t, before, f.books(t))

	// A resolution that debits (succeeded) does not wait.
	trail, err := f.w.engine.People().AuditTrail(ctx, tambala.PageRequest{Limit: 100}, tambala.AuditFilter{Org: org})
	require.NoError(t, err)
	names := map[tambala.AuditAction]string{}
	for _, e := range trail.Items {
		if e.Action == tambala.AuditTradeRecorded || e.Action == tambala.AuditPayoutClawedBack || e.Action == tambala.AuditPayoutResolved {
			if _, ok := names[e.Action]; !ok && e.Actor.Email != "" {
				names[e.Action] = e.Actor.Email + " " + e.Summary
			}
		}
	}
	assert.Contains(t, names[tambala.AuditPayoutClawedBack], "bo@operator.example", "the move's entry names the approver")
	assert.Contains(t, names[tambala.AuditPayoutClawedBack], "requested by ann@operator.example")
	assert.Contains(t, names[tambala.AuditPayoutResolved], "requested by automation")
}

// takeOver is the automation taking over staff member id (email): it
// resets their password and TOTP, accepts the reset itself, signs in and
// enrols a second factor; it returns the session's token.
func takeOver(t *testing.T, f *fourEyesEnv, id, email string) string {
	t.Helper()
	e, ctx := f.w.engine, f.ctx
	inv, err := e.People().ResetPassword(ctx, id, 0)
	require.NoError(t, err)
	_, err = e.StaffSessions().AcceptInvitation(ctx, inv.Token, "taken over "+portalPassword)
	require.NoError(t, err)
	_, err = e.People().ResetTOTP(ctx, id)
	require.NoError(t, err)
	r, err := e.StaffSessions().SignIn(ctx, email, "taken over "+portalPassword)
	require.NoError(t, err)
	enrol, err := e.StaffSessions().BeginTOTP(ctx, r.Token)
	require.NoError(t, err)
	code, err := accounts.TOTPCode(enrol.Secret, f.w.clock.Now())
	require.NoError(t, err)
	done, err := e.StaffSessions().ConfirmTOTP(ctx, r.Token, code)
	require.NoError(t, err)
	return done.Session.Token
}

// TestFourEyesNoBypass: the ways around four-eyes with one
// credential each fail: removing or raising a threshold waits for a
// second credential (lowering one applies at once), a staff member the
// automation took over approves nothing until another staff admin
// confirms them, and neither does a staff member the automation invited.
func TestFourEyesNoBypass(t *testing.T) {
	f := newFourEyesEnv(t)
	ctx, org, e := f.ctx, f.org, f.w.engine
	mwk := func(n int64) money.Amount { return money.FromInt(money.MWK, n) }
	threshold := func() string {
		t.Helper()
		th, err := f.bot.Approvals().Thresholds(ctx)
		require.NoError(t, err)
		if v, ok := th["MWK"]; ok {
			return v.String()
		}
		return "none"
	}

	t.Run("removing the threshold", func(t *testing.T) {
		before := f.books(t)
		for _, op := range []*tambala.Operator{f.bot, f.ann} {
			a := pendingOf(t, op.Approvals().SetThreshold(ctx, "MWK", money.Amount{}))
			assert.Equal(t, approvals.ThresholdChange, a.Kind)
			assert.Equal(t, "1000.00", threshold(), "still in force")
			pendingOf(t, op.Fund(ctx, org, mwk(90_000), "after-removal"))
			assert.Equal(t, before, f.books(t))
			_, err := op.Approvals().Reject(ctx, a.ID, "no")
			require.NoError(t, err)
		}
		a := pendingOf(t, f.bot.Approvals().SetThreshold(ctx, "MWK", mwk(1_000_000)))
		assert.Equal(t, "1000.00", threshold(), "raising it waits too")
		again := pendingOf(t, f.bot.Approvals().SetThreshold(ctx, "MWK", mwk(1_000_000)))
		assert.Equal(t, a.ID, again.ID)
		assert.Equal(t, errcode.Conflict, errcode.Of(f.ann.Approvals().SetThreshold(ctx, "MWK", money.Amount{})), "another change waits already")
		_, err := f.bot.Approvals().Reject(ctx, a.ID, "no")
		require.NoError(t, err)

		require.NoError(t, f.ann.Approvals().SetThreshold(ctx, "MWK", mwk(500)), "lowering applies at once")
		assert.Equal(t, "500.00", threshold())
		require.NoError(t, f.ann.Approvals().SetThreshold(ctx, "MWK", mwk(500)), "the same applies at once")

		a = pendingOf(t, f.ann.Approvals().SetThreshold(ctx, "MWK", mwk(1000)))
		_, err = f.ann.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrOwnRequest)
		_, err = f.bo.Approvals().Approve(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, "1000.00", threshold(), "a second staff member's approval applies it")
	})

	t.Run("taking over a staff member", func(t *testing.T) {
		admin, adminToken := enrolStaff(t, e, ctx, f.w.clock, "root@operator.example", accounts.StaffAdmin)
		_ = admin
		before := f.books(t)
		a := pendingOf(t, f.bot.Fund(ctx, org, mwk(33_333), "token-own"))
		users, err := e.People().Users(ctx, "")
		require.NoError(t, err)
		var bo tambala.User
		for _, u := range users {
			if u.Email == "bo@operator.example" {
				bo = u
			}
		}
		require.False(t, bo.ApprovalsSuspended)
		taken := f.face(t, takeOver(t, f, bo.ID, bo.Email))
		_, err = taken.Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrSuspended)
		assert.Equal(t, before, f.books(t), "nothing moved")
		u, err := e.People().User(ctx, bo.ID)
		require.NoError(t, err)
		assert.True(t, u.ApprovalsSuspended)

		// Who may not confirm: the automation, the member themself.
		_, err = e.People().ConfirmStaff(ctx, bo.ID)
		assert.ErrorIs(t, err, approvals.ErrNotStaff)
		adminAcc, err := e.StaffSessions().People(ctx, adminToken)
		require.NoError(t, err)

		// A staff member the automation invites once the store has staff
		// is held too.
		eve, eveToken := enrolStaff(t, e, ctx, f.w.clock, "eve@operator.example", accounts.StaffOperations)
		_, err = f.face(t, eveToken).Approvals().Approve(ctx, a.ID)
		assert.ErrorIs(t, err, approvals.ErrSuspended)
		assert.Equal(t, before, f.books(t))

		// Another staff admin confirms: then they approve.
		_, err = adminAcc.ConfirmStaff(ctx, eve.ID)
		require.NoError(t, err)
		u, err = adminAcc.ConfirmStaff(ctx, bo.ID)
		require.NoError(t, err)
		assert.False(t, u.ApprovalsSuspended)
		_, err = taken.Approvals().Approve(ctx, a.ID)
		require.NoError(t, err)
		assert.NotEqual(t, before, f.books(t))

		// A staff admin who resets a member cannot confirm them.
		adminAcc2, err := e.StaffSessions().People(ctx, adminToken)
		require.NoError(t, err)
		_, err = adminAcc2.ResetTOTP(ctx, eve.ID)
		require.NoError(t, err)
		_, err = adminAcc2.ConfirmStaff(ctx, eve.ID)
		assert.ErrorIs(t, err, approvals.ErrSelfConfirm)

		// Nor one who invited them, after the token reset them too.
		inv, err := adminAcc2.InviteUser(ctx, tambala.InviteUser{Email: "zed@operator.example", StaffRoles: []accounts.StaffRole{accounts.StaffOperations}})
		require.NoError(t, err)
		zed, err := e.StaffSessions().AcceptInvitation(ctx, inv.Token, portalPassword)
		require.NoError(t, err)
		_, err = e.People().ResetTOTP(ctx, zed.ID)
		require.NoError(t, err)
		_, err = adminAcc2.ConfirmStaff(ctx, zed.ID)
		assert.ErrorIs(t, err, approvals.ErrSelfConfirm)
		u, err = e.People().User(ctx, zed.ID)
		require.NoError(t, err)
		assert.True(t, u.ApprovalsSuspended)
	})
}

// TestStaffAdminOwnRolesAndLastAdmin: a staff admin cannot change their
// own roles (another staff admin must), and the last active staff admin
// cannot be disabled, by anyone.
func TestStaffAdminOwnRolesAndLastAdmin(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		ann, annToken := p.staffMember(t, "ann@operator.example", accounts.StaffAdmin)
		annAcc, err := p.e.StaffSessions().People(p.ctx, annToken)
		require.NoError(t, err)
		_, err = annAcc.SetStaffRoles(p.ctx, ann.ID, []accounts.StaffRole{accounts.StaffAdmin, accounts.StaffOperations})
		assert.Equal(t, errcode.Forbidden, errcode.Of(err), "a staff admin grants themself operations")
		_, err = annAcc.DisableUser(p.ctx, ann.ID)
		assert.Equal(t, errcode.Conflict, errcode.Of(err), "the last active staff admin disables themself")
		_, err = p.e.People().DisableUser(p.ctx, ann.ID)
		assert.Equal(t, errcode.Conflict, errcode.Of(err), "the automation disables the last active staff admin")
		u, err := p.e.People().User(p.ctx, ann.ID)
		require.NoError(t, err)
		assert.Equal(t, []accounts.StaffRole{accounts.StaffAdmin}, u.StaffRoles)
		assert.Equal(t, accounts.StatusActive, u.Status)

		// With a second staff admin, that admin changes ann's roles, and
		// ann may leave.
		bo, boToken := p.staffMember(t, "bo@operator.example", accounts.StaffAdmin)
		boAcc, err := p.e.StaffSessions().People(p.ctx, boToken)
		require.NoError(t, err)
		u, err = boAcc.SetStaffRoles(p.ctx, ann.ID, []accounts.StaffRole{accounts.StaffAdmin, accounts.StaffOperations})
		require.NoError(t, err)
		assert.Equal(t, []accounts.StaffRole{accounts.StaffAdmin, accounts.StaffOperations}, u.StaffRoles)
		_, err = annAcc.DisableUser(p.ctx, ann.ID)
		require.NoError(t, err)
		_, err = boAcc.DisableUser(p.ctx, bo.ID)
		assert.Equal(t, errcode.Conflict, errcode.Of(err), "bo is the last one now")
	})
}

// TestFourEyesOneCredentialRapid: one credential alone (the automation,
// or one staff member holding every staff role) makes random moves above
// and below the threshold, changes thresholds, approves and rejects what
// waits, and takes over or invites other staff members to approve with
// them; no approval ever ends approved, the threshold never weakens, and
// every move that completed at once was at most the threshold in force.
func TestFourEyesOneCredentialRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
		e, err := tambala.New(memstore.New(), &tambala.Options{Clock: clock.Now, People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
		require.NoError(rt, err)
		bot := e.Operator()
		o, err := bot.CreateOrganization(ctx, tambala.NewOrganization{Name: "Solo Ltd", Assets: deskAssets(), V2Access: tambala.V2Enabled})
		require.NoError(rt, err)
		require.NoError(rt, bot.Approvals().SetThreshold(ctx, "MWK", money.FromInt(money.MWK, 1000)))
		solo, soloToken := enrolStaff(t, e, ctx, clock, "solo@operator.example",
			accounts.StaffAdmin, accounts.StaffOperations, accounts.StaffDesk, accounts.StaffSupport)
		other, _ := enrolStaff(t, e, ctx, clock, "other@operator.example", accounts.StaffOperations)
		op, acc := bot, e.People()
		if rapid.Bool().Draw(rt, "staff") {
			op, err = e.StaffSessions().Operator(ctx, soloToken)
			require.NoError(rt, err)
			acc, err = e.StaffSessions().People(ctx, soloToken)
			require.NoError(rt, err)
		}
		current := func() money.Amount {
			th, err := bot.Approvals().Thresholds(ctx)
			require.NoError(rt, err)
			return th["MWK"]
		}
		var pending []string
		n := 0
		moved := func(amount money.Amount, err error) {
			var pe *tambala.ApprovalPendingError
			switch {
			case errors.As(err, &pe):
				pending = append(pending, pe.Approval.ID)
			case err == nil:
				th := current()
				require.True(rt, th.IsSet() && amount.Cmp(th) <= 0, "%s moved at once over the threshold %s", amount, th)
			}
		}
		amount := func() money.Amount {
			return money.FromInt(money.MWK, rapid.Int64Range(1, 200_000).Draw(rt, "amount"))
		}
		// approveAs approves a pending approval as the staff member whose
		// session token is given.
		approveAs := func(token string) {
			if len(pending) == 0 {
				return
			}
			face, err := e.StaffSessions().Operator(ctx, token)
			require.NoError(rt, err)
			_, _ = face.Approvals().Approve(ctx, rapid.SampledFrom(pending).Draw(rt, "approval"))
		}
		rt.Repeat(map[string]func(*rapid.T){
			"fund": func(rt *rapid.T) {
				a := amount()
				n++
				moved(a, op.Fund(ctx, o.ID, a, fmt.Sprint("ref-", n)))
			},
			"trade": func(rt *rapid.T) {
				usdt := money.FromInt(money.USDT, rapid.Int64Range(1, 100).Draw(rt, "usdt"))
				n++
				tr, err := op.Desk().RecordTrade(ctx, o.ID, tambala.NewTrade{Ref: fmt.Sprint("otc-", n), USDTAmount: usdt, ClientRate: money.MustRate("1750")})
				moved(money.FromInt(money.MWK, tr.MWKAmount), err)
			},
			"collection": func(rt *rapid.T) {
				a := amount()
				_, err := op.RecordCollection(ctx, o.ID, tambala.NewCollection{Amount: a})
				moved(a, err)
			},
			"threshold": func(rt *rapid.T) {
				var next money.Amount
				if rapid.Bool().Draw(rt, "set") {
					next = amount()
				}
				var pe *tambala.ApprovalPendingError
				if err := op.Approvals().SetThreshold(ctx, "MWK", next); errors.As(err, &pe) {
					pending = append(pending, pe.Approval.ID)
				}
			},
			"approve": func(rt *rapid.T) {
				if len(pending) > 0 {
					_, _ = op.Approvals().Approve(ctx, rapid.SampledFrom(pending).Draw(rt, "approval"))
				}
			},
			"reject": func(rt *rapid.T) {
				if len(pending) > 0 {
					_, _ = op.Approvals().Reject(ctx, rapid.SampledFrom(pending).Draw(rt, "approval"), "no")
				}
			},
			"take over": func(rt *rapid.T) {
				// The credential resets the other member's password and
				// second factor, signs in as them and approves.
				inv, err := acc.ResetPassword(ctx, other.ID, 0)
				require.NoError(rt, err)
				_, err = e.StaffSessions().AcceptInvitation(ctx, inv.Token, "taken "+portalPassword)
				require.NoError(rt, err)
				_, err = acc.ResetTOTP(ctx, other.ID)
				require.NoError(rt, err)
				r, err := e.StaffSessions().SignIn(ctx, other.Email, "taken "+portalPassword)
				require.NoError(rt, err)
				enrol, err := e.StaffSessions().BeginTOTP(ctx, r.Token)
				require.NoError(rt, err)
				code, err := accounts.TOTPCode(enrol.Secret, clock.Now())
				require.NoError(rt, err)
				done, err := e.StaffSessions().ConfirmTOTP(ctx, r.Token, code)
				require.NoError(rt, err)
				_, _ = acc.ConfirmStaff(ctx, other.ID)
				approveAs(done.Session.Token)
			},
			"invite": func(rt *rapid.T) {
				// The credential invites a new staff member, becomes them
				// and approves.
				n++
				email := fmt.Sprintf("new%d@operator.example", n)
				inv, err := acc.InviteUser(ctx, tambala.InviteUser{Email: email, StaffRoles: []accounts.StaffRole{accounts.StaffOperations}})
				require.NoError(rt, err)
				_, err = e.StaffSessions().AcceptInvitation(ctx, inv.Token, portalPassword)
				require.NoError(rt, err)
				r, err := e.StaffSessions().SignIn(ctx, email, portalPassword)
				require.NoError(rt, err)
				enrol, err := e.StaffSessions().BeginTOTP(ctx, r.Token)
				require.NoError(rt, err)
				code, err := accounts.TOTPCode(enrol.Secret, clock.Now())
				require.NoError(rt, err)
				done, err := e.StaffSessions().ConfirmTOTP(ctx, r.Token, code)
				require.NoError(rt, err)
				approveAs(done.Session.Token)
			},
			"own roles": func(rt *rapid.T) {
				_, _ = acc.SetStaffRoles(ctx, solo.ID, []accounts.StaffRole{accounts.StaffOperations})
			},
			"": func(rt *rapid.T) {
				page, err := bot.Approvals().List(ctx, approvals.Approved, tambala.PageRequest{Limit: 10})
				require.NoError(rt, err)
				require.Empty(rt, page.Items, "one credential completed an approval")
				th := current()
				require.True(rt, th.IsSet() && th.Cmp(money.FromInt(money.MWK, 1000)) <= 0, "the threshold weakened to %s", th)
			},
		})
	})
}
