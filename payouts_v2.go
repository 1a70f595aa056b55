package tambala

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tambalapay/tambala/internal/render"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/fingerprint"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// CreatePayoutV2 is the idempotent create of a /v2 payout.
const CreatePayoutV2Op Operation = "payouts_v2.create"

// The events of /v2 payouts, with the /v2 rendering as data: a /v1
// receiver never sees this shape under payout.*.
const (
	EventPayoutV2Succeeded = "payout_v2.succeeded"
	EventPayoutV2Failed    = "payout_v2.failed"
	EventPayoutV2Reversed  = "payout_v2.reversed"
)

func init() {
	operationInfo[CreatePayoutV2Op] = operationFacts{api: APIv2}
}

// DestinationKind is the kind of a /v2 payout's destination: the rules
// are package payouts'.
type DestinationKind = payouts.DestinationKind

// Destination kinds of a /v2 payout.
const (
	DestinationBank   = payouts.DestinationBank
	DestinationMomo   = payouts.DestinationMomo
	DestinationWallet = payouts.DestinationWallet
)

// PayoutV2Destination is where a /v2 payout goes: bank or momo (the /v1
// fields and rules) or wallet (Network and Address). Which fields each
// kind carries is payouts.V2Destination.CheckFields.
type PayoutV2Destination = payouts.V2Destination

// PayoutV2Request asks for a /v2 payout: Amount (decimal text, parsed at
// Asset's decimals once the asset is known) delivered in Asset to
// Destination, paid from SourceAsset.
type PayoutV2Request struct {
	SourceAsset money.AssetCode
	Asset       money.AssetCode
	Amount      money.Decimal // in Asset, bound to it when the asset is checked
	Destination PayoutV2Destination
}

// Fingerprint is the default idempotency fingerprint of r.
func (r PayoutV2Request) Fingerprint() Fingerprint {
	d := r.Destination
	return fingerprint.Of("tambala.PayoutV2Request/v1", string(r.SourceAsset), string(r.Asset), r.Amount.String(), string(d.Type),
		strconv.Itoa(d.InstitutionID), d.AccountNumber, d.MobileNumber, d.BeneficiaryName, d.Network, d.Address)
}

// PayoutV2 is a /v2 payout (payouts.V2Payout).
type PayoutV2 = payouts.V2Payout

// v2Submission is the provider's submission of the /v2 payout p of v.
func v2Submission(v *payoutV2Record, p payouts.Payout) (PayoutSubmission, error) {
	amt, err := money.Parse(storage.V2Asset(v), v.Amount)
	if err != nil {
		return PayoutSubmission{}, err
	}
	src, err := p.Amount.Add(p.HeldFee)
	if err != nil {
		return PayoutSubmission{}, err
	}
	s := PayoutSubmission{Reference: p.ID, Rail: p.Rail, Amount: amt, V2: true, SourceAmount: src}
	d := storage.PayoutV2DestinationOf(v.Destination)
	if d.Type == DestinationWallet {
		s.Network, s.Address = d.Network, d.Address
	} else {
		s.Destination = d.Destination()
	}
	return s, nil
}

var payoutV2Codec = resourceCodec[PayoutV2]{
	decode: func(_ string, stored []byte) (PayoutV2, error) {
		rec, err := cache.DecodeJSON[payoutRecord](stored)
		if err != nil {
			return PayoutV2{}, err
		}
		if rec.V2 == nil {
			return PayoutV2{}, errNotFound
		}
		return storage.PayoutV2Of(rec)
	},
	decodeLegacy: func(string, []byte) (PayoutV2, error) { return PayoutV2{}, errcode.New(errcode.InternalError) },
}

// walletFee is the flat fee of a wallet payout of asset on network.
func (e *Engine) walletFee(asset money.Asset, network string) (money.Amount, error) {
	if f, ok := e.payoutsV2.WalletFees[asset.Code][network]; ok {
		if f.Asset() != asset || f.Sign() < 0 {
			return money.Amount{}, errcode.Newf(errcode.RateUnavailable, "The %s fee on %s is misconfigured.", asset.Code, network)
		}
		return f, nil
	}
	return money.Zero(asset), nil
}

// payoutRate is the FX pricer's rate of pair, any failure
// service_unavailable.
func (e *Engine) payoutRate(ctx context.Context, tx store.Tx, pair quotes.Pair) (money.Rate, error) {
	var rate money.Rate
	var err error
	if e.payoutsV2.FXPricer != nil {
		rate, err = e.payoutsV2.FXPricer.PayoutRate(ctx, pair)
	} else {
		var all []quotes.Corridor
		if all, err = e.corridorsIn(tx); err != nil {
			return money.Rate{}, err
		}
		var c quotes.Corridor
		if c, err = quotes.FindCorridor(pair.Fiat().Code, all); err == nil {
			rate, err = c.Rate(pair.Direction)
		}
	}
	if err == nil && (rate.IsZero() || rate.Decimal().Sign() <= 0) {
		err = errors.New("no positive rate")
	}
	if err != nil {
		if errcode.Of(err) == errcode.ServiceUnavailable {
			return money.Rate{}, err
		}
		return money.Rate{}, &errcode.Error{Code: errcode.ServiceUnavailable,
			Message: "No rate is available to price this payout; try again later.", Err: err}
	}
	return rate, nil
}

// frozenFX is the rate a /v2 payout of v was priced at (nil on a
// same-asset payout), its direction by the class of the source asset.
func (e *Engine) frozenFX(v *payoutV2Record) (*payouts.FX, error) {
	if v.Rate == nil {
		return nil, nil
	}
	rate, err := money.ParseRate(*v.Rate)
	if err != nil {
		return nil, err
	}
	pair := quotes.Pair{Direction: quotes.FromBank, From: storage.V2Source(v), To: storage.V2Asset(v)}
	if c, _ := e.classes.Lookup(money.AssetCode(v.SourceAsset)); c == quotes.Stablecoin {
		pair.Direction = quotes.ToBank
	}
	return &payouts.FX{Pair: pair, Rate: rate}, nil
}

// createPayoutV2 is Client.CreatePayout.
func (e *Engine) createPayoutV2(ctx context.Context, p Principal, req PayoutV2Request, idem Idempotency) (Created[PayoutV2], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = req.Fingerprint()
	}
	created, err := create(ctx, e, p, CreatePayoutV2Op, idem, fp, payoutV2Codec, func(tx store.Tx, org *Organization) (PayoutV2, []byte, error) {
		return e.acceptPayoutV2(ctx, tx, org, req)
	})
	switch {
	case err != nil:
	case created.Replayed:
		e.metrics.IdempotentReplay(CreatePayoutV2Op)
	default:
		po := created.Resource
		e.metrics.PayoutAccepted(railOfV2(po))
		e.reportPayout(stateChange{id: po.ID, org: po.Org, rail: railOfV2(po), to: po.Status, by: "api"})
	}
	return created, err
}

// v2Checked is a /v2 request checked against the organization's assets:
// its source and delivered assets and its amount bound to the latter.
type v2Checked struct {
	source, asset money.Asset
	amount        money.Amount
	rail          payouts.Rail
}

// acceptPayoutV2 accepts req of org in tx: check it, price its fee and
// rate, accept (payouts.AcceptV2), post the hold, store.
func (e *Engine) acceptPayoutV2(ctx context.Context, tx store.Tx, org *Organization, req PayoutV2Request) (PayoutV2, []byte, error) {
	c, err := e.checkPayoutV2(tx, org, req)
	if err != nil {
		return PayoutV2{}, nil, err
	}
	fee, fx, err := e.priceV2(ctx, tx, c, req.Destination)
	if err != nil {
		return PayoutV2{}, nil, err
	}
	po, hold, err := payouts.AcceptV2(payouts.V2Terms{NewID: e.newID, Org: org.ID, Now: e.nowUTC(), Rail: c.rail,
		Amount: c.amount, Fee: fee, FX: fx})
	if err != nil {
		return PayoutV2{}, nil, err
	}
	if _, err := postLedger(tx, placeHold(hold)); err != nil {
		return PayoutV2{}, nil, err
	}
	rec := storage.ToPayoutRecord(po)
	rec.V2 = &payoutV2Record{SourceAsset: string(c.source.Code), SourceDecimals: c.source.Decimals, Asset: string(c.asset.Code),
		AssetDecimals: c.asset.Decimals, Amount: c.amount.String(), PricedFee: fee.String(),
		Destination: storage.ToPayoutV2DestinationRecord(req.Destination)}
	if fx != nil {
		s := fx.Rate.String()
		rec.V2.Rate = &s
	}
	stored, err := e.storeAccepted(tx, rec, storage.PayoutsV2ByOrg, c.source.Code == money.MWK.Code)
	if err != nil {
		return PayoutV2{}, nil, err
	}
	out, err := storage.PayoutV2Of(rec)
	return out, stored, err
}

// checkPayoutV2 checks req against org's assets, the asset classes, the
// networks, the reference data and the asset's limits.
func (e *Engine) checkPayoutV2(tx store.Tx, org *Organization, req PayoutV2Request) (v2Checked, error) {
	var c v2Checked
	var err error
	if c.asset, err = e.assetOf(org, req.Asset, OpPayout); err != nil {
		return c, err
	}
	if c.source, err = e.assetOf(org, req.SourceAsset, ""); err != nil {
		return c, err
	}
	if c.amount, err = (money.AmountField{Name: "amount"}).BindDecimal(c.asset, req.Amount); err != nil {
		return c, err
	}
	d := req.Destination
	if err := d.Type.Check(); err != nil {
		return c, err
	}
	if err := d.Type.CheckAsset(c.asset, e.classes); err != nil {
		return c, err
	}
	c.rail = d.Type.Rail()
	if c.rail == RailWallet {
		err = e.checkWalletDestination(c.asset, d)
	} else {
		err = e.checkRailDestination(tx, c.rail, c.amount, d)
	}
	if err != nil {
		return c, err
	}
	limits, err := e.assetLimits(tx, c.asset, OpPayout)
	if err != nil {
		return c, err
	}
	return c, limits.Check(c.amount)
}

// checkWalletDestination checks a wallet destination d of asset: its
// fields, its network and the address on it.
func (e *Engine) checkWalletDestination(asset money.Asset, d PayoutV2Destination) error {
	if err := d.CheckFields(d.Present()); err != nil {
		return err
	}
	n, err := e.networks.Lookup(d.Network)
	if err != nil {
		return err
	}
	return n.CheckAddress(asset.Code, d.Address)
}

// checkRailDestination checks a bank or momo destination d of amount on
// rail: the /v1 rules, its fields and its institution.
func (e *Engine) checkRailDestination(tx store.Tx, rail payouts.Rail, amount money.Amount, d PayoutV2Destination) error {
	wallets := e.sandboxWallets()
	r := payouts.Request{Rail: rail, Amount: amount, Destination: d.Destination()}
	if err := r.Validate(wallets); err != nil {
		return err
	}
	// After Validate, which refuses an empty field with the /v1
	// messages: so nil for every destination a transport's
	// decoding let through (it checked the same rule on the
	// members it read), while a Go caller gets the rule too.
	if err := d.CheckFields(d.Present()); err != nil {
		return err
	}
	insts, _, err := e.institutions(tx)
	if err != nil {
		return err
	}
	_, err = payouts.CheckInstitution(r, insts, wallets)
	return err
}

// priceV2 is the fee of the checked payout c to d, in its delivered
// asset, and the rate of an FX payout (nil on a same-asset one).
func (e *Engine) priceV2(ctx context.Context, tx store.Tx, c v2Checked, d PayoutV2Destination) (money.Amount, *payouts.FX, error) {
	var fee money.Amount
	var err error
	if c.rail == RailWallet {
		if fee, err = e.walletFee(c.asset, d.Network); err != nil {
			return money.Amount{}, nil, err
		}
	} else {
		if err := e.checkRail(tx, c.rail); err != nil {
			return money.Amount{}, nil, err
		}
		q, err := e.fees.Quote(payouts.DirPayout, c.rail, c.amount)
		if err != nil {
			return money.Amount{}, nil, errcode.Wrap(errcode.RateUnavailable, err)
		}
		fee = q.Total
	}
	if c.source == c.asset {
		return fee, nil, nil
	}
	pair, err := quotes.PairOf(c.source, c.asset, e.classes)
	if err != nil {
		return money.Amount{}, nil, err
	}
	rate, err := e.payoutRate(ctx, tx, pair)
	if err != nil {
		return money.Amount{}, nil, err
	}
	return fee, &payouts.FX{Pair: pair, Rate: rate}, nil
}

func railOfV2(p PayoutV2) payouts.Rail { return p.Destination.Type.Rail() }

// finishSuccessV2 captures a /v2 payout's hold in the source asset:
// principal_src to the provider; as fee payouts.ChargeV2's charge (the
// observed fee, in asset, converted at the frozen rate and rounded up on
// an FX payout, capped at fee_src; fee_src when none was reported); the
// rest of the hold returns to available. A provider fee above the hold is
// absorbed (see docs/decisions.md, "/v2 payouts").
func (e *Engine) finishSuccessV2(tx store.Tx, rec *payoutRecord, p payouts.Payout, fee *money.Amount, now time.Time) error {
	v := rec.V2
	v.FeeObserved = nil
	fx, err := e.frozenFX(v)
	if err != nil {
		return err
	}
	charged, observed, err := payouts.ChargeV2(p, storage.V2Asset(v), fee, fx)
	if err != nil {
		return err
	}
	if observed != nil {
		s := observed.String()
		v.FeeObserved = &s
	}
	if p, err = p.Succeed(&charged, now); err != nil {
		return err
	}
	if _, err := postLedger(tx, ledger.CaptureHold{
		EntryID: captureEntry(p.ID), HoldID: holdID(p.ID), Amount: p.Amount, Fee: charged, To: ledger.Provider, Ref: p.ID, At: now,
	}); err != nil {
		return err
	}
	*rec = withState(*rec, p)
	if err := e.emitPayoutV2(tx, *rec, EventPayoutV2Succeeded); err != nil {
		return err
	}
	return schedule(tx, rec, nil)
}

// emitPayoutV2 writes event with the /v2 rendering of rec.
func (e *Engine) emitPayoutV2(tx store.Tx, rec payoutRecord, event string) error {
	p, err := storage.PayoutV2Of(rec)
	if err != nil {
		return err
	}
	return e.emit(tx, rec.Org, event, render.PayoutV2(p), jsonResource(eventPayoutV2, rec))
}

func loadPayoutV2(tx store.Tx, org, id string) (PayoutV2, error) {
	if id == "" || len(id) > 64 {
		return PayoutV2{}, errNotFound
	}
	var r payoutRecord
	if err := storage.ReadPayout(tx, id, &r, errNotFound); err != nil {
		return PayoutV2{}, err
	}
	if r.Org != org || r.V2 == nil {
		return PayoutV2{}, errNotFound
	}
	return storage.PayoutV2Of(r)
}

// payoutV2 is Client.Payout.
func (e *Engine) payoutV2(ctx context.Context, p Principal, id string) (PayoutV2, error) {
	var out PayoutV2
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return err
		}
		var err error
		out, err = loadPayoutV2(tx, p.Org.ID, id)
		return err
	})
	return out, err
}

// listPayoutsV2 is Client.Payouts.
func (e *Engine) listPayoutsV2(ctx context.Context, p Principal, page PageRequest, f PayoutFilter) (Page[PayoutV2], error) {
	var out Page[PayoutV2]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return err
		}
		cache := map[string]PayoutV2{}
		keep := func(id string) (bool, error) {
			po, err := loadPayoutV2(tx, p.Org.ID, id)
			if err != nil {
				return false, err
			}
			cache[id] = po
			return f.Status == "" || po.Status == f.Status, nil
		}
		var err error
		out, err = listPage(tx, storage.PayoutsV2ByOrg, p.Org.ID, page, keep, func(id string) (PayoutV2, error) {
			return cache[id], nil
		})
		return err
	})
	return out, err
}
