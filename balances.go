package tambala

import (
	"context"
	"slices"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// EnabledAsset is an asset enabled for an organization, as
// Client.EnabledAssets lists it (package orgs).
type EnabledAsset = orgs.EnabledAsset

// enabledAssets is Client.EnabledAssets.
func (e *Engine) enabledAssets(ctx context.Context, p Principal) ([]EnabledAsset, error) {
	var out []EnabledAsset
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		out = make([]EnabledAsset, 0, len(org.Assets))
		for _, a := range org.Assets {
			asset, ok := e.assets.Lookup(a.Asset)
			if !ok {
				continue
			}
			out = append(out, EnabledAsset{Asset: a.Asset, Decimals: asset.Decimals, Operations: slices.Clone(a.Operations)})
		}
		return nil
	})
	return out, err
}

// enabledAsset returns the configured asset if it is enabled for the
// organization, else corridor_not_enabled (an asset absent from the
// organization's list does not exist for it).
func (e *Engine) enabledAsset(o *Organization, code money.AssetCode, op string) (money.Asset, error) {
	asset, ok := e.assets.Lookup(code)
	if !ok || !o.Enabled(code, "") {
		return money.Asset{}, errcode.Newf(errcode.CorridorNotEnabled, "The asset %s is not enabled for this organization.", truncate(string(code), 12))
	}
	if op != "" && !o.Enabled(code, op) {
		return money.Asset{}, errcode.Newf(errcode.CorridorNotEnabled, "The operation %s is not enabled in %s for this organization.", op, code)
	}
	return asset, nil
}

// assetOfEngine is Gate.Asset.
func (e *Engine) assetOfEngine(code money.AssetCode) (money.Asset, error) {
	a, ok := e.assets.Lookup(code)
	if !ok {
		return money.Asset{}, errcode.Newf(errcode.UnsupportedAsset, "The asset %q is not configured.", truncate(string(code), 12))
	}
	return a, nil
}

// balanceV1 is ClientV1.Balance.
func (e *Engine) balanceV1(ctx context.Context, p Principal) (ledger.Balance, error) {
	return e.balance(ctx, p, APIv1, money.MWK.Code)
}

// balanceOf is Client.Balance.
func (e *Engine) balanceOf(ctx context.Context, p Principal, code money.AssetCode) (ledger.Balance, error) {
	return e.balance(ctx, p, APIv2, code)
}

func (e *Engine) balance(ctx context.Context, p Principal, api API, code money.AssetCode) (ledger.Balance, error) {
	var b ledger.Balance
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, api)
		if err != nil {
			return err
		}
		asset, err := e.assetOf(org, code, "") // a malformed code is unsupported_asset, an absent one corridor_not_enabled
		if err != nil {
			return err
		}
		b, err = ledger.ReadBalance(tx, p.Org.ID, asset)
		return err
	})
	return b, err
}

// orgBalances is Operator.OrgBalances: one read of the organization and
// its balances, MWK first.
func (e *Engine) orgBalances(ctx context.Context, orgID string) ([]ledger.Balance, error) {
	var out []ledger.Balance
	err := e.store.View(ctx, func(tx store.Tx) error {
		var org Organization
		if err := loadOrg(tx, orgID, &org, errNotFound); err != nil {
			return err
		}
		out = out[:0]
		codes := []money.AssetCode{money.MWK.Code}
		for _, a := range org.Assets {
			if !slices.Contains(codes, a.Asset) {
				codes = append(codes, a.Asset)
			}
		}
		for _, code := range codes {
			asset, ok := e.assets.Lookup(code)
			if !ok {
				continue
			}
			b, err := ledger.ReadBalance(tx, org.ID, asset)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	return out, err
}

// balances is Client.Balances.
func (e *Engine) balances(ctx context.Context, p Principal) ([]ledger.Balance, error) {
	var out []ledger.Balance
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, a := range org.Assets {
			asset, ok := e.assets.Lookup(a.Asset)
			if !ok {
				continue
			}
			b, err := ledger.ReadBalance(tx, p.Org.ID, asset)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	return out, err
}

const dayLayout = "2006-01-02"

// dayOf is t's UTC day as a key part.
func dayOf(t time.Time) string { return t.UTC().Format(dayLayout) }

// postLedger posts cmd to the ledger in tx and records the day's close of
// every organization available balance it changed. Every posting of the
// engine goes through it.
func postLedger(tx store.Tx, cmd ledger.Command) (ledger.Effect, error) {
	eff, err := ledger.Post(tx, cmd)
	if err != nil || eff.Replayed {
		return eff, err
	}
	for _, bc := range eff.Balances {
		if bc.Account.Bucket != ledger.Available || bc.Account.Owner == "" {
			continue
		}
		if err := storage.SaveDayCloseAt(tx, bc.Account.Owner, string(bc.Account.Asset.Code), eff.Entry.At, bc.Balance); err != nil {
			return eff, err
		}
	}
	return eff, nil
}

// assetOf checks a /v2 asset code: well-formed (else unsupported_asset),
// in the organization's list (else corridor_not_enabled, naming it).
func (e *Engine) assetOf(org *Organization, code money.AssetCode, op string) (money.Asset, error) {
	if err := quotes.CheckCode(code); err != nil {
		return money.Asset{}, err
	}
	return e.enabledAsset(org, code, op)
}

// Asset returns a configured asset by code, or unsupported_asset.
func (u Settings) Asset(code money.AssetCode) (money.Asset, error) {
	return u.x.assetOfEngine(code)
}
