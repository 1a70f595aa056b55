package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestDecodeQuoteRequest(t *testing.T) {
	tests := []struct {
		body string
		want quotes.Request
		msg  string
	}{
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"100"}`,
			want: quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("100")}},
		{body: `{"from_asset":"MWK","to_asset":"USDT","to_amount":"55.555556","from_amount":null}`,
			want: quotes.Request{FromAsset: "MWK", ToAsset: "USDT", ToAmount: money.DecimalText("55.555556")}},
		{body: `{"from_asset":"usdt","to_asset":"MWK","from_amount":"1.1234567"}`,
			want: quotes.Request{FromAsset: "usdt", ToAsset: "MWK", FromAmount: money.DecimalText("1.1234567")}}, // codes and decimals are later checks
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":100}`, msg: `from_amount must be a JSON string (send "100.50", not 100.50).`},
		{body: `{"from_asset":"USDT","to_asset":"MWK","to_amount":1e3}`, msg: `to_amount must be a JSON string (send "100.50", not 100.50).`},
		{body: `{"from_asset":"USDT","to_asset":"MWK"}`, msg: "Exactly one of from_amount and to_amount is required."},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":null,"to_amount":null}`, msg: "Exactly one of from_amount and to_amount is required."},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"1","to_amount":"1"}`, msg: "Exactly one of from_amount and to_amount is required."},
		{body: `{"to_asset":"MWK","from_amount":"1"}`, msg: "from_asset is required."},
		{body: `{"from_asset":"","to_asset":"MWK","from_amount":"1"}`, msg: "from_asset is required."},
		{body: `{"from_asset":"USDT","to_asset":"","from_amount":"1"}`, msg: "to_asset is required."},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"abc"}`, msg: "from_amount: amount is not a decimal number"},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"-1"}`, msg: "from_amount: amount must not carry a sign"},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":""}`, msg: "from_amount: amount is missing"},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":" 1"}`, msg: "from_amount: amount must not contain whitespace"},
		{body: `{"from_asset":7,"to_asset":"MWK","from_amount":"1"}`},
		{body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"1","from_amount":"2"}`, msg: `Duplicate field "from_amount".`},
		{body: `not json`},
		{body: ``},
	}
	for _, tc := range tests {
		r, err := decodeQuoteRequest([]byte(tc.body))
		if tc.want.FromAsset != "" {
			require.NoError(t, err, tc.body)
			assert.Equal(t, tc.want, r, tc.body)
			continue
		}
		require.Equal(t, errcode.ValidationError, errcode.Of(err), tc.body)
		if tc.msg != "" {
			assert.Equal(t, tc.msg, errcode.Message(err), tc.body)
		}
	}
}

// FuzzDecodeQuoteRequest holds the quote body to its contract: an accepted body
// has both codes and exactly one amount in the decimal grammar, and the
// rest of package quotes' checks answer it with a coded error or a quote,
// never a panic or an uncoded error.
func FuzzDecodeQuoteRequest(f *testing.F) {
	for _, s := range []string{
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"123.456789"}`,
		`{"from_asset":"MWK","to_asset":"USDT","to_amount":"55.555556"}`,
		`{"from_asset":"USDT","to_asset":"MWK","to_amount":"999.99"}`,
		`{"from_asset":"usdt","to_asset":"MWK","from_amount":"1"}`,
		`{"from_asset":"USDT","to_asset":"USDT","from_amount":"1"}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":1}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"0.0000001"}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"1","to_amount":null}`,
	} {
		f.Add([]byte(s))
	}
	assets := money.DefaultAssets()
	corridors := []quotes.Corridor{{Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"), RateOnRamp: money.MustRate("1800"),
		Min: money.FromInt(money.MWK, 1000), Max: money.FromInt(money.MWK, 5_000_000), Open: true}}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeQuoteRequest(body)
		if err != nil {
			require.Equal(t, errcode.ValidationError, errcode.Of(err))
			return
		}
		require.NotEmpty(t, r.FromAsset)
		require.NotEmpty(t, r.ToAsset)
		require.True(t, r.FromAmount.IsSet() != r.ToAmount.IsSet())
		if err := r.Check(); err != nil {
			require.Equal(t, errcode.UnsupportedAsset, errcode.Of(err))
			return
		}
		from, okFrom := assets.Lookup(r.FromAsset)
		to, okTo := assets.Lookup(r.ToAsset)
		if !okFrom || !okTo {
			return // the engine's 403
		}
		pair, err := quotes.PairOf(from, to, quotes.DefaultClasses())
		if err != nil {
			require.Equal(t, errcode.UnsupportedPair, errcode.Of(err))
			return
		}
		q, err := quotes.NewOrder(r, pair, corridors, quotes.Issue{Org: "org", Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), TTL: quotes.DefaultTTL, ID: "01890a5d-ac96-774b-bcce-b302099a8057"})
		if err != nil {
			if errcode.Of(err) == errcode.InternalError {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		got, err := codec.DecodeQuote(codec.EncodeQuote(q))
		require.NoError(t, err)
		require.Equal(t, render.Quote(q), render.Quote(got))
	})
}

func pointer[T any](v T) *T { return &v }
