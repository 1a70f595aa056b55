package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/tambalapay/tambala/adapters/memstore"
)

// maxHTTPAcceptAllocs bounds the allocations of one POST /v1/payouts/momo
// through the handler on memstore, from the request as net/http hands it
// over to the last byte of the 202 (the connection's own work is not
// counted): the count measured when it was set, plus 2 (issue #38 took it
// from 111 to 40).
const maxHTTPAcceptAllocs = 42

// allocsWriter is a ResponseWriter that keeps the status and drops the
// body, its header map reused from one request to the next.
type allocsWriter struct {
	header http.Header
	status int
}

func (w *allocsWriter) Header() http.Header         { return w.header }
func (w *allocsWriter) WriteHeader(status int)      { w.status = status }
func (w *allocsWriter) Write(b []byte) (int, error) { return len(b), nil }

// TestHTTPPayoutAcceptAllocs holds the handler's payout accept to
// maxHTTPAcceptAllocs, so that its allocations cannot silently grow back.
func TestHTTPPayoutAcceptAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts; this guard runs without -race")
	}
	h, key := benchHTTPEngine(t, memstore.New())
	const warm, runs = 200, 400
	// One request, its body rewound and its key replaced for each accept;
	// the keys are made before anything is measured.
	body := []byte(benchHTTPBody)
	rd := bytes.NewReader(body)
	req := httptest.NewRequest("POST", "/v1/payouts/momo", nil)
	req.Body = io.NopCloser(rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	keys := make([][]string, warm+runs+1)
	for i := range keys {
		keys[i] = []string{"allocs-" + strconv.Itoa(i)}
	}
	w := &allocsWriter{header: http.Header{}}
	n := 0
	accept := func() {
		rd.Reset(body)
		req.ContentLength = int64(len(body))
		req.Header["Idempotency-Key"] = keys[n]
		clear(w.header)
		w.status = 0
		h.ServeHTTP(w, req)
		n++
		if w.status != http.StatusAccepted {
			t.Fatalf("accept %d: status %d", n, w.status)
		}
	}
	for range warm {
		accept()
	}
	if got := testing.AllocsPerRun(runs, accept); got > maxHTTPAcceptAllocs {
		t.Errorf("an HTTP payout accept allocates %v times, more than %d", got, maxHTTPAcceptAllocs)
	} else {
		t.Logf("an HTTP payout accept allocates %v times (at most %d)", got, maxHTTPAcceptAllocs)
	}
}
