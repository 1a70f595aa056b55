package httpapi_test

import "testing"

// TestAdmin_CreditAgainIsMarkedReplayed: a funding or a deposit sent again
// under its reference answers as before, marked Idempotent-Replayed: true,
// so that a caller (the tambala command) can say nothing more was
// credited; the request that credits carries no such header.
func TestAdmin_CreditAgainIsMarkedReplayed(t *testing.T) {
	e := newDeskEnv(t)
	org, _ := e.deskOrg(t, "credited once")
	for _, c := range []struct {
		path, name string
		body       map[string]any
		code       int
	}{
		{"/admin/orgs/" + org.ID + "/funding", "funding", map[string]any{"asset": "MWK", "amount": "5000.00", "ref": "wire-1"}, 200},
		{"/admin/orgs/" + org.ID + "/deposits", "deposit", map[string]any{"network": "tron", "asset": "USDT", "amount": "25", "tx_ref": "0xabc"}, 201},
	} {
		first := e.admin(t, "POST", c.path, c.body).want(t, c.code, "")
		if got := first.Header.Get("Idempotent-Replayed"); got != "" {
			t.Errorf("%s credited now: Idempotent-Replayed %q, want none", c.name, got)
		}
		again := e.admin(t, "POST", c.path, c.body).want(t, c.code, "")
		if got := again.Header.Get("Idempotent-Replayed"); got != "true" {
			t.Errorf("%s again: Idempotent-Replayed %q, want true", c.name, got)
		}
		if string(again.Body) != string(first.Body) {
			t.Errorf("%s again answers %s, want the first answer %s", c.name, again.Body, first.Body)
		}
	}
}
