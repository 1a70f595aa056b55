package codec_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// render.Payout(PayoutFromRendering(b)) is b for every rendering.
func TestPayoutFromRenderingRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 123e6, time.UTC)
	fee := money.FromInt(money.MWK, 282)
	f := payouts.FailureFor("declined")
	for _, p := range []payouts.Payout{
		{ID: "p1", Rail: payouts.Bank, Amount: money.FromUnits(money.MWK, 500050), Status: payouts.Held, CreatedAt: at,
			Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "Ünïcode"}},
		{ID: "p2", Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 1), Fee: &fee, Status: payouts.Succeeded, CreatedAt: at, TerminalAt: &at,
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "W"}},
		{ID: "p3", Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 1), Fee: &fee, Status: payouts.Failed, Failure: &f, CreatedAt: at, TerminalAt: &at,
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "W"}},
	} {
		b := render.Payout(p)
		got, err := codec.PayoutFromRendering(b)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(render.Payout(got)))
	}
	_, err := codec.PayoutFromRendering([]byte(`{"amount_mwk":"x"}`))
	assert.Error(t, err)
}
