package tambala

// The money the desk takes in from outside: the OTC trades the operator
// records and the deposits on the networks (their addresses, the
// deposits recorded). Their records are internal/storage's (desk.go).

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
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

// recordTrade is Desk.RecordTrade: the trade checked (trades.Check),
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
	return storage.TradeByRef(tx, orgID, ref, errNotFound)
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
	if err := postDesk(tx, postings, now); err != nil {
		return Trade{}, err
	}
	r, err := storage.SaveTrade(tx, made)
	if err != nil {
		return Trade{}, err
	}
	t, err := storage.TradeOf(r) // as a later read gives it
	if err != nil {
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
		out, err = listPage(tx, storage.TradesByOrg, p.Org.ID, page, nil, func(id string) (Trade, error) {
			return storage.LoadTrade(tx, id, errNotFound)
		})
		return err
	})
	return out, err
}

// Bank is an item of ClientV1.Banks (the earlier API's bank list; package
// payouts).
type Bank = payouts.BankListing

// MobileOperator is an item of ClientV1.MobileOperators (package payouts).
type MobileOperator = payouts.MobileOperator

// bankNamespace derives stable bank UUIDs from institution ids.
var bankNamespace = uuid.MustParse("6f1d7a52-2c59-4c39-9a4e-8c2b2a1d0b11")

// banks is ClientV1.Banks.
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

// operators is ClientV1.MobileOperators.
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

// DepositAddress is one entry of Client.DepositAddresses: a network, the
// organization's address on it and the assets it may deposit there
// (package collections).
type DepositAddress = collections.DepositAddress

// collects reports whether org may collect asset: the predicate of the
// deposit-address rules (collections.DepositNetworks).
func collects(org *Organization) func(asset money.AssetCode) bool {
	return func(asset money.AssetCode) bool { return org.Enabled(asset, OpCollection) }
}

// depositAddresses is Client.DepositAddresses: org's networks and the
// addresses it has (knownDepositAddresses); those it has not yet issued
// outside any transaction, then kept (keepDepositAddresses).
func (e *Engine) depositAddresses(ctx context.Context, p Principal) ([]DepositAddress, error) {
	list, missing, orgID, err := e.knownDepositAddresses(ctx, p)
	if err != nil {
		return nil, err
	}
	if list == nil {
		return []DepositAddress{}, nil
	}
	if len(missing) == 0 {
		return list, nil
	}
	// Issue outside any transaction (the issuer may be remote), then store
	// with a re-check: of two racing first reads, the first stored wins
	// and both answer with it.
	issued := make(map[int]string, len(missing))
	for _, i := range missing {
		addr, err := e.issueDepositAddress(ctx, orgID, list[i].Network)
		if err != nil {
			return nil, err
		}
		issued[i] = addr
	}
	err = e.store.Update(ctx, func(tx store.Tx) error { return keepDepositAddresses(tx, orgID, list, missing, issued) })
	if err != nil {
		return nil, err
	}
	return list, nil
}

// knownDepositAddresses reads the deposit networks of p's organization
// with the addresses it has, the indexes in list of those it has not, and
// the organization's id.
func (e *Engine) knownDepositAddresses(ctx context.Context, p Principal) (list []DepositAddress, missing []int, orgID string, err error) {
	err = e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		orgID, missing = org.ID, nil
		list = collections.DepositNetworks(e.networks, collects(org))
		for i := range list {
			addr, ok, err := storage.LoadDepositAddress(tx, org.ID, list[i].Network)
			switch {
			case err != nil:
				return err
			case !ok:
				missing = append(missing, i)
			default:
				list[i].Address = addr
			}
		}
		return nil
	})
	return list, missing, orgID, err
}

// keepDepositAddresses stores the addresses issued for list's missing
// entries, unless another call stored one first: list answers with the
// address kept.
func keepDepositAddresses(tx store.Tx, orgID string, list []DepositAddress, missing []int, issued map[int]string) error {
	for _, i := range missing {
		addr, ok, err := storage.LoadDepositAddress(tx, orgID, list[i].Network)
		switch {
		case err != nil:
			return err
		case ok:
			list[i].Address = addr
			continue
		}
		if err := storage.SaveDepositAddress(tx, orgID, list[i].Network, issued[i]); err != nil {
			return err
		}
		list[i].Address = issued[i]
	}
	return nil
}

// issueDepositAddress asks the issuer for org's address on network and
// checks it with the network's validator: service_unavailable when there
// is no issuer, it fails, or its address is not valid.
func (e *Engine) issueDepositAddress(ctx context.Context, org, network string) (string, error) {
	if e.depositIssuer == nil {
		return "", errNoDepositIssuerCoded
	}
	n, err := e.networks.Lookup(network)
	if err != nil {
		return "", err
	}
	addr, err := e.depositIssuer.Issue(ctx, org, network)
	if err == nil {
		err = collections.CheckIssued(n, addr)
	}
	if err != nil {
		e.log.LogAttrs(ctx, slog.LevelError, "deposit address not issued", slog.String("org", org),
			slog.String("network", network), slog.String("error", err.Error()))
		return "", errcode.Newf(errcode.ServiceUnavailable, "Deposit addresses are temporarily unavailable.")
	}
	return addr, nil
}

// Deposit is money received on a network for an organization: a
// provider's callback or the operator's Desk.RecordDeposit.
// (Network, TxRef) identifies it (package collections).
type Deposit = collections.Deposit

// depositRecord remembers a recorded deposit by (network, tx_ref).
type depositRecord = codec.DepositRecord

// MaxTxRefLength bounds a deposit's tx_ref, in bytes; it holds no control
// or invisible format character either, so one transaction is never
// recorded twice under references that look the same.
const MaxTxRefLength = collections.MaxTxRefLength

// recordDeposit is Desk.RecordDeposit.
func (e *Engine) recordDeposit(ctx context.Context, orgID string, d Deposit) (CollectionV2, error) {
	c, err := e.recordDepositOnce(ctx, orgID, d)
	return c.Resource, err
}

// recordDepositOnce is recordDeposit, with Replayed set when the deposit
// had been credited before.
func (e *Engine) recordDepositOnce(ctx context.Context, orgID string, d Deposit) (Created[CollectionV2], error) {
	n, asset, err := d.Check(e.networks, e.assets)
	if err != nil {
		return Created[CollectionV2]{}, err
	}
	var c CollectionV2
	var pending *Approval
	replayed := false
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending, replayed = nil, false
		org := &Organization{}
		if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
			return err
		}
		key := storage.DepositKey(n.ID, d.TxRef)
		prev, found, err := storage.LoadDeposit(tx, key)
		switch {
		case err != nil:
			return err
		case found:
			id, err := d.Replay(orgID, collections.Recorded(prev))
			if err != nil {
				return err
			}
			replayed = true
			c, err = e.loadCollectionV2(tx, orgID, id)
			return err
		}
		if _, err := e.enabledAsset(org, asset.Code, OpCollection); err != nil {
			return err
		}
		pending, err = e.gate(ctx, tx, approvals.Deposit, orgID, d.Amount, key, accounts.StaffOperations,
			map[string]string{"network": n.ID, "tx_ref": d.TxRef})
		if err != nil || pending != nil {
			return err
		}
		c, err = e.creditDeposit(ctx, tx, orgID, d, n.ID, "")
		return err
	})
	if err == nil && pending != nil {
		return Created[CollectionV2]{}, &ApprovalPendingError{Approval: *pending}
	}
	if err != nil {
		return Created[CollectionV2]{}, err
	}
	return Created[CollectionV2]{Resource: c, Replayed: replayed}, nil
}

// creditDeposit credits deposit d of org on network in tx (its checks
// made): the /v2 collection, the deposit's record and the audit entry,
// whose summary ends with note.
func (e *Engine) creditDeposit(ctx context.Context, tx store.Tx, orgID string, d Deposit, network, note string) (CollectionV2, error) {
	org := &Organization{}
	if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
		return CollectionV2{}, err
	}
	if _, err := e.enabledAsset(org, d.Amount.Asset().Code, OpCollection); err != nil {
		return CollectionV2{}, err
	}
	c, err := e.creditCollectionV2(tx, orgID, d.Amount, network, CollectionSourceDeposit)
	if err != nil {
		return CollectionV2{}, err
	}
	if err := e.auditAs(ctx, tx, orgID, AuditDepositRecorded, c.ID, fmt.Sprintf("credited %s net of the fee %s, network %s, tx_ref %q",
		amountText(c.AmountCredited), amountText(c.Fee), network, d.TxRef)+note); err != nil {
		return CollectionV2{}, err
	}
	return c, storage.SaveDeposit(tx, storage.DepositKey(network, d.TxRef), depositRecord(d.Recorded(orgID, c.ID)))
}

// rotateDepositAddress is Desk.RotateDepositAddress.
func (e *Engine) rotateDepositAddress(ctx context.Context, orgID, network string) (DepositAddress, error) {
	n, err := e.networks.Lookup(network)
	if err != nil {
		return DepositAddress{}, err
	}
	var old string
	err = e.store.View(ctx, func(tx store.Tx) error {
		if err := loadOrg(tx, orgID, &Organization{}, errNotFound); err != nil {
			return err
		}
		var err error
		old, _, err = storage.LoadDepositAddress(tx, orgID, n.ID)
		return err
	})
	if err != nil {
		return DepositAddress{}, err
	}
	addr, err := e.issueDepositAddress(ctx, orgID, n.ID)
	if err != nil {
		return DepositAddress{}, err
	}
	if err := collections.CheckRotation(old, addr); err != nil {
		return DepositAddress{}, err
	}
	var out DepositAddress
	err = e.store.Update(ctx, func(tx store.Tx) error {
		org := &Organization{}
		if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
			return err
		}
		out = collections.AddressOn(n, addr, collects(org))
		if err := e.auditAs(ctx, tx, orgID, AuditDepositAddressRotated, orgID, fmt.Sprintf("network %s: address %s -> %s", n.ID, orNone(old), addr)); err != nil {
			return err
		}
		return storage.SaveDepositAddress(tx, orgID, n.ID, addr)
	})
	if err != nil {
		return DepositAddress{}, err
	}
	e.log.LogAttrs(ctx, slog.LevelInfo, "deposit address rotated", slog.String("org", orgID), slog.String("network", n.ID))
	return out, nil
}

// tradeRecord is a trade as stored (storage.TradeRecord).
type tradeRecord = codec.TradeRecord

// fromTradeRecord reads a stored trade back (storage.TradeOf).
func fromTradeRecord(r tradeRecord) (Trade, error) { return storage.TradeOf(r) }

// parseWireTime reads a time a record keeps as its wire text
// (storage.WireTime); the collections' records use it.
func parseWireTime(s string) (time.Time, error) { return storage.WireTime(s) }
