package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/money"
)

// DepositAddressFields is an organization's deposit address on a network:
// the engine's DepositAddress, field for field.
type DepositAddressFields struct {
	Network string            `json:"network"`
	Address string            `json:"address"`
	Assets  []money.AssetCode `json:"assets"`
}

// DepositAddress is the rendering of a deposit address (the items of the
// engine's Client.DepositAddresses, and Operator.RotateDepositAddress):
// {"network","address","assets"}.
func DepositAddress(d DepositAddressFields) []byte {
	b, _ := json.Marshal(d)
	return b
}

// EnabledAssetFields is an asset enabled for an organization: the engine's
// EnabledAsset, field for field.
type EnabledAssetFields struct {
	Asset      money.AssetCode `json:"asset"`
	Decimals   int32           `json:"decimals"`
	Operations []string        `json:"operations"`
}

// EnabledAsset is the rendering of an enabled asset (the items of the
// engine's Client.EnabledAssets): {"asset","decimals","operations"}.
func EnabledAsset(a EnabledAssetFields) []byte {
	b, _ := json.Marshal(a)
	return b
}
