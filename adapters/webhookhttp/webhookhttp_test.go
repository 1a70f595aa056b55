package webhookhttp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/webhooks"
)

const secret = "whsec_test_current"

var eventBody = []byte(`{"id":"evt_1","event_type":"payout.succeeded","created_at":"2026-11-21T12:00:00.000Z","balance":{"available":100.00,"held":0.00,"currency":"MWK"},"data":{"id":"p1"}}`)

// captured is one request a test server saw.
type captured struct {
	method string
	header http.Header
	body   []byte
}

func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, func() []captured) {
	t.Helper()
	var mu sync.Mutex
	var got []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, captured{r.Method, r.Header.Clone(), b})
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []captured { mu.Lock(); defer mu.Unlock(); return append([]captured(nil), got...) }
}

// ---------------------------------------------------------------------------
// Sender

// localSender is a sender for receivers on loopback: the sandbox's rule
// (NewSender alone has production's, which refuses them).
func localSender() *webhookhttp.Sender {
	return webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{Destinations: webhooks.Policy{Loopback: true}})
}

func TestSenderPostsSignedBody(t *testing.T) {
	srv, got := server(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("thanks"))
	})
	sig := webhooks.Sign(secret, eventBody)
	res, err := localSender().Send(context.Background(), srv.URL+"/hook", eventBody, sig)
	require.NoError(t, err)
	assert.Equal(t, http.StatusAccepted, res.StatusCode)
	assert.Equal(t, "thanks", string(res.Response))
	reqs := got()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodPost, reqs[0].method)
	assert.Equal(t, "application/json", reqs[0].header.Get("Content-Type"))
	assert.Equal(t, sig, reqs[0].header.Get("Signature"))
	assert.NotEmpty(t, reqs[0].header.Get("User-Agent"))
	assert.Equal(t, eventBody, reqs[0].body, "the exact bytes")
}

func TestSenderDoesNotFollowRedirects(t *testing.T) {
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			var target atomic.Int64
			var srv *httptest.Server
			srv, _ = server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/target" {
					target.Add(1)
					w.WriteHeader(http.StatusOK)
					return
				}
				http.Redirect(w, r, srv.URL+"/target", code)
			})
			res, err := localSender().Send(context.Background(), srv.URL+"/hook", eventBody, "sig")
			require.NoError(t, err, "the 3xx itself is handed back")
			assert.Equal(t, code, res.StatusCode)
			assert.Zero(t, target.Load(), "the redirect target is never hit")
		})
	}
}

func TestSenderCapsResponse(t *testing.T) {
	long := strings.Repeat("0123456789", 1000)
	srv, _ := server(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(long))
	})
	res, err := localSender().Send(context.Background(), srv.URL, eventBody, "sig")
	require.NoError(t, err)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	assert.Len(t, res.Response, webhookhttp.MaxResponse)
	assert.Equal(t, long[:webhookhttp.MaxResponse], string(res.Response))
}

func TestSenderTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	start := time.Now()
	res, err := localSender().WithTimeout(100*time.Millisecond).Send(context.Background(), srv.URL, eventBody, "sig")
	require.Error(t, err)
	assert.Zero(t, res.StatusCode)
	assert.Less(t, time.Since(start), 5*time.Second)

	// A cancelled context ends the attempt too.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = localSender().Send(ctx, srv.URL, eventBody, "sig")
	assert.ErrorIs(t, err, context.Canceled)
}

// deadlineTransport reports the deadline the client put on the request.
type deadlineTransport struct{ left chan time.Duration }

func (d deadlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, ok := r.Context().Deadline()
	if !ok {
		d.left <- 0
	} else {
		d.left <- time.Until(dl)
	}
	return &http.Response{StatusCode: 204, Body: io.NopCloser(strings.NewReader("")), Request: r, Header: http.Header{}}, nil
}

func TestSenderTimeoutIsTenSecondsAndWithTimeoutCopies(t *testing.T) {
	tr := deadlineTransport{left: make(chan time.Duration, 1)}
	s := webhookhttp.NewSender(tr)
	short := s.WithTimeout(time.Second)
	send := func(s *webhookhttp.Sender) time.Duration {
		t.Helper()
		res, err := s.Send(context.Background(), "http://127.0.0.1/x", eventBody, "sig")
		require.NoError(t, err)
		assert.Equal(t, 204, res.StatusCode)
		return <-tr.left
	}
	left := send(s)
	assert.Greater(t, left, webhookhttp.Timeout-2*time.Second)
	assert.LessOrEqual(t, left, webhookhttp.Timeout)
	assert.Equal(t, 10*time.Second, webhookhttp.Timeout)
	assert.LessOrEqual(t, send(short), time.Second)
	assert.Greater(t, send(s), time.Second, "WithTimeout leaves the original alone")
}

func TestSenderRefusedAndBadURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res, err := localSender().Send(context.Background(), url, eventBody, "sig")
	assert.Error(t, err)
	assert.Zero(t, res.StatusCode)
	_, err = localSender().Send(context.Background(), "::not a url", eventBody, "sig")
	assert.Error(t, err)
}

// ---------------------------------------------------------------------------
// Receiver

type handled struct {
	mu  sync.Mutex
	ids []string
	err error // returned by the next call, then cleared
}

func (h *handled) handle(_ context.Context, e webhookhttp.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.err; err != nil {
		h.err = nil
		return err
	}
	h.ids = append(h.ids, e.ID)
	return nil
}

func (h *handled) count() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.ids) }

func newReceiver(h *handled, secrets ...string) *webhookhttp.Receiver {
	return &webhookhttp.Receiver{Secrets: func() []string { return secrets }, Handle: h.handle}
}

func post(rc http.Handler, body []byte, sig string) int {
	req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
	if sig != "" {
		req.Header.Set("Signature", sig)
	}
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, req)
	return w.Code
}

func TestReceiverRejectsBadSignatures(t *testing.T) {
	h := &handled{}
	rc := newReceiver(h, secret)
	other := []byte(strings.Replace(string(eventBody), "100.00", "100.01", 1))
	for name, sig := range map[string]string{
		"missing":        "",
		"garbage":        "not-hex",
		"short":          webhooks.Sign(secret, eventBody)[:32],
		"other secret":   webhooks.Sign("whsec_other", eventBody),
		"other body":     webhooks.Sign(secret, other),
		"uppercase junk": strings.Repeat("Z", 64),
	} {
		assert.Equal(t, http.StatusUnauthorized, post(rc, eventBody, sig), name)
	}
	assert.Zero(t, h.count())
	assert.Equal(t, http.StatusOK, post(rc, eventBody, webhooks.Sign(secret, eventBody)))
	assert.Equal(t, 1, h.count())
}

func TestReceiverAcceptsEitherSecretDuringRotation(t *testing.T) {
	h := &handled{}
	rc := newReceiver(h, "whsec_new", "whsec_old")
	b2 := bytes.Replace(eventBody, []byte("evt_1"), []byte("evt_2"), 1)
	assert.Equal(t, http.StatusOK, post(rc, eventBody, webhooks.Sign("whsec_old", eventBody)))
	assert.Equal(t, http.StatusOK, post(rc, b2, webhooks.Sign("whsec_new", b2)))
	assert.Equal(t, 2, h.count())
	assert.Equal(t, http.StatusUnauthorized, post(newReceiver(h, "whsec_new"), eventBody, webhooks.Sign("whsec_old", eventBody)))
}

func TestReceiverWithoutSecretsRejects(t *testing.T) {
	h := &handled{}
	for _, rc := range []*webhookhttp.Receiver{
		{Handle: h.handle}, // no Secrets func at all
		newReceiver(h),     // an empty list
		newReceiver(h, ""), // an empty secret
	} {
		assert.Equal(t, http.StatusUnauthorized, post(rc, eventBody, webhooks.Sign("", eventBody)))
	}
	assert.Zero(t, h.count())
}

func TestReceiverMethodNotAllowed(t *testing.T) {
	rc := newReceiver(&handled{}, secret)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodHead} {
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, httptest.NewRequest(m, "/webhooks", nil))
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, m)
	}
}

func TestReceiverRejectsNonEvents(t *testing.T) {
	h := &handled{}
	rc := newReceiver(h, secret)
	for _, b := range []string{`not json`, `[]`, `{}`, `{"id":""}`, `{"event_type":"payout.succeeded"}`, `{"id":12}`, ``} {
		assert.Equal(t, http.StatusBadRequest, post(rc, []byte(b), webhooks.Sign(secret, []byte(b))), b)
	}
	assert.Zero(t, h.count())
}

func TestReceiverHandlesEachIDOnce(t *testing.T) {
	h := &handled{}
	rc := newReceiver(h, secret)
	sig := webhooks.Sign(secret, eventBody)
	for range 3 {
		assert.Equal(t, http.StatusOK, post(rc, eventBody, sig))
	}
	assert.Equal(t, []string{"evt_1"}, h.ids)

	// Concurrent duplicates: handled once.
	b2 := bytes.Replace(eventBody, []byte("evt_1"), []byte("evt_2"), 1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { post(rc, b2, webhooks.Sign(secret, b2)) })
	}
	wg.Wait()
	assert.Equal(t, 2, h.count())
}

func TestReceiverHandleErrorIsRetried(t *testing.T) {
	h := &handled{err: errors.New("database down")}
	rc := newReceiver(h, secret)
	sig := webhooks.Sign(secret, eventBody)
	assert.Equal(t, http.StatusInternalServerError, post(rc, eventBody, sig))
	assert.Zero(t, h.count())
	assert.Equal(t, http.StatusOK, post(rc, eventBody, sig), "the retry is handled")
	assert.Equal(t, 1, h.count())
	assert.Equal(t, http.StatusOK, post(rc, eventBody, sig))
	assert.Equal(t, 1, h.count(), "and then deduped")
}

// TestReceiverInFlightDuplicate: a duplicate that arrives while the first
// copy is still being handled is not acknowledged with a 2xx, since the
// first may yet fail; once it has failed, the next copy is handled.
func TestReceiverInFlightDuplicate(t *testing.T) {
	started, finish := make(chan struct{}), make(chan error)
	var calls atomic.Int64
	rc := &webhookhttp.Receiver{
		Secrets: func() []string { return []string{secret} },
		Handle: func(context.Context, webhookhttp.Event) error {
			if calls.Add(1) == 1 {
				close(started)
				return <-finish
			}
			return nil
		},
	}
	sig := webhooks.Sign(secret, eventBody)
	first := make(chan int)
	go func() { first <- post(rc, eventBody, sig) }()
	<-started
	dup := post(rc, eventBody, sig)
	assert.False(t, dup >= 200 && dup <= 299, "in-flight duplicate answered %d", dup)
	finish <- errors.New("failed")
	assert.Equal(t, http.StatusInternalServerError, <-first)
	assert.Equal(t, http.StatusOK, post(rc, eventBody, sig))
	assert.EqualValues(t, 2, calls.Load())
	assert.Equal(t, http.StatusOK, post(rc, eventBody, sig))
	assert.EqualValues(t, 2, calls.Load())
}

func TestReceiverBodyCap(t *testing.T) {
	h := &handled{}
	rc := newReceiver(h, secret)
	rc.MaxBody = int64(len(eventBody)) - 1
	assert.Equal(t, http.StatusRequestEntityTooLarge, post(rc, eventBody, webhooks.Sign(secret, eventBody)))
	rc.MaxBody = int64(len(eventBody))
	assert.Equal(t, http.StatusOK, post(rc, eventBody, webhooks.Sign(secret, eventBody)), "exactly the cap is fine")

	// The default cap is 1 MiB.
	big := []byte(`{"id":"evt_big","data":"` + strings.Repeat("x", 1<<20) + `"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, post(newReceiver(h, secret), big, webhooks.Sign(secret, big)))
	assert.Equal(t, 1, h.count())
}

// failingBody fails mid-read, like a client that went away.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestReceiverReadErrorIsNotTooLarge(t *testing.T) {
	rc := newReceiver(&handled{}, secret)
	req := httptest.NewRequest(http.MethodPost, "/webhooks", failingBody{})
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, req)
	assert.Equal(t, http.StatusBadRequest, w.Code)
}

func TestReceiverEventFields(t *testing.T) {
	var got webhookhttp.Event
	rc := &webhookhttp.Receiver{
		Secrets: func() []string { return []string{secret} },
		Handle:  func(_ context.Context, e webhookhttp.Event) error { got = e; return nil },
	}
	require.Equal(t, http.StatusOK, post(rc, eventBody, webhooks.Sign(secret, eventBody)))
	assert.Equal(t, "evt_1", got.ID)
	assert.Equal(t, "payout.succeeded", got.EventType)
	assert.Equal(t, "2026-11-21T12:00:00.000Z", got.CreatedAt)
	assert.JSONEq(t, `{"available":100.00,"held":0.00,"currency":"MWK"}`, string(got.Balance))
	assert.Equal(t, `{"id":"p1"}`, string(got.Data), "data stays raw")
}

// TestSenderToReceiver: the two halves over a real connection.
func TestSenderToReceiver(t *testing.T) {
	h := &handled{}
	srv := httptest.NewServer(newReceiver(h, secret))
	defer srv.Close()
	s := localSender()
	res, err := s.Send(context.Background(), srv.URL, eventBody, webhooks.Sign(secret, eventBody))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	res, err = s.Send(context.Background(), srv.URL, eventBody, webhooks.Sign("whsec_wrong", eventBody))
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Equal(t, 1, h.count())
}

// Example receives events on an HTTP server: the Receiver verifies each
// delivery's signature over the raw bytes, answers 401 on a mismatch, and
// hands each event id to Handle once.
func Example() {
	secret := "whsec_example" // as SetWebhookEndpoint returned it
	rc := &webhookhttp.Receiver{
		// During a rotation, return the new secret and the previous one.
		Secrets: func() []string { return []string{secret} },
		Handle: func(_ context.Context, e webhookhttp.Event) error {
			fmt.Println("handled", e.EventType, e.ID, string(e.Data))
			return nil // queue real work; answer within 10 seconds
		},
	}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	body := []byte(`{"id":"evt_1","event_type":"payout.succeeded","created_at":"2026-11-21T12:00:00.000Z","balance":{"available":100.00,"held":0.00,"currency":"MWK"},"data":{"id":"p1"}}`)
	sender := webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{
		// The sandbox's rule: this receiver is on loopback, which the
		// default (production's) refuses.
		Destinations: webhooks.Policy{Loopback: true},
	})
	for _, sig := range []string{webhooks.Sign(secret, body), webhooks.Sign(secret, body), webhooks.Sign("whsec_forged", body)} {
		res, err := sender.Send(context.Background(), srv.URL, body, sig)
		fmt.Println(res.StatusCode, err)
	}
	// Output:
	// handled payout.succeeded evt_1 {"id":"p1"}
	// 200 <nil>
	// 200 <nil>
	// 401 <nil>
}
