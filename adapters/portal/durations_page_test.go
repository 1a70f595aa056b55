package portal_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/tambalapay/tambala/adapters/webhookhttp"
)

// TestDeliveriesPageDurations: an attempt's duration reads as people
// read it ("2.5 ms", "144 µs"), never as Go prints one ("2.520611ms").
func TestDeliveriesPageDurations(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	f := newSenderFixture(t, "ada@example.com", webhookhttp.NewSender(nil))
	token := f.signIn(t)
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.SetWebhookEndpoint(f.ctx, hook.URL+"/hook"); err != nil {
		t.Fatal(err)
	}
	f.collect(t, token, 1)
	if _, err := f.engine.Work().ProcessDeliveries(f.ctx); err != nil {
		t.Fatal(err)
	}
	body := do(f.handler(), "GET", "/portal/deliveries", token, nil).Body.String()
	cells := regexp.MustCompile(`<td class="status">204</td><td>([^<]*)</td>`).FindAllStringSubmatch(body, -1)
	if len(cells) == 0 {
		t.Fatalf("no attempt answered 204: %s", body)
	}
	readable := regexp.MustCompile(`^(\d{1,3}|\d\.\d) (ns|µs|ms|s)$`)
	for _, c := range cells {
		if !readable.MatchString(c[1]) {
			t.Errorf("duration %q is not as people read it", c[1])
		}
	}
}
