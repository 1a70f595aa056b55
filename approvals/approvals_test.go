package approvals_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

var t0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

func TestNeeded(t *testing.T) {
	mwk := func(n int64) money.Amount { return money.FromInt(money.MWK, n) }
	tests := []struct {
		name              string
		threshold, amount money.Amount
		want              bool
	}{
		{"no threshold", money.Amount{}, mwk(1_000_000_000), false},
		{"below", mwk(1000), mwk(999), false},
		{"at the threshold", mwk(1000), mwk(1000), false},
		{"above", mwk(1000), mwk(1001), true},
		{"another asset's threshold", money.FromInt(money.USDT, 1), mwk(1_000_000), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, approvals.Needed(tt.threshold, tt.amount), tt.name)
	}
}

func TestDecide(t *testing.T) {
	ann := approvals.Party{Kind: approvals.Staff, UserID: "usr_ann", Email: "ann@op.example"}
	bo := approvals.Party{Kind: approvals.Staff, UserID: "usr_bo", Email: "bo@op.example"}
	bot := approvals.Party{Kind: approvals.Automation}
	fund := func(by approvals.Party) approvals.Approval {
		return approvals.New("apr_1", approvals.Funding, "org_1", money.FromInt(money.MWK, 5000), "ref-1", "operations", nil, by, t0)
	}
	ops := []string{"operations"}
	tests := []struct {
		name  string
		a     approvals.Approval
		by    approvals.Party
		roles []string
		code  errcode.Code
		cause error
	}{
		{"a second staff member with the role", fund(ann), bo, ops, "", nil},
		{"the automation's request, by staff", fund(bot), ann, ops, "", nil},
		{"the requester", fund(ann), ann, ops, errcode.Forbidden, approvals.ErrOwnRequest},
		{"the automation", fund(ann), bot, nil, errcode.Forbidden, approvals.ErrNotStaff},
		{"staff without the role", fund(ann), bo, []string{"desk", "support"}, errcode.Forbidden, approvals.ErrWrongRole},
	}
	for _, tt := range tests {
		got, err := tt.a.Approve(tt.by, tt.roles, t0.Add(time.Minute))
		if tt.code != "" {
			assert.Equal(t, tt.code, errcode.Of(err), tt.name)
			assert.ErrorIs(t, err, tt.cause, tt.name)
			assert.Equal(t, approvals.Pending, got.Status, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, approvals.Approved, got.Status, tt.name)
		assert.Equal(t, tt.by, got.DecidedBy, tt.name)
		_, err = got.Approve(tt.by, tt.roles, t0)
		assert.ErrorIs(t, err, approvals.ErrNotPending, "approved once")
		_, err = got.Reject(bot, nil, "late", t0)
		assert.ErrorIs(t, err, approvals.ErrNotPending, "no rejection after approval")
	}

	// Rejections: the requester may withdraw, the automation may reject,
	// a reason is needed.
	r, err := fund(ann).Reject(ann, ops, " changed my mind ", t0)
	require.NoError(t, err)
	assert.Equal(t, approvals.Rejected, r.Status)
	assert.Equal(t, "changed my mind", r.Reason)
	_, err = fund(ann).Reject(bot, nil, "duplicate", t0)
	require.NoError(t, err)
	_, err = fund(ann).Reject(bo, ops, "  ", t0)
	assert.ErrorIs(t, err, approvals.ErrReason)
	_, err = fund(ann).Reject(bo, []string{"support"}, "no", t0)
	assert.ErrorIs(t, err, approvals.ErrWrongRole)

	// The same request again, or another under its key.
	a := fund(ann)
	require.NoError(t, a.Same(approvals.Funding, "org_1", money.FromInt(money.MWK, 5000)))
	assert.ErrorIs(t, a.Same(approvals.Funding, "org_1", money.FromInt(money.MWK, 5001)), approvals.ErrDifferentAsk)
	assert.ErrorIs(t, a.Same(approvals.Funding, "org_2", money.FromInt(money.MWK, 5000)), approvals.ErrDifferentAsk)
}

func TestWeakens(t *testing.T) {
	mwk := func(n int64) money.Amount { return money.FromInt(money.MWK, n) }
	tests := []struct {
		name       string
		prev, next money.Amount
		want       bool
	}{
		{"a first threshold", money.Amount{}, mwk(1000), false},
		{"none stays none", money.Amount{}, money.Amount{}, false},
		{"removed", mwk(1000), money.Amount{}, true},
		{"raised", mwk(1000), mwk(1001), true},
		{"the same", mwk(1000), mwk(1000), false},
		{"lowered", mwk(1000), mwk(999), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, approvals.Weakens(tt.prev, tt.next), tt.name)
	}
}

func TestHoldConfirm(t *testing.T) {
	held := approvals.Party{Kind: approvals.Staff, UserID: "usr_bo", Email: "bo@op.example"}
	ann := approvals.Party{Kind: approvals.Staff, UserID: "usr_ann", Email: "ann@op.example"}
	cy := approvals.Party{Kind: approvals.Staff, UserID: "usr_cy", Email: "cy@op.example"}
	bot := approvals.Party{Kind: approvals.Automation}
	byBot := approvals.Hold{UserID: held.UserID, Email: held.Email, Cause: "password_reset", By: bot, At: t0}
	byAnn := approvals.Hold{UserID: held.UserID, Email: held.Email, Cause: "invitation", By: ann, At: t0}
	admin := []string{"admin"}
	tests := []struct {
		name   string
		h      approvals.Hold
		by     approvals.Party
		roles  []string
		byHeld bool
		cause  error
	}{
		{"another staff admin", byBot, ann, admin, false, nil},
		{"a staff admin other than who reset them", byAnn, cy, admin, false, nil},
		{"the automation", byBot, bot, nil, false, approvals.ErrNotStaff},
		{"staff without the admin role", byBot, ann, []string{"operations"}, false, approvals.ErrWrongRole},
		{"the member held", byBot, held, admin, false, approvals.ErrSelfConfirm},
		{"who reset them", byAnn, ann, admin, false, approvals.ErrSelfConfirm},
		{"a held admin", byBot, ann, admin, true, approvals.ErrSuspended},
	}
	for _, tt := range tests {
		err := tt.h.Confirm(tt.by, tt.roles, tt.byHeld)
		if tt.cause == nil {
			assert.NoError(t, err, tt.name)
			continue
		}
		assert.ErrorIs(t, err, tt.cause, tt.name)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err), tt.name)
	}
}

func TestReplay(t *testing.T) {
	ann := approvals.Party{Kind: approvals.Staff, UserID: "usr_ann", Email: "ann@op.example"}
	bo := approvals.Party{Kind: approvals.Staff, UserID: "usr_bo", Email: "bo@op.example"}
	amt := money.FromInt(money.MWK, 5000)
	pending := approvals.New("apr_1", approvals.Deposit, "org_1", amt, "k", "operations", nil, ann, t0)
	approved, err := pending.Approve(bo, []string{"operations"}, t0.Add(time.Minute))
	require.NoError(t, err)
	rejected, err := pending.Reject(bo, []string{"operations"}, "no such deposit", t0.Add(time.Minute))
	require.NoError(t, err)

	wait, err := pending.Replay(approvals.Deposit, "org_1", amt)
	assert.True(t, wait)
	assert.NoError(t, err)
	wait, err = approved.Replay(approvals.Deposit, "org_1", amt)
	assert.False(t, wait)
	assert.NoError(t, err, "approved: the move was made, the caller answers as it did")
	_, err = rejected.Replay(approvals.Deposit, "org_1", amt)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.Contains(t, err.Error(), "no such deposit")
	_, err = pending.Replay(approvals.Deposit, "org_1", money.FromInt(money.MWK, 5001))
	assert.ErrorIs(t, err, approvals.ErrDifferentAsk)
}

func TestCheckThreshold(t *testing.T) {
	assert.NoError(t, approvals.CheckThreshold(money.MWK, money.Amount{}), "none")
	assert.NoError(t, approvals.CheckThreshold(money.MWK, money.FromInt(money.MWK, 1)))
	for name, th := range map[string]money.Amount{
		"zero":          money.FromInt(money.MWK, 0),
		"negative":      money.FromInt(money.MWK, -1),
		"another asset": money.FromInt(money.USDT, 1),
	} {
		assert.Equal(t, errcode.ValidationError, errcode.Of(approvals.CheckThreshold(money.MWK, th)), name)
	}
}
