package tambala_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Webhook delivery throughput: b.N collection.settled events are put in
// the outbox before the timer starts, then ProcessDeliveries runs until
// all are delivered to a loopback receiver that reads the body, verifies
// the signature and answers 204. Each engine arm has its baseline beside
// it: the same bytes with the same headers, POSTed with the same
// webhookhttp.Sender to the same kind of receiver, at the dispatcher's
// concurrency. The serial arms run the dispatcher with Concurrency 1 (one
// delivery at a time: claim transaction, send, record transaction)
// beside one bare sender; the concurrent arms run it with the default
// Concurrency (8) beside 8 bare senders.

// benchWHReceiver counts requests whose signature verifies.
type benchWHReceiver struct {
	srv    *httptest.Server
	secret atomic.Pointer[string]
	ok     atomic.Int64
	bad    atomic.Int64

	mu   sync.Mutex
	body []byte // the last verified body and its signature
	sig  string
}

func newBenchWHReceiver(b *testing.B) *benchWHReceiver {
	rc := &benchWHReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		sig := r.Header.Get("Signature")
		secret := rc.secret.Load()
		if err != nil || secret == nil || !webhooks.Verify(body, sig, *secret) {
			rc.bad.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rc.ok.Add(1)
		rc.mu.Lock()
		rc.body, rc.sig = body, sig
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rc.srv.Close)
	return rc
}

func (rc *benchWHReceiver) url() string { return rc.srv.URL + "/hook" }

func (rc *benchWHReceiver) reset() { rc.ok.Store(0); rc.bad.Store(0) }

func (rc *benchWHReceiver) check(b *testing.B, want int) {
	if ok, bad := rc.ok.Load(), rc.bad.Load(); ok != int64(want) || bad != 0 {
		b.Fatalf("receiver verified %d and refused %d deliveries, want %d verified", ok, bad, want)
	}
}

// benchWHSender is the engine's real sender on a transport that keeps
// enough idle connections for the concurrent baseline.
func benchWHSender(b *testing.B) *webhookhttp.Sender {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, DisableCompression: true}
	b.Cleanup(tr.CloseIdleConnections)
	// The sandbox's destination rule, as the engine gives its own copy:
	// the baseline sends with this one directly, to a loopback receiver.
	return webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{Transport: tr, Destinations: webhooks.Policy{Loopback: true}})
}

// benchWHEngine returns an engine on s sending with sender at concurrency
// (0: the default), and an organization whose endpoint is rc.
func benchWHEngine(b *testing.B, s store.Store, sender *webhookhttp.Sender, concurrency int, rc *benchWHReceiver) (*tambala.Engine, string) {
	b.Helper()
	e, err := tambala.New(s, &tambala.Options{Webhooks: sender, Dispatcher: tambala.DispatcherOptions{Concurrency: concurrency}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := e.Operator().SetWebhookEndpoint(ctx, org.ID, rc.url())
	if err != nil {
		b.Fatal(err)
	}
	rc.secret.Store(&secret)
	return e, org.ID
}

// benchWHEvents puts n events in the outbox (one collection each, from 16
// goroutines so boltstore group-commits them).
func benchWHEvents(b *testing.B, e *tambala.Engine, org string, n int) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for range 16 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				_, err := e.Operator().RecordCollection(context.Background(), org, tambala.NewCollection{
					Amount: money.FromInt(money.MWK, 2500), SourceCustomerName: "Bench Payer",
					SourceAccountNumber: "265991234567", SourceInstitution: "Airtel Money", RTPReferenceNumber: "BENCH",
				})
				if err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
}

func benchWHReport(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}

// benchWHDispatch times ProcessDeliveries at concurrency (0: the default)
// until b.N deliveries are done.
func benchWHDispatch(b *testing.B, s store.Store, concurrency int) {
	defer s.Close()
	rc := newBenchWHReceiver(b)
	e, org := benchWHEngine(b, s, benchWHSender(b), concurrency, rc)
	benchWHEvents(b, e, org, b.N)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		n, err := e.Work().ProcessDeliveries(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatalf("dispatcher stalled after %d of %d deliveries", done, b.N)
		}
		done += n
	}
	b.StopTimer()
	benchWHReport(b)
	rc.check(b, b.N)
}

// benchWHBaseline sends b.N copies of one real delivery (its bytes and
// signature, as the receiver got them) with the engine's sender, from
// concurrency goroutines.
func benchWHBaseline(b *testing.B, concurrency int) {
	rc := newBenchWHReceiver(b)
	sender := benchWHSender(b)
	e, org := benchWHEngine(b, memstore.New(), sender, 1, rc)
	benchWHEvents(b, e, org, 1)
	if n, err := e.Work().ProcessDeliveries(context.Background()); err != nil || n != 1 {
		b.Fatalf("capturing one delivery: %d sent, %v", n, err)
	}
	rc.mu.Lock()
	body, sig := rc.body, rc.sig
	rc.mu.Unlock()
	rc.reset()
	url := rc.url()
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range concurrency {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				res, err := sender.Send(ctx, url, body, sig)
				if err != nil || res.StatusCode != http.StatusNoContent {
					b.Errorf("baseline send: %d %v", res.StatusCode, err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	benchWHReport(b)
	rc.check(b, b.N)
}

// BenchmarkWebhookDelivery: deliveries/s through the engine's dispatcher
// (memstore; boltstore with fsync), serial (Concurrency 1) beside one bare
// sender, and at the default concurrency beside 8 bare senders, all with
// the same sender.
func BenchmarkWebhookDelivery(b *testing.B) {
	bolt := func(b *testing.B) store.Store {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("serial/baseline-sender", func(b *testing.B) { benchWHBaseline(b, 1) })
	b.Run("serial/memstore", func(b *testing.B) { benchWHDispatch(b, memstore.New(), 1) })
	b.Run("serial/boltstore", func(b *testing.B) { benchWHDispatch(b, bolt(b), 1) })
	b.Run("concurrent8/baseline-sender", func(b *testing.B) { benchWHBaseline(b, 8) })
	b.Run("concurrent8/memstore", func(b *testing.B) { benchWHDispatch(b, memstore.New(), 0) })
	b.Run("concurrent8/boltstore", func(b *testing.B) { benchWHDispatch(b, bolt(b), 0) })
}
