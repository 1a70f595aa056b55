package orders_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

func TestValidateClientRef(t *testing.T) {
	cases := []struct {
		ref string
		ok  bool
	}{
		{"a", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{strings.Repeat("é", 64), true}, // 128 bytes, 64 code points
		{strings.Repeat("😀", 64), true}, // 256 bytes
		{strings.Repeat("é", 65), false},
		{"", false},
		{" padded ", true}, // never trimmed
		{"Inv-42", true},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\tb", false},
		{"a\x7fb", false},
		{"a\u0085b", false}, // C1 control
		{"a\xffb", false},   // invalid UTF-8
		{"\xed\xa0\x80", false},
		// Invisible format characters (Unicode category Cf).
		{"inv\u202E1001", false}, // right-to-left override
		{"\u2066inv-1001\u2069", false},
		{"inv\u200B1001", false}, // zero width space
		{"inv-1001\uFEFF", false},
		{"inv\u00AD1001", false}, // soft hyphen
		{"Łukasz-1", true},
		{"محمد-1", true},
	}
	for _, c := range cases {
		err := orders.ValidateClientRef(c.ref)
		if c.ok {
			assert.NoError(t, err, "%q", c.ref)
		} else {
			assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%q", c.ref)
			assert.Contains(t, errcode.Message(err), "client_ref")
		}
	}
}

func TestValidateBeneficiary(t *testing.T) {
	ok := orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1"}
	edge := strings.Repeat("ŵ", 200)
	over := edge + "x"
	cases := []struct {
		name  string
		b     orders.Beneficiary
		field string // "" means valid
	}{
		{"minimal", ok, ""},
		{"full", orders.Beneficiary{Name: edge, BankName: edge, AccountNumber: edge, Branch: strp(edge)}, ""},
		{"spaces kept", orders.Beneficiary{Name: " N ", BankName: "B ", AccountNumber: " 1", Branch: strp(" ")}, ""},
		{"empty name", orders.Beneficiary{BankName: "B", AccountNumber: "1"}, "beneficiary.name"},
		{"empty bank", orders.Beneficiary{Name: "N", AccountNumber: "1"}, "beneficiary.bank_name"},
		{"empty account", orders.Beneficiary{Name: "N", BankName: "B"}, "beneficiary.account_number"},
		{"empty branch", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1", Branch: strp("")}, "beneficiary.branch"},
		{"long name", orders.Beneficiary{Name: over, BankName: "B", AccountNumber: "1"}, "beneficiary.name"},
		{"long bank", orders.Beneficiary{Name: "N", BankName: over, AccountNumber: "1"}, "beneficiary.bank_name"},
		{"long account", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: over}, "beneficiary.account_number"},
		{"long branch", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1", Branch: strp(over)}, "beneficiary.branch"},
		{"control", orders.Beneficiary{Name: "N\r", BankName: "B", AccountNumber: "1"}, "beneficiary.name"},
		{"bad utf-8", orders.Beneficiary{Name: "N", BankName: "B\xc3", AccountNumber: "1"}, "beneficiary.bank_name"},
		{"C1 control", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1\u009B"}, "beneficiary.account_number"},
		{"bidi override", orders.Beneficiary{Name: "Chikondi \u202Eadnab", BankName: "B", AccountNumber: "1"}, "beneficiary.name"},
		{"isolate", orders.Beneficiary{Name: "N", BankName: "\u2067National Bank\u2069", AccountNumber: "1"}, "beneficiary.bank_name"},
		{"zero width", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1001\u200B234567"}, "beneficiary.account_number"},
		{"word joiner", orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1", Branch: strp("Lilongwe\u2060")}, "beneficiary.branch"},
		{"Arabic letter mark", orders.Beneficiary{Name: "\u061Cمحمد", BankName: "B", AccountNumber: "1"}, "beneficiary.name"},
		{"other scripts", orders.Beneficiary{Name: "Łukasz Ŵongani محمد", BankName: "Banki ya Ŵanthu", AccountNumber: "1"}, ""},
	}
	for _, c := range cases {
		err := c.b.Validate()
		if c.field == "" {
			assert.NoError(t, err, c.name)
			continue
		}
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), c.name)
		assert.Contains(t, errcode.Message(err), c.field+" ", c.name)
	}
}

func TestNew(t *testing.T) {
	p := toBankParams()
	o, posts, err := orders.New(p, t0.Add(1500*time.Microsecond))
	require.NoError(t, err)
	assert.Equal(t, orders.Accepted, o.Status)
	assert.Equal(t, t0.Add(time.Millisecond), o.CreatedAt)
	assert.Equal(t, o.CreatedAt, o.UpdatedAt)
	assert.Len(t, posts, 1)
	assert.Nil(t, o.Failure)
	assert.Nil(t, o.Funding)
	assert.Nil(t, o.Proof)
	assert.Nil(t, o.CoinsLeftAt)
	assert.Equal(t, p.QuoteID, o.QuoteID)
	_, ok := o.ExpiresAt()
	assert.False(t, ok)
	// The beneficiary is a copy.
	*p.Beneficiary.Branch = "changed"
	p.Beneficiary.Name = "changed"
	assert.Equal(t, "Blantyre", *o.Beneficiary.Branch)
	assert.Equal(t, "Chikondi Banda", o.Beneficiary.Name)

	fb, posts, err := orders.New(fromBankParams(), t0)
	require.NoError(t, err)
	assert.Equal(t, orders.AwaitingInstructions, fb.Status)
	assert.Empty(t, posts)
	assert.Nil(t, fb.Beneficiary)
}

func TestNewChecksInOrder(t *testing.T) {
	tb, fb := toBankParams(), fromBankParams()
	with := func(p orders.Params, f func(*orders.Params)) orders.Params { f(&p); return p }
	cases := []struct {
		name string
		p    orders.Params
		code errcode.Code
	}{
		{"to-bank without beneficiary", with(tb, func(p *orders.Params) { p.Beneficiary = nil }), errcode.BeneficiaryRequired},
		{"from-bank with beneficiary", with(fb, func(p *orders.Params) { p.Beneficiary = &orders.Beneficiary{Name: "x"} }), errcode.BeneficiaryNotAllowed},
		{"from-bank with a valid beneficiary", with(fb, func(p *orders.Params) {
			p.Beneficiary = &orders.Beneficiary{Name: "N", BankName: "B", AccountNumber: "1"}
		}), errcode.BeneficiaryNotAllowed},
		{"bad beneficiary field", with(tb, func(p *orders.Params) { p.Beneficiary = &orders.Beneficiary{Name: "x"} }), errcode.ValidationError},
		// client_ref's shape (check 2) comes before the beneficiary's presence (check 6).
		{"bad client_ref and no beneficiary", with(tb, func(p *orders.Params) { p.ClientRef = ""; p.Beneficiary = nil }), errcode.ValidationError},
		{"bad client_ref from-bank", with(fb, func(p *orders.Params) { p.ClientRef = strings.Repeat("x", 65) }), errcode.ValidationError},
		// Parameters the engine should never build: internal errors.
		{"no id", with(tb, func(p *orders.Params) { p.ID = "" }), errcode.InternalError},
		{"no org", with(tb, func(p *orders.Params) { p.Org = "" }), errcode.InternalError},
		{"no quote", with(tb, func(p *orders.Params) { p.QuoteID = "" }), errcode.InternalError},
		{"bad direction", with(tb, func(p *orders.Params) { p.Direction = "sideways" }), errcode.InternalError},
		{"zero amount", with(tb, func(p *orders.Params) { p.From = money.Zero(money.USDT) }), errcode.InternalError},
		{"same asset", with(tb, func(p *orders.Params) { p.To = amt(money.USDT, "1") }), errcode.InternalError},
		{"no rate", with(tb, func(p *orders.Params) { p.Rate = money.Rate{} }), errcode.InternalError},
	}
	for _, c := range cases {
		o, posts, err := orders.New(c.p, t0)
		assert.Equal(t, c.code, errcode.Of(err), "%s: %v", c.name, err)
		assert.Equal(t, orders.Order{}, o, c.name)
		assert.Nil(t, posts, c.name)
	}
}
