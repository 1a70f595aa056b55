package strictjson_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
)

type FuzzMeta struct {
	Ref  string  `json:"ref"`
	Note *string `json:"note"`
}

type fuzzInner struct {
	Name  string     `json:"name"`
	Codes []int      `json:"codes"`
	Next  *fuzzInner `json:"next"`
}

// fuzzBody covers the shapes request bodies take: raw amounts, strings and
// optional strings, numbers, nested structs, slices, maps, an embedded
// struct and an untagged field.
type fuzzBody struct {
	FuzzMeta
	AmountMWK     json.RawMessage            `json:"amount_mwk"`
	Raw           jsontext.Value             `json:"raw"`
	InstitutionID int                        `json:"institution_id"`
	Account       *string                    `json:"account_number"`
	Beneficiary   string                     `json:"beneficiary_name"`
	Ratio         float64                    `json:"ratio"`
	Count         uint16                     `json:"count"`
	Flag          bool                       `json:"flag"`
	Number        json.Number                `json:"number"`
	Tags          []string                   `json:"tags"`
	Inner         *fuzzInner                 `json:"inner"`
	Items         []fuzzInner                `json:"items"`
	Extra         map[string]json.RawMessage `json:"extra"`
	Any           any                        `json:"any"`
	Skipped       string                     `json:"-"`
	Untagged      string
}

// FuzzUnmarshal holds strictjson to its promise: it never panics, every
// refusal is a validation_error with a clean message, and whatever it
// accepts encoding/json decodes to the same value, so an accepted body has
// one meaning.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		clean, `{}`, `null`, `[]`, `""`, `{"amount_mwk":"1.00","AMOUNT_MWK":"3.00"}`,
		`{"amount_mwk":"1.00","amount_mwk":"2.00"}`, "{\"beneficiary_name\":\"\xff\xfe\"}",
		`{"beneficiary_name":"\ud800"}`, `{"beneficiary_name":"\u0000"}`, `{"beneficiary_name":"\ud83d\ude00"}`,
		`{"ref":"r","note":null,"raw":{"a":[1,2.5,"x"]},"institution_id":-3,"ratio":1e-7,"count":65535}`,
		`{"flag":true,"number":"12","tags":[],"inner":{"name":"n","codes":[1],"next":{"next":null}}}`,
		`{"items":[{},{"codes":[]}],"extra":{"a":null,"A":"x"},"any":[{},[],{"k":false}],"Untagged":""}`,
		`{"untagged":"x"}`, `{"Ref":"x"}`, `{"unknown":{"deep":[{"x":1}]}}`, `{"count":65536}`, `{"number":" 1"}`,
		`{} {}`, `{"a":1}x`, `{"ratio":-0}`, `{"institution_id":1.0}`, `{"raw": 1 }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strict fuzzBody
		err := strictjson.Unmarshal(data, &strict)
		if err != nil {
			var ce *errcode.Error
			if !errors.As(err, &ce) || ce.Code != errcode.ValidationError {
				t.Fatalf("refusal %v is not a validation_error", err)
			}
			msg := ce.PublicMessage()
			if !utf8.ValidString(msg) || hasControl(msg) {
				t.Fatalf("message %q is not clean text", msg)
			}
			return
		}
		if verr := strictjson.Validate(data); verr != nil {
			t.Fatalf("Unmarshal accepted what Validate refuses: %v", verr)
		}
		var v1 fuzzBody
		if err := json.Unmarshal(data, &v1); err != nil {
			t.Fatalf("strictjson accepted %q, encoding/json refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(strict, v1) {
			t.Fatalf("%q decodes differently:\nstrictjson    %#v\nencoding/json %#v", data, strict, v1)
		}
		// Into an untyped value, as an unknown or any field is read.
		var a, a1 any
		if err := strictjson.Unmarshal(data, &a); err != nil {
			t.Fatalf("accepted into a struct but not into any: %v", err)
		}
		if err := json.Unmarshal(data, &a1); err != nil || !reflect.DeepEqual(a, a1) {
			t.Fatalf("%q into any: strictjson %#v, encoding/json %#v (%v)", data, a, a1, err)
		}
	})
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
