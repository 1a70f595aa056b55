package payouts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestAcceptV1(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	req := payouts.Request{Rail: payouts.Bank, Amount: mwk("1000"),
		Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "A"}}
	fee, err := payouts.DefaultFeeSchedule().Quote(payouts.DirPayout, req.Rail, req.Amount)
	require.NoError(t, err)
	ids := 0
	terms := func() payouts.V1Terms {
		return payouts.V1Terms{NewID: func() string { ids++; return "p1" }, Org: "o", Now: now, MaxPerPayout: mwk("5000"),
			Institutions: payouts.DefaultInstitutions(), Fee: fee,
			Window: payouts.Window{DayVolume: mwk("0"), HourlyCount: 10, DailyVolume: mwk("100000")}}
	}
	for _, c := range []struct {
		name string
		edit func(*payouts.V1Terms)
		code errcode.Code
	}{
		{"above the maximum, before a paused rail", func(t *payouts.V1Terms) { t.MaxPerPayout, t.RailPaused = mwk("999"), true }, errcode.AmountLimitExceeded},
		{"paused rail, before no reference data", func(t *payouts.V1Terms) {
			t.RailPaused, t.NoReference = true, errcode.New(errcode.ServiceUnavailable)
		}, errcode.RailDisabled},
		{"no reference data", func(t *payouts.V1Terms) { t.NoReference = errcode.New(errcode.ServiceUnavailable) }, errcode.ServiceUnavailable},
		{"unknown institution, before the window", func(t *payouts.V1Terms) { t.Institutions, t.Window.HourlyCount = nil, 0 }, errcode.UnknownInstitution},
		{"hourly count", func(t *payouts.V1Terms) { t.Window.HourCount = 10 }, errcode.OrgLimitExceeded},
		{"daily volume", func(t *payouts.V1Terms) { t.Window.DayVolume = mwk("99000.01") }, errcode.OrgLimitExceeded},
	} {
		tm := terms()
		c.edit(&tm)
		_, _, err := payouts.AcceptV1(req, tm)
		assert.Equal(t, c.code, errcode.Of(err), c.name)
	}
	require.Zero(t, ids, "a refused payout takes no id")
	p, hold, err := payouts.AcceptV1(req, terms())
	require.NoError(t, err)
	assert.Equal(t, payouts.Payout{ID: "p1", Org: "o", Rail: payouts.Bank, Amount: req.Amount, HeldFee: fee.Total, Status: payouts.Held,
		Destination: req.Destination, CreatedAt: now, UpdatedAt: now}, p)
	assert.Equal(t, payouts.Hold{EntryID: "payout:p1:hold", HoldID: "payout:p1", Org: "o", Amount: *fee.TotalDebit, Ref: "p1", At: now}, hold)
}

func TestAcceptV2(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	five, err := money.Parse(money.USDT, "5")
	require.NoError(t, err)
	one, err := money.Parse(money.USDT, "1")
	require.NoError(t, err)
	p, hold, err := payouts.AcceptV2(payouts.V2Terms{NewID: func() string { return "p2" }, Org: "o", Now: now,
		Rail: payouts.Wallet, Amount: five, Fee: one})
	require.NoError(t, err)
	assert.Equal(t, "5.000000", p.Amount.String())
	assert.Equal(t, "1.000000", p.HeldFee.String())
	assert.Equal(t, "6.000000", hold.Amount.String())
	assert.Equal(t, payouts.HoldID("p2"), hold.HoldID)
	held, err := p.Held()
	require.NoError(t, err)
	assert.Equal(t, hold.Amount, held)
}

func TestResolutionCheck(t *testing.T) {
	ok := payouts.Resolution{Outcome: payouts.Succeeded, Reason: "  paid per the bank  ", Reference: " FT123 "}
	r, err := ok.Check()
	require.NoError(t, err)
	assert.Equal(t, "paid per the bank", r.Reason)
	assert.Equal(t, "FT123", r.Reference)
	for _, c := range []struct {
		name string
		edit func(*payouts.Resolution)
		msg  string
	}{
		{"no reason", func(r *payouts.Resolution) { r.Reason = " " }, "reason must be 1 to 500 characters."},
		{"long reference", func(r *payouts.Resolution) { r.Reference = strings.Repeat("x", 101) }, "reference must be at most 100 characters."},
		{"fee in USDT", func(r *payouts.Resolution) { r.Fee = money.Zero(money.USDT) }, "fee must be a non-negative MWK amount."},
		{"bad failure code", func(r *payouts.Resolution) { r.Outcome, r.FailureCode = payouts.Failed, "nope" }, "failure_code must be recipient_account_invalid, declined, provider_unavailable or temporarily_unavailable."},
		{"bad outcome", func(r *payouts.Resolution) { r.Outcome = payouts.Held }, "outcome must be succeeded or failed."},
	} {
		r := ok
		c.edit(&r)
		_, err := r.Check()
		assert.Equal(t, c.msg, errcode.Message(err), c.name)
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	_, err = ok.Resolve(payouts.Payout{Status: payouts.Held}, now)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	p, err := ok.Resolve(payouts.Payout{Status: payouts.Submitted}, now)
	require.NoError(t, err)
	assert.Equal(t, payouts.Pending, p.Status)
}
