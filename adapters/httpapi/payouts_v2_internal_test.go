package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func errText(err error) string {
	if err == nil {
		return ""
	}
	return string(errcode.Of(err)) + ": " + errcode.Message(err)
}

// TestDecodePayoutV2FieldsAgree: the binding reads which destination
// fields a body carries (a member sent as "" is sent) and the engine
// which a Go caller set (non-empty); both apply
// payouts.V2Destination.CheckFields. When every member sent has a value,
// they answer alike. Whatever the binding lets through, the engine's
// reading lets through once Request.Validate has refused the empty text
// of a bank or momo destination (with its own messages): so the engine,
// running the rule after Validate, answers no body differently.
func TestDecodePayoutV2FieldsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var members []string
		var goDest payouts.V2Destination
		allValued := true
		if kind := rapid.SampledFrom([]string{"", "bank", "momo", "wallet", "card"}).Draw(t, "type"); kind != "" || rapid.Bool().Draw(t, "type sent") {
			members = append(members, fmt.Sprintf(`"type":%q`, kind))
			goDest.Type = payouts.DestinationKind(kind)
		}
		switch rapid.IntRange(0, 3).Draw(t, "institution_id") {
		case 1:
			members, allValued = append(members, `"institution_id":null`), false
		case 2:
			id := rapid.IntRange(1, 200).Draw(t, "id")
			members = append(members, fmt.Sprintf(`"institution_id":%d`, id))
			goDest.InstitutionID = id
		case 3:
			members, allValued = append(members, `"institution_id":0`), false
		}
		text := func(name, value string, set *string) {
			switch rapid.IntRange(0, 3).Draw(t, name) {
			case 1:
				members, allValued = append(members, fmt.Sprintf(`%q:null`, name)), false
			case 2:
				members, allValued = append(members, fmt.Sprintf(`%q:""`, name)), false
			case 3:
				members = append(members, fmt.Sprintf(`%q:%q`, name, value))
				*set = value
			}
		}
		text("account_number", "3333888801", &goDest.AccountNumber)
		text("mobile_number", "265991234567", &goDest.MobileNumber)
		text("beneficiary_name", "Chikondi Banda", &goDest.BeneficiaryName)
		text("network", "tron", &goDest.Network)
		text("address", "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV", &goDest.Address)
		body := `{"source_asset":"MWK","asset":"MWK","amount":"1000","destination":{` + strings.Join(members, ",") + `}}`
		r, err := decodePayoutV2([]byte(body))
		engine := goDest.CheckFields(goDest.Present())
		if allValued {
			require.Equal(t, errText(engine), errText(err), "%s", body)
		}
		if err != nil {
			require.Equal(t, errcode.ValidationError, errcode.Of(err), "%s", body)
			return
		}
		d := r.Destination
		switch d.Type {
		case payouts.DestinationWallet:
		case payouts.DestinationBank, payouts.DestinationMomo:
			amount, _ := money.Parse(money.MWK, "1000")
			if (payouts.Request{Rail: d.Type.Rail(), Amount: amount, Destination: d.Destination()}).Validate(nil) != nil {
				return
			}
		default:
			t.Fatalf("type %q let through: %s", d.Type, body)
		}
		require.NoError(t, d.CheckFields(d.Present()), "%s", body)
		require.Equal(t, d.Type.Fields(), d.Present(), "%s", body)
	})
}

// TestDecodePayoutV2EmptyText: a bank body whose account_number is "" is
// the binding's to let through and Request.Validate's to refuse, with
// the /v1 message.
func TestDecodePayoutV2EmptyText(t *testing.T) {
	r, err := decodePayoutV2([]byte(`{"source_asset":"MWK","asset":"MWK","amount":"1000","destination":{"type":"bank","institution_id":1,"account_number":"","beneficiary_name":"X"}}`))
	require.NoError(t, err)
	d := r.Destination
	err = payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 1000), Destination: d.Destination()}.Validate(nil)
	assert.Equal(t, "account_number is required.", errcode.Message(err))
	assert.Equal(t, "A bank destination has account_number and no mobile_number.", errcode.Message(d.CheckFields(d.Present())),
		"the rule the engine runs after Validate")
}
