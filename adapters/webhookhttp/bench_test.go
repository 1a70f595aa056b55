package webhookhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/webhooks"
)

// plainTransport hides an *http.Transport behind another RoundTripper, so
// the sender uses it as it is: no destination check (the baseline).
type plainTransport struct{ t *http.Transport }

func (p plainTransport) RoundTrip(r *http.Request) (*http.Response, error) { return p.t.RoundTrip(r) }

// BenchmarkSenderGuard: sends to a loopback receiver with the destination
// check at dial time, beside the same transport without it; keepalive
// (one dial in all) and a new connection per send (a check per send).
func BenchmarkSenderGuard(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	b.Cleanup(srv.Close)
	for _, keep := range []bool{true, false} {
		name := "keepalive"
		if !keep {
			name = "dial_each"
		}
		for _, guarded := range []bool{false, true} {
			tr := &http.Transport{DisableKeepAlives: !keep}
			b.Cleanup(tr.CloseIdleConnections)
			var rt http.RoundTripper = plainTransport{tr}
			kind := "unchecked"
			if guarded {
				rt, kind = tr, "checked"
			}
			s := webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{Transport: rt, Destinations: webhooks.Policy{Loopback: true}})
			b.Run(name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := s.Send(context.Background(), srv.URL+"/hook", eventBody, "sig")
					if err != nil || res.StatusCode != http.StatusNoContent {
						b.Fatalf("%d %v", res.StatusCode, err)
					}
				}
			})
		}
	}
}
