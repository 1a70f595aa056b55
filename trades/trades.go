package trades

import (
	"strconv"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// Status is the status of a trade; a trade is recorded settled.
type Status string

// Settled is the status of every recorded trade.
const Settled Status = "settled"

// EventSettled is the event of a recorded trade.
const EventSettled = "trade.settled"

// Float is the system account a trade's credit comes from: ledger.Float's
// name, the operator's own funds.
const Float = "float"

// Posting is the ledger movement a trade asks the engine to post, in the
// transaction that stores it, with the trade's time: a credit from Float,
// described as an order's movements are (Kind orders.KindCredit, EntryID
// trade:<id>, Org the organization, Amount the MWK credited, System Float,
// Ref the trade id).
type Posting = orders.Posting

// Params is an OTC trade the operator records: USDTAmount of the
// stablecoin sold to the organization at ClientRate kwacha per unit. Ref
// is the operator's reference (1 to 128 bytes of text with no control or
// invisible format character), unique per organization.
type Params struct {
	Ref        string
	USDTAmount money.Amount
	ClientRate money.Rate
}

// Trade is an OTC funding trade: the organization bought MWK with a
// stablecoin at its client rate, and its MWK balance was credited once.
type Trade struct {
	ID         string
	Org        string
	Ref        string
	USDTAmount money.Amount
	ClientRate money.Rate
	MWKAmount  int64 // whole kwacha credited
	Status     Status
	CreatedAt  time.Time
	SettledAt  time.Time
}

// EntryID is the ledger entry of trade id's credit.
func EntryID(id string) string { return "trade:" + id }

// wholeMWK is MWK at no decimals: a trade credits whole kwacha.
var wholeMWK = money.Asset{Code: money.MWK.Code, Decimals: 0}

// Check validates p and returns what it is worth in whole kwacha, in this
// order: the ref (validation_error), the USDT amount positive and of USDT
// (validation_error), the rate positive (validation_error), the amount at
// most money.Max (limit_exceeded), the kwacha at the rate, rounded down,
// at most money.Max (limit_exceeded) and at least 1 (validation_error).
func Check(p Params) (int64, error) {
	if p.Ref == "" || len(p.Ref) > 128 {
		return 0, errcode.Newf(errcode.ValidationError, "ref must be 1 to 128 characters.")
	}
	if err := textrule.CheckChars("ref", p.Ref); err != nil {
		return 0, err
	}
	if p.USDTAmount.Asset().Code != money.USDT.Code || p.USDTAmount.Sign() <= 0 {
		return 0, errcode.Newf(errcode.ValidationError, "usdt_amount must be a positive USDT amount.")
	}
	if p.ClientRate.IsZero() {
		return 0, errcode.Newf(errcode.ValidationError, "client_rate must be positive.")
	}
	if err := money.CheckMax("usdt_amount", p.USDTAmount); err != nil {
		return 0, err
	}
	mwk, err := money.Mul(p.USDTAmount, p.ClientRate, wholeMWK, money.RoundDown)
	if err != nil {
		return 0, err
	}
	if err := money.CheckMax("the MWK amount at client_rate", mwk); err != nil {
		return 0, err
	}
	whole, err := strconv.ParseInt(mwk.String(), 10, 64)
	if err != nil || whole <= 0 {
		return 0, errcode.Newf(errcode.ValidationError, "The trade must be worth at least 1 whole kwacha.")
	}
	return whole, nil
}

// New makes trade id of organization org from p at now (Check first):
// settled, with its credit from Float and event trade.settled.
func New(id, org string, p Params, now time.Time) (Trade, []Posting, string, error) {
	whole, err := Check(p)
	if err != nil {
		return Trade{}, nil, "", err
	}
	t := Trade{ID: id, Org: org, Ref: p.Ref, USDTAmount: p.USDTAmount, ClientRate: p.ClientRate, MWKAmount: whole,
		Status: Settled, CreatedAt: now, SettledAt: now}
	return t, []Posting{{Kind: orders.KindCredit, EntryID: EntryID(id), Org: org, Amount: money.FromInt(money.MWK, whole),
		System: Float, Ref: id}}, EventSettled, nil
}

// Replay decides p recorded again under the ref of trade t: t itself when
// p has its USDT amount and rate (as numbers: "100.5" is "100.50"), else
// conflict. It posts nothing and sends no event.
func Replay(t Trade, p Params) (Trade, error) {
	if t.USDTAmount.Decimal().Cmp(p.USDTAmount.Decimal()) != 0 || t.ClientRate.Cmp(p.ClientRate) != 0 {
		return Trade{}, errcode.Newf(errcode.Conflict, "This trade ref was already recorded with other figures.")
	}
	return t, nil
}
