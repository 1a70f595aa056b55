package httpapi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
)

func TestParseRequest(t *testing.T) {
	wallets := map[string]bool{"111100000112": true}
	cases := []struct {
		name string
		rail payouts.Rail
		body string
		code errcode.Code // "" means accepted
		amt  string
	}{
		{"bank integer", payouts.Bank, `{"amount_mwk":5000,"institution_id":1,"account_number":"3333888800","beneficiary_name":"A"}`, "", "5000.00"},
		{"bank string", payouts.Bank, `{"amount_mwk":"5000.5","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, "", "5000.50"},
		{"momo", payouts.Momo, `{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A"}`, "", "1.00"},
		{"sandbox wallet", payouts.Momo, `{"amount_mwk":"1.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"A"}`, "", "1.00"},
		{"fractional number", payouts.Bank, `{"amount_mwk":5000.5,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"three places", payouts.Bank, `{"amount_mwk":"5000.555","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"zero", payouts.Bank, `{"amount_mwk":0,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"negative", payouts.Bank, `{"amount_mwk":-5,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"negative string", payouts.Bank, `{"amount_mwk":"-5","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"exponent", payouts.Bank, `{"amount_mwk":1e3,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"beyond max", payouts.Bank, `{"amount_mwk":"1000000000000.01","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"at max", payouts.Bank, `{"amount_mwk":1000000000000,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, "", "1000000000000.00"},
		{"missing amount", payouts.Bank, `{"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"null amount", payouts.Bank, `{"amount_mwk":null,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"institution string", payouts.Bank, `{"amount_mwk":1,"institution_id":"1","account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"institution fraction", payouts.Bank, `{"amount_mwk":1,"institution_id":1.5,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"missing institution", payouts.Bank, `{"amount_mwk":1,"account_number":"1","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"empty account", payouts.Bank, `{"amount_mwk":1,"institution_id":1,"account_number":"","beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"missing name", payouts.Bank, `{"amount_mwk":1,"institution_id":1,"account_number":"1"}`, errcode.ValidationError, ""},
		{"long name", payouts.Bank, fmt.Sprintf(`{"amount_mwk":1,"institution_id":1,"account_number":"1","beneficiary_name":"%0201d"}`, 0), errcode.ValidationError, ""},
		{"no country code", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"mobile_number":"0991234567","beneficiary_name":"A"}`, errcode.InvalidMobileNumber, ""},
		{"plus sign", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"mobile_number":"+265991234567","beneficiary_name":"A"}`, errcode.InvalidMobileNumber, ""},
		{"wrong network digit", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"mobile_number":"265771234567","beneficiary_name":"A"}`, errcode.InvalidMobileNumber, ""},
		{"too short", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"mobile_number":"26599123456","beneficiary_name":"A"}`, errcode.InvalidMobileNumber, ""},
		{"spaces", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"mobile_number":"265 991234567","beneficiary_name":"A"}`, errcode.InvalidMobileNumber, ""},
		{"missing number", payouts.Momo, `{"amount_mwk":1,"institution_id":101,"beneficiary_name":"A"}`, errcode.ValidationError, ""},
		{"not json", payouts.Bank, `{"amount_mwk":`, errcode.ValidationError, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := parseRequest(c.rail, []byte(c.body), wallets)
			if c.code != "" {
				require.Error(t, err)
				assert.Equal(t, c.code, errcode.Of(err), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.amt, r.Amount.String())
		})
	}
	// A sandbox wallet is only exempt where the caller says so.
	_, err := parseRequest(payouts.Momo, []byte(`{"amount_mwk":1,"institution_id":101,"mobile_number":"111100000112","beneficiary_name":"A"}`), nil)
	assert.Equal(t, errcode.InvalidMobileNumber, errcode.Of(err))
}

// parseRequest is what a create does with a body: decodePayoutRequest at
// the transport, then Validate in the engine.
func parseRequest(rail payouts.Rail, body []byte, wallets map[string]bool) (payouts.Request, error) {
	r, err := decodePayoutRequest(rail, body)
	if err != nil {
		return r, err
	}
	return r, r.Validate(wallets)
}

// TestPayoutBodyRefusesInvisibleCharacters: a body's beneficiary_name
// with a control or invisible format character is validation_error, as a
// typed Request's is (payouts' TestTextRefusesInvisibleCharacters).
func TestPayoutBodyRefusesInvisibleCharacters(t *testing.T) {
	for _, c := range []string{"\u202A", "\u202E", "\u2066", "\u2069", "\u200B", "\u200F", "\u2060", "\u2064", "\uFEFF", "\u061C", "\u00AD", "\u0085", "\u009F"} {
		body := fmt.Sprintf(`{"amount_mwk":1,"institution_id":1,"account_number":"3333888800","beneficiary_name":%q}`, "A"+c)
		_, err := parseRequest(payouts.Bank, []byte(body), nil)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%U in a body", []rune(c)[0])
	}
}
