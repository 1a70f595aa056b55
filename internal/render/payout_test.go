package render_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestPayout(t *testing.T) {
	at := time.Date(2026, 11, 21, 17, 52, 40, 925_000_000, time.UTC)
	p := payouts.Payout{ID: "01a1", Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000), Status: payouts.Held, CreatedAt: at,
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}}
	assert.Equal(t, `{"id":"01a1","amount_mwk":"5000.00","fee":null,"rail":"momo","status":"held","destination":{"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chikondi Banda"},"failure":null,"created_at":"2026-11-21T17:52:40.925Z","terminal_at":null}`,
		string(render.Payout(p)))
	p.Rail, p.Destination.MobileNumber, p.Destination.AccountNumber = payouts.Bank, "", "3333888800"
	p.Status = payouts.Pending
	p, _ = p.Fail(payouts.FailureFor("declined"), at)
	assert.Equal(t, `{"id":"01a1","amount_mwk":"5000.00","fee":"0.00","rail":"bank","status":"failed","destination":{"institution_id":101,"account_number":"3333888800","beneficiary_name":"Chikondi Banda"},"failure":{"code":"declined","message":"The provider declined the payout."},"created_at":"2026-11-21T17:52:40.925Z","terminal_at":"2026-11-21T17:52:40.925Z"}`,
		string(render.Payout(p)))
}
