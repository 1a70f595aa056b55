package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/webhooks"
)

func TestReceiver(t *testing.T) {
	var out bytes.Buffer
	srv := httptest.NewServer(newMux([]string{"whsec_new", "whsec_old"}, &out))
	defer srv.Close()
	body := `{"id":"evt_1","event_type":"payout.succeeded","created_at":"2026-11-21T18:00:00.000Z","balance":{"available":1.00,"held":0.00,"currency":"MWK"},"data":{"id":"p1"}}`
	post := func(sig string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/webhooks", strings.NewReader(body))
		req.Header.Set("Signature", sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	assert.Equal(t, 200, post(webhooks.Sign("whsec_old", []byte(body))), "the previous secret still works during rotation")
	assert.Equal(t, 200, post(webhooks.Sign("whsec_new", []byte(body))), "a duplicate is acknowledged")
	assert.Equal(t, 401, post(webhooks.Sign("whsec_other", []byte(body))))
	assert.Equal(t, 1, strings.Count(out.String(), "evt_1"), "handled once")
}
