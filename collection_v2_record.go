package tambala

import (
	"fmt"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
)

// collectionV2Record is a stored /v2 collection: its owner, the ledger
// entry it records and its rendering.
type collectionV2Record = codec.CollectionV2Record

// decodeCollectionV2 reads a stored rendering back, its amounts at the
// asset's decimals; a null network is "".
func (e *Engine) decodeCollectionV2(raw []byte) (CollectionV2, error) {
	r, err := cache.DecodeJSON[codec.CollectionV2Rendering](raw)
	if err != nil {
		return CollectionV2{}, err
	}
	c := CollectionV2{ID: r.ID, Status: CollectionStatus(r.Status), Source: CollectionSource(r.Source), OrderID: r.OrderID}
	if r.Network != nil {
		c.Network = *r.Network
	}
	if c.CreatedAt, err = parseWireTime(r.CreatedAt); err != nil {
		return CollectionV2{}, err
	}
	asset, ok := e.assets.Lookup(money.AssetCode(r.Asset))
	if !ok {
		return CollectionV2{}, fmt.Errorf("tambala: collection %s of unknown asset %q", c.ID, r.Asset)
	}
	c.Asset = asset
	if c.Amount, err = money.Parse(asset, r.Amount); err != nil {
		return CollectionV2{}, err
	}
	if c.Fee, err = money.Parse(asset, r.Fee); err != nil {
		return CollectionV2{}, err
	}
	if c.AmountCredited, err = money.Parse(asset, r.AmountCredited); err != nil {
		return CollectionV2{}, err
	}
	return c, nil
}
