package httpapi_test

import (
	"strings"
	"testing"
)

// GET /metrics on the admin listener, behind the admin token, serves the
// engine's and the handlers' metrics.
func TestAdmin_Metrics(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(key, "Idempotency-Key", "m1")).want(t, 202, "")
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(key, "Idempotency-Key", "m1")).want(t, 202, "")
	e.do(t, "POST", "/v1/payouts/momo", momoBody("200000"), hdr(key, "Idempotency-Key", "m2")).want(t, 402, "insufficient_funds")
	e.adminWith(t, "GET", "/metrics", nil, nil).want(t, 401, "unauthorized")
	r := e.file(t, true, "/metrics", hdr(adminToken)).want(t, 200, "")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	body := string(r.Body)
	for _, want := range []string{
		`tambala_payouts_accepted_total{rail="momo"} 1`,
		`tambala_idempotent_replays_total{operation="payouts.create.momo"} 1`,
		`tambala_http_requests_total{code="insufficient_funds",handler="public",route="POST /v1/payouts/momo",status="402"} 1`,
		`tambala_http_requests_total{code="",handler="public",route="POST /v1/payouts/momo",status="202"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestAdmin_Networks(t *testing.T) {
	e := newEnv(t)
	var got struct {
		Networks []struct {
			ID     string   `json:"id"`
			Kind   string   `json:"kind"`
			Assets []string `json:"assets"`
		} `json:"networks"`
	}
	e.admin(t, "GET", "/admin/networks", nil).want(t, 200, "").decode(t, &got)
	if len(got.Networks) != 2 || got.Networks[0].ID != "ethereum" || got.Networks[1].Kind != "tron" || got.Networks[1].Assets[0] != "USDT" {
		t.Errorf("networks = %+v", got)
	}
}
