package tambala

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tambalapay/tambala/internal/render"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
)

var (
	bucketTrades      = []byte("trades")
	bucketTradesByOrg = []byte("trades.by_org")
	bucketTradesByRef = []byte("trades.by_ref")
)

// Trade is an OTC funding trade (trades.Trade): the organization bought
// MWK with a stablecoin at its client rate, and its MWK balance was
// credited once.
type Trade = trades.Trade

// TradeStatus is the status of a trade; a trade is recorded settled.
type TradeStatus = trades.Status

// TradeSettled is the status of every recorded trade.
const TradeSettled = trades.Settled

// NewTrade is an OTC trade the operator records (trades.Params).
type NewTrade = trades.Params

// recordTrade is Operator.RecordTrade: the trade checked (trades.Check),
// then, in one transaction, the organization read (not_found), the ref
// looked up (a repeat is trades.Replay) or the trade made (trades.New),
// its credit posted, the trade and its indexes stored and trade.settled
// written.
func (e *Engine) recordTrade(ctx context.Context, orgID string, n NewTrade) (Trade, error) {
	if _, err := trades.Check(n); err != nil {
		return Trade{}, err
	}
	var t Trade
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		id, err := tx.Get(bucketTradesByRef, records.IndexKey(orgID, n.Ref))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil {
			var r tradeRecord
			if err := records.GetJSON(tx, bucketTrades, string(id), &r, errNotFound); err != nil {
				return err
			}
			prev, err := fromTradeRecord(r)
			if err != nil {
				return err
			}
			t, err = trades.Replay(prev, n)
			return err
		}
		now := e.nowUTC()
		made, postings, event, err := trades.New(e.newID(), orgID, n, now)
		if err != nil {
			return err
		}
		r := toTradeRecord(made)
		if err := postDesk(tx, postings, now); err != nil {
			return err
		}
		if err := records.PutJSON(tx, bucketTrades, r.ID, r); err != nil {
			return err
		}
		if err := tx.Put(bucketTradesByRef, records.IndexKey(orgID, n.Ref), []byte(r.ID)); err != nil {
			return err
		}
		if t, err = fromTradeRecord(r); err != nil { // as a later read gives it
			return err
		}
		if err := tx.Put(bucketTradesByOrg, records.IndexKey(orgID, r.ID), nil); err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, orgID, AuditTradeRecorded, t.ID, fmt.Sprintf("%s at %s credited %d MWK from the float, ref %q",
			amountText(t.USDTAmount), t.ClientRate, t.MWKAmount, t.Ref)); err != nil {
			return err
		}
		return e.emit(tx, orgID, event, render.Trade(t), jsonResource(eventTrade, r))
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
