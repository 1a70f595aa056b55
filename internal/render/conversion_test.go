package render_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestConversion(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	q := quotes.Quote{ID: "q1", From: money.FromUnits(money.USDT, 2_000_000), To: money.FromUnits(money.MWK, 350100), Rate: money.MustRate("1750.5")}
	c, _ := conversions.New("c1", "org", q, t0)
	assert.Equal(t, `{"id":"c1","from_asset":"USDT","to_asset":"MWK","from_amount":"2.000000","to_amount":"3501.00","rate":"1750.5","status":"processing","failure":null,"created_at":"2026-03-02T09:00:00.000Z"}`,
		string(render.Conversion(c)))
	c, _, _, _ = conversions.Fail(c, "provider_declined", t0)
	assert.Contains(t, string(render.Conversion(c)), `"status":"failed","failure":{"code":"provider_declined","message":"The conversion provider declined the conversion."}`)
}
