package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
)

func TestParsePageRequest(t *testing.T) {
	cases := []struct {
		limit, before string
		want          tambala.PageRequest
		ok            bool
	}{
		{"", "", tambala.PageRequest{Limit: 50}, true},
		{"", "abc", tambala.PageRequest{Limit: 50, BeforeID: "abc"}, true},
		{"1", "", tambala.PageRequest{Limit: 1}, true},
		{"50", "", tambala.PageRequest{Limit: 50}, true},
		{"200", "x", tambala.PageRequest{Limit: 200, BeforeID: "x"}, true},
		{"007", "", tambala.PageRequest{Limit: 7}, true},
		{"+5", "", tambala.PageRequest{Limit: 5}, true}, // strconv reads a sign; still an integer in range
		{"0", "", tambala.PageRequest{}, false},
		{"201", "", tambala.PageRequest{}, false},
		{"-1", "", tambala.PageRequest{}, false},
		{"x", "", tambala.PageRequest{}, false},
		{"1.5", "", tambala.PageRequest{}, false},
		{"1e2", "", tambala.PageRequest{}, false},
		{" 5", "", tambala.PageRequest{}, false},
		{"5 ", "", tambala.PageRequest{}, false},
		{"0x10", "", tambala.PageRequest{}, false},
		{"99999999999999999999999", "", tambala.PageRequest{}, false},
		{"١", "", tambala.PageRequest{}, false},
	}
	for _, c := range cases {
		got, err := parsePage(c.limit, c.before)
		if c.ok {
			if assert.NoError(t, err, "limit %q", c.limit) {
				assert.Equal(t, c.want, got, "limit %q", c.limit)
			}
			continue
		}
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "limit %q", c.limit)
	}
}
