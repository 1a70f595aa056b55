package strictjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
	"github.com/tambalapay/tambala/money"
)

// payoutBody has the shape of payouts' create-payout body.
type payoutBody struct {
	AmountMWK       json.RawMessage `json:"amount_mwk"`
	InstitutionID   json.RawMessage `json:"institution_id"`
	AccountNumber   *string         `json:"account_number"`
	MobileNumber    *string         `json:"mobile_number"`
	BeneficiaryName *string         `json:"beneficiary_name"`
}

const clean = `{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chikondi Banda"}`

// body returns clean with the beneficiary_name member replaced by member.
func body(member string) string {
	return strings.Replace(clean, `"beneficiary_name":"Chikondi Banda"`, member, 1)
}

func TestRefused(t *testing.T) {
	cases := []struct {
		name, body, msg string
		secret          string // a value that must not appear in the message
	}{
		// The ambiguous bodies of issue #14.
		{"case variant beside the field", body(`"beneficiary_name":"X","AMOUNT_MWK":"3.00"`),
			`Unknown field "AMOUNT_MWK": field names are case-sensitive; the field is "amount_mwk".`, "3.00"},
		{"case variant alone", `{"Amount_MWK":"3.00","institution_id":101}`,
			`Unknown field "Amount_MWK": field names are case-sensitive; the field is "amount_mwk".`, "3.00"},
		{"case variant by Unicode folding (Kelvin sign)", `{"amount_mw` + "\u212a" + `":"3.00"}`,
			`Unknown field "amount_mw` + "\u212a" + `": field names are case-sensitive; the field is "amount_mwk".`, "3.00"},
		{"duplicate", body(`"beneficiary_name":"X","amount_mwk":"2.00"`), `Duplicate field "amount_mwk".`, "2.00"},
		{"duplicate of an unknown field", `{"note":"a","note":"b"}`, `Duplicate field "note".`, ""},
		{"duplicate nested in an unknown field", `{"meta":{"x":[{"k":1,"k":2}]}}`, `Duplicate field "meta.x[0].k".`, ""},
		{"duplicate empty name", `{"":1,"":2}`, `Duplicate field "".`, ""},
		{"invalid UTF-8", body("\"beneficiary_name\":\"\xff\xfe\""), `Invalid UTF-8 in field "beneficiary_name".`, ""},
		{"invalid UTF-8 after valid text", body("\"beneficiary_name\":\"Banda \xc3\""), `Invalid UTF-8 in field "beneficiary_name".`, "Banda"},
		{"invalid UTF-8 in a name", "{\"amount\xff\":1}", `Invalid UTF-8 in a field name.`, ""},
		{"invalid UTF-8 in a nested name", "{\"meta\":{\"\xff\":1}}", `Invalid UTF-8 in a field name in "meta".`, ""},
		{"invalid UTF-8 in an unknown field", "{\"note\":\"\xed\xa0\x80\"}", `Invalid UTF-8 in field "note".`, ""},
		{"unpaired high surrogate", body(`"beneficiary_name":"\ud800"`), `Unpaired UTF-16 surrogate escape in field "beneficiary_name".`, ""},
		{"unpaired low surrogate", body(`"beneficiary_name":"Banda\udc00"`), `Unpaired UTF-16 surrogate escape in field "beneficiary_name".`, "Banda"},
		{"high surrogate then no low", body(`"beneficiary_name":"\ud800\u0041"`), `Unpaired UTF-16 surrogate escape in field "beneficiary_name".`, ""},
		{"surrogate in a name", `{"a\udfff":1}`, `Unpaired UTF-16 surrogate escape in a field name.`, ""},
		{"escaped NUL", body(`"beneficiary_name":"Banda\u0000"`), `Control character in field "beneficiary_name".`, "Banda"},
		{"escaped U+001F", body(`"beneficiary_name":"\u001f"`), `Control character in field "beneficiary_name".`, ""},
		{"escaped DEL", body(`"beneficiary_name":"\u007F"`), `Control character in field "beneficiary_name".`, ""},
		{"escaped newline", body(`"beneficiary_name":"Chikondi\nBanda"`), `Control character in field "beneficiary_name".`, "Chikondi"},
		{"escaped tab", body(`"beneficiary_name":"\t"`), `Control character in field "beneficiary_name".`, ""},
		{"raw DEL", body("\"beneficiary_name\":\"Banda\x7f\""), `Control character in field "beneficiary_name".`, "Banda"},
		{"raw NUL", body("\"beneficiary_name\":\"Banda\x00\""), `Control character in field "beneficiary_name".`, "Banda"},
		{"raw tab", body("\"beneficiary_name\":\"Chikondi\tBanda\""), `Control character in field "beneficiary_name".`, "Chikondi"},
		{"control in a raw amount", `{"amount_mwk":"1.00\u0000"}`, `Control character in field "amount_mwk".`, "1.00"},
		{"control in an unknown field", `{"note":["ok","\u0001"]}`, `Control character in field "note[1]".`, ""},
		{"control in a name", `{"amount_mwk\u0000":"1.00"}`, `Control character in a field name.`, "1.00"},
		{"control at the top", `"\u0000"`, `Control character in the request body.`, ""},
		{"trailing object", clean + ` {}`, `The request body has data after its JSON value.`, ""},
		{"trailing garbage", clean + `x`, `The request body has data after its JSON value.`, ""},
		{"trailing brace", clean + `}`, `The request body has data after its JSON value.`, ""},
		{"trailing after null", `null null`, `The request body has data after its JSON value.`, ""},
		{"empty", ``, `The request body is empty.`, ""},
		{"whitespace", " \r\n\t", `The request body is empty.`, ""},
		{"truncated", `{"amount_mwk":"1.00"`, `The request body is not valid JSON: it ends early.`, "1.00"},
		{"malformed", `{"amount_mwk":}`, `The request body is not valid JSON: syntax error at byte 14.`, ""},
		{"single quotes", `{'amount_mwk':1}`, `The request body is not valid JSON: syntax error at byte 1.`, ""},
		{"bad escape", `{"note":"\x"}`, `The request body is not valid JSON: syntax error at byte 9.`, ""},
		{"array at the top", `[]`, `The request body must be a JSON object.`, ""},
		{"string at the top", `"1.00"`, `The request body must be a JSON object.`, "1.00"},
		{"number at the top", `1`, `The request body must be a JSON object.`, ""},
		{"bool at the top", `true`, `The request body must be a JSON object.`, ""},
		{"wrong field type", `{"account_number":1234}`, `Field "account_number" must be a JSON string.`, "1234"},
		{"object for a string", `{"beneficiary_name":{}}`, `Field "beneficiary_name" must be a JSON string.`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v payoutBody
			err := strictjson.Unmarshal([]byte(tc.body), &v)
			require.Error(t, err)
			var ce *errcode.Error
			require.True(t, errors.As(err, &ce), "a *errcode.Error, not %T", err)
			assert.Equal(t, errcode.ValidationError, ce.Code)
			assert.Equal(t, tc.msg, ce.PublicMessage())
			if tc.secret != "" {
				assert.NotContains(t, ce.PublicMessage(), tc.secret, "the message quotes no value")
			}
			if !strings.Contains(tc.msg, "field names are case-sensitive") && !strings.Contains(tc.msg, "must be") {
				// The syntactic rules need no target.
				err := strictjson.Validate([]byte(tc.body))
				require.Error(t, err)
				assert.Equal(t, tc.msg, errcode.Message(err))
			}
		})
	}
}

// TestAmbiguousUnderV1 shows what the refused bodies meant to encoding/json.
func TestAmbiguousUnderV1(t *testing.T) {
	cases := []struct{ body, amount, name string }{
		{body(`"beneficiary_name":"X","AMOUNT_MWK":"3.00"`), `"3.00"`, "X"},
		{body(`"beneficiary_name":"X","amount_mwk":"2.00"`), `"2.00"`, "X"},
		{`{"amount_mw` + "\u212a" + `":"3.00"}`, `"3.00"`, ""},
		{body("\"beneficiary_name\":\"\xff\xfe\""), `"1.00"`, "\ufffd\ufffd"},
		{body(`"beneficiary_name":"\ud800"`), `"1.00"`, "\ufffd"},
		{body(`"beneficiary_name":"\u0000"`), `"1.00"`, "\x00"},
	}
	for _, tc := range cases {
		var v1 payoutBody
		require.NoError(t, json.Unmarshal([]byte(tc.body), &v1), tc.body)
		assert.Equal(t, tc.amount, string(v1.AmountMWK), tc.body)
		if tc.name != "" {
			require.NotNil(t, v1.BeneficiaryName)
			assert.Equal(t, tc.name, *v1.BeneficiaryName)
		}
		var v payoutBody
		assert.Error(t, strictjson.Unmarshal([]byte(tc.body), &v), tc.body)
	}
}

func TestAccepted(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		name, body string
		want       payoutBody
	}{
		{"clean", clean, payoutBody{AmountMWK: json.RawMessage(`"1.00"`), InstitutionID: json.RawMessage(`101`),
			MobileNumber: str("265991234567"), BeneficiaryName: str("Chikondi Banda")}},
		{"integer amount, spaced", " {\n \"amount_mwk\" : 5000 ,\t\"institution_id\":1}\r\n",
			payoutBody{AmountMWK: json.RawMessage(`5000`), InstitutionID: json.RawMessage(`1`)}},
		{"unknown fields ignored", `{"amount_mwk":"1.00","note":"x","meta":{"a":[1,{"b":null}]},"Note":2,"NOTE":[]}`,
			payoutBody{AmountMWK: json.RawMessage(`"1.00"`)}},
		{"unknown field with an escaped name", `{"amount_mwk":"1.00","amount\u005fmwk_x":1}`,
			payoutBody{AmountMWK: json.RawMessage(`"1.00"`)}},
		{"escaped name of a field", `{"amount\u005fmwk":"1.00"}`, payoutBody{AmountMWK: json.RawMessage(`"1.00"`)}},
		{"null amount", `{"amount_mwk":null}`, payoutBody{AmountMWK: json.RawMessage(`null`)}},
		{"null pointer", `{"account_number":null}`, payoutBody{}},
		{"non-ASCII and escapes", body(`"beneficiary_name":"Ch\u00efkondi \"B\" \\ \/ Ñ \ud83d\ude00"`),
			payoutBody{AmountMWK: json.RawMessage(`"1.00"`), InstitutionID: json.RawMessage(`101`),
				MobileNumber: str("265991234567"), BeneficiaryName: str(`Chïkondi "B" \ / Ñ 😀`)}},
		{"replacement character as text", body("\"beneficiary_name\":\"\uFFFD\""),
			payoutBody{AmountMWK: json.RawMessage(`"1.00"`), InstitutionID: json.RawMessage(`101`),
				MobileNumber: str("265991234567"), BeneficiaryName: str("\uFFFD")}},
		{"C1 range is not control", body(`"beneficiary_name":"\u0080"`),
			payoutBody{AmountMWK: json.RawMessage(`"1.00"`), InstitutionID: json.RawMessage(`101`),
				MobileNumber: str("265991234567"), BeneficiaryName: str("\u0080")}},
		{"null body", `null`, payoutBody{}},
		{"empty object", `{}`, payoutBody{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v payoutBody
			require.NoError(t, strictjson.Unmarshal([]byte(tc.body), &v))
			assert.Equal(t, tc.want, v)
			require.NoError(t, strictjson.Validate([]byte(tc.body)))
			var v1 payoutBody
			require.NoError(t, json.Unmarshal([]byte(tc.body), &v1))
			assert.Equal(t, v1, v, "encoding/json reads the same")
		})
	}
}

// TestRawAmounts: raw values reach money.ParseJSON as the callers use them.
func TestRawAmounts(t *testing.T) {
	for in, want := range map[string]string{`"1.00"`: "1.00", `5000`: "5000.00", `"0.5"`: "0.50"} {
		var v payoutBody
		require.NoError(t, strictjson.Unmarshal([]byte(`{"amount_mwk":`+in+`}`), &v))
		a, err := money.ParseJSON(money.MWK, v.AmountMWK)
		require.NoError(t, err, in)
		assert.Equal(t, want, a.String())

		var m map[string]jsontext.Value
		require.NoError(t, strictjson.Unmarshal([]byte(`{"amount_mwk":`+in+`,"rail":"momo"}`), &m))
		a, err = money.ParseJSON(money.MWK, m["amount_mwk"])
		require.NoError(t, err, in)
		assert.Equal(t, want, a.String())
		assert.Equal(t, `"momo"`, string(m["rail"]))
	}
	var m map[string]jsontext.Value
	assert.EqualError(t, strictjson.Unmarshal([]byte(`{"amount_mwk":1,"amount_mwk":2}`), &m),
		`validation_error: Duplicate field "amount_mwk".`)
	// A map's keys are exact: no field to be a case variant of.
	require.NoError(t, strictjson.Unmarshal([]byte(`{"a":1,"A":2}`), &m))
	assert.Len(t, m, 2)
}

type address struct {
	City  string   `json:"city"`
	Lines []string `json:"lines"`
}

type Audit struct {
	Ref string `json:"ref"`
}

type nested struct {
	Audit
	Name      string             `json:"name"`
	Home      *address           `json:"home"`
	Others    []address          `json:"others"`
	ByTag     map[string]address `json:"by_tag"`
	Count     int                `json:"count"`
	Big       int64              `json:"big"`
	Small     uint8              `json:"small"`
	Ratio     float64            `json:"ratio"`
	On        bool               `json:"on"`
	Matrix    [][]int            `json:"matrix"`
	Any       any                `json:"any"`
	Untagged  string
	Hidden    string `json:"-"`
	unexposed string
}

func TestNestingArraysNumbers(t *testing.T) {
	in := `{"ref":"r1","name":"n","home":{"city":"Zomba","lines":["a","b"]},
		"others":[{"city":"Blantyre"},{"lines":[]}],"by_tag":{"x":{"city":"Mzuzu"}},
		"count":-42,"big":9007199254740993,"small":255,"ratio":1.5e-3,"on":true,
		"matrix":[[1,2],[],[3]],"any":{"k":[1,"two",null,false,{"z":0.25}]},"Untagged":"u"}`
	var v nested
	require.NoError(t, strictjson.Unmarshal([]byte(in), &v))
	var v1 nested
	require.NoError(t, json.Unmarshal([]byte(in), &v1))
	assert.Equal(t, v1, v)
	assert.Equal(t, "r1", v.Ref, "an embedded struct's fields are promoted")
	assert.Equal(t, int64(9007199254740993), v.Big, "integers are exact")
	assert.Equal(t, "u", v.Untagged)
	assert.Equal(t, map[string]any{"k": []any{1.0, "two", nil, false, map[string]any{"z": 0.25}}}, v.Any)

	refused := map[string]string{
		`{"home":{"City":"Zomba"}}`:             `Unknown field "home.City": field names are case-sensitive; the field is "home.city".`,
		`{"others":[{},{"LINES":[]}]}`:          `Unknown field "others[1].LINES": field names are case-sensitive; the field is "others[1].lines".`,
		`{"by_tag":{"x":{"CITY":""}}}`:          `Unknown field "by_tag.x.CITY": field names are case-sensitive; the field is "by_tag.x.city".`,
		`{"REF":"r"}`:                           `Unknown field "REF": field names are case-sensitive; the field is "ref".`,
		`{"untagged":"u"}`:                      `Unknown field "untagged": field names are case-sensitive; the field is "Untagged".`,
		`{"others":[{"lines":["a","\n"]}]}`:     `Control character in field "others[0].lines[1]".`,
		`{"matrix":[[1],[2,"x"]]}`:              `Field "matrix[1][1]" must be a JSON integer.`,
		`{"small":256}`:                         `Field "small" is out of range.`,
		`{"big":9223372036854775808}`:           `Field "big" is out of range.`,
		`{"count":1.5}`:                         `Field "count" must be a JSON integer.`,
		`{"count":1e3}`:                         `Field "count" must be a JSON integer.`,
		`{"count":"1"}`:                         `Field "count" must be a JSON integer.`,
		`{"ratio":1e999}`:                       `Field "ratio" is out of range.`,
		`{"on":"true"}`:                         `Field "on" must be true or false.`,
		`{"home":[]}`:                           `Field "home" must be a JSON object.`,
		`{"others":{}}`:                         `Field "others" must be a JSON array.`,
		`{"any":{"a":{"b":[0,{"c":1,"c":1}]}}}`: `Duplicate field "any.a.b[1].c".`,
		`{"count":01}`:                          `The request body is not valid JSON: syntax error at byte 10.`,
		`{"count":+1}`:                          `The request body is not valid JSON: syntax error at byte 9.`,
		`{"ratio":NaN}`:                         `The request body is not valid JSON: syntax error at byte 9.`,
	}
	for in, msg := range refused {
		var v nested
		err := strictjson.Unmarshal([]byte(in), &v)
		require.Error(t, err, in)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), in)
		assert.Equal(t, msg, errcode.Message(err), in)
	}
	// "-" and unexported fields are no fields: their names are unknown.
	require.NoError(t, strictjson.Unmarshal([]byte(`{"Hidden":"h","hidden":"h","unexposed":"x"}`), &v))
}

// TestNumber: encoding/json's Number decodes as encoding/json decodes it.
func TestNumber(t *testing.T) {
	type withNumber struct {
		N json.Number `json:"n"`
	}
	for _, in := range []string{`{"n":12}`, `{"n":-1.5e3}`, `{"n":"12"}`, `{"n":null}`, `{}`} {
		var v, v1 withNumber
		require.NoError(t, strictjson.Unmarshal([]byte(in), &v), in)
		require.NoError(t, json.Unmarshal([]byte(in), &v1), in)
		assert.Equal(t, v1, v, in)
	}
	for _, in := range []string{`{"n":"x"}`, `{"n":""}`, `{"n":" 1"}`, `{"n":"1 "}`, `{"n":"0x1"}`, `{"n":true}`, `{"n":{}}`} {
		var v withNumber
		err := strictjson.Unmarshal([]byte(in), &v)
		assert.Equal(t, `Field "n" must be a JSON number.`, errcode.Message(err), in)
		var v1 withNumber
		assert.Error(t, json.Unmarshal([]byte(in), &v1), in)
	}
}

func TestLongPathShortened(t *testing.T) {
	name := strings.Repeat("n", 300)
	err := strictjson.Unmarshal([]byte(`{"`+name+`":1,"`+name+`":2}`), new(map[string]int))
	msg := errcode.Message(err)
	assert.Equal(t, `Duplicate field "`+strings.Repeat("n", 100)+`…".`, msg)
}

func TestProgrammingErrors(t *testing.T) {
	var v payoutBody
	for _, target := range []any{nil, v, (*payoutBody)(nil)} {
		err := strictjson.Unmarshal([]byte(`{}`), target)
		require.Error(t, err)
		assert.Equal(t, errcode.InternalError, errcode.Of(err), "not the client's fault")
	}
	type conflict struct {
		A string `json:"a"`
		B string `json:"'a'"`
	}
	type withError struct {
		E error `json:"e"`
	}
	for in, target := range map[string]any{
		`{}`:              new(chan int),
		`{"c":null}`:      new(map[string]chan int),
		`{"x":{"a":"1"}}`: new(map[string]conflict),
		`{"e":{}}`:        new(withError),
	} {
		err := strictjson.Unmarshal([]byte(in), target)
		require.Error(t, err, in)
		assert.Equal(t, errcode.InternalError, errcode.Of(err), "%s into %T is the target's fault", in, target)
	}
}

// codedName refuses names that are not lowercase, with a code.
type codedName string

func (c *codedName) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil || strings.ToLower(s) != s {
		return errcode.Newf(errcode.ValidationError, "name must be lowercase.")
	}
	*c = codedName(s)
	return nil
}

func TestOwnUnmarshalerErrors(t *testing.T) {
	var v struct {
		Name codedName `json:"name"`
		At   struct {
			T time.Time `json:"t"`
		} `json:"at"`
	}
	err := strictjson.Unmarshal([]byte(`{"name":"X"}`), &v)
	assert.Equal(t, "name must be lowercase.", errcode.Message(err), "a coded error of the type's own method is kept")
	require.NoError(t, strictjson.Unmarshal([]byte(`{"name":"x"}`), &v))
	assert.Equal(t, codedName("x"), v.Name)
	var at time.Time
	err = strictjson.Unmarshal([]byte(`"yesterday"`), &at)
	assert.Equal(t, `The request body is not valid.`, errcode.Message(err))
	err = strictjson.Unmarshal([]byte(`{"at":{"t":"x"}}`), &v)
	assert.Equal(t, `Field "at.t" is not valid.`, errcode.Message(err), "a plain error of the method is not shown")
	err = strictjson.Unmarshal([]byte(`{"name":"x\u0000"}`), &v)
	assert.Equal(t, `Control character in field "name".`, errcode.Message(err), "checked before the method sees it")
}

// BenchmarkUnmarshal compares a create-payout body's decoding with
// encoding/json's.
func BenchmarkUnmarshal(b *testing.B) {
	data := []byte(clean)
	b.Run("strictjson", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var v payoutBody
			if err := strictjson.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var v payoutBody
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
