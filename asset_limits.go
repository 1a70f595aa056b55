package tambala

import (
	"context"
	"fmt"
	"slices"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

var bucketAssetLimits = []byte("asset_limits") // asset NUL operation -> limits

func assetLimitsKey(asset money.AssetCode, op string) string { return string(asset) + "\x00" + op }

// setAssetLimits is Operator.SetAssetLimits.
func (e *Engine) setAssetLimits(ctx context.Context, asset money.AssetCode, op string, l quotes.Limits) error {
	a, ok := e.assets.Lookup(asset)
	if !ok {
		return errcode.Newf(errcode.ValidationError, "%s is not a configured asset.", truncate(string(asset), 12))
	}
	if op != OpConvert && op != OpPayout {
		return errcode.Newf(errcode.ValidationError, "operation must be convert or payout.")
	}
	var rec codec.AssetLimitsRecord
	for _, b := range []struct {
		v   money.Amount
		out **string
	}{{l.Min, &rec.Min}, {l.Max, &rec.Max}} {
		if !b.v.IsSet() {
			continue
		}
		if b.v.Asset() != a || b.v.Sign() <= 0 {
			return errcode.Newf(errcode.ValidationError, "limits must be positive %s amounts.", a.Code)
		}
		s := b.v.String()
		*b.out = &s
	}
	if l.Min.IsSet() && l.Max.IsSet() && l.Min.Cmp(l.Max) > 0 {
		return errcode.Newf(errcode.ValidationError, "min must be at most max.")
	}
	return e.store.Update(ctx, func(tx store.Tx) error {
		var prev codec.AssetLimitsRecord
		if err := storage.GetJSON(tx, bucketAssetLimits, assetLimitsKey(asset, op), &prev, nil); err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, "", AuditAssetLimitsChanged, string(asset), fmt.Sprintf("%s %s: min %s -> %s, max %s -> %s",
			asset, op, orNone(deref(prev.Min)), orNone(deref(rec.Min)), orNone(deref(prev.Max)), orNone(deref(rec.Max)))); err != nil {
			return err
		}
		if rec.Min == nil && rec.Max == nil {
			return tx.Delete(bucketAssetLimits, []byte(assetLimitsKey(asset, op)))
		}
		return storage.PutJSON(tx, bucketAssetLimits, assetLimitsKey(asset, op), rec)
	})
}

// assetLimits reads the limits of op in asset (none: zero Limits).
func (e *Engine) assetLimits(tx store.Tx, asset money.Asset, op string) (quotes.Limits, error) {
	var rec codec.AssetLimitsRecord
	if err := storage.GetJSON(tx, bucketAssetLimits, assetLimitsKey(asset.Code, op), &rec, nil); err != nil {
		return quotes.Limits{}, err
	}
	var l quotes.Limits
	for _, b := range []struct {
		s   *string
		out *money.Amount
	}{{rec.Min, &l.Min}, {rec.Max, &l.Max}} {
		if b.s == nil {
			continue
		}
		a, err := money.Parse(asset, *b.s)
		if err != nil {
			return quotes.Limits{}, err
		}
		*b.out = a
	}
	return l, nil
}

// readAssetLimits is Operator.AssetLimits.
func (e *Engine) readAssetLimits(ctx context.Context, asset money.AssetCode, op string) (quotes.Limits, error) {
	a, ok := e.assets.Lookup(asset)
	if !ok {
		return quotes.Limits{}, errcode.Newf(errcode.ValidationError, "%s is not a configured asset.", truncate(string(asset), 12))
	}
	var l quotes.Limits
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		l, err = e.assetLimits(tx, a, op)
		return err
	})
	return l, err
}

// Networks lists the blockchain networks the engine accepts, by id, with
// the assets each carries (Options.Networks; the operator's side). They
// are set when the engine is made, since each has an address validator.
func (e *Engine) Networks() []networks.Network {
	out := e.networks.Sorted()
	for i := range out {
		out[i].Assets = slices.Clone(out[i].Assets)
	}
	return out
}
