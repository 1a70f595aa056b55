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
	operationInfo[CreatePayoutV2Op] = struct {
		api    API
		legacy string
	}{APIv2, ""}
}

var bucketPayoutsV2ByOrg = []byte("payouts_v2.by_org")

// DestinationKind is the kind of a /v2 payout's destination: the rules
// are package payouts'.
type DestinationKind = payouts.DestinationKind

// Destination kinds of a /v2 payout.
const (
	DestinationBank   = payouts.DestinationBank
	DestinationMomo   = payouts.DestinationMomo
	DestinationWallet = payouts.DestinationWallet
)

// FXPricer prices a /v2 FX payout at accept: the rate, in corridor
// currency per one stablecoin, at which pair (From the source asset, To the
// delivered asset) is converted. An error with code service_unavailable (or
// any error, which becomes one) refuses the payout with that code.
type FXPricer interface {
	PayoutRate(ctx context.Context, pair quotes.Pair) (money.Rate, error)
}

// PayoutV2Options tune /v2 payouts.
type PayoutV2Options struct {
	// FXPricer is the provider's rate for FX payouts. Default: the desk
	// corridor's rate of the pair's direction while the corridor is open
	// (off-ramp when paying corridor currency from a stablecoin, on-ramp
	// the other way).
	FXPricer FXPricer
	// WalletFees are flat fees of wallet payouts by asset then network id,
	// in the payout's asset. Default: none (0).
	WalletFees map[money.AssetCode]map[string]money.Amount
}

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
	amt, err := money.Parse(v2Asset(v), v.Amount)
	if err != nil {
		return PayoutSubmission{}, err
	}
	src, err := p.Amount.Add(p.HeldFee)
	if err != nil {
		return PayoutSubmission{}, err
	}
	s := PayoutSubmission{Reference: p.ID, Rail: p.Rail, Amount: amt, V2: true, SourceAmount: src}
	d := fromPayoutV2DestinationRecord(v.Destination)
	if d.Type == DestinationWallet {
		s.Network, s.Address = d.Network, d.Address
	} else {
		s.Destination = d.Destination()
	}
	return s, nil
}

// payoutV2 reads the /v2 payout of a record.
func (r payoutRecord) payoutV2() (PayoutV2, error) {
	if r.V2 == nil {
		return PayoutV2{}, errNotFound
	}
	p, err := r.payout()
	if err != nil {
		return PayoutV2{}, err
	}
	v := r.V2
	amt, err := money.Parse(v2Asset(v), v.Amount)
	if err != nil {
		return PayoutV2{}, err
	}
	src, err := p.Amount.Add(p.HeldFee)
	if err != nil {
		return PayoutV2{}, err
	}
	out := PayoutV2{ID: p.ID, Org: p.Org, SourceAsset: v2Source(v), SourceAmount: src, Asset: v2Asset(v), Amount: amt,
		Status: p.Status, Destination: fromPayoutV2DestinationRecord(v.Destination), Failure: p.Failure, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		TerminalAt: p.TerminalAt, PrincipalSource: p.Amount, FeeSource: p.HeldFee}
	if v.Rate != nil {
		rate, err := money.ParseRate(*v.Rate)
		if err != nil {
			return PayoutV2{}, err
		}
		out.Rate = &rate
	}
	if p.Fee != nil {
		priced, err := money.Parse(v2Asset(v), v.PricedFee)
		if err != nil {
			return PayoutV2{}, err
		}
		var observed *money.Amount
		if v.FeeObserved != nil {
			o, err := money.Parse(v2Asset(v), *v.FeeObserved)
			if err != nil {
				return PayoutV2{}, err
			}
			observed = &o
		}
		if out.Fee, err = payouts.FeeShownV2(p, v2Asset(v), v.Rate != nil, priced, observed); err != nil {
			return PayoutV2{}, err
		}
	}
	return out, nil
}

var payoutV2Codec = resourceCodec[PayoutV2]{
	decode: func(_ string, stored []byte) (PayoutV2, error) {
		rec, err := cache.DecodeJSON[payoutRecord](stored)
		if err != nil {
			return PayoutV2{}, err
		}
		return rec.payoutV2()
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
	pair := quotes.Pair{Direction: quotes.FromBank, From: v2Source(v), To: v2Asset(v)}
	if c, _ := e.classes.Lookup(money.AssetCode(v.SourceAsset)); c == quotes.Stablecoin {
		pair.Direction = quotes.ToBank
	}
	return &payouts.FX{Pair: pair, Rate: rate}, nil
}

// createPayoutV2 is Client.CreatePayoutV2.
func (e *Engine) createPayoutV2(ctx context.Context, p Principal, req PayoutV2Request, idem Idempotency) (Created[PayoutV2], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = req.Fingerprint()
	}
	wallets := e.sandboxWallets()
	created, err := create(ctx, e, p, CreatePayoutV2Op, idem, fp, payoutV2Codec, func(tx store.Tx, org *Organization) (PayoutV2, []byte, error) {
		asset, err := e.assetOf(org, req.Asset, OpPayout)
		if err != nil {
			return PayoutV2{}, nil, err
		}
		source, err := e.assetOf(org, req.SourceAsset, "")
		if err != nil {
			return PayoutV2{}, nil, err
		}
		amount, err := money.AmountField{Name: "amount"}.BindDecimal(asset, req.Amount)
		if err != nil {
			return PayoutV2{}, nil, err
		}
		d := req.Destination
		if err := d.Type.Check(); err != nil {
			return PayoutV2{}, nil, err
		}
		if err := d.Type.CheckAsset(asset, e.classes); err != nil {
			return PayoutV2{}, nil, err
		}
		rail := d.Type.Rail()
		if rail == RailWallet {
			if err := d.CheckFields(d.Present()); err != nil {
				return PayoutV2{}, nil, err
			}
			n, err := e.networks.Lookup(d.Network)
			if err != nil {
				return PayoutV2{}, nil, err
			}
			if err := n.CheckAddress(asset.Code, d.Address); err != nil {
				return PayoutV2{}, nil, err
			}
		} else {
			r := payouts.Request{Rail: rail, Amount: amount, Destination: d.Destination()}
			if err := r.Validate(wallets); err != nil {
				return PayoutV2{}, nil, err
			}
			// After Validate, which refuses an empty field with the /v1
			// messages: so nil for every destination a transport's
			// decoding let through (it checked the same rule on the
			// members it read), while a Go caller gets the rule too.
			if err := d.CheckFields(d.Present()); err != nil {
				return PayoutV2{}, nil, err
			}
			insts, _, err := e.institutions(tx)
			if err != nil {
				return PayoutV2{}, nil, err
			}
			if _, err := payouts.CheckInstitution(r, insts, wallets); err != nil {
				return PayoutV2{}, nil, err
			}
		}
		limits, err := e.assetLimits(tx, asset, OpPayout)
		if err != nil {
			return PayoutV2{}, nil, err
		}
		if err := limits.Check(amount); err != nil {
			return PayoutV2{}, nil, err
		}
		var fee money.Amount
		if rail == RailWallet {
			if fee, err = e.walletFee(asset, d.Network); err != nil {
				return PayoutV2{}, nil, err
			}
		} else {
			if err := e.checkRail(tx, rail); err != nil {
				return PayoutV2{}, nil, err
			}
			q, err := e.fees.Quote(payouts.DirPayout, rail, amount)
			if err != nil {
				return PayoutV2{}, nil, errcode.Wrap(errcode.RateUnavailable, err)
			}
			fee = q.Total
		}
		var fx *payouts.FX
		var rateText *string
		if source != asset {
			pair, err := quotes.PairOf(source, asset, e.classes)
			if err != nil {
				return PayoutV2{}, nil, err
			}
			rate, err := e.payoutRate(ctx, tx, pair)
			if err != nil {
				return PayoutV2{}, nil, err
			}
			fx = &payouts.FX{Pair: pair, Rate: rate}
			s := rate.String()
			rateText = &s
		}
		price, err := payouts.PriceV2(amount, fee, fx)
		if err != nil {
			return PayoutV2{}, nil, err
		}
		total, err := price.Total()
		if err != nil {
			return PayoutV2{}, nil, err
		}
		now := e.nowUTC()
		po := payouts.Payout{ID: e.newID(), Org: org.ID, Rail: rail, Amount: price.Principal, HeldFee: price.Fee,
			Status: payouts.Held, CreatedAt: now, UpdatedAt: now}
		if _, err := postLedger(tx, ledger.PlaceHold{
			EntryID: "payout:" + po.ID + ":hold", HoldID: holdID(po.ID), Org: po.Org, Amount: total, Ref: po.ID, At: now,
		}); err != nil {
			return PayoutV2{}, nil, err
		}
		rec := toPayoutRecord(po)
		rec.V2 = &payoutV2Record{SourceAsset: string(source.Code), SourceDecimals: source.Decimals, Asset: string(asset.Code),
			AssetDecimals: asset.Decimals, Amount: amount.String(), PricedFee: fee.String(), Rate: rateText,
			Destination: toPayoutV2DestinationRecord(d)}
		if err := schedule(tx, &rec, at(now)); err != nil {
			return PayoutV2{}, nil, err
		}
		stored, err := storage.Encode(rec)
		if err != nil {
			return PayoutV2{}, nil, err
		}
		if err := tx.Put(bucketPayouts, []byte(po.ID), stored); err != nil {
			return PayoutV2{}, nil, err
		}
		if err := tx.Put(bucketPayoutsV2ByOrg, storage.IndexKey(po.Org, po.ID), nil); err != nil {
			return PayoutV2{}, nil, err
		}
		if err := countAccepted(tx, po.Rail, now); err != nil {
			return PayoutV2{}, nil, err
		}
		if source.Code == money.MWK.Code {
			if err := e.checkBalanceLow(tx, po.Org); err != nil {
				return PayoutV2{}, nil, err
			}
		}
		out, err := rec.payoutV2()
		return out, stored, err
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
	charged, observed, err := payouts.ChargeV2(p, v2Asset(v), fee, fx)
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
	p, err := rec.payoutV2()
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
	if err := storage.GetJSON(tx, bucketPayouts, id, &r, errNotFound); err != nil {
		return PayoutV2{}, err
	}
	if r.Org != org || r.V2 == nil {
		return PayoutV2{}, errNotFound
	}
	return r.payoutV2()
}

// payoutV2 is Client.PayoutV2.
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

// listPayoutsV2 is Client.PayoutsV2.
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
		out, err = listPage(tx, bucketPayoutsV2ByOrg, p.Org.ID, page, keep, func(id string) (PayoutV2, error) {
			return cache[id], nil
		})
		return err
	})
	return out, err
}
