package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

// DepositAddress is the rendering of a deposit address (the items of the
// engine's Client.DepositAddresses, and Desk.RotateDepositAddress):
// {"network","address","assets"}.
func DepositAddress(d collections.DepositAddress) []byte {
	b, _ := json.Marshal(struct {
		Network string            `json:"network"`
		Address string            `json:"address"`
		Assets  []money.AssetCode `json:"assets"`
	}{d.Network, d.Address, d.Assets})
	return b
}

// EnabledAsset is the rendering of an enabled asset (the items of the
// engine's Client.EnabledAssets): {"asset","decimals","operations"}.
func EnabledAsset(a orgs.EnabledAsset) []byte {
	b, _ := json.Marshal(struct {
		Asset      money.AssetCode `json:"asset"`
		Decimals   int32           `json:"decimals"`
		Operations []string        `json:"operations"`
	}{a.Asset, a.Decimals, a.Operations})
	return b
}
