package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestDecodeCorridorUpdate(t *testing.T) {
	tests := []struct {
		body string
		want string // the admin rendering of the result
		msg  string
	}{
		{body: `{"rate_off_ramp":"1750.50","rate_on_ramp":"1800","min":"1000","open":true}`,
			want: `{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":null,"open":true}`},
		{body: `{"rate_off_ramp":null,"rate_on_ramp":null,"min":"0","open":false,"max":"5000.5"}`,
			want: `{"asset":"MWK","rate_off_ramp":null,"rate_on_ramp":null,"min":"0.00","max":"5000.50","open":false}`},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1","min":"1","open":true,"max":null}`,
			want: `{"asset":"MWK","rate_off_ramp":"1","rate_on_ramp":"1","min":"1.00","max":null,"open":true}`},
		{body: `{"rate_on_ramp":"1800","min":"1000","open":true}`, msg: "rate_off_ramp is required: a decimal string, or null to close the direction."},
		{body: `{"rate_off_ramp":1750.5,"rate_on_ramp":"1800","min":"1000","open":true}`, msg: `rate_off_ramp must be a JSON string (send "100.50", not 100.50).`},
		{body: `{"rate_off_ramp":"0","rate_on_ramp":"1800","min":"1000","open":true}`, msg: "rate_off_ramp: amount is not a decimal number"},
		{body: `{"rate_off_ramp":"1.0000000000000000001","rate_on_ramp":"1800","min":"1000","open":true}`, msg: "rate_off_ramp: amount has more decimal places than the asset carries"},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","open":true}`, msg: "min is required."},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","min":"1000.001","open":true}`, msg: "min: MWK amount has more decimal places than the asset carries"},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","min":1000,"open":true}`, msg: `min must be a JSON string (send "100.50", not 100.50).`},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","min":"1000"}`, msg: "open is required."},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","min":"1000","open":"yes"}`},
		{body: `{"rate_off_ramp":"1","rate_on_ramp":"1800","min":"1000","open":true,"max":"-1"}`, msg: "max: amount must not carry a sign"},
		{body: `{"rate_off_ramp":"1","rate_off_ramp":"2","rate_on_ramp":"1800","min":"1000","open":true}`, msg: `Duplicate field "rate_off_ramp".`},
		{body: `[]`},
		{body: ``},
	}
	for _, tc := range tests {
		c, err := decodeCorridorUpdate(money.MWK, []byte(tc.body))
		if tc.want != "" {
			require.NoError(t, err, tc.body)
			require.NoError(t, c.Validate(quotes.DefaultClasses()))
			assert.Equal(t, `{"corridors":[`+tc.want+`]}`, string(render.AdminCorridors([]quotes.Corridor{c})))
			continue
		}
		require.Equal(t, errcode.ValidationError, errcode.Of(err), tc.body)
		if tc.msg != "" {
			assert.Equal(t, tc.msg, errcode.Message(err), tc.body)
		}
	}
}
