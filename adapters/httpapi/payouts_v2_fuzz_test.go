package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
)

// payoutV2Codes are the codes POST /v2/payouts may answer besides
// commonCodes.
var payoutV2Codes = []errcode.Code{
	errcode.ValidationError, errcode.InsufficientFunds, errcode.CorridorNotEnabled, errcode.Conflict,
	errcode.UnsupportedAsset, errcode.UnsupportedPair, errcode.UnsupportedNetwork, errcode.InvalidWalletAddress,
	errcode.UnknownInstitution, errcode.InvalidMobileNumber, errcode.MobileNumberInstitutionMismatch,
	errcode.AmountBelowMinimum, errcode.LimitExceeded, errcode.RailDisabled, errcode.RateUnavailable, errcode.ServiceUnavailable,
}

// FuzzPayoutV2Body feeds arbitrary bodies and fields to POST /v2/payouts:
// never a 5xx (the corridor is open and /v2 live); every error is the
// envelope with a code of the route (or of every route); every response
// matches the OpenAPI document; no body the strict decoding refuses is
// accepted; an accepted payout is held and echoes asset, amount and the
// destination's type.
func FuzzPayoutV2Body(f *testing.F) {
	e := newDeskEnv(f, func(o *tambala.Options) { o.Limits.MaxBodyBytes = 64 << 10 })
	_, key := e.newOrg(f, orgSpec{name: "Fuzz", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000, fundMWK: 1_000_000})
	seeds := []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"amount":5}`,
		walletBody("USDT", "USDT", "5", "tron", v2Tron),
		walletBody("USDT", "USDT", "5", "ethereum", v2EVM),
		walletBody("MWK", "USDT", "0.5", "tron", v2Tron),
		bankV2Body("USDT", "1000.00", 1), bankV2Body("MWK", "1000", 1),
		momoV2Body("1000", "111100000112", 101), momoV2Body("1000", "265991234567", 101),
		`{"source_asset":"USDT","asset":"USDT","amount":"5","amount":"6","destination":{"type":"wallet","network":"tron","address":"x"}}`,
		`{"source_asset":"USDT","asset":"USDT","amount":"5","destination":{"type":"wallet","network":"tron","address":"` + v2Tron + `","extra":1}}`,
		"{\"source_asset\":\"\xff\",\"asset\":\"USDT\",\"amount\":\"5\"}",
		strings.Repeat("[", 2000),
	}
	strs := []string{"5", "5.5", "0", "-1", "1e3", "1000.001", "0.0000001", strings.Repeat("9", 40), "NaN", "", "USDT", "MWK",
		"usdt", "tron", "ethereum", v2Tron, v2EVM, "a\x00b", "\xff"}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s), strs[i%len(strs)], "k")
	}
	f.Fuzz(func(t *testing.T, mode uint8, raw []byte, s, idem string) {
		var sent []byte
		switch mode % 4 {
		case 0:
			sent = raw
		case 1:
			sent = []byte(walletBody("USDT", "USDT", s, "tron", v2Tron))
		case 2:
			sent = jsonObj("source_asset", quote(s), "asset", `"USDT"`, "amount", `"1"`, "destination", string(raw))
		default:
			sent = []byte(walletBody("USDT", "USDT", "1", s, string(raw)))
		}
		req := httptest.NewRequest("POST", "/v2/payouts", bytes.NewReader(sent))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idem)
		res := serveDirect(e.Public, req)
		if res.Status >= 500 {
			t.Fatalf("%d %s\nbody: %q", res.Status, truncate(res.Body), sent)
		}
		checkPublic(t, "POST", "/v2/payouts", res.Status, res.Header, res.Body)
		if res.Status >= 300 {
			code := errcode.Code(res.code())
			ok := false
			for _, c := range append(append([]errcode.Code(nil), commonCodes...), payoutV2Codes...) {
				ok = ok || c == code
			}
			if !ok {
				t.Fatalf("code %s is not one of the route's: %s", code, res.Body)
			}
			return
		}
		if err := strictjson.Validate(sent); err != nil {
			t.Fatalf("accepted a body the strict decoding refuses (%v): %q", err, sent)
		}
		if res.Header.Get("Idempotent-Replayed") != "" {
			return
		}
		var in, out struct {
			Asset       string `json:"asset"`
			Amount      string `json:"amount"`
			Status      string `json:"status"`
			Destination struct {
				Type string `json:"type"`
			} `json:"destination"`
		}
		if json.Unmarshal(sent, &in) != nil || json.Unmarshal(res.Body, &out) != nil {
			t.Fatalf("accepted %q, answered %s", sent, res.Body)
		}
		if out.Status != "held" || out.Asset != in.Asset || out.Destination.Type != in.Destination.Type {
			t.Fatalf("accepted %q, answered %s", sent, res.Body)
		}
	})
}
