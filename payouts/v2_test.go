package payouts_test

import (
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

func usdt(s string) money.Amount {
	a, err := money.Parse(money.USDT, s)
	if err != nil {
		panic(err)
	}
	return a
}

// offRamp is an FX payout from USDT delivering MWK; onRamp one from MWK
// delivering USDT.
func offRamp(rate string) *payouts.FX {
	return &payouts.FX{Pair: quotes.Pair{Direction: quotes.ToBank, From: money.USDT, To: money.MWK}, Rate: money.MustRate(rate)}
}

func onRamp(rate string) *payouts.FX {
	return &payouts.FX{Pair: quotes.Pair{Direction: quotes.FromBank, From: money.MWK, To: money.USDT}, Rate: money.MustRate(rate)}
}

func TestDestinationKind(t *testing.T) {
	for _, c := range []struct {
		kind   payouts.DestinationKind
		rail   payouts.Rail
		fields payouts.DestinationFields
		msg    string
	}{
		{payouts.DestinationBank, payouts.Bank, payouts.FieldInstitutionID | payouts.FieldAccountNumber | payouts.FieldBeneficiaryName, ""},
		{payouts.DestinationMomo, payouts.Momo, payouts.FieldInstitutionID | payouts.FieldMobileNumber | payouts.FieldBeneficiaryName, ""},
		{payouts.DestinationWallet, payouts.Wallet, payouts.FieldNetwork | payouts.FieldAddress, ""},
		{"", "", 0, "destination.type is required."},
		{"card", "", 0, "destination.type must be bank, momo or wallet."},
		{"Bank", "", 0, "destination.type must be bank, momo or wallet."},
	} {
		assert.Equal(t, c.rail, c.kind.Rail(), "%q", c.kind)
		assert.Equal(t, c.fields, c.kind.Fields(), "%q", c.kind)
		err := c.kind.Check()
		if c.msg == "" {
			assert.NoError(t, err, "%q", c.kind)
			continue
		}
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%q", c.kind)
		assert.Equal(t, c.msg, errcode.Message(err), "%q", c.kind)
	}
}

func TestDestinationKindCheckAsset(t *testing.T) {
	classes := quotes.Classes{"MWK": quotes.Fiat, "USDT": quotes.Stablecoin, "EURC": quotes.Stablecoin, "ZAR": quotes.Fiat}
	eurc := money.Asset{Code: "EURC", Decimals: 6}
	zar := money.Asset{Code: "ZAR", Decimals: 2}
	odd := money.Asset{Code: "ODD", Decimals: 2} // no class
	for _, c := range []struct {
		kind  payouts.DestinationKind
		asset money.Asset
		msg   string
	}{
		{payouts.DestinationBank, money.MWK, ""},
		{payouts.DestinationMomo, money.MWK, ""},
		{payouts.DestinationBank, money.USDT, "A bank payout is paid in MWK only, not USDT."},
		{payouts.DestinationMomo, zar, "A momo payout is paid in MWK only, not ZAR."},
		{payouts.DestinationWallet, money.USDT, ""},
		{payouts.DestinationWallet, eurc, ""},
		{payouts.DestinationWallet, money.MWK, "A wallet payout is paid in a stablecoin only, not MWK."},
		{payouts.DestinationWallet, odd, "A wallet payout is paid in a stablecoin only, not ODD."},
		{"card", money.USDT, ""}, // Check's to refuse
	} {
		err := c.kind.CheckAsset(c.asset, classes)
		if c.msg == "" {
			assert.NoError(t, err, "%s in %s", c.kind, c.asset)
			continue
		}
		assert.Equal(t, errcode.UnsupportedAsset, errcode.Of(err), "%s in %s", c.kind, c.asset)
		assert.Equal(t, c.msg, errcode.Message(err))
	}
}

func TestV2DestinationPresent(t *testing.T) {
	assert.Equal(t, payouts.DestinationFields(0), payouts.V2Destination{Type: payouts.DestinationBank}.Present())
	all := payouts.V2Destination{Type: "x", InstitutionID: -1, AccountNumber: "a", MobileNumber: "m", BeneficiaryName: "b", Network: "n", Address: "ad"}
	assert.Equal(t, payouts.FieldInstitutionID|payouts.FieldAccountNumber|payouts.FieldMobileNumber|payouts.FieldBeneficiaryName|
		payouts.FieldNetwork|payouts.FieldAddress, all.Present())
	assert.Equal(t, payouts.Destination{InstitutionID: -1, AccountNumber: "a", MobileNumber: "m", BeneficiaryName: "b"}, all.Destination())
	f := payouts.FieldNetwork | payouts.FieldAddress
	assert.True(t, f.Has(payouts.FieldNetwork))
	assert.False(t, f.Has(payouts.FieldNetwork|payouts.FieldMobileNumber))
	assert.True(t, f.Any(payouts.FieldNetwork|payouts.FieldMobileNumber))
	assert.False(t, f.Any(payouts.FieldMobileNumber))
}

// TestCheckFields pins the messages and their order: they are what a
// transport answers for a body of the wrong shape.
func TestCheckFields(t *testing.T) {
	const (
		inst = payouts.FieldInstitutionID
		acct = payouts.FieldAccountNumber
		mob  = payouts.FieldMobileNumber
		ben  = payouts.FieldBeneficiaryName
		net  = payouts.FieldNetwork
		addr = payouts.FieldAddress
	)
	for _, c := range []struct {
		kind payouts.DestinationKind
		sent payouts.DestinationFields
		msg  string
	}{
		{"", 0, "destination.type is required."},
		{"", inst | acct | ben, "destination.type is required."},
		{"card", net | addr, "destination.type must be bank, momo or wallet."},
		{payouts.DestinationBank, inst | acct | ben, ""},
		{payouts.DestinationBank, acct | ben | net, "destination.institution_id is required."},
		{payouts.DestinationBank, inst | acct | ben | addr, "A bank destination has no network or address."},
		{payouts.DestinationBank, inst | net | mob, "A bank destination has no network or address."},
		{payouts.DestinationBank, inst | acct, "destination.beneficiary_name is required."},
		{payouts.DestinationBank, inst | ben, "A bank destination has account_number and no mobile_number."},
		{payouts.DestinationBank, inst | acct | ben | mob, "A bank destination has account_number and no mobile_number."},
		{payouts.DestinationMomo, inst | mob | ben, ""},
		{payouts.DestinationMomo, mob | ben, "destination.institution_id is required."},
		{payouts.DestinationMomo, inst | mob | ben | net, "A momo destination has no network or address."},
		{payouts.DestinationMomo, inst | mob, "destination.beneficiary_name is required."},
		{payouts.DestinationMomo, inst | ben, "A momo destination has mobile_number and no account_number."},
		{payouts.DestinationMomo, inst | mob | ben | acct, "A momo destination has mobile_number and no account_number."},
		{payouts.DestinationWallet, net | addr, ""},
		{payouts.DestinationWallet, net | addr | inst, "A wallet destination has only network and address."},
		{payouts.DestinationWallet, ben, "A wallet destination has only network and address."},
		{payouts.DestinationWallet, addr, "destination.network is required."},
		{payouts.DestinationWallet, net, "destination.address is required."},
	} {
		d := payouts.V2Destination{Type: c.kind, Network: "tron", Address: "T"}
		err := d.CheckFields(c.sent)
		if c.msg == "" {
			assert.NoError(t, err, "%s %06b", c.kind, c.sent)
			continue
		}
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%s %06b", c.kind, c.sent)
		assert.Equal(t, c.msg, errcode.Message(err), "%s %06b", c.kind, c.sent)
	}
	// A wallet's network and address are sent and not empty.
	sent := payouts.FieldNetwork | payouts.FieldAddress
	err := payouts.V2Destination{Type: payouts.DestinationWallet, Address: "T"}.CheckFields(sent)
	assert.Equal(t, "destination.network is required.", errcode.Message(err))
	err = payouts.V2Destination{Type: payouts.DestinationWallet, Network: "tron"}.CheckFields(sent)
	assert.Equal(t, "destination.address is required.", errcode.Message(err))
	// The engine's reading: the set fields.
	for _, d := range []payouts.V2Destination{
		{Type: payouts.DestinationBank, InstitutionID: 1, AccountNumber: "1", BeneficiaryName: "B"},
		{Type: payouts.DestinationMomo, InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "B"},
		{Type: payouts.DestinationWallet, Network: "tron", Address: "T"},
	} {
		assert.NoError(t, d.CheckFields(d.Present()), "%+v", d)
	}
	bad := payouts.V2Destination{Type: payouts.DestinationWallet, Network: "tron", Address: "T", BeneficiaryName: "B"}
	assert.Equal(t, "A wallet destination has only network and address.", errcode.Message(bad.CheckFields(bad.Present())))
}

// sentField is one destination field as a caller may give it: absent,
// sent empty, or sent with a value.
type sentField int

const (
	absent sentField = iota
	empty
	valued
)

// drawDestination draws a destination as a transport decodes it: each
// field absent, sent as "" (or institution_id 0) or sent with a value,
// and the set of the fields sent.
func drawDestination(t *rapid.T) (payouts.V2Destination, payouts.DestinationFields) {
	kinds := []payouts.DestinationKind{payouts.DestinationBank, payouts.DestinationMomo, payouts.DestinationWallet, "", "card"}
	d := payouts.V2Destination{Type: rapid.SampledFrom(kinds).Draw(t, "kind")}
	var sent payouts.DestinationFields
	field := func(name string, f payouts.DestinationFields, value string, set func(string)) {
		switch sentField(rapid.IntRange(0, 2).Draw(t, name)) {
		case empty:
			sent |= f
		case valued:
			sent |= f
			set(value)
		}
	}
	field("institution_id", payouts.FieldInstitutionID, "1", func(string) { d.InstitutionID = rapid.IntRange(1, 200).Draw(t, "id") })
	field("account_number", payouts.FieldAccountNumber, "3333888800", func(v string) { d.AccountNumber = v })
	field("mobile_number", payouts.FieldMobileNumber, "265991234567", func(v string) { d.MobileNumber = v })
	field("beneficiary_name", payouts.FieldBeneficiaryName, "Chikondi Banda", func(v string) { d.BeneficiaryName = v })
	field("network", payouts.FieldNetwork, "tron", func(v string) { d.Network = v })
	field("address", payouts.FieldAddress, "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV", func(v string) { d.Address = v })
	return d, sent
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return string(errcode.Of(err)) + ": " + errcode.Message(err)
}

// TestCheckFieldsAgrees: the rule read on the fields a transport saw sent
// and on the fields set (the engine's reading) agree. The engine's
// reading never sees more than was sent. When every sent field has a
// value both readings answer alike. What a transport lets through, the
// engine lets through too once Request.Validate (bank and momo) has
// refused the empty fields; so running the rule in the engine after
// Validate changes no transport's answer. And a destination the rule
// lets through carries exactly its kind's fields.
func TestCheckFieldsAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, sent := drawDestination(t)
		present := d.Present()
		require.True(t, sent.Has(present), "set %06b but sent %06b", present, sent)
		bySent, byPresent := d.CheckFields(sent), d.CheckFields(present)
		if sent == present {
			require.Equal(t, errText(bySent), errText(byPresent))
		}
		if bySent == nil {
			require.Equal(t, d.Type.Fields(), sent)
			switch d.Type {
			case payouts.DestinationWallet:
				require.NoError(t, byPresent)
			case payouts.DestinationBank, payouts.DestinationMomo:
				r := payouts.Request{Rail: d.Type.Rail(), Amount: mwk("100"), Destination: d.Destination()}
				if r.Validate(nil) == nil {
					require.NoError(t, byPresent)
				} else {
					require.Equal(t, errcode.ValidationError, errcode.Of(r.Validate(nil)))
				}
			default:
				t.Fatalf("kind %q let through", d.Type)
			}
		}
		if byPresent == nil {
			require.Equal(t, d.Type.Fields(), present)
		}
	})
}

func TestConvertUp(t *testing.T) {
	for _, c := range []struct {
		fx       *payouts.FX
		in, want money.Amount
	}{
		// 1000.00 / 1750.5 = 0.5712653... up 0.571266
		{offRamp("1750.5"), mwk("1000.00"), usdt("0.571266")},
		// 596.90 / 1750.5 = 0.3409883... up 0.340989
		{offRamp("1750.5"), mwk("596.90"), usdt("0.340989")},
		// exact: 1750.50 / 1750.5 = 1
		{offRamp("1750.5"), mwk("1750.50"), usdt("1")},
		// 0.01 / 1750.5 up one micro-USDT
		{offRamp("1750.5"), mwk("0.01"), usdt("0.000006")},
		// 10 × 1800 = 18000.00
		{onRamp("1800"), usdt("10"), mwk("18000.00")},
		// 0.000001 × 1800 = 0.0018 up 0.01
		{onRamp("1800"), usdt("0.000001"), mwk("0.01")},
		{offRamp("1750.5"), mwk("0"), usdt("0")},
		{onRamp("1800"), usdt("0"), mwk("0")},
	} {
		got, err := c.fx.ConvertUp(c.in)
		require.NoError(t, err)
		assert.Equal(t, c.want.String(), got.String(), "%s at %s", c.in, c.fx.Rate)
		assert.Equal(t, c.fx.Pair.From, got.Asset())
	}
}

// drawFX draws an FX payout's rate, either way.
func drawFX(t *rapid.T) *payouts.FX {
	rate := rapid.SampledFrom([]string{"1", "1750.5", "1800", "0.000571", "1999.999999", "3", "7.25"}).Draw(t, "rate")
	if rapid.Bool().Draw(t, "off-ramp") {
		return offRamp(rate)
	}
	return onRamp(rate)
}

// inSource is a, in the delivered asset, converted exactly to fx's source
// asset, compared with x in the source asset: Cmp(x*rate, a) on the
// off-ramp, Cmp(x, a*rate) on the on-ramp.
func cmpInSource(t *rapid.T, fx *payouts.FX, x, a money.Amount) int {
	ctx := apd.BaseContext.WithPrecision(200)
	p := new(apd.Decimal)
	if fx.Pair.Direction == quotes.ToBank {
		_, err := ctx.Mul(p, x.Decimal(), fx.Rate.Decimal())
		require.NoError(t, err)
		return p.Cmp(a.Decimal())
	}
	_, err := ctx.Mul(p, a.Decimal(), fx.Rate.Decimal())
	require.NoError(t, err)
	return x.Decimal().Cmp(p)
}

// TestConvertUpRoundsUp: the converted amount is never worth less than
// what it pays for, and one unit less would be.
func TestConvertUpRoundsUp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fx := drawFX(t)
		a := money.FromUnits(fx.Pair.To, rapid.Int64Range(0, 1_000_000_000_000).Draw(t, "units"))
		got, err := fx.ConvertUp(a)
		require.NoError(t, err)
		require.Equal(t, fx.Pair.From, got.Asset())
		require.GreaterOrEqual(t, cmpInSource(t, fx, got, a), 0, "%s of %s at %s is worth less", got, a, fx.Rate)
		if a.IsZero() {
			require.True(t, got.IsZero())
			return
		}
		less, err := got.Sub(money.FromUnits(fx.Pair.From, 1))
		require.NoError(t, err)
		require.Less(t, cmpInSource(t, fx, less, a), 0, "%s of %s at %s was not the least", got, a, fx.Rate)
	})
}

func TestPriceV2(t *testing.T) {
	// Same asset: held as it is.
	p, err := payouts.PriceV2(usdt("5"), usdt("1.5"), nil)
	require.NoError(t, err)
	assert.Equal(t, [2]string{"5.000000", "1.500000"}, [2]string{p.Principal.String(), p.Fee.String()})
	total, err := p.Total()
	require.NoError(t, err)
	assert.Equal(t, "6.500000", total.String())
	// FX: each part converted and rounded up on its own.
	p, err = payouts.PriceV2(mwk("1000.00"), mwk("596.90"), offRamp("1750.5"))
	require.NoError(t, err)
	assert.Equal(t, [2]string{"0.571266", "0.340989"}, [2]string{p.Principal.String(), p.Fee.String()})
	total, _ = p.Total()
	assert.Equal(t, "0.912255", total.String())
	p, err = payouts.PriceV2(usdt("0.000001"), usdt("1.5"), onRamp("1800"))
	require.NoError(t, err)
	total, _ = p.Total()
	assert.Equal(t, [3]string{"0.01", "2700.00", "2700.01"}, [3]string{p.Principal.String(), p.Fee.String(), total.String()})
	// A principal above the source's maximum.
	_, err = payouts.PriceV2(money.FromInt(money.USDT, 1_000_000_000), usdt("0"), onRamp("1800"))
	assert.Equal(t, errcode.LimitExceeded, errcode.Of(err))
	assert.Equal(t, "The amount is above the maximum: the source amount at this rate must be at most 1000000000000.00 MWK.", errcode.Message(err))
	_, err = payouts.PriceV2(money.FromInt(money.USDT, 555_555_555), usdt("0"), onRamp("1800"))
	assert.NoError(t, err, "999,999,999,000 MWK is within the bound")
}

// TestPriceV2Rapid: the hold is the principal plus the fee, both in the
// source asset; each is the delivered amount converted up, so the source
// amount is never worth less than the amount and fee it pays.
func TestPriceV2Rapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fx := drawFX(t)
		if rapid.Bool().Draw(t, "same asset") {
			fx = nil
		}
		delivered := money.USDT
		if fx != nil {
			delivered = fx.Pair.To
		}
		amount := money.FromUnits(delivered, rapid.Int64Range(1, 1_000_000_000_000_000_000).Draw(t, "amount"))
		fee := money.FromUnits(delivered, rapid.Int64Range(0, 10_000_000).Draw(t, "fee"))
		p, err := payouts.PriceV2(amount, fee, fx)
		if err != nil {
			require.NotNil(t, fx)
			require.Equal(t, errcode.LimitExceeded, errcode.Of(err))
			up, _ := fx.ConvertUp(amount)
			require.True(t, up.AboveMax())
			return
		}
		total, err := p.Total()
		require.NoError(t, err)
		sum, _ := p.Principal.Add(p.Fee)
		require.True(t, total.Equal(sum))
		if fx == nil {
			require.True(t, p.Principal.Equal(amount))
			require.True(t, p.Fee.Equal(fee))
			return
		}
		require.Equal(t, fx.Pair.From, p.Principal.Asset())
		require.Equal(t, fx.Pair.From, p.Fee.Asset())
		require.False(t, p.Principal.AboveMax())
		require.GreaterOrEqual(t, cmpInSource(t, fx, p.Principal, amount), 0)
		require.GreaterOrEqual(t, cmpInSource(t, fx, p.Fee, fee), 0)
		paid, _ := amount.Add(fee)
		require.GreaterOrEqual(t, cmpInSource(t, fx, total, paid), 0, "the source amount pays for amount and fee")
	})
}

func TestChargeV2(t *testing.T) {
	held := payouts.Payout{ID: "p1", Amount: usdt("0.571266"), HeldFee: usdt("0.340989")}
	fee := func(a money.Amount) *money.Amount { return &a }
	for _, c := range []struct {
		name     string
		fee      *money.Amount
		fx       *payouts.FX
		charged  string
		observed string
	}{
		{"none reported: the held fee", nil, offRamp("1750.5"), "0.340989", ""},
		// 500.00 / 1750.5 = 0.2856326... up 0.285633
		{"below the held fee", fee(mwk("500.00")), offRamp("1750.5"), "0.285633", "500.00"},
		{"zero", fee(mwk("0")), offRamp("1750.5"), "0.000000", "0.00"},
		// 596.90 converts to exactly the held fee: not below it
		{"equal to the held fee", fee(mwk("596.90")), offRamp("1750.5"), "0.340989", ""},
		{"above the held fee: absorbed", fee(mwk("900.00")), offRamp("1750.5"), "0.340989", ""},
	} {
		charged, observed, err := payouts.ChargeV2(held, money.MWK, c.fee, c.fx)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.charged, charged.String(), c.name)
		if c.observed == "" {
			assert.Nil(t, observed, c.name)
		} else if assert.NotNil(t, observed, c.name) {
			assert.Equal(t, c.observed, observed.String(), c.name)
		}
	}
	// Same asset: the provider's fee as it is, when below the held fee.
	same := payouts.Payout{ID: "p2", Amount: mwk("1000"), HeldFee: mwk("244.40")}
	charged, observed, err := payouts.ChargeV2(same, money.MWK, fee(mwk("200")), nil)
	require.NoError(t, err)
	assert.Equal(t, "200.00", charged.String())
	require.NotNil(t, observed)
	assert.Equal(t, "200.00", observed.String())
	charged, observed, err = payouts.ChargeV2(same, money.MWK, fee(mwk("300")), nil)
	require.NoError(t, err)
	assert.Equal(t, "244.40", charged.String())
	assert.Nil(t, observed)
	// A fee in another asset, or negative.
	for _, bad := range []money.Amount{usdt("1"), money.FromUnits(money.MWK, -1)} {
		_, _, err := payouts.ChargeV2(held, money.MWK, &bad, offRamp("1750.5"))
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%s", bad)
		assert.Equal(t, "The fee of payout p1 must be a non-negative amount in MWK.", errcode.Message(err))
	}
}

func TestFeeShownV2(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	priced := mwk("596.90")
	observed := mwk("500.00")
	charged := usdt("0.285633")
	p := payouts.Payout{ID: "p", Amount: usdt("0.571266"), HeldFee: usdt("0.340989"), Status: payouts.Pending}
	shown, err := payouts.FeeShownV2(p, money.MWK, true, priced, &observed)
	require.NoError(t, err)
	assert.Nil(t, shown, "null until terminal")

	done, err := p.Succeed(&charged, now)
	require.NoError(t, err)
	for _, c := range []struct {
		name     string
		p        payouts.Payout
		fx       bool
		observed *money.Amount
		want     string
	}{
		{"FX, the provider's fee charged", done, true, &observed, "500.00"},
		{"FX, the priced fee charged", done, true, nil, "596.90"},
	} {
		shown, err := payouts.FeeShownV2(c.p, money.MWK, c.fx, priced, c.observed)
		require.NoError(t, err, c.name)
		require.NotNil(t, shown, c.name)
		assert.Equal(t, c.want, shown.String(), c.name)
		assert.Equal(t, money.MWK, shown.Asset(), c.name)
	}
	reversed, err := done.Reverse(now)
	require.NoError(t, err)
	shown, err = payouts.FeeShownV2(reversed, money.MWK, true, priced, &observed)
	require.NoError(t, err)
	assert.Equal(t, "500.00", shown.String(), "a clawback keeps the fee")

	pending := payouts.Payout{ID: "p", Amount: mwk("1000"), HeldFee: mwk("244.40"), Status: payouts.Pending}
	failed, err := pending.Fail(payouts.FailureFor("declined"), now)
	require.NoError(t, err)
	shown, err = payouts.FeeShownV2(failed, money.MWK, false, mwk("244.40"), nil)
	require.NoError(t, err)
	assert.Equal(t, "0.00", shown.String())
	// Same asset: the fee charged, in the delivered asset.
	fee := mwk("200")
	same, err := pending.Succeed(&fee, now)
	require.NoError(t, err)
	shown, err = payouts.FeeShownV2(same, money.MWK, false, mwk("244.40"), &fee)
	require.NoError(t, err)
	assert.Equal(t, "200.00", shown.String())
}

// TestChargeV2Rapid follows a /v2 payout from pricing to the fee it
// shows: the fee charged never exceeds the fee held; it is below it
// exactly when the provider's fee is observed; and the fee shown (in the
// delivered asset) is the one the charge stands for: converted up it is
// the fee charged on an FX payout, and it is the fee charged on a
// same-asset one.
func TestChargeV2Rapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fx := drawFX(t)
		if rapid.Bool().Draw(t, "same asset") {
			fx = nil
		}
		delivered := money.USDT
		if fx != nil {
			delivered = fx.Pair.To
		}
		amount := money.FromUnits(delivered, rapid.Int64Range(1, 1_000_000_000).Draw(t, "amount"))
		priced := money.FromUnits(delivered, rapid.Int64Range(0, 10_000_000).Draw(t, "priced fee"))
		price, err := payouts.PriceV2(amount, priced, fx)
		require.NoError(t, err)
		now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
		p := payouts.Payout{ID: "p", Amount: price.Principal, HeldFee: price.Fee, Status: payouts.Pending}
		var fee *money.Amount
		if rapid.Bool().Draw(t, "fee reported") {
			f := money.FromUnits(delivered, rapid.Int64Range(0, 20_000_000).Draw(t, "provider fee"))
			fee = &f
		}
		charged, observed, err := payouts.ChargeV2(p, delivered, fee, fx)
		require.NoError(t, err)
		require.Equal(t, p.HeldFee.Asset(), charged.Asset())
		require.LessOrEqual(t, charged.Cmp(p.HeldFee), 0, "charged %s above held %s", charged, p.HeldFee)
		require.Equal(t, observed != nil, charged.Cmp(p.HeldFee) < 0)
		if fee == nil {
			require.True(t, charged.Equal(p.HeldFee))
		}
		done, err := p.Succeed(&charged, now)
		require.NoError(t, err)
		shown, err := payouts.FeeShownV2(done, delivered, fx != nil, priced, observed)
		require.NoError(t, err)
		require.NotNil(t, shown)
		require.Equal(t, delivered, shown.Asset())
		if fx == nil {
			require.Equal(t, charged.String(), shown.String())
			return
		}
		up, err := fx.ConvertUp(*shown)
		require.NoError(t, err)
		require.True(t, up.Equal(charged), "shown %s converts to %s, charged %s", shown, up, charged)
	})
}
