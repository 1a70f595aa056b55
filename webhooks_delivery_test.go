package tambala_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
	"github.com/tambalapay/tambala/webhooks"
)

// ---------------------------------------------------------------------------
// A recording receiver: a real HTTP server that keeps every request's raw
// body and Signature header and answers as scripted, per request.

type whRequest struct {
	Path        string
	Body        []byte
	Signature   string
	ContentType string
}

type whReceiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []whRequest
	respond func(n int, w http.ResponseWriter, r *http.Request) // n counts requests to /hook from 0
	other   atomic.Int64                                        // requests to any path but /hook
	release chan struct{}                                       // closed at cleanup: frees blocked handlers
}

// newWHReceiver starts a receiver that answers status to every request.
func newWHReceiver(t *testing.T, status int) *whReceiver {
	return newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
}

// newWHReceiverFunc starts a receiver whose answer per request is scripted.
func newWHReceiverFunc(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *whReceiver {
	rc := &whReceiver{release: make(chan struct{}), respond: respond}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	t.Cleanup(func() { close(rc.release) }) // runs first: LIFO
	return rc
}

func (rc *whReceiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/hook" {
		rc.other.Add(1)
		w.WriteHeader(http.StatusOK) // a redirect target that would accept
		return
	}
	body := new(bytes.Buffer)
	_, _ = body.ReadFrom(r.Body)
	rc.mu.Lock()
	n := len(rc.reqs)
	rc.reqs = append(rc.reqs, whRequest{Path: r.URL.Path, Body: body.Bytes(), Signature: r.Header.Get("Signature"), ContentType: r.Header.Get("Content-Type")})
	respond := rc.respond
	rc.mu.Unlock()
	// The handler sees the body again, for a wrapped webhookhttp.Receiver.
	r.Body = httpBody(body.Bytes())
	respond(n, w, r)
}

// setHandler makes every request to /hook be answered by h (after it is
// recorded).
func (rc *whReceiver) setHandler(h http.Handler) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond = func(_ int, w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }
}

func (rc *whReceiver) URL() string { return rc.srv.URL + "/hook" }

func (rc *whReceiver) requests() []whRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

func (rc *whReceiver) count() int { return len(rc.requests()) }

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func httpBody(b []byte) readCloser { return readCloser{bytes.NewReader(b)} }

// ---------------------------------------------------------------------------
// An engine with a sandbox provider, a funded organization and a webhook
// endpoint at the receiver.

type whEnv struct {
	store    store.Store
	clock    *fakeClock
	provider *sandbox.Provider
	opts     tambala.Options
	engine   *tambala.Engine
	p        tambala.Principal
	rc       *whReceiver
	secret   string
}

type whOption func(*tambala.Options)

func newWHEnv(t *testing.T, s store.Store, rc *whReceiver, opts ...whOption) *whEnv {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	env := &whEnv{store: s, clock: clock, rc: rc,
		provider: sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: 2 * time.Second})}
	env.opts = tambala.Options{Clock: clock.Now, Payouts: env.provider, Webhooks: webhookhttp.NewSender(nil)}
	for _, o := range opts {
		o(&env.opts)
	}
	env.engine = env.open(t)
	env.p = fundedPrincipal(t, env.engine, "100000.00")
	if rc != nil {
		_, env.secret = env.setEndpoint(t, env.p.Org.ID, rc.URL())
	}
	t.Cleanup(func() {
		require.NoError(t, ledger.CheckStore(context.Background(), s))
		require.NoError(t, s.Close())
	})
	return env
}

// open is a new engine over the env's store (another process, a restart).
func (env *whEnv) open(t *testing.T) *tambala.Engine {
	t.Helper()
	o := env.opts
	e, err := tambala.New(env.store, &o)
	require.NoError(t, err)
	return e
}

func (env *whEnv) setEndpoint(t *testing.T, org, url string) (tambala.Endpoint, string) {
	t.Helper()
	ep, secret, err := env.engine.Operator().SetWebhookEndpoint(context.Background(), org, url)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(secret, webhooks.SecretPrefix), secret)
	return ep, secret
}

func (env *whEnv) dispatch(t *testing.T) int {
	t.Helper()
	return dispatchWith(t, env.engine)
}

func dispatchWith(t *testing.T, e *tambala.Engine) int {
	t.Helper()
	n, err := e.Work().ProcessDeliveries(context.Background())
	require.NoError(t, err)
	return n
}

// work runs worker passes one second apart: enough to finish a payout on
// the sandbox (2 s to an outcome).
func (env *whEnv) work(t *testing.T) {
	t.Helper()
	for range 5 {
		_, err := env.engine.Work().ProcessPayouts(context.Background())
		require.NoError(t, err)
		env.clock.Advance(time.Second)
	}
}

func (env *whEnv) payout(t *testing.T, body string) string {
	t.Helper()
	return createPayout(t, env.engine, env.p, body)
}

func createPayout(t *testing.T, e *tambala.Engine, p tambala.Principal, body string) string {
	t.Helper()
	out, err := createFromBody(context.Background(), e, p, payouts.Momo, body, []byte(body))
	require.NoError(t, err)
	var po struct{ ID string }
	require.NoError(t, json.Unmarshal(out.Body, &po))
	return po.ID
}

func (env *whEnv) collect(t *testing.T, amount int) tambala.Collection {
	t.Helper()
	c, err := env.engine.Client(env.p).V1().SimulateCollection(context.Background(), tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, int64(amount))})
	require.NoError(t, err)
	return c
}

// tb is what both *testing.T and *rapid.T offer.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// allDeliveries lists every delivery of org over all pages, newest first.
func allDeliveries(t tb, e *tambala.Engine, org string, limit int) []tambala.DeliveryView {
	t.Helper()
	var out []tambala.DeliveryView
	page := tambala.PageRequest{Limit: limit}
	for {
		res, err := e.Operator().Deliveries(context.Background(), org, page)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Items...)
		if !res.HasMore {
			return out
		}
		page.BeforeID = res.NextBeforeID
	}
}

func (env *whEnv) deliveries(t *testing.T) []tambala.DeliveryView {
	return allDeliveries(t, env.engine, env.p.Org.ID, 200)
}

func (env *whEnv) only(t *testing.T) tambala.DeliveryView {
	t.Helper()
	ds := env.deliveries(t)
	require.Len(t, ds, 1)
	return ds[0]
}

// envelope is a received body, parsed strictly: the balance figures stay
// raw so a test can see they are JSON numbers.
type envelope struct {
	ID        string `json:"id"`
	EventType string `json:"event_type"`
	CreatedAt string `json:"created_at"`
	Balance   struct {
		Available json.RawMessage `json:"available"`
		Held      json.RawMessage `json:"held"`
		Currency  string          `json:"currency"`
	} `json:"balance"`
	Data json.RawMessage `json:"data"`
}

func parseEnvelope(t tb, body []byte) envelope {
	t.Helper()
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("body is not an envelope: %v: %s", err, body)
	}
	return env
}

// dataID is the resource id in a body's data.
func dataID(t tb, body []byte) string {
	t.Helper()
	var d struct{ ID string }
	if err := json.Unmarshal(parseEnvelope(t, body).Data, &d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func hmacHex(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func types(ds []tambala.DeliveryView) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.EventType)
	}
	return out
}

// ---------------------------------------------------------------------------
// 1. The signature and the envelope.

func TestWebhookSignatureAndEnvelope(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	env := newWHEnv(t, memstore.New(), rc)
	ctx := context.Background()

	// A name with characters JSON encoders disagree on: the data must still
	// be the read endpoint's bytes.
	id := env.payout(t, `{"amount_mwk":5000,"institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Chikondi <&> Banda \u2028"}`)
	env.work(t)
	assert.Equal(t, 1, env.dispatch(t))
	reqs := rc.requests()
	require.Len(t, reqs, 1)
	got := reqs[0]

	// The Signature is an independent HMAC-SHA256 of the received bytes,
	// keyed with the secret SetWebhookEndpoint returned.
	assert.Equal(t, hmacHex(env.secret, got.Body), got.Signature)
	assert.Regexp(t, `^[0-9a-f]{64}$`, got.Signature)
	assert.True(t, webhooks.Verify(got.Body, got.Signature, env.secret))
	assert.Equal(t, "application/json", got.ContentType)

	ev := parseEnvelope(t, got.Body)
	assert.Equal(t, webhooks.PayoutSucceeded, ev.EventType)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, ev.CreatedAt)
	// The balance after the change, as JSON numbers (not strings).
	bal, err := env.engine.Client(env.p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "94718.00", bal.Available.String())
	assert.Equal(t, bal.Available.String(), string(ev.Balance.Available))
	assert.Equal(t, bal.Held.String(), string(ev.Balance.Held))
	assert.Equal(t, "MWK", ev.Balance.Currency)
	var n any
	dec := json.NewDecoder(bytes.NewReader(ev.Balance.Available))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&n))
	assert.IsType(t, json.Number(""), n)
	// data is GET /v1/payouts/{id}, byte for byte.
	read, err := env.engine.Client(env.p).V1().Payout(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, string(render.Payout(read)), string(ev.Data))

	// The operator's record: the bytes sent and the signature computed.
	d := env.only(t)
	assert.Equal(t, ev.ID, d.ID, "the envelope id is the delivery id")
	assert.Equal(t, webhooks.Delivered, d.State)
	assert.Equal(t, string(got.Body), d.Body)
	require.Len(t, d.Attempts, 1)
	assert.Equal(t, http.StatusOK, d.Attempts[0].StatusCode)
	assert.Equal(t, got.Signature, d.Attempts[0].Signature)

	// The other resources' events carry their read rendering too.
	col, err := env.engine.Operator().RecordCollection(ctx, env.p.Org.ID, tambala.NewCollection{
		Amount: money.FromInt(money.MWK, 1000), SourceCustomerName: `<script>"x"&</script>`, SourceAccountNumber: "265880000000",
		SourceInstitution: "Bank & Co", RTPReferenceNumber: "RTP-1",
	})
	require.NoError(t, err)
	tr, err := env.engine.Operator().Desk().RecordTrade(ctx, env.p.Org.ID, tambala.NewTrade{Ref: "otc-1", USDTAmount: mustParse(money.USDT, "10.5"), ClientRate: money.MustRate("1750.125")})
	require.NoError(t, err)
	assert.Equal(t, 2, env.dispatch(t))
	reqs = rc.requests()
	require.Len(t, reqs, 3)
	byType := map[string]envelope{}
	for _, r := range reqs[1:] {
		assert.Equal(t, hmacHex(env.secret, r.Body), r.Signature)
		e := parseEnvelope(t, r.Body)
		byType[e.EventType] = e
	}
	gotCol, err := env.engine.Client(env.p).V1().Collection(ctx, col.ID)
	require.NoError(t, err)
	wantCol := tambala.RenderCollection(gotCol) // GET /v1/collections/{id}
	assert.Equal(t, string(wantCol), string(byType[webhooks.CollectionSettled].Data))
	trades, err := env.engine.Client(env.p).Trades(ctx, tambala.PageRequest{})
	require.NoError(t, err)
	require.Len(t, trades.Items, 1)
	assert.Equal(t, tr.ID, trades.Items[0].ID)
	wantTrade := tambala.RenderTrade(trades.Items[0]) // an item of GET /v1/trades
	assert.Equal(t, string(wantTrade), string(byType[webhooks.TradeSettled].Data))
}

// ---------------------------------------------------------------------------
// 2. Retries follow the schedule on the fake clock, then dead-letter.

func TestWebhookRetryScheduleAndDeadLetter(t *testing.T) {
	rc := newWHReceiver(t, http.StatusInternalServerError)
	env := newWHEnv(t, memstore.New(), rc)
	env.collect(t, 1000)

	assert.Equal(t, 1, env.dispatch(t), "the first attempt is at once")
	require.Equal(t, 1, rc.count())
	for i, wait := range webhooks.DefaultSchedule {
		// Not before the wait...
		env.clock.Advance(wait - time.Millisecond)
		assert.Equal(t, 0, env.dispatch(t), "retry %d sent before %s", i+1, wait)
		assert.Equal(t, i+1, rc.count())
		// ...and once it and the most jitter (a tenth) have passed.
		env.clock.Advance(time.Millisecond + wait/10)
		assert.Equal(t, 1, env.dispatch(t), "retry %d not sent after %s", i+1, wait+wait/10)
		assert.Equal(t, i+2, rc.count())
		// Once per wait: an immediate second pass sends nothing.
		assert.Equal(t, 0, env.dispatch(t))
	}

	d := env.only(t)
	assert.Equal(t, webhooks.Dead, d.State)
	require.Len(t, d.Attempts, 6)
	reqs := rc.requests()
	for i, a := range d.Attempts {
		assert.Equal(t, http.StatusInternalServerError, a.StatusCode)
		assert.Equal(t, reqs[0].Signature, a.Signature)
		if i > 0 {
			// Newest first, each retry at least its wait after the one before.
			gap := d.Attempts[i-1].At.Sub(a.At)
			wait := webhooks.DefaultSchedule[len(d.Attempts)-1-i]
			assert.GreaterOrEqual(t, gap, wait)
			assert.LessOrEqual(t, gap, wait+wait/10+time.Millisecond)
		}
	}
	// Identical bytes and signature on every attempt.
	for _, r := range reqs {
		assert.Equal(t, string(reqs[0].Body), string(r.Body))
		assert.Equal(t, reqs[0].Signature, r.Signature)
	}
	assert.Equal(t, d.Body, string(reqs[0].Body))

	// A dead delivery is never re-sent on its own.
	for range 5 {
		env.clock.Advance(24 * time.Hour)
		assert.Equal(t, 0, env.dispatch(t))
	}
	assert.Equal(t, 6, rc.count())
	assert.Equal(t, webhooks.Dead, env.only(t).State)
}

func TestWebhookScheduleIsConfigurable(t *testing.T) {
	rc := newWHReceiver(t, http.StatusServiceUnavailable)
	env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) {
		o.Dispatcher.Schedule = []time.Duration{10 * time.Second, 20 * time.Second}
	})
	env.collect(t, 1000)
	env.dispatch(t)
	env.clock.Advance(9 * time.Second)
	env.dispatch(t)
	assert.Equal(t, 1, rc.count())
	env.clock.Advance(2 * time.Second)
	env.dispatch(t)
	assert.Equal(t, 2, rc.count())
	env.clock.Advance(23 * time.Second)
	env.dispatch(t)
	assert.Equal(t, 3, rc.count())
	d := env.only(t)
	assert.Equal(t, webhooks.Dead, d.State)
	assert.Len(t, d.Attempts, 3)
}

// ---------------------------------------------------------------------------
// 3. Redirects, timeouts, 4xx and 5xx are failures; a 2xx finishes.

func TestWebhookFailuresAndSuccess(t *testing.T) {
	// failed checks a failing first attempt: recorded with want status,
	// still pending, and retried after the first wait.
	failed := func(t *testing.T, env *whEnv, want int) tambala.Attempt {
		t.Helper()
		env.collect(t, 1000)
		assert.Equal(t, 1, env.dispatch(t))
		d := env.only(t)
		assert.Equal(t, webhooks.Pending, d.State)
		require.Len(t, d.Attempts, 1)
		assert.Equal(t, want, d.Attempts[0].StatusCode)
		env.clock.Advance(2 * time.Minute)
		assert.Equal(t, 1, env.dispatch(t), "a failure is retried")
		assert.Len(t, env.only(t).Attempts, 2)
		return d.Attempts[0]
	}
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint("redirect ", code), func(t *testing.T) {
			var rc *whReceiver
			rc = newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, rc.srv.URL+"/elsewhere", code)
			})
			env := newWHEnv(t, memstore.New(), rc)
			failed(t, env, code)
			assert.Equal(t, 2, rc.count())
			assert.Zero(t, rc.other.Load(), "the redirect target is never hit")
		})
	}
	t.Run("timeout", func(t *testing.T) {
		var rc *whReceiver
		rc = newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			select { // blocks until the sender gives up
			case <-r.Context().Done():
			case <-rc.release:
			}
			w.WriteHeader(http.StatusOK)
		})
		env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) {
			o.Webhooks = webhookhttp.NewSender(nil).WithTimeout(100 * time.Millisecond)
		})
		start := time.Now()
		a := failed(t, env, 0)
		assert.Less(t, time.Since(start), 5*time.Second)
		assert.NotEmpty(t, a.Error)
	})
	for _, code := range []int{http.StatusNotFound, http.StatusGone, http.StatusUnauthorized, http.StatusInternalServerError, http.StatusBadGateway} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(code)
				_, _ = w.Write([]byte(strings.Repeat("x", 5000))) // a long answer is cut
			})
			env := newWHEnv(t, memstore.New(), rc)
			a := failed(t, env, code)
			assert.Len(t, a.Response, webhookhttp.MaxResponse)
		})
	}
	t.Run("refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL + "/hook"
		srv.Close() // nothing listens any more
		env := newWHEnv(t, memstore.New(), nil)
		env.setEndpoint(t, env.p.Org.ID, url)
		env.collect(t, 1000)
		env.dispatch(t)
		d := env.only(t)
		assert.Equal(t, webhooks.Pending, d.State)
		require.Len(t, d.Attempts, 1)
		assert.Zero(t, d.Attempts[0].StatusCode)
		assert.NotEmpty(t, d.Attempts[0].Error)
	})
	for _, code := range []int{http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent, 299} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			rc := newWHReceiver(t, code)
			env := newWHEnv(t, memstore.New(), rc)
			env.collect(t, 1000)
			assert.Equal(t, 1, env.dispatch(t))
			d := env.only(t)
			assert.Equal(t, webhooks.Delivered, d.State)
			require.Len(t, d.Attempts, 1)
			assert.Equal(t, code, d.Attempts[0].StatusCode)
			for _, wait := range webhooks.DefaultSchedule {
				env.clock.Advance(wait + wait/10)
				assert.Equal(t, 0, env.dispatch(t))
			}
			assert.Equal(t, 1, rc.count(), "a delivered event is never re-sent")
		})
	}
}

// ---------------------------------------------------------------------------
// 4. Rotation: deliveries keep the secret they were created with.

func TestWebhookSecretRotation(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	env := newWHEnv(t, memstore.New(), rc)
	ctx := context.Background()
	secretA := env.secret
	epA, _, err := env.engine.Operator().WebhookEndpoint(ctx, env.p.Org.ID)
	require.NoError(t, err)
	first := env.collect(t, 1000)

	epB, secretB := env.setEndpoint(t, env.p.Org.ID, rc.URL())
	assert.NotEqual(t, secretA, secretB)
	assert.NotEqual(t, epA.SecretID, epB.SecretID)
	cur, ok, err := env.engine.Operator().WebhookEndpoint(ctx, env.p.Org.ID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, epB.SecretID, cur.SecretID)
	second := env.collect(t, 2000)

	assert.Equal(t, 2, env.dispatch(t))
	byCollection := map[string]whRequest{}
	for _, r := range rc.requests() {
		byCollection[dataID(t, r.Body)] = r
	}
	r1, r2 := byCollection[first.ID], byCollection[second.ID]
	require.NotEmpty(t, r1.Body)
	require.NotEmpty(t, r2.Body)
	assert.Equal(t, hmacHex(secretA, r1.Body), r1.Signature, "created before the rotation: secret A")
	assert.Equal(t, hmacHex(secretB, r2.Body), r2.Signature, "created after: secret B")
	assert.False(t, webhooks.Verify(r1.Body, r1.Signature, secretB))

	replay := func(rcv *webhookhttp.Receiver, r whRequest) int {
		req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(r.Body))
		req.Header.Set("Signature", r.Signature)
		w := httptest.NewRecorder()
		rcv.ServeHTTP(w, req)
		return w.Code
	}
	var handled []string
	both := &webhookhttp.Receiver{
		Secrets: func() []string { return []string{secretB, secretA} },
		Handle:  func(_ context.Context, e webhookhttp.Event) error { handled = append(handled, e.ID); return nil },
	}
	assert.Equal(t, http.StatusOK, replay(both, r1))
	assert.Equal(t, http.StatusOK, replay(both, r2))
	assert.Len(t, handled, 2)
	onlyB := &webhookhttp.Receiver{Secrets: func() []string { return []string{secretB} }}
	assert.Equal(t, http.StatusUnauthorized, replay(onlyB, r1))
	assert.Equal(t, http.StatusOK, replay(onlyB, r2))
}

// ---------------------------------------------------------------------------
// 5. A dispatcher that dies between the send and the record.

// crashSender sends for real and then, when armed, ends its goroutine
// before the dispatcher can record the attempt.
type crashSender struct {
	inner tambala.WebhookSender
	crash atomic.Bool
}

func (c *crashSender) Send(ctx context.Context, url string, body []byte, sig string) (tambala.SendResult, error) {
	res, err := c.inner.Send(ctx, url, body, sig)
	if c.crash.Load() {
		runtime.Goexit()
	}
	return res, err
}

func TestWebhookCrashBetweenSendAndRecord(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	// A wrapped sender keeps its own destination rule: the sandbox's, for
	// the receiver on loopback.
	crash := &crashSender{inner: webhookhttp.NewSender(nil).WithDestinations(webhooks.Policy{Loopback: true})}
	crash.crash.Store(true)
	env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) { o.Webhooks = crash })
	var handled atomic.Int64
	rc.setHandler(&webhookhttp.Receiver{
		Secrets: func() []string { return []string{env.secret} },
		Handle:  func(context.Context, webhookhttp.Event) error { handled.Add(1); return nil },
	})
	env.collect(t, 1000)

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = env.engine.Work().ProcessDeliveries(context.Background())
		t.Error("the dispatcher should have died in Send")
	}()
	<-done
	require.Equal(t, 1, rc.count(), "sent once before the crash")
	assert.EqualValues(t, 1, handled.Load())
	d := env.only(t)
	assert.Equal(t, webhooks.Pending, d.State, "the attempt was never recorded")
	assert.Empty(t, d.Attempts)

	// A new process over the same store, with a sender that does not crash.
	env.opts.Webhooks = webhookhttp.NewSender(nil)
	restarted := env.open(t)
	env.clock.Advance(time.Minute - time.Second) // still leased
	assert.Equal(t, 0, dispatchWith(t, restarted))
	assert.Equal(t, 1, rc.count())
	env.clock.Advance(2 * time.Second) // the lease (60 s default) is over
	assert.Equal(t, 1, dispatchWith(t, restarted))
	reqs := rc.requests()
	require.Len(t, reqs, 2, "at least once: sent again")
	assert.Equal(t, string(reqs[0].Body), string(reqs[1].Body))
	assert.Equal(t, reqs[0].Signature, reqs[1].Signature)
	assert.EqualValues(t, 1, handled.Load(), "the receiver dedupes by id")
	d = env.only(t)
	assert.Equal(t, webhooks.Delivered, d.State)
	require.Len(t, d.Attempts, 1)
	assert.Equal(t, http.StatusOK, d.Attempts[0].StatusCode)
	env.clock.Advance(time.Hour)
	assert.Equal(t, 0, dispatchWith(t, restarted))
	assert.Equal(t, 2, rc.count())
}

// ---------------------------------------------------------------------------
// 6. balance.low: once per cooldown window while the balance is low.

func TestWebhookBalanceLow(t *testing.T) {
	ctx := context.Background()
	// balanceLows returns the balance.low envelopes written so far.
	balanceLows := func(t *testing.T, e *tambala.Engine, org string) []envelope {
		var out []envelope
		for _, d := range allDeliveries(t, e, org, 200) {
			if d.EventType == webhooks.BalanceLow {
				out = append(out, parseEnvelope(t, []byte(d.Body)))
			}
		}
		return out
	}
	// checkData: {"balance": GET /v1/balance bytes, "floor_mwk": "..."}.
	checkData := func(t *testing.T, ev envelope, bal ledger.Balance, floor string) {
		t.Helper()
		want := fmt.Sprintf(`{"balance":%s,"floor_mwk":%q}`, render.BalanceV1(bal), floor)
		assert.Equal(t, want, string(ev.Data))
		assert.Equal(t, bal.Available.String(), string(ev.Balance.Available))
		assert.Equal(t, bal.Held.String(), string(ev.Balance.Held))
	}

	t.Run("default cooldown", func(t *testing.T) {
		rc := newWHReceiver(t, http.StatusOK)
		env := newWHEnv(t, memstore.New(), rc)
		e := env.engine
		org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Low", BalanceFloorMWK: mustParse(money.MWK, "5000")})
		require.NoError(t, err)
		assert.Equal(t, "5000.00", org.BalanceFloorMWK.String())
		require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 10000), "start"))
		_, secret := env.setEndpoint(t, org.ID, rc.URL())
		p := actFor(e, org.ID)
		balance := func() ledger.Balance {
			b, err := e.Client(p).V1().Balance(ctx)
			require.NoError(t, err)
			return b
		}

		createPayout(t, e, p, momo("111100000112", 3000)) // 3263.20: available 6736.80, above
		assert.Empty(t, balanceLows(t, e, org.ID))
		createPayout(t, e, p, momo("111100000221", 2000)) // 2253.80: available 4483.00, below
		lows := balanceLows(t, e, org.ID)
		require.Len(t, lows, 1)
		checkData(t, lows[0], balance(), "5000.00")
		assert.Equal(t, "4483.00", balance().Available.String())

		// Still below, inside the window: nothing more, also not from the
		// worker finishing the payouts.
		createPayout(t, e, p, momo("111100000330", 100))
		env.clock.Advance(30 * time.Minute)
		createPayout(t, e, p, momo("111100000445", 100))
		env.work(t)
		assert.Len(t, balanceLows(t, e, org.ID), 1)

		// A recovery sends nothing.
		_, err = e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 20000)})
		require.NoError(t, err)
		for _, d := range allDeliveries(t, e, org.ID, 200) {
			assert.NotContains(t, d.EventType, "recover")
		}
		assert.Len(t, balanceLows(t, e, org.ID), 1)
		b := balance()
		require.Positive(t, b.Available.Cmp(money.FromInt(money.MWK, 5000)))

		// After the window, below again: one more.
		env.clock.Advance(31 * time.Minute)
		createPayout(t, e, p, momo("111100000553", 20000))
		lows = balanceLows(t, e, org.ID)
		require.Len(t, lows, 2)
		checkData(t, lows[0], balance(), "5000.00") // newest first
		createPayout(t, e, p, momo("111100000662", 10))
		assert.Len(t, balanceLows(t, e, org.ID), 2)

		// The receiver gets them like every other event.
		env.dispatch(t)
		n := 0
		for _, r := range rc.requests() {
			if parseEnvelope(t, r.Body).EventType == webhooks.BalanceLow {
				n++
				assert.Equal(t, hmacHex(secret, r.Body), r.Signature, "the organization's own secret")
			}
		}
		assert.Equal(t, 2, n)
	})

	t.Run("floor set later, configured cooldown, reversal", func(t *testing.T) {
		rc := newWHReceiver(t, http.StatusOK)
		env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) { o.BalanceLowCooldown = 10 * time.Minute })
		e := env.engine
		org := env.p.Org.ID // 100000.00, no floor
		env.payout(t, momo("111100000112", 1000))
		assert.Empty(t, balanceLows(t, e, org), "no floor, no event")

		_, err := e.Operator().SetBalanceFloor(ctx, org, mustParse(money.MWK, "200000.00"))
		require.NoError(t, err)
		env.payout(t, momo("111100000221", 10))
		lows := balanceLows(t, e, org)
		require.Len(t, lows, 1)
		bal, err := e.Client(env.p).V1().Balance(ctx)
		require.NoError(t, err)
		checkData(t, lows[0], bal, "200000.00")

		env.clock.Advance(9 * time.Minute)
		col := env.collect(t, 1000)
		_, err = e.Operator().ReverseCollection(ctx, org, col.ID) // lowers available
		require.NoError(t, err)
		assert.Len(t, balanceLows(t, e, org), 1)

		env.clock.Advance(time.Minute)
		col = env.collect(t, 1000)
		_, err = e.Operator().ReverseCollection(ctx, org, col.ID)
		require.NoError(t, err)
		assert.Len(t, balanceLows(t, e, org), 2, "after the configured 10 min window")

		_, err = e.Operator().SetBalanceFloor(ctx, org, money.Amount{})
		require.NoError(t, err)
		env.clock.Advance(time.Hour)
		env.payout(t, momo("111100000330", 10))
		assert.Len(t, balanceLows(t, e, org), 2, "floor removed")
	})
}

// ---------------------------------------------------------------------------
// 7. No event without its transaction.

func TestWebhookNoEventOnRollback(t *testing.T) {
	ctx := context.Background()
	t.Run("reversal refused", func(t *testing.T) {
		env := newWHEnv(t, memstore.New(), newWHReceiver(t, http.StatusOK))
		col := env.collect(t, 10000) // credits 9850.00: available 109850.00
		env.payout(t, momo("111100000112", 100000))
		b, err := env.engine.Client(env.p).V1().Balance(ctx)
		require.NoError(t, err)
		require.Negative(t, b.Available.Cmp(col.AmountCredited), "cannot cover the reversal")
		_, err = env.engine.Operator().ReverseCollection(ctx, env.p.Org.ID, col.ID)
		require.Error(t, err)
		assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))
		assert.Equal(t, []string{webhooks.CollectionSettled}, types(env.deliveries(t)))
		got, err := env.engine.Client(env.p).V1().Collection(ctx, col.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.CollectionSettled, got.Status)
	})

	t.Run("commit fails", func(t *testing.T) {
		fs := storetest.NewFaultStore(memstore.New())
		env := newWHEnv(t, fs, nil)
		env.setEndpoint(t, env.p.Org.ID, "http://127.0.0.1:9/hook")
		id := env.payout(t, momo("111100000112", 5000))
		run := func() {
			_, err := env.engine.Work().ProcessPayouts(ctx)
			require.NoError(t, err)
		}
		status := func() string {
			b, err := payoutBytes(env.engine.Client(env.p).V1().Payout(ctx, id))
			require.NoError(t, err)
			var po struct{ Status string }
			require.NoError(t, json.Unmarshal(b, &po))
			return po.Status
		}
		succeeded := func() int {
			n := 0
			for _, d := range env.deliveries(t) {
				if d.EventType == webhooks.PayoutSucceeded {
					n++
				}
			}
			return n
		}
		run() // submitted and pending
		require.Equal(t, "pending", status())
		env.clock.Advance(3 * time.Second) // the provider has an outcome

		// The finishing pass: the claim commits, the settling transaction
		// (capture + payout.succeeded) fails to commit.
		fs.FailCommit(2)
		run()
		require.EqualValues(t, 1, fs.Injected())
		assert.Equal(t, "pending", status())
		assert.Zero(t, succeeded(), "no event for a rolled-back change")
		b, err := env.engine.Client(env.p).V1().Balance(ctx)
		require.NoError(t, err)
		assert.Equal(t, "5282.00", b.Held.String(), "still held")

		// And when the claim itself fails to commit.
		env.clock.Advance(31 * time.Second) // past the worker's lease
		fs.FailCommit(1)
		run()
		require.EqualValues(t, 2, fs.Injected())
		assert.Equal(t, "pending", status())
		assert.Zero(t, succeeded())

		fs.FailCommit(0)
		run()
		assert.Equal(t, "succeeded", status())
		assert.Equal(t, 1, succeeded())
		env.clock.Advance(time.Minute)
		run()
		assert.Equal(t, 1, succeeded(), "exactly one")
		assert.EqualValues(t, 2, fs.Injected())
	})

	t.Run("emit fails", func(t *testing.T) {
		// An operation of emit fails: the collection is not recorded either.
		fs := storetest.NewFaultStore(memstore.New())
		env := newWHEnv(t, fs, nil)
		env.setEndpoint(t, env.p.Org.ID, "http://127.0.0.1:9/hook")
		before, err := env.engine.Client(env.p).V1().Balance(ctx)
		require.NoError(t, err)
		for n := int64(1); ; n++ {
			fs.FailOp(n)
			_, err := env.engine.Client(env.p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 100)})
			fs.FailOp(0)
			if err == nil {
				break // n is past the transaction's last operation
			}
			page, lerr := env.engine.Client(env.p).V1().Collections(ctx, tambala.PageRequest{})
			require.NoError(t, lerr)
			assert.Empty(t, page.Items, "op %d", n)
			assert.Empty(t, env.deliveries(t), "op %d", n)
			b, berr := env.engine.Client(env.p).V1().Balance(ctx)
			require.NoError(t, berr)
			assert.Equal(t, before.Available.String(), b.Available.String())
			require.Less(t, n, int64(200))
		}
		assert.Equal(t, []string{webhooks.CollectionSettled}, types(env.deliveries(t)))
	})
}

// ---------------------------------------------------------------------------
// 8. Redeliver.

func TestWebhookRedeliver(t *testing.T) {
	ctx := context.Background()
	var failing atomic.Bool
	failing.Store(true)
	rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	env := newWHEnv(t, memstore.New(), rc)
	secretA := env.secret
	env.collect(t, 1000)
	env.dispatch(t)
	for _, wait := range webhooks.DefaultSchedule {
		env.clock.Advance(wait + wait/10)
		env.dispatch(t)
	}
	dead := env.only(t)
	require.Equal(t, webhooks.Dead, dead.State)
	require.Len(t, dead.Attempts, 6)
	require.Equal(t, 6, rc.count())

	// Rotate, then re-deliver: the same bytes, signed with the old secret.
	_, secretB := env.setEndpoint(t, env.p.Org.ID, rc.URL())
	require.NotEqual(t, secretA, secretB)

	// Another organization's delivery id is not found.
	other := fundedPrincipal(t, env.engine, "10.00")
	_, err := env.engine.Operator().Redeliver(ctx, other.Org.ID, dead.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
	_, err = env.engine.Operator().Redeliver(ctx, env.p.Org.ID, "no-such-delivery")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))

	// One more full schedule: the receiver is still failing at first.
	v, err := env.engine.Operator().Redeliver(ctx, env.p.Org.ID, dead.ID)
	require.NoError(t, err)
	assert.Equal(t, webhooks.Pending, v.State)
	assert.Len(t, v.Attempts, 6, "the log keeps every attempt")
	assert.Equal(t, 1, env.dispatch(t))
	d := env.only(t)
	require.Len(t, d.Attempts, 7)
	assert.Equal(t, webhooks.Pending, d.State, "a re-delivery gets a full schedule, not one attempt")

	// The receiver recovers; the retry after the first wait delivers.
	failing.Store(false)
	wait := webhooks.DefaultSchedule[0]
	env.clock.Advance(wait + wait/10)
	assert.Equal(t, 1, env.dispatch(t))
	reqs := rc.requests()
	require.Len(t, reqs, 8)
	for _, r := range reqs {
		assert.Equal(t, string(reqs[0].Body), string(r.Body), "the same bytes")
		assert.Equal(t, hmacHex(secretA, r.Body), r.Signature, "the secret it was created with")
	}
	d = env.only(t)
	assert.Equal(t, webhooks.Delivered, d.State)
	require.Len(t, d.Attempts, 8)
	assert.Equal(t, http.StatusOK, d.Attempts[0].StatusCode, "newest first")
	for _, a := range d.Attempts[1:] {
		assert.Equal(t, http.StatusInternalServerError, a.StatusCode)
	}

	// Only a dead delivery is re-delivered.
	_, err = env.engine.Operator().Redeliver(ctx, env.p.Org.ID, d.ID)
	assert.Equal(t, errcode.Conflict, errcode.Of(err), "delivered")
	pending := env.collect(t, 500)
	_ = pending
	ds := env.deliveries(t)
	require.Len(t, ds, 2)
	require.Equal(t, webhooks.Pending, ds[0].State)
	_, err = env.engine.Operator().Redeliver(ctx, env.p.Org.ID, ds[0].ID)
	assert.Equal(t, errcode.Conflict, errcode.Of(err), "pending")
	assert.Equal(t, 1, env.dispatch(t))
	assert.Equal(t, 9, rc.count())
	assert.Equal(t, hmacHex(secretB, rc.requests()[8].Body), rc.requests()[8].Signature, "new events use the new secret")
}

// TestWebhookRedeliverFullSchedule: a re-delivery that keeps failing is
// retried on the whole schedule again, then dead again; the log keeps all
// twelve attempts, newest first.
func TestWebhookRedeliverFullSchedule(t *testing.T) {
	rc := newWHReceiver(t, http.StatusInternalServerError)
	env := newWHEnv(t, memstore.New(), rc)
	env.collect(t, 1000)
	failAll := func() {
		t.Helper()
		assert.Equal(t, 1, env.dispatch(t))
		for _, wait := range webhooks.DefaultSchedule {
			assert.Equal(t, webhooks.Pending, env.only(t).State)
			env.clock.Advance(wait + wait/10)
			assert.Equal(t, 1, env.dispatch(t))
		}
		assert.Equal(t, webhooks.Dead, env.only(t).State)
		env.clock.Advance(48 * time.Hour)
		assert.Equal(t, 0, env.dispatch(t))
	}
	failAll()
	assert.Equal(t, 6, rc.count())
	_, err := env.engine.Operator().Redeliver(context.Background(), env.p.Org.ID, env.only(t).ID)
	require.NoError(t, err)
	failAll()
	assert.Equal(t, 12, rc.count())
	d := env.only(t)
	require.Len(t, d.Attempts, 12)
	for i := 1; i < len(d.Attempts); i++ {
		assert.True(t, d.Attempts[i-1].At.After(d.Attempts[i].At), "newest first")
	}
}

// ---------------------------------------------------------------------------
// 9. Several dispatchers never send one attempt twice.

func TestWebhookDispatchersRace(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) { o.Dispatcher.Batch = 7 })
	const events = 40
	for i := range events {
		env.collect(t, 100+i)
	}
	engines := []*tambala.Engine{env.engine, env.open(t), env.open(t)}
	for round := 0; round < 20 && rc.count() < events; round++ {
		var wg sync.WaitGroup
		for _, e := range engines {
			wg.Go(func() {
				_, err := e.Work().ProcessDeliveries(context.Background())
				assert.NoError(t, err)
			})
		}
		wg.Wait()
	}
	seen := map[string]int{}
	for _, r := range rc.requests() {
		seen[parseEnvelope(t, r.Body).ID]++
	}
	assert.Len(t, seen, events)
	for id, n := range seen {
		assert.Equal(t, 1, n, "delivery %s received %d times", id, n)
	}
	for _, d := range env.deliveries(t) {
		assert.Equal(t, webhooks.Delivered, d.State)
		assert.Len(t, d.Attempts, 1)
	}
	env.clock.Advance(time.Hour)
	for _, e := range engines {
		assert.Equal(t, 0, dispatchWith(t, e))
	}
	assert.Equal(t, events, rc.count())
}

// ---------------------------------------------------------------------------
// Endpoints, the outbox without a sender, and the dispatcher loop.

func TestWebhookEndpoints(t *testing.T) {
	ctx := context.Background()
	env := newWHEnv(t, memstore.New(), nil)
	org := env.p.Org.ID

	// No endpoint: nothing is written for the organization's events.
	_, ok, err := env.engine.Operator().WebhookEndpoint(ctx, org)
	require.NoError(t, err)
	assert.False(t, ok)
	env.collect(t, 100)
	assert.Empty(t, env.deliveries(t))

	for _, u := range []string{"https://hooks.example.com/x", "http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x"} {
		_, _, err := env.engine.Operator().SetWebhookEndpoint(ctx, org, u)
		assert.NoError(t, err, u)
	}
	for _, u := range []string{"http://hooks.example.com/x", "http://10.0.0.1/x", "ftp://127.0.0.1/x", "/relative", "https://user:pw@hooks.example.com/x", "https://" + strings.Repeat("a", 2050) + ".com"} {
		_, _, err := env.engine.Operator().SetWebhookEndpoint(ctx, org, u)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), u)
	}
	_, _, err = env.engine.Operator().SetWebhookEndpoint(ctx, "no-such-org", "https://hooks.example.com/x")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))

	// In production plain http is refused even to a loopback address.
	prod, err := tambala.New(env.store, &tambala.Options{Environment: tambala.Production, Clock: env.clock.Now})
	require.NoError(t, err)
	_, _, err = prod.Operator().SetWebhookEndpoint(ctx, org, "http://127.0.0.1:8080/x")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, _, err = prod.Operator().SetWebhookEndpoint(ctx, org, "https://hooks.example.com/y")
	require.NoError(t, err)
	ep, ok, err := env.engine.Operator().WebhookEndpoint(ctx, org)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "https://hooks.example.com/y", ep.URL)

	// Each organization sees only its own deliveries.
	env.collect(t, 100)
	assert.Len(t, env.deliveries(t), 1)
	other := fundedPrincipal(t, env.engine, "10.00")
	assert.Empty(t, allDeliveries(t, env.engine, other.Org.ID, 50))
}

func TestWebhookOutboxWithoutSender(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	env := newWHEnv(t, memstore.New(), rc, func(o *tambala.Options) { o.Webhooks = nil })
	env.collect(t, 100)
	assert.Len(t, env.deliveries(t), 1, "written to the outbox all the same")
	_, err := env.engine.Work().ProcessDeliveries(context.Background())
	assert.Error(t, err)

	// A dispatcher with a sender delivers it later.
	env.opts.Webhooks = webhookhttp.NewSender(nil)
	e := env.open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Work().ProcessDeliveries(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, rc.count())
	assert.Equal(t, 1, dispatchWith(t, e))
	assert.Equal(t, 1, rc.count())
}

func TestWebhookRunDispatcher(t *testing.T) {
	rc := newWHReceiver(t, http.StatusOK)
	env := newWHEnv(t, memstore.New(), rc)
	env.collect(t, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- env.engine.Work().RunDispatcher(ctx, 5*time.Millisecond) }()
	env.collect(t, 200) // due while the loop runs
	// Wait for the recorded outcome, not only the receipt: a dispatcher
	// stopped between send and record records nothing (the lease brings the
	// delivery back), by design.
	require.Eventually(t, func() bool {
		ds := env.deliveries(t)
		for _, d := range ds {
			if d.State != webhooks.Delivered {
				return false
			}
		}
		return len(ds) == 2
	}, 5*time.Second, 5*time.Millisecond)
	cancel()
	assert.NoError(t, <-done)
	assert.Equal(t, 2, rc.count(), "each delivered once")
}

// ---------------------------------------------------------------------------
// 10. Random operations write exactly the catalog's events, each once.

// TestWebhookEventsRapid drives random payouts (sandbox test wallets
// succeed, other numbers fail), worker passes, clock ticks, clawbacks,
// simulated collections, collection reversals and trades (with replays and
// conflicting replays), and checks after every step that the outbox holds
// exactly the model's multiset of (event_type, resource id); at the end
// every payout is driven to its end and the whole outbox, read over all
// pages, is compared with the model's final state.
func TestWebhookEventsRapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := 0
		rapid.Check(t, func(rt *rapid.T) {
			if cases++; cases > rapidCases(name) {
				return
			}
			s := open()
			defer s.Close()
			webhookEventsProperty(rt, s)
		})
	})
}

// webhookEventsProperty is one case of TestWebhookEventsRapid on the fresh
// store s.
func webhookEventsProperty(rt *rapid.T, s store.Store) {
	{
		ctx := context.Background()
		clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
		prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: time.Second})
		e, err := tambala.New(s, &tambala.Options{Clock: clock.Now, Payouts: prov})
		if err != nil {
			rt.Fatal(err)
		}
		org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "R"})
		if err != nil {
			rt.Fatal(err)
		}
		if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 30000), "start"); err != nil {
			rt.Fatal(err)
		}
		if _, _, err := e.Operator().SetWebhookEndpoint(ctx, org.ID, "https://hooks.example.com/tambala"); err != nil {
			rt.Fatal(err)
		}
		p := actFor(e, org.ID)

		type payoutModel struct {
			good   bool   // a sandbox test wallet: succeeds; any other number fails
			clawed bool   // ClawbackPayout returned nil
			status string // as last read
		}
		pos := map[string]*payoutModel{}
		var poIDs []string
		cols := map[string]tambala.CollectionStatus{} // id -> settled/reversed
		var colIDs []string
		type tradeModel struct{ id, usdt string }
		trades := map[string]tradeModel{} // by ref
		n := 0

		status := func(rt *rapid.T, id string) string {
			b, err := payoutBytes(e.Client(p).V1().Payout(ctx, id))
			if err != nil {
				rt.Fatal(err)
			}
			var po struct{ Status string }
			if err := json.Unmarshal(b, &po); err != nil {
				rt.Fatal(err)
			}
			return po.Status
		}
		work := func(rt *rapid.T) {
			if _, err := e.Work().ProcessPayouts(ctx); err != nil {
				rt.Fatal(err)
			}
		}
		// expected is the model's multiset of (event_type, resource id). A
		// payout's status is read (only while it can still move by itself)
		// and must agree with the model; final asks for the end state the
		// model predicts.
		expected := func(rt *rapid.T, final bool) map[string]int {
			want := map[string]int{}
			add := func(typ, id string) { want[typ+" "+id]++ }
			for id, m := range pos {
				switch m.status {
				case "failed", "reversed":
				default:
					m.status = status(rt, id)
				}
				if final {
					want := "succeeded"
					switch {
					case !m.good:
						want = "failed"
					case m.clawed:
						want = "reversed"
					}
					if m.status != want {
						rt.Fatalf("payout %s ended %s, want %s", id, m.status, want)
					}
				}
				switch {
				case m.good && m.status == "failed", !m.good && (m.status == "succeeded" || m.status == "reversed"):
					rt.Fatalf("payout %s to a good=%v destination is %s", id, m.good, m.status)
				case m.clawed != (m.status == "reversed"):
					rt.Fatalf("payout %s clawed=%v is %s", id, m.clawed, m.status)
				}
				switch m.status {
				case "succeeded":
					add(webhooks.PayoutSucceeded, id)
				case "reversed":
					add(webhooks.PayoutSucceeded, id)
					add(webhooks.PayoutReversed, id)
				case "failed":
					add(webhooks.PayoutFailed, id)
				}
			}
			for id, st := range cols {
				add(webhooks.CollectionSettled, id)
				if st == tambala.CollectionReversed {
					add(webhooks.CollectionReversed, id)
				}
			}
			for _, tr := range trades {
				add(webhooks.TradeSettled, tr.id)
			}
			return want
		}
		key := func(rt *rapid.T, d tambala.DeliveryView) string {
			ev := parseEnvelope(rt, []byte(d.Body))
			if ev.ID != d.ID || ev.EventType != d.EventType {
				rt.Fatalf("delivery %s/%s has envelope %s/%s", d.ID, d.EventType, ev.ID, ev.EventType)
			}
			var data struct{ ID string }
			if err := json.Unmarshal(ev.Data, &data); err != nil {
				rt.Fatal(err)
			}
			return d.EventType + " " + data.ID
		}
		// The outbox as read so far: newest first, so a step reads pages
		// only until it meets a delivery it has seen.
		seen := map[string]bool{}
		got := map[string]int{}
		refresh := func(rt *rapid.T) {
			page := tambala.PageRequest{Limit: 5}
			for {
				res, err := e.Operator().Deliveries(ctx, org.ID, page)
				if err != nil {
					rt.Fatal(err)
				}
				for _, d := range res.Items {
					if seen[d.ID] {
						return
					}
					seen[d.ID] = true
					got[key(rt, d)]++
				}
				if !res.HasMore {
					return
				}
				page.BeforeID = res.NextBeforeID
			}
		}
		compare := func(rt *rapid.T, want, got map[string]int) {
			keys := map[string]bool{}
			for k := range want {
				keys[k] = true
			}
			for k := range got {
				keys[k] = true
			}
			var diffs []string
			for k := range keys {
				if want[k] != got[k] {
					diffs = append(diffs, fmt.Sprintf("%s: want %d, got %d", k, want[k], got[k]))
				}
			}
			sort.Strings(diffs)
			if len(diffs) > 0 {
				rt.Fatalf("outbox differs from the model:\n%s", strings.Join(diffs, "\n"))
			}
		}

		rt.Repeat(map[string]func(*rapid.T){
			"payout": func(rt *rapid.T) {
				n++
				good := rapid.Bool().Draw(rt, "good")
				number := "265991234567"
				if good {
					number = rapid.SampledFrom(tambala.SandboxWallets).Draw(rt, "wallet")
				}
				amount := rapid.IntRange(1, 4000).Draw(rt, "amount")
				body := fmt.Sprintf(`{"amount_mwk":%d,"institution_id":101,"mobile_number":%q,"beneficiary_name":"R"}`, amount, number)
				out, err := createFromBody(ctx, e, p, payouts.Momo, fmt.Sprint("k", n), []byte(body))
				if err != nil {
					if errcode.Of(err) != errcode.InsufficientFunds {
						rt.Fatal(err)
					}
					return
				}
				var po struct{ ID string }
				_ = json.Unmarshal(out.Body, &po)
				pos[po.ID] = &payoutModel{good: good}
				poIDs = append(poIDs, po.ID)
			},
			"work": work,
			"tick": func(rt *rapid.T) {
				clock.Advance(time.Duration(rapid.IntRange(1, 5).Draw(rt, "seconds")) * time.Second)
			},
			"clawback": func(rt *rapid.T) {
				if len(poIDs) == 0 {
					rt.Skip()
				}
				id := rapid.SampledFrom(poIDs).Draw(rt, "payout")
				was := status(rt, id)
				err := e.Operator().BackOffice().ClawbackPayout(ctx, id)
				switch {
				case was == "succeeded" && err == nil:
					pos[id].clawed = true
					pos[id].status = "reversed"
				case was != "succeeded" && errcode.Of(err) == errcode.Conflict:
				default:
					rt.Fatalf("clawback of a %s payout: %v", was, err)
				}
			},
			"collect": func(rt *rapid.T) {
				amount := rapid.IntRange(1, 8000).Draw(rt, "amount")
				c, err := e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, int64(amount))})
				if err != nil {
					rt.Fatal(err)
				}
				cols[c.ID] = tambala.CollectionSettled
				colIDs = append(colIDs, c.ID)
			},
			"reverse collection": func(rt *rapid.T) {
				if len(colIDs) == 0 {
					rt.Skip()
				}
				id := rapid.SampledFrom(colIDs).Draw(rt, "collection")
				_, err := e.Operator().ReverseCollection(ctx, org.ID, id)
				switch {
				case err == nil && cols[id] == tambala.CollectionSettled:
					cols[id] = tambala.CollectionReversed
				case cols[id] == tambala.CollectionReversed && errcode.Of(err) == errcode.Conflict:
				case cols[id] == tambala.CollectionSettled && errcode.Of(err) == errcode.InsufficientFunds:
				default:
					rt.Fatalf("reversal of a %s collection: %v", cols[id], err)
				}
			},
			"trade": func(rt *rapid.T) {
				ref := rapid.SampledFrom([]string{"otc-a", "otc-b", "otc-c", "otc-d"}).Draw(rt, "ref")
				usdt := "10.00"
				if rapid.IntRange(0, 4).Draw(rt, "other figures") == 0 {
					usdt = "11.00"
				}
				tr, err := e.Operator().Desk().RecordTrade(ctx, org.ID, tambala.NewTrade{Ref: ref, USDTAmount: mustParse(money.USDT, usdt), ClientRate: money.MustRate("1750.5")})
				first, known := trades[ref]
				switch {
				case !known && err == nil:
					trades[ref] = tradeModel{tr.ID, usdt}
				case known && first.usdt == usdt && err == nil && tr.ID == first.id: // a replay
				case known && first.usdt != usdt && errcode.Of(err) == errcode.Conflict:
				default:
					rt.Fatalf("trade %s (%s, first %+v): %v %+v", ref, usdt, first, err, tr)
				}
			},
			"": func(rt *rapid.T) {
				refresh(rt)
				compare(rt, expected(rt, false), got)
			},
		})

		// Drain: every payout reaches its end; the whole outbox, read again
		// over all pages, holds exactly the model's events.
		for range 10 {
			work(rt)
			clock.Advance(time.Second)
		}
		all := map[string]int{}
		for _, d := range allDeliveries(rt, e, org.ID, 7) {
			all[key(rt, d)]++
		}
		compare(rt, expected(rt, true), all)
		if err := ledger.CheckStore(ctx, s); err != nil {
			rt.Fatal(err)
		}
	}
}
