package tambala_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
)

// TestDefaultFingerprintsPinned pins the default fingerprint of each
// create's request: they are stored in idempotency records, so a change
// would make a retry of a key used before answer conflict.
func TestDefaultFingerprintsPinned(t *testing.T) {
	branch := "Limbe"
	for name, c := range map[string]struct {
		got  [32]byte
		want string
	}{
		"payout": {payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}}.Fingerprint(), "7350f2fd23cd0914824223c2cb8a5d71a29dc89166e1d96453ae40d1ca7b1173"},
		"order": {tambala.NewOrder{QuoteID: "q-1", ClientRef: "inv-1",
			Beneficiary: &orders.Beneficiary{Name: "C B", BankName: "NBM", AccountNumber: "1001234567", Branch: &branch}}.Fingerprint(), "d8b5ee21e0474f2747f09784c29aea022185d847b383f370f2a77d27f02209cc"},
		"order without beneficiary": {tambala.NewOrder{QuoteID: "q-2"}.Fingerprint(), "40dd99dbc4363c96557899293595a6a667d10ffb846f25286569ec9f4224e152"},
		"conversion":                {tambala.NewConversion{QuoteID: "q-3"}.Fingerprint(), "6c3d412a74fd2dfe4b8d19fa5ac6e5a32895db6ab616c9aae61e0993b332f359"},
		"payout v2": {tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("25.00"),
			Destination: tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: "tron", Address: "TBX"}}.Fingerprint(), "54c1a980225254a4d8dcae49bbbcbcc8d6cb82b7eeb08d4a3464f2e3b9970b84"},
	} {
		assert.Equal(t, c.want, hex.EncodeToString(c.got[:]), name)
	}
}
