package quotes_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

const (
	quoteID = "01890a5d-ac96-774b-bcce-b302099a8057"
	orgID   = "01890a5d-ac96-774b-bcce-b302099a0001"
	orderID = "01890a5d-ac96-774b-bcce-b302099a9999"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func issue(now time.Time) quotes.Issue {
	return quotes.Issue{Org: orgID, Now: now, TTL: quotes.DefaultTTL, ID: quoteID}
}

func TestTimeFormatIsPayouts(t *testing.T) {
	assert.Equal(t, payouts.TimeFormat, quotes.TimeFormat)
	tm := time.Date(2026, 3, 1, 14, 0, 0, 123456789, time.FixedZone("CAT", 2*3600))
	assert.Equal(t, payouts.FormatTime(tm), quotes.FormatTime(tm))
}

func TestRequestCheck(t *testing.T) {
	tests := []struct {
		req  quotes.Request
		code errcode.Code
		msg  string
	}{
		{req: quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("1")}},
		{req: quotes.Request{FromAsset: "usdt", ToAsset: "MWK", FromAmount: money.DecimalText("1")}, code: errcode.UnsupportedAsset},
		{req: quotes.Request{FromAsset: "USDT", ToAsset: "MWK-X", FromAmount: money.DecimalText("1")}, code: errcode.UnsupportedAsset},
		{req: quotes.Request{FromAsset: "usdt", ToAsset: "mwk", FromAmount: money.DecimalText("1")}, code: errcode.UnsupportedAsset, msg: `Asset code "usdt" is not supported`},
		// Shape (400) before codes (422).
		{req: quotes.Request{FromAsset: "usdt", ToAsset: "MWK"}, code: errcode.ValidationError},
		{req: quotes.Request{FromAsset: "usdt", ToAsset: "MWK", FromAmount: money.DecimalText("x")}, code: errcode.ValidationError},
		{req: quotes.Request{FromAsset: "usdt", ToAsset: "", FromAmount: money.DecimalText("1")}, code: errcode.ValidationError},
	}
	for _, tc := range tests {
		err := tc.req.Check()
		if tc.code == "" {
			assert.NoError(t, err)
			continue
		}
		requireCode(t, err, tc.code)
		if tc.msg != "" {
			assert.True(t, strings.HasPrefix(errcode.Message(err), tc.msg), errcode.Message(err))
		}
	}
}

func req(from, to string, fromAmount, toAmount string) quotes.Request {
	r := quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to)}
	if fromAmount != "" {
		r.FromAmount = money.DecimalText(fromAmount)
	}
	if toAmount != "" {
		r.ToAmount = money.DecimalText(toAmount)
	}
	return r
}

// TestNewOrder checks the package's part of the quote checks in order:
// each row breaks one or more checks, and the earliest must answer.
func TestNewOrder(t *testing.T) {
	toBank := quotes.Pair{Direction: quotes.ToBank, From: usdt, To: mwk}
	fromBank := quotes.Pair{Direction: quotes.FromBank, From: mwk, To: usdt}
	closed := func(c quotes.Corridor) quotes.Corridor { c.Open = false; return c }
	withMax := func(c quotes.Corridor) quotes.Corridor { c.Max = amt(t, mwk, "5000.00"); return c }
	noOff := func(c quotes.Corridor) quotes.Corridor { c.RateOffRamp = money.Rate{}; return c }
	m := mwkCorridor(t)
	z := quotes.Corridor{Asset: zmw, RateOffRamp: money.MustRate("25"), Min: money.Zero(zmw), Open: true}
	tests := []struct {
		name     string
		req      quotes.Request
		pair     quotes.Pair
		visible  []quotes.Corridor
		code     errcode.Code
		from, to string
	}{
		{"to-bank, from fixed", req("USDT", "MWK", "123.456789", ""), toBank, []quotes.Corridor{m}, "", "123.456789", "216111.10"},
		{"to-bank, to fixed", req("USDT", "MWK", "", "216111.10"), toBank, []quotes.Corridor{m}, "", "123.456784", "216111.10"},
		{"from-bank, from fixed", req("MWK", "USDT", "100000.00", ""), fromBank, []quotes.Corridor{m}, "", "100000.00", "55.555556"},
		{"from-bank, to fixed", req("MWK", "USDT", "", "55.555556"), fromBank, []quotes.Corridor{m}, "", "100000.00", "55.555556"},
		// Step 1 and 2 again.
		{"shape", req("USDT", "MWK", "", ""), toBank, []quotes.Corridor{m}, errcode.ValidationError, "", ""},
		{"shape before codes", quotes.Request{FromAsset: "usdt", ToAsset: "MWK"}, toBank, nil, errcode.ValidationError, "", ""},
		{"code", req("usdt", "MWK", "1", ""), toBank, []quotes.Corridor{m}, errcode.UnsupportedAsset, "", ""},
		// Step 4: no corridor for the fiat asset, before the amount.
		{"no corridor", req("USDT", "MWK", "1.1234567", ""), toBank, []quotes.Corridor{z}, errcode.UnsupportedPair, "", ""},
		{"no corridor at all, before the desk", req("USDT", "MWK", "100", ""), toBank, nil, errcode.UnsupportedPair, "", ""},
		// Step 6: the fixed amount.
		{"too many decimals", req("USDT", "MWK", "1.1234567", ""), toBank, []quotes.Corridor{m}, errcode.ValidationError, "", ""},
		{"too many decimals for MWK", req("USDT", "MWK", "", "1000.001"), toBank, []quotes.Corridor{m}, errcode.ValidationError, "", ""},
		{"zero", req("USDT", "MWK", "0.000000", ""), toBank, []quotes.Corridor{m}, errcode.ValidationError, "", ""},
		{"amount before the desk", req("USDT", "MWK", "0", ""), toBank, []quotes.Corridor{closed(m)}, errcode.ValidationError, "", ""},
		// Step 7: desk, then corridor and rate.
		{"desk closed", req("USDT", "MWK", "100", ""), toBank, []quotes.Corridor{closed(m), closed(z)}, errcode.ServiceMaintenance, "", ""},
		{"corridor closed, desk open", req("USDT", "MWK", "100", ""), toBank, []quotes.Corridor{closed(m), z}, errcode.RateUnavailable, "", ""},
		{"rate null", req("USDT", "MWK", "100", ""), toBank, []quotes.Corridor{noOff(m)}, errcode.RateUnavailable, "", ""},
		{"rate null, other way open", req("MWK", "USDT", "100000", ""), fromBank, []quotes.Corridor{noOff(m)}, "", "100000.00", "55.555556"},
		{"desk before rate", req("USDT", "MWK", "0.000001", ""), toBank, []quotes.Corridor{closed(noOff(m))}, errcode.ServiceMaintenance, "", ""},
		// Step 8: derivation, then limits on the C side.
		{"derived zero", req("USDT", "MWK", "0.000001", ""), toBank, []quotes.Corridor{m}, errcode.AmountBelowMinimum, "", ""},
		{"C side one unit below min (fixed)", req("USDT", "MWK", "", "999.99"), toBank, []quotes.Corridor{m}, errcode.AmountBelowMinimum, "", ""},
		{"C side at min (fixed)", req("USDT", "MWK", "", "1000.00"), toBank, []quotes.Corridor{m}, "", "0.571266", "1000.00"},
		{"C side below min (derived)", req("MWK", "USDT", "", "0.555555"), fromBank, []quotes.Corridor{m}, errcode.AmountBelowMinimum, "", ""},
		{"C side at min (derived)", req("MWK", "USDT", "", "0.555556"), fromBank, []quotes.Corridor{m}, "", "1000.00", "0.555556"},
		{"C side at min, from-bank fixed", req("MWK", "USDT", "1000.00", ""), fromBank, []quotes.Corridor{m}, "", "1000.00", "0.555556"},
		{"C side at max", req("USDT", "MWK", "", "5000.00"), toBank, []quotes.Corridor{withMax(m)}, "", "2.856327", "5000.00"},
		{"C side one unit above max", req("USDT", "MWK", "", "5000.01"), toBank, []quotes.Corridor{withMax(m)}, errcode.LimitExceeded, "", ""},
		{"C side above max (derived)", req("USDT", "MWK", "2.856333", ""), toBank, []quotes.Corridor{withMax(m)}, errcode.LimitExceeded, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := quotes.NewOrder(tc.req, tc.pair, tc.visible, issue(t0.Add(1500*time.Microsecond)))
			if tc.code != "" {
				requireCode(t, err, tc.code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.from, q.From.String())
			assert.Equal(t, tc.to, q.To.String())
			assert.Equal(t, tc.pair.From, q.From.Asset())
			assert.Equal(t, tc.pair.To, q.To.Asset())
			assert.Equal(t, quotes.KindOrder, q.Kind)
			assert.Equal(t, tc.pair.Direction, q.Direction)
			assert.Equal(t, money.MWK.Code, q.Corridor())
			assert.Equal(t, quoteID, q.ID)
			assert.Equal(t, orgID, q.Org)
			assert.Empty(t, q.UsedBy)
			assert.Equal(t, t0.Add(time.Millisecond), q.CreatedAt, "issue time at ms")
			assert.Equal(t, t0.Add(time.Millisecond+quotes.DefaultTTL), q.ExpiresAt)
			wantRate := m.RateOffRamp
			if tc.pair.Direction == quotes.FromBank {
				wantRate = m.RateOnRamp
			}
			assert.Equal(t, wantRate.String(), q.Rate.String())
		})
	}

	// Programming errors: a pair that is not the request's, a bad issue.
	_, err := quotes.NewOrder(req("USDT", "MWK", "1", ""), fromBank, []quotes.Corridor{m}, issue(t0))
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
	_, err = quotes.NewOrder(req("USDT", "MWK", "1", ""), quotes.Pair{From: usdt, To: mwk}, []quotes.Corridor{m}, issue(t0))
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
	for _, in := range []quotes.Issue{{Now: t0, TTL: time.Minute, ID: quoteID}, {Org: orgID, Now: t0, TTL: time.Minute}, {Org: orgID, Now: t0, ID: quoteID}} {
		_, err = quotes.NewOrder(req("USDT", "MWK", "1", ""), toBank, []quotes.Corridor{m}, in)
		assert.Equal(t, errcode.InternalError, errcode.Of(err))
	}
}

func TestNewConversion(t *testing.T) {
	toBank := quotes.Pair{Direction: quotes.ToBank, From: usdt, To: mwk}
	fromBank := quotes.Pair{Direction: quotes.FromBank, From: mwk, To: usdt}
	rate := money.MustRate("1750.5")
	usdtLimits := quotes.Limits{Min: amt(t, usdt, "10"), Max: amt(t, usdt, "1000")}
	mwkLimits := quotes.Limits{Min: amt(t, mwk, "1000.00")}
	tests := []struct {
		name     string
		req      quotes.Request
		pair     quotes.Pair
		rate     money.Rate
		limits   quotes.Limits
		code     errcode.Code
		from, to string
	}{
		{"from fixed", req("USDT", "MWK", "123.456789", ""), toBank, rate, usdtLimits, "", "123.456789", "216111.10"},
		{"from at min", req("USDT", "MWK", "10", ""), toBank, rate, usdtLimits, "", "10.000000", "17505.00"},
		{"from one unit below min", req("USDT", "MWK", "9.999999", ""), toBank, rate, usdtLimits, errcode.AmountBelowMinimum, "", ""},
		{"from at max", req("USDT", "MWK", "1000", ""), toBank, rate, usdtLimits, "", "1000.000000", "1750500.00"},
		{"from one unit above max", req("USDT", "MWK", "1000.000001", ""), toBank, rate, usdtLimits, errcode.LimitExceeded, "", ""},
		{"derived from above max", req("USDT", "MWK", "", "1750500.01"), toBank, rate, usdtLimits, errcode.LimitExceeded, "", ""},
		{"no limits", req("USDT", "MWK", "0.01", ""), toBank, rate, quotes.Limits{}, "", "0.010000", "17.50"},
		{"from-bank, limits on MWK", req("MWK", "USDT", "999.99", ""), fromBank, rate, mwkLimits, errcode.AmountBelowMinimum, "", ""},
		{"from-bank at min", req("MWK", "USDT", "1000", ""), fromBank, rate, mwkLimits, "", "1000.00", "0.571266"},
		{"derived zero", req("USDT", "MWK", "0.000001", ""), toBank, rate, quotes.Limits{}, errcode.AmountBelowMinimum, "", ""},
		{"no rate", req("USDT", "MWK", "100", ""), toBank, money.Rate{}, usdtLimits, errcode.RateUnavailable, "", ""},
		{"amount before rate", req("USDT", "MWK", "1.1234567", ""), toBank, money.Rate{}, usdtLimits, errcode.ValidationError, "", ""},
		{"codes", req("USDT", "mwk", "1", ""), toBank, rate, usdtLimits, errcode.UnsupportedAsset, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := quotes.NewConversion(tc.req, tc.pair, tc.rate, tc.limits, issue(t0))
			if tc.code != "" {
				requireCode(t, err, tc.code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.from, q.From.String())
			assert.Equal(t, tc.to, q.To.String())
			assert.Equal(t, quotes.KindConversion, q.Kind)
			assert.Equal(t, tc.pair.Direction, q.Direction)
			assert.Equal(t, "1750.5", q.Rate.String())
			assert.Equal(t, t0.Add(quotes.DefaultTTL), q.ExpiresAt)
		})
	}
}

func sampleQuote(t testing.TB) quotes.Quote {
	return quotes.Quote{
		ID: quoteID, Org: orgID, Kind: quotes.KindOrder, Direction: quotes.ToBank,
		From: amt(t, usdt, "123.456789"), To: amt(t, mwk, "216111.10"), Rate: money.MustRate("1750.50"),
		CreatedAt: t0, ExpiresAt: t0.Add(time.Minute),
	}
}

func TestExpired(t *testing.T) {
	q := sampleQuote(t)
	q.ExpiresAt = t0.Add(time.Minute + 400*time.Microsecond) // a sub-ms expiry reads at its ms
	exp := t0.Add(time.Minute)
	tests := []struct {
		now     time.Time
		expired bool
	}{
		{t0, false},
		{exp.Add(-time.Millisecond), false},
		{exp, false},                                     // exactly expires_at
		{exp.Add(999 * time.Microsecond), false},         // still that millisecond
		{exp.Add(time.Millisecond), true},                // 1 ms after
		{exp.Add(time.Millisecond).In(time.Local), true}, // zones do not matter
		{exp.Add(time.Hour), true},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.expired, q.Expired(tc.now), "now %s", tc.now.Format(time.RFC3339Nano))
	}
	assert.False(t, q.Prunable(exp.Add(quotes.Retention)))
	assert.True(t, q.Prunable(exp.Add(quotes.Retention+time.Millisecond)))
}

func TestUse(t *testing.T) {
	fresh := sampleQuote(t)
	used := fresh
	used.UsedBy = "01890a5d-ac96-774b-bcce-b302099a1111"
	exp := fresh.ExpiresAt
	tests := []struct {
		name string
		q    quotes.Quote
		kind quotes.Kind
		now  time.Time
		code errcode.Code
	}{
		{"fresh", fresh, quotes.KindOrder, t0, ""},
		{"at exactly expires_at", fresh, quotes.KindOrder, exp, ""},
		{"1 ms after expires_at", fresh, quotes.KindOrder, exp.Add(time.Millisecond), errcode.QuoteExpired},
		{"used", used, quotes.KindOrder, t0, errcode.QuoteUsed},
		{"used before expired", used, quotes.KindOrder, exp.Add(time.Hour), errcode.QuoteUsed},
		{"wrong kind", fresh, quotes.KindConversion, t0, errcode.NotFound},
		{"wrong kind before used", used, quotes.KindConversion, t0, errcode.NotFound},
		{"wrong kind before expired", fresh, quotes.KindConversion, exp.Add(time.Hour), errcode.NotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.q.Use(orderID, tc.kind, tc.now)
			if tc.code != "" {
				requireCode(t, err, tc.code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, orderID, got.UsedBy)
			assert.Empty(t, tc.q.UsedBy, "Use returns a copy")
			got.UsedBy = ""
			assert.Equal(t, tc.q, got, "nothing else changes")
		})
	}
	conv := fresh
	conv.Kind = quotes.KindConversion
	_, err := conv.Use(orderID, quotes.KindOrder, t0)
	requireCode(t, err, errcode.NotFound)
	assert.Equal(t, errcode.Message(quotes.NotFound()), errcode.Message(err), "the wrong kind reads like an unknown quote")
	_, err = conv.Use(orderID, quotes.KindConversion, t0)
	assert.NoError(t, err)
	_, err = fresh.Use(orderID, quotes.KindOrder, exp.Add(time.Millisecond))
	assert.Equal(t, "The quote expired at 2026-03-01T12:01:00.000Z; take a new quote.", errcode.Message(err))
	_, err = fresh.Use("", quotes.KindOrder, t0)
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
}

// --- Storage.

func genAmountOf(t *rapid.T, label string, asset money.Asset) money.Amount {
	if rapid.Bool().Draw(t, label+"_big") {
		// Beyond int64 minor units, within the wire's 30 integer digits.
		s := genDecimal(t, label, money.MaxIntegerDigits, int(asset.Decimals))
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		a, err := money.Round(asset, d, money.RoundDown)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return a
	}
	return money.FromUnits(asset, rapid.Int64().Draw(t, label+"_units"))
}

func genRate(t *rapid.T, label string) money.Rate {
	// Any exact positive decimal, exponent form and trailing zeros included.
	coeff := rapid.Int64Range(1, 1<<62).Draw(t, label+"_coeff")
	exp := rapid.Int32Range(-40, 10).Draw(t, label+"_exp")
	r, err := money.RateFromDecimal(apd.New(coeff, exp))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func genTime(t *rapid.T, label string) time.Time {
	return time.Unix(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+"_s"), rapid.Int64Range(0, 999_999_999).Draw(t, label+"_ns")).UTC()
}

func genCode(t *rapid.T, label string) string {
	return rapid.StringMatching(`[A-Z0-9]{1,12}`).Draw(t, label)
}

func genAssetCode(t *rapid.T, label string) money.Asset {
	return money.Asset{Code: money.AssetCode(genCode(t, label)), Decimals: int32(rapid.IntRange(0, money.MaxDecimals).Draw(t, label+"_dec"))}
}

func genQuote(t *rapid.T) quotes.Quote {
	return quotes.Quote{
		ID:        rapid.String().Draw(t, "id"),
		Org:       rapid.String().Draw(t, "org"),
		Kind:      rapid.SampledFrom([]quotes.Kind{quotes.KindOrder, quotes.KindConversion}).Draw(t, "kind"),
		Direction: rapid.SampledFrom([]quotes.Direction{quotes.ToBank, quotes.FromBank}).Draw(t, "dir"),
		From:      genAmountOf(t, "from", genAssetCode(t, "from_asset")),
		To:        genAmountOf(t, "to", genAssetCode(t, "to_asset")),
		Rate:      genRate(t, "rate"),
		CreatedAt: genTime(t, "created"),
		ExpiresAt: genTime(t, "expires"),
		UsedBy:    rapid.String().Draw(t, "used_by"),
	}
}

// sameQuote compares field by field, exactly: amounts with their assets,
// the rate's decimal with its exponent, times to the nanosecond.
func sameQuote(t *rapid.T, want, got quotes.Quote) {
	t.Helper()
	if want.ID != got.ID || want.Org != got.Org || want.Kind != got.Kind || want.Direction != got.Direction || want.UsedBy != got.UsedBy {
		t.Fatalf("fields: want %+v, got %+v", want, got)
	}
	if !want.From.Equal(got.From) || want.From.Asset() != got.From.Asset() || want.From.String() != got.From.String() {
		t.Fatalf("from: want %s %v, got %s %v", want.From, want.From.Asset(), got.From, got.From.Asset())
	}
	if !want.To.Equal(got.To) || want.To.Asset() != got.To.Asset() || want.To.String() != got.To.String() {
		t.Fatalf("to: want %s %v, got %s %v", want.To, want.To.Asset(), got.To, got.To.Asset())
	}
	if want.Rate.Decimal().String() != got.Rate.Decimal().String() || want.Rate.String() != got.Rate.String() {
		t.Fatalf("rate: want %s, got %s", want.Rate.Decimal(), got.Rate.Decimal())
	}
	if !want.CreatedAt.Equal(got.CreatedAt) || !want.ExpiresAt.Equal(got.ExpiresAt) {
		t.Fatalf("times: want %s %s, got %s %s", want.CreatedAt, want.ExpiresAt, got.CreatedAt, got.ExpiresAt)
	}
}

func TestStoredRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genQuote(t)
		b := codec.EncodeQuote(q)
		got, err := codec.DecodeQuote(b)
		if err != nil {
			t.Fatalf("DecodeStored: %v", err)
		}
		sameQuote(t, q, got)
		if string(codec.EncodeQuote(got)) != string(b) {
			t.Fatal("re-encoding differs")
		}
		if string(render.Quote(got)) != string(render.Quote(q)) {
			t.Fatal("the rendering differs")
		}
		// Every strict prefix, and any trailing byte, is refused.
		n := rapid.IntRange(0, len(b)-1).Draw(t, "cut")
		if _, err := codec.DecodeQuote(b[:n]); err == nil {
			t.Fatalf("a %d-byte prefix of %d decoded", n, len(b))
		}
		if _, err := codec.DecodeQuote(append(b, 0)); err == nil {
			t.Fatal("a trailing byte decoded")
		}
	})
}

func TestStoredQuoteIssued(t *testing.T) {
	// A quote as NewOrder issues it decodes to an equal value.
	q, err := quotes.NewOrder(req("USDT", "MWK", "123.456789", ""), quotes.Pair{Direction: quotes.ToBank, From: usdt, To: mwk},
		[]quotes.Corridor{mwkCorridor(t)}, issue(t0))
	require.NoError(t, err)
	used, err := q.Use(orderID, quotes.KindOrder, t0)
	require.NoError(t, err)
	for _, q := range []quotes.Quote{q, used} {
		got, err := codec.DecodeQuote(codec.EncodeQuote(q))
		require.NoError(t, err)
		assert.Equal(t, q, got)
	}
}

func TestDecodeStoredRefuses(t *testing.T) {
	b := codec.EncodeQuote(sampleQuote(t))
	for name, edit := range map[string]func([]byte) []byte{
		"empty":       func([]byte) []byte { return nil },
		"version":     func(b []byte) []byte { b[0] = 2; return b },
		"JSON":        func([]byte) []byte { return []byte(`{"quote_id":"x"}`) },
		"kind":        func(b []byte) []byte { b[1+1+len(quoteID)+1+len(orgID)] = 9; return b },
		"direction":   func(b []byte) []byte { b[1+1+len(quoteID)+1+len(orgID)+1] = 0; return b },
		"trailing":    func(b []byte) []byte { return append(b, 'x') },
		"asset code":  func(b []byte) []byte { return []byte(strings.Replace(string(b), "USDT", "usdt", 1)) },
		"huge length": func(b []byte) []byte { return append([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}, b[1:]...) },
	} {
		_, err := codec.DecodeQuote(edit(append([]byte(nil), b...)))
		assert.Error(t, err, name)
	}
}

func genCorridor(t *rapid.T) quotes.Corridor {
	asset := genAssetCode(t, "asset")
	c := quotes.Corridor{Asset: asset, Min: genAmountOf(t, "min", asset), Open: rapid.Bool().Draw(t, "open")}
	if rapid.Bool().Draw(t, "has_off") {
		r := genRate(t, "off")
		c.RateOffRamp = r
	}
	if rapid.Bool().Draw(t, "has_on") {
		r := genRate(t, "on")
		c.RateOnRamp = r
	}
	if rapid.Bool().Draw(t, "has_max") {
		m := genAmountOf(t, "max", asset)
		c.Max = m
	}
	return c
}

func TestStoredCorridorRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCorridor(t)
		b := codec.EncodeCorridor(c)
		got, err := codec.DecodeCorridor(b)
		if err != nil {
			t.Fatalf("DecodeCorridor: %v", err)
		}
		if string(codec.EncodeCorridor(got)) != string(b) {
			t.Fatal("re-encoding differs")
		}
		if got.Asset != c.Asset || got.Open != c.Open || !got.Min.Equal(c.Min) ||
			got.Max.IsSet() != c.Max.IsSet() || c.Max.IsSet() && !got.Max.Equal(c.Max) ||
			got.RateOffRamp.IsZero() != c.RateOffRamp.IsZero() || !c.RateOffRamp.IsZero() && got.RateOffRamp.Decimal().String() != c.RateOffRamp.Decimal().String() ||
			got.RateOnRamp.IsZero() != c.RateOnRamp.IsZero() || !c.RateOnRamp.IsZero() && got.RateOnRamp.Decimal().String() != c.RateOnRamp.Decimal().String() {
			t.Fatalf("want %+v, got %+v", c, got)
		}
		if string(render.AdminCorridors([]quotes.Corridor{got})) != string(render.AdminCorridors([]quotes.Corridor{c})) {
			t.Fatal("the rendering differs")
		}
		n := rapid.IntRange(0, len(b)-1).Draw(t, "cut")
		if _, err := codec.DecodeCorridor(b[:n]); err == nil {
			t.Fatalf("a %d-byte prefix of %d decoded", n, len(b))
		}
		if _, err := codec.DecodeCorridor(append(b, 0)); err == nil {
			t.Fatal("a trailing byte decoded")
		}
	})
}

func ExampleNewOrder() {
	off, on := money.MustRate("1750.5"), money.MustRate("1800")
	mwk := quotes.Corridor{Asset: money.MWK, RateOffRamp: off, RateOnRamp: on, Min: money.FromInt(money.MWK, 1000), Open: true}

	r := quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("123.456789")}
	_ = r.Check() // steps 1 and 2; the engine then checks the organization's list
	pair, _ := quotes.PairOf(money.USDT, money.MWK, quotes.DefaultClasses())
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	q, err := quotes.NewOrder(r, pair, []quotes.Corridor{mwk},
		quotes.Issue{Org: "org-1", Now: now, TTL: quotes.DefaultTTL, ID: "01890a5d-ac96-774b-bcce-b302099a8057"})
	fmt.Println(err)
	fmt.Println(string(render.Quote(q)))

	used, err := q.Use("order-1", quotes.KindOrder, q.ExpiresAt)
	fmt.Println(used.UsedBy, err)
	_, err = used.Use("order-2", quotes.KindOrder, now)
	fmt.Println(errcode.Of(err))
	_, err = q.Use("order-3", quotes.KindOrder, q.ExpiresAt.Add(time.Millisecond))
	fmt.Println(errcode.Of(err))
	_, err = q.Use("conversion-1", quotes.KindConversion, now)
	fmt.Println(errcode.Of(err))
	// Output:
	// <nil>
	// {"quote_id":"01890a5d-ac96-774b-bcce-b302099a8057","from_asset":"USDT","to_asset":"MWK","from_amount":"123.456789","to_amount":"216111.10","rate":"1750.5","expires_at":"2026-03-01T12:01:00.000Z"}
	// order-1 <nil>
	// quote_used
	// quote_expired
	// not_found
}
