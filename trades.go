package tambala

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tambalapay/tambala/internal/render"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
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
// looked up (a repeat is trades.Replay), four-eyes asked (the MWK it
// credits above the MWK threshold waits for approval: ApprovalPendingError)
// or the trade made (makeTrade).
func (e *Engine) recordTrade(ctx context.Context, orgID string, n NewTrade) (Trade, error) {
	whole, err := trades.Check(n)
	if err != nil {
		return Trade{}, err
	}
	var t Trade
	var pending *Approval
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		prev, found, err := tradeByRef(tx, orgID, n.Ref)
		if err != nil {
			return err
		}
		if found {
			t, err = trades.Replay(prev, n)
			return err
		}
		pending, err = e.gate(ctx, tx, approvals.Trade, orgID, money.FromInt(money.MWK, whole), string(storage.IndexKey(orgID, n.Ref)),
			accounts.StaffOperations, map[string]string{"ref": n.Ref, "usdt_amount": n.USDTAmount.String(), "client_rate": n.ClientRate.String()})
		if err != nil || pending != nil {
			return err
		}
		t, err = e.makeTrade(ctx, tx, orgID, n, "")
		return err
	})
	if err == nil && pending != nil {
		return Trade{}, &ApprovalPendingError{Approval: *pending}
	}
	return t, err
}

// tradeByRef reads org's trade recorded under ref, if any.
func tradeByRef(tx store.Tx, orgID, ref string) (Trade, bool, error) {
	id, err := tx.Get(bucketTradesByRef, storage.IndexKey(orgID, ref))
	if errors.Is(err, store.ErrNotFound) {
		return Trade{}, false, nil
	}
	if err != nil {
		return Trade{}, false, err
	}
	var r tradeRecord
	if err := storage.GetJSON(tx, bucketTrades, string(id), &r, errNotFound); err != nil {
		return Trade{}, false, err
	}
	t, err := fromTradeRecord(r)
	return t, err == nil, err
}

// makeTrade makes trade n of org in tx (trades.New): its credit posted,
// the trade and its indexes stored, the audit entry (whose summary ends
// with note) and trade.settled written. A ref recorded already is
// trades.Replay.
func (e *Engine) makeTrade(ctx context.Context, tx store.Tx, orgID string, n NewTrade, note string) (Trade, error) {
	prev, found, err := tradeByRef(tx, orgID, n.Ref)
	if err != nil {
		return Trade{}, err
	}
	if found {
		return trades.Replay(prev, n)
	}
	now := e.nowUTC()
	made, postings, event, err := trades.New(e.newID(), orgID, n, now)
	if err != nil {
		return Trade{}, err
	}
	r := toTradeRecord(made)
	if err := postDesk(tx, postings, now); err != nil {
		return Trade{}, err
	}
	if err := storage.PutJSON(tx, bucketTrades, r.ID, r); err != nil {
		return Trade{}, err
	}
	if err := tx.Put(bucketTradesByRef, storage.IndexKey(orgID, n.Ref), []byte(r.ID)); err != nil {
		return Trade{}, err
	}
	t, err := fromTradeRecord(r) // as a later read gives it
	if err != nil {
		return Trade{}, err
	}
	if err := tx.Put(bucketTradesByOrg, storage.IndexKey(orgID, r.ID), nil); err != nil {
		return Trade{}, err
	}
	if err := e.auditAs(ctx, tx, orgID, AuditTradeRecorded, t.ID, fmt.Sprintf("%s at %s credited %d MWK from the float, ref %q",
		amountText(t.USDTAmount), t.ClientRate, t.MWKAmount, t.Ref)+note); err != nil {
		return Trade{}, err
	}
	return t, e.emit(tx, orgID, event, render.Trade(t), jsonResource(eventTrade, r))
}

// tradeOfDetails is the trade an approval's details keep.
func tradeOfDetails(d map[string]string) (NewTrade, error) {
	// The amount's asset as the request had it: the decimals of its text.
	text, decimals := d["usdt_amount"], 0
	if i := strings.IndexByte(text, '.'); i >= 0 {
		decimals = len(text) - i - 1
	}
	amt, err := money.Parse(money.Asset{Code: money.USDT.Code, Decimals: int32(decimals)}, text)
	if err != nil {
		return NewTrade{}, fmt.Errorf("tambala: approved trade: usdt_amount: %w", err)
	}
	rate, err := money.ParseRate(d["client_rate"])
	if err != nil {
		return NewTrade{}, fmt.Errorf("tambala: approved trade: client_rate: %w", err)
	}
	return NewTrade{Ref: d["ref"], USDTAmount: amt, ClientRate: rate}, nil
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
			if err := storage.GetJSON(tx, bucketTrades, id, &r, errNotFound); err != nil {
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
