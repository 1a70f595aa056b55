package render

import (
	"testing"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

func TestDepositAddressAndEnabledAssetBytes(t *testing.T) {
	pin(t, DepositAddress(collections.DepositAddress{Network: "n", Address: "a", Assets: []money.AssetCode{"USDT"}}), `{"network":"n","address":"a","assets":["USDT"]}`)
	pin(t, DepositAddress(collections.DepositAddress{}), `{"network":"","address":"","assets":null}`)
	pin(t, EnabledAsset(orgs.EnabledAsset{Asset: "MWK", Decimals: 2, Operations: []string{"payout"}}), `{"asset":"MWK","decimals":2,"operations":["payout"]}`)
	pin(t, EnabledAsset(orgs.EnabledAsset{}), `{"asset":"","decimals":0,"operations":null}`)
}
