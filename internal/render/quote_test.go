package render_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

const quoteID = "01890a5d-ac96-774b-bcce-b302099a8057"

// parse is asset's amount s, or a failed test.
func parse(t testing.TB, asset money.Asset, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(asset, s)
	require.NoError(t, err)
	return a
}

func TestQuote(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	q := quotes.Quote{ID: quoteID, Org: "org", Kind: quotes.KindOrder, Direction: quotes.ToBank,
		From: parse(t, money.USDT, "123.456789"), To: parse(t, money.MWK, "216111.10"), Rate: money.MustRate("1750.50"),
		CreatedAt: t0, ExpiresAt: time.Date(2026, 3, 1, 14, 1, 0, 123456789, time.FixedZone("CAT", 2*3600))}
	assert.Equal(t,
		`{"quote_id":"01890a5d-ac96-774b-bcce-b302099a8057","from_asset":"USDT","to_asset":"MWK",`+
			`"from_amount":"123.456789","to_amount":"216111.10","rate":"1750.5","expires_at":"2026-03-01T12:01:00.123Z"}`,
		string(render.Quote(q)))

	q = quotes.Quote{ID: quoteID, Org: "org", Kind: quotes.KindConversion, Direction: quotes.FromBank,
		From: parse(t, money.MWK, "100000"), To: parse(t, money.USDT, "55.555556"), Rate: money.MustRate("1800.000"),
		CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	assert.Equal(t,
		`{"quote_id":"01890a5d-ac96-774b-bcce-b302099a8057","from_asset":"MWK","to_asset":"USDT",`+
			`"from_amount":"100000.00","to_amount":"55.555556","rate":"1800","expires_at":"2026-03-01T12:01:00.000Z"}`,
		string(render.Quote(q)))
}
