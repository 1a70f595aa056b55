package render

import (
	"testing"

	"github.com/tambalapay/tambala/money"
)

func TestDepositAddressAndEnabledAssetBytes(t *testing.T) {
	pin(t, DepositAddress(DepositAddressFields{Network: "n", Address: "a", Assets: []money.AssetCode{"USDT"}}), `{"network":"n","address":"a","assets":["USDT"]}`)
	pin(t, DepositAddress(DepositAddressFields{}), `{"network":"","address":"","assets":null}`)
	pin(t, EnabledAsset(EnabledAssetFields{Asset: "MWK", Decimals: 2, Operations: []string{"payout"}}), `{"asset":"MWK","decimals":2,"operations":["payout"]}`)
	pin(t, EnabledAsset(EnabledAssetFields{}), `{"asset":"","decimals":0,"operations":null}`)
}
