package orders_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

type golden struct {
	name string
	o    orders.Order
	want string
}

func goldenOrders(t *testing.T) []golden {
	tb, fb := newOrder(t, toBankParams()), newOrder(t, fromBankParams())
	nb := toBankParams()
	nb.ID, nb.ClientRef = "0195f000-0000-7000-8000-000000000003", "Ref <&> \"q\" é"
	nb.Beneficiary = &orders.Beneficiary{Name: "A & B", BankName: "Bank", AccountNumber: " 00 12 "}
	at := t0.Add(90*time.Minute + 123*time.Millisecond)
	proof := orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "application/pdf", Size: 1000}
	return []golden{
		{"to-bank accepted", tb,
			`{"id":"0195f000-0000-7000-8000-000000000001","client_ref":"inv-42","from_asset":"USDT","from_amount":"123.456789","to_asset":"MWK","to_amount":"216111.10","rate":"1750.5","status":"accepted","failure":null,"beneficiary":{"name":"Chikondi Banda","bank_name":"National Bank of Malawi","account_number":"1000123456","branch":"Blantyre"},"proofs":{},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T09:30:00.000Z"}`},
		{"to-bank refund pending", run(t, newOrder(t, nb), at, orders.StartProcessing{}, orders.CoinsSent{}, orders.Fail{Code: orders.NotDelivered}),
			`{"id":"0195f000-0000-7000-8000-000000000003","client_ref":"Ref \u003c\u0026\u003e \"q\" é","from_asset":"USDT","from_amount":"123.456789","to_asset":"MWK","to_amount":"216111.10","rate":"1750.5","status":"failed","failure":{"code":"not_delivered","message":"The payment could not be delivered."},"refund":{"status":"pending"},"beneficiary":{"name":"A \u0026 B","bank_name":"Bank","account_number":" 00 12 "},"proofs":{},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T11:02:00.123Z"}`},
		{"to-bank refund returned", run(t, newOrder(t, nb), at, orders.StartProcessing{}, orders.CoinsSent{}, orders.Fail{Code: orders.BeneficiaryRejected}, orders.ReturnRefund{}),
			`{"id":"0195f000-0000-7000-8000-000000000003","client_ref":"Ref \u003c\u0026\u003e \"q\" é","from_asset":"USDT","from_amount":"123.456789","to_asset":"MWK","to_amount":"216111.10","rate":"1750.5","status":"failed","failure":{"code":"beneficiary_rejected","message":"The beneficiary's bank rejected the payment."},"refund":{"status":"returned"},"beneficiary":{"name":"A \u0026 B","bank_name":"Bank","account_number":" 00 12 "},"proofs":{},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T11:03:00.123Z"}`},
		{"to-bank failed before coins", run(t, tb, at, orders.Fail{Code: orders.UnableToFill}),
			`{"id":"0195f000-0000-7000-8000-000000000001","client_ref":"inv-42","from_asset":"USDT","from_amount":"123.456789","to_asset":"MWK","to_amount":"216111.10","rate":"1750.5","status":"failed","failure":{"code":"unable_to_fill","message":"The desk could not fill the order."},"beneficiary":{"name":"Chikondi Banda","bank_name":"National Bank of Malawi","account_number":"1000123456","branch":"Blantyre"},"proofs":{},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T11:00:00.123Z"}`},
		{"from-bank awaiting instructions", fb,
			`{"id":"0195f000-0000-7000-8000-000000000002","client_ref":"topup-7","from_asset":"MWK","from_amount":"100000.00","to_asset":"USDT","to_amount":"55.555556","rate":"1800","status":"awaiting_instructions","failure":null,"proofs":{},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T09:30:00.000Z"}`},
		{"from-bank proof rejected", run(t, fb, at, instr, proof, orders.RejectProof{ProofID: "p1", Reason: "The amount does not match."}),
			`{"id":"0195f000-0000-7000-8000-000000000002","client_ref":"topup-7","from_asset":"MWK","from_amount":"100000.00","to_asset":"USDT","to_amount":"55.555556","rate":"1800","status":"awaiting_funds","failure":null,"funding":{"bank_name":"Desk Bank","account_name":"Tambala Desk Ltd","account_number":"0099887766","reference":"ABC123XYZ","amount":"100000.00","asset":"MWK","deadline":"2026-03-05T11:00:00.123Z"},"proofs":{"funding":{"uploaded_at":"2026-03-02T11:01:00.123Z","rejected_reason":"The amount does not match."}},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T11:02:00.123Z","expires_at":"2026-03-05T11:00:00.123Z"}`},
		{"from-bank completed", run(t, fb, at, instr, proof, orders.ConfirmFunds{ProofID: "p1"}, orders.Complete{}),
			`{"id":"0195f000-0000-7000-8000-000000000002","client_ref":"topup-7","from_asset":"MWK","from_amount":"100000.00","to_asset":"USDT","to_amount":"55.555556","rate":"1800","status":"completed","failure":null,"funding":{"bank_name":"Desk Bank","account_name":"Tambala Desk Ltd","account_number":"0099887766","reference":"ABC123XYZ","amount":"100000.00","asset":"MWK","deadline":"2026-03-05T11:00:00.123Z"},"proofs":{"funding":{"uploaded_at":"2026-03-02T11:01:00.123Z"}},"created_at":"2026-03-02T09:30:00.000Z","updated_at":"2026-03-02T11:03:00.123Z","expires_at":"2026-03-05T11:00:00.123Z"}`},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, g := range goldenOrders(t) {
		got := render.Order(g.o)
		assert.Equal(t, g.want, string(got), g.name)
		checkRendered(t, g.o, got)
	}
}

// TestRenderPresenceGuards: Render applies the presence rules even to an
// order whose fields say otherwise.
func TestRenderPresenceGuards(t *testing.T) {
	o := newOrder(t, toBankParams())
	o.Failure = &orders.Failure{Code: orders.Other, Message: "The order failed."}
	o.Refund = &orders.Refund{Status: orders.RefundPending}
	o.Proof = &orders.Proof{ID: "p", UploadedAt: t0}
	o.Funding = &orders.Funding{BankName: "b", Deadline: t0}
	s := string(render.Order(o))
	assert.Contains(t, s, `"failure":null`)
	assert.NotContains(t, s, "refund")
	assert.NotContains(t, s, "funding")
	assert.NotContains(t, s, "expires_at")
	assert.Contains(t, s, `"proofs":{}`)

	f := newOrder(t, fromBankParams())
	f.Beneficiary = &orders.Beneficiary{Name: "x"}
	f.Refund = &orders.Refund{Status: orders.RefundPending}
	f.Status = orders.Failed
	f.Failure = &orders.Failure{Code: orders.Other, Message: "The order failed."}
	s = string(render.Order(f))
	assert.NotContains(t, s, "beneficiary")
	assert.NotContains(t, s, "refund")
}

func TestRenderTimesAndAmounts(t *testing.T) {
	p := toBankParams()
	p.From = amt(money.USDT, "5")
	p.To = amt(money.MWK, "8752.5")
	p.Rate = money.MustRate("1750.500000")
	o, _, err := orders.New(p, time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.FixedZone("CAT", 7200)))
	require.NoError(t, err)
	s := string(render.Order(o))
	assert.Contains(t, s, `"from_amount":"5.000000"`)
	assert.Contains(t, s, `"to_amount":"8752.50"`)
	assert.Contains(t, s, `"rate":"1750.5"`)
	assert.Contains(t, s, `"created_at":"2026-01-02T01:04:05.999Z"`)
	assert.Equal(t, "2026-01-02T01:04:05.999Z", render.Time(o.CreatedAt))
}
