package render_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestCorridors(t *testing.T) {
	off, on, zon := money.MustRate("1750.5"), money.MustRate("1800"), money.MustRate("25.250")
	mx := parse(t, money.MWK, "5000000.00")
	m := quotes.Corridor{Asset: money.MWK, RateOffRamp: off, RateOnRamp: on, Min: parse(t, money.MWK, "1000.00"), Max: mx, Open: true}
	zmw := money.Asset{Code: "ZMW", Decimals: 2}
	z := quotes.Corridor{Asset: zmw, RateOnRamp: zon, Min: money.Zero(zmw), Open: false}
	assert.Equal(t,
		`{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true},`+
			`{"asset":"ZMW","rate_off_ramp":null,"rate_on_ramp":"25.25","min":"0.00","open":false}]}`,
		string(render.Corridors([]quotes.Corridor{z, m})))
	assert.Equal(t, `{"corridors":[]}`, string(render.Corridors(nil)))
	assert.Equal(t,
		`{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":"5000000.00","open":true},`+
			`{"asset":"ZMW","rate_off_ramp":null,"rate_on_ramp":"25.25","min":"0.00","max":null,"open":false}]}`,
		string(render.AdminCorridors([]quotes.Corridor{z, m})))
}

func ExampleCorridors() {
	off, on := money.MustRate("1750.50"), money.MustRate("1800")
	mwk := quotes.Corridor{Asset: money.MWK, RateOffRamp: off, RateOnRamp: on, Min: money.FromInt(money.MWK, 1000), Open: true}
	fmt.Println(mwk.Validate(quotes.DefaultClasses()))
	fmt.Println(string(render.Corridors([]quotes.Corridor{mwk})))
	mwk.Open = false
	fmt.Println(quotes.DeskClosed([]quotes.Corridor{mwk}))
	// Output:
	// <nil>
	// {"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true}]}
	// true
}
