package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// HTTP payout accept: POST /v1/payouts/momo through the real public
// handler on a loopback httptest server, from about 64 concurrent clients
// sharing one keep-alive client, on memstore and on boltstore (fsync on).
// The baseline serves the same requests with a bare net/http handler that
// reads the body, decodes it with encoding/json into a struct of the same
// fields and encodes a response of the same shape and size as a real 202:
// what HTTP and JSON alone cost on this machine at this concurrency.

const benchHTTPClients = 64

const benchHTTPBody = `{"amount_mwk":"1500.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Bench"}`

// benchHTTPParallelism is the SetParallelism factor giving about
// benchHTTPClients goroutines.
func benchHTTPParallelism() int {
	return max(1, benchHTTPClients/runtime.GOMAXPROCS(0))
}

// benchHTTPClient is one shared client whose pool keeps a connection per
// goroutine alive.
func benchHTTPClient(b *testing.B) *http.Client {
	tr := &http.Transport{
		MaxIdleConns:        4 * benchHTTPClients,
		MaxIdleConnsPerHost: 4 * benchHTTPClients,
		DisableCompression:  true,
	}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// benchHTTPEngine returns the public handler over an engine on s, with the
// rate limit out of the way and an organization able to pay out far more
// than b.N times, and that organization's key.
func benchHTTPEngine(b testing.TB, s store.Store) (http.Handler, string) {
	b.Helper()
	e, err := tambala.New(s, &tambala.Options{Limits: tambala.Limits{RatePerSecond: 1e9, RateBurst: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Operator().SetPayoutLimits(ctx, org.ID, tambala.PayoutLimits{DailyVolumeMWK: money.FromInt(money.MWK, 1_000_000_000_000), HourlyCount: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000_000_000), "bench"); err != nil {
		b.Fatal(err)
	}
	key, _, err := e.Operator().CreateKey(ctx, org.ID)
	if err != nil {
		b.Fatal(err)
	}
	return httpapi.New(e, nil), key
}

// benchPayoutResponse has the shape of a payout's rendering (plain
// strings for the amounts).
type benchPayoutResponse struct {
	ID          string  `json:"id"`
	AmountMWK   string  `json:"amount_mwk"`
	Fee         *string `json:"fee"`
	Rail        string  `json:"rail"`
	Status      string  `json:"status"`
	Destination struct {
		InstitutionID   int     `json:"institution_id"`
		AccountNumber   *string `json:"account_number,omitempty"`
		MobileNumber    *string `json:"mobile_number,omitempty"`
		BeneficiaryName string  `json:"beneficiary_name"`
	} `json:"destination"`
	Failure *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failure"`
	CreatedAt  string  `json:"created_at"`
	TerminalAt *string `json:"terminal_at"`
}

// benchPayoutRequest has the fields of a momo payout request.
type benchPayoutRequest struct {
	AmountMWK       json.RawMessage `json:"amount_mwk"`
	InstitutionID   int             `json:"institution_id"`
	MobileNumber    string          `json:"mobile_number"`
	BeneficiaryName string          `json:"beneficiary_name"`
}

// realPayoutResponse captures one real 202 body of the public handler.
func realPayoutResponse(b *testing.B) []byte {
	b.Helper()
	h, key := benchHTTPEngine(b, memstore.New())
	req := httptest.NewRequest("POST", "/v1/payouts/momo", bytes.NewReader([]byte(benchHTTPBody)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Idempotency-Key", "capture")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		b.Fatalf("capturing a real response: %d %s", rec.Code, rec.Body.Bytes())
	}
	return rec.Body.Bytes()
}

// baselineHandler reads the body, decodes it into a struct of the request's
// fields and answers a 202 of the same shape and size as a real one.
func baselineHandler(b *testing.B) http.Handler {
	captured := realPayoutResponse(b)
	var tmpl benchPayoutResponse
	dec := json.NewDecoder(bytes.NewReader(captured))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tmpl); err != nil {
		b.Fatalf("the baseline response does not have the real one's shape: %v: %s", err, captured)
	}
	if again, _ := json.Marshal(tmpl); len(again) != len(captured) {
		b.Fatalf("baseline response is %d bytes, the real one %d: %s", len(again), len(captured), captured)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" || r.Header.Get("Idempotency-Key") == "" {
			http.Error(w, "missing headers", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in benchPayoutRequest
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := tmpl
		out.Destination.InstitutionID = in.InstitutionID
		out.Destination.MobileNumber = &in.MobileNumber
		out.Destination.BeneficiaryName = in.BeneficiaryName
		res, err := json.Marshal(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(res)))
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(res)
	})
}

// benchHTTPResults keeps the last figure of each arm, for the ratio.
var benchHTTPResults sync.Map // arm -> float64 per second

// runHTTPPayouts sends b.N payout requests to h over loopback from about
// benchHTTPClients goroutines, each with its own Idempotency-Key, and
// reports the rate under unit.
func runHTTPPayouts(b *testing.B, arm string, h http.Handler, key, unit string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := benchHTTPClient(b)
	url := srv.URL + "/v1/payouts/momo"
	body := []byte(benchHTTPBody)
	auth := "Bearer " + key
	var seq atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(benchHTTPParallelism())
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, err := http.NewRequest("POST", url, bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header.Set("Authorization", auth)
			req.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(seq.Add(1), 10))
			req.Header.Set("Content-Type", "application/json")
			res, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				b.Error(err)
				return
			}
			if res.StatusCode != http.StatusAccepted {
				b.Errorf("status %d: %s", res.StatusCode, got)
				return
			}
		}
	})
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, unit)
	benchHTTPResults.Store(arm, rate)
}

// BenchmarkHTTPPayoutAccept: payouts/s through the real handler (memstore,
// boltstore with fsync) beside req/s of the bare net/http + encoding/json
// baseline, all at about 64 concurrent clients over loopback.
func BenchmarkHTTPPayoutAccept(b *testing.B) {
	b.Run("baseline-nethttp-json", func(b *testing.B) {
		runHTTPPayouts(b, "baseline", baselineHandler(b), "bench-key", "req/s")
	})
	b.Run("memstore", func(b *testing.B) {
		h, key := benchHTTPEngine(b, memstore.New())
		runHTTPPayouts(b, "memstore", h, key, "payouts/s")
	})
	b.Run("boltstore", func(b *testing.B) {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		h, key := benchHTTPEngine(b, s)
		runHTTPPayouts(b, "boltstore", h, key, "payouts/s")
	})
	base, ok := benchHTTPResults.Load("baseline")
	if !ok {
		return
	}
	for _, arm := range []string{"memstore", "boltstore"} {
		if v, ok := benchHTTPResults.Load(arm); ok {
			b.Logf("%s/baseline = %.3f (%.0f payouts/s vs %.0f req/s)", arm, v.(float64)/base.(float64), v, base)
		}
	}
}
