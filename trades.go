package tambala

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

var (
	bucketTrades      = []byte("trades")
	bucketTradesByOrg = []byte("trades.by_org")
	bucketTradesByRef = []byte("trades.by_ref")
)

// Trade is an OTC funding trade: the organization bought MWK with a
// stablecoin at its client rate, and its MWK balance was credited once.
type Trade struct {
	ID         string
	USDTAmount money.Amount
	ClientRate money.Rate
	MWKAmount  int64
	Status     TradeStatus
	CreatedAt  time.Time
	SettledAt  time.Time
}

// TradeStatus is the status of a trade; a trade is recorded settled.
type TradeStatus string

// TradeSettled is the status of every recorded trade.
const TradeSettled TradeStatus = "settled"

// NewTrade is an OTC trade the operator records: USDTAmount of the
// stablecoin sold to the organization at ClientRate kwacha per unit. Ref
// is the operator's reference (1 to 128 bytes of text with no control or
// invisible format character), unique per organization.
type NewTrade struct {
	Ref        string
	USDTAmount money.Amount
	ClientRate money.Rate
}

// recordTrade is Operator.RecordTrade.
func (e *Engine) recordTrade(ctx context.Context, orgID string, n NewTrade) (Trade, error) {
	ref, amt, rate := n.Ref, n.USDTAmount, n.ClientRate
	if ref == "" || len(ref) > 128 {
		return Trade{}, errcode.Newf(errcode.ValidationError, "ref must be 1 to 128 characters.")
	}
	if err := textrule.CheckChars("ref", ref); err != nil {
		return Trade{}, err
	}
	if amt.Asset().Code != money.USDT.Code || amt.Sign() <= 0 {
		return Trade{}, errcode.Newf(errcode.ValidationError, "usdt_amount must be a positive USDT amount.")
	}
	if rate.IsZero() {
		return Trade{}, errcode.Newf(errcode.ValidationError, "client_rate must be positive.")
	}
	if err := money.CheckMax("usdt_amount", amt); err != nil {
		return Trade{}, err
	}
	mwk, err := money.Mul(amt, rate, money.Asset{Code: "MWK", Decimals: 0}, money.RoundDown)
	if err != nil {
		return Trade{}, err
	}
	if err := money.CheckMax("the MWK amount at client_rate", mwk); err != nil {
		return Trade{}, err
	}
	whole, err := strconv.ParseInt(mwk.String(), 10, 64)
	if err != nil || whole <= 0 {
		return Trade{}, errcode.Newf(errcode.ValidationError, "The trade must be worth at least 1 whole kwacha.")
	}
	var t Trade
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		id, err := tx.Get(bucketTradesByRef, records.IndexKey(orgID, ref))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil {
			var r tradeRecord
			if err := records.GetJSON(tx, bucketTrades, string(id), &r, errNotFound); err != nil {
				return err
			}
			if r.USDTAmount != amt.String() || r.ClientRate != rate.String() {
				return errcode.Newf(errcode.Conflict, "This trade ref was already recorded with other figures.")
			}
			t, err = fromTradeRecord(r)
			return err
		}
		now := payouts.FormatTime(e.nowUTC()) // the record keeps the wire text
		r := tradeRecord{Org: orgID, Ref: ref, ID: e.newID(), USDTAmount: amt.String(), ClientRate: rate.String(),
			MWKAmount: whole, Status: "settled", CreatedAt: now, SettledAt: now}
		if _, err := ledger.Post(tx, ledger.Credit{
			EntryID: "trade:" + r.ID, Org: orgID, Amount: money.FromInt(money.MWK, whole), From: ledger.Float, Ref: r.ID, At: e.nowUTC(),
		}); err != nil {
			return err
		}
		if err := records.PutJSON(tx, bucketTrades, r.ID, r); err != nil {
			return err
		}
		if err := tx.Put(bucketTradesByRef, records.IndexKey(orgID, ref), []byte(r.ID)); err != nil {
			return err
		}
		if t, err = fromTradeRecord(r); err != nil {
			return err
		}
		if err := tx.Put(bucketTradesByOrg, records.IndexKey(orgID, r.ID), nil); err != nil {
			return err
		}
		return e.emit(tx, orgID, webhooks.TradeSettled, renderTrade(t), jsonResource(eventTrade, r))
	})
	return t, err
}

// trades is Client.Trades.
func (e *Engine) trades(ctx context.Context, p Principal, page PageRequest) (Page[Trade], error) {
	var out Page[Trade]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		out, err = listPage(tx, bucketTradesByOrg, p.Org.ID, page, nil, func(id string) (Trade, error) {
			var r tradeRecord
			if err := records.GetJSON(tx, bucketTrades, id, &r, errNotFound); err != nil {
				return Trade{}, err
			}
			return fromTradeRecord(r)
		})
		return err
	})
	return out, err
}

// Bank is an item of Client.Banks (the earlier API's bank list).
type Bank struct {
	BankUUID string
	Name     string
}

// MobileOperator is an item of Client.MobileOperators.
type MobileOperator struct {
	RefID string
	Name  string
}

// bankNamespace derives stable bank UUIDs from institution ids.
var bankNamespace = uuid.MustParse("6f1d7a52-2c59-4c39-9a4e-8c2b2a1d0b11")

// banks is Client.Banks.
func (e *Engine) banks(ctx context.Context, p Principal) ([]Bank, error) {
	list, _, err := e.listInstitutions(ctx, p)
	out := []Bank{}
	for _, in := range list {
		if in.Rail == payouts.Bank {
			out = append(out, Bank{BankUUID: uuid.NewSHA1(bankNamespace, []byte(strconv.Itoa(in.ID))).String(), Name: in.Name})
		}
	}
	return out, err
}

// operators is Client.MobileOperators.
func (e *Engine) operators(ctx context.Context, p Principal) ([]MobileOperator, time.Time, error) {
	list, at, err := e.listInstitutions(ctx, p)
	out := []MobileOperator{}
	for _, in := range list {
		if in.Rail == payouts.Momo {
			out = append(out, MobileOperator{RefID: strconv.Itoa(in.ID), Name: in.Name})
		}
	}
	return out, at, err
}
