package render

import "testing"

func TestRailsBytes(t *testing.T) {
	pin(t, Rails(false, true), `{"bank_disabled":false,"momo_disabled":true}`)
}
