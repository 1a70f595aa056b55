package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func (h *Handler) payoutRoutes() {
	h.handleJSON("POST /v1/payouts/bank", tambala.APIv1, h.createPayout(payouts.Bank))
	h.handleJSON("POST /v1/payouts/momo", tambala.APIv1, h.createPayout(payouts.Momo))
	h.handle("GET /v1/payouts/{id}", tambala.APIv1, serveGet(h, v1Payout, render.Payout))
	h.handle("GET /v1/payouts", tambala.APIv1, serveList(h, listRoute[payouts.Payout, tambala.PayoutFilter]{
		name: "payouts", filter: payoutFilter, list: v1Payouts, render: render.Payout}))
	h.handle("GET /v1/institutions", tambala.APIv1, h.institutions)
	h.handleJSON("POST /v1/fees/quote", tambala.APIv1, h.feeQuote)
}

func (h *Handler) createPayout(rail payouts.Rail) authed {
	return serveCreate(h, createRoute[payouts.Request, payouts.Payout]{
		op:     tambala.PayoutOperation(rail),
		decode: func(body []byte) (payouts.Request, error) { return decodePayoutRequest(rail, body) },
		create: v1CreatePayout, status: http.StatusAccepted, render: render.Payout})
}

// pageJSON is the list envelope: the items under name, has_more and
// next_before_id (null when done).
func pageJSON(name string, items any, hasMore bool, next string) map[string]any {
	var nb *string
	if next != "" {
		nb = &next
	}
	return map[string]any{name: items, "has_more": hasMore, "next_before_id": nb}
}

func (h *Handler) institutions(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	list, at, err := h.engine.Client(p).Institutions(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Institutions(list, at))
}

func (h *Handler) feeQuote(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	var in struct {
		Direction payouts.Direction `json:"direction"`
		Rail      payouts.Rail      `json:"rail"`
		AmountMWK json.RawMessage   `json:"amount_mwk"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, h.log, err)
		return
	}
	amt, err := parseAmountMWK(in.AmountMWK)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	q, err := h.engine.Client(p).V1().QuoteFee(r.Context(), in.Direction, in.Rail, amt)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	type fees struct {
		Convenience money.Amount `json:"convenience_fee"`
		Transaction money.Amount `json:"transaction_fee"`
		Levy        money.Amount `json:"levy"`
		VAT         money.Amount `json:"vat"`
	}
	writeJSON(w, http.StatusOK, struct {
		Currency       string            `json:"currency"`
		AmountMWK      money.Amount      `json:"amount_mwk"`
		Direction      payouts.Direction `json:"direction"`
		Rail           payouts.Rail      `json:"rail"`
		Fees           fees              `json:"fees"`
		TotalFee       money.Amount      `json:"total_fee"`
		TotalDebit     *money.Amount     `json:"total_debit"`
		AmountReceived *money.Amount     `json:"amount_received"`
	}{"MWK", q.Amount, q.Direction, q.Rail, fees{q.Convenience, q.Transaction, q.Levy, q.VAT}, q.Total, q.TotalDebit, q.AmountReceived})
}
