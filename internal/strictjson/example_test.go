package strictjson_test

import (
	"encoding/json"
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
	"github.com/tambalapay/tambala/money"
)

// A create-payout body: the amount stays raw for money.ParseJSON.
func Example() {
	var in struct {
		AmountMWK       json.RawMessage `json:"amount_mwk"`
		BeneficiaryName *string         `json:"beneficiary_name"`
	}
	for _, body := range []string{
		`{"amount_mwk":"1.00","beneficiary_name":"Chikondi Banda","note":"ignored"}`,
		`{"amount_mwk":"1.00","beneficiary_name":"Chikondi Banda","AMOUNT_MWK":"3.00"}`,
		`{"amount_mwk":"1.00","beneficiary_name":"Chikondi Banda","amount_mwk":"2.00"}`,
		`{"amount_mwk":"1.00","beneficiary_name":"Chikondi\u0000Banda"}`,
	} {
		if err := strictjson.Unmarshal([]byte(body), &in); err != nil {
			fmt.Println(errcode.Of(err), errcode.Message(err))
			continue
		}
		amt, _ := money.ParseJSON(money.MWK, in.AmountMWK)
		fmt.Println(amt, *in.BeneficiaryName)
	}
	// Output:
	// 1.00 Chikondi Banda
	// validation_error Unknown field "AMOUNT_MWK": field names are case-sensitive; the field is "amount_mwk".
	// validation_error Duplicate field "amount_mwk".
	// validation_error Control character in field "beneficiary_name".
}
