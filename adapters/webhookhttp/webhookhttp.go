package webhookhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/webhooks"
)

// Timeout is how long a receiver has to answer.
const Timeout = 10 * time.Second

// MaxResponse is how much of a receiver's response body is kept.
const MaxResponse = 1024

// Sender implements tambala.WebhookSender over an http.Client.
type Sender struct {
	client *http.Client
}

var _ tambala.WebhookSender = (*Sender)(nil)

// NewSender returns a sender with the 10 s timeout and redirects refused.
// transport may be nil: a clone of http.DefaultTransport keeping 32 idle
// connections per host.
func NewSender(transport http.RoundTripper) *Sender {
	if transport == nil {
		// The default transport keeps 2 idle connections per host; the
		// dispatcher sends several deliveries to one endpoint at once.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		transport = t
	}
	return &Sender{client: &http.Client{
		Transport: transport,
		Timeout:   Timeout,
		// A redirect is a failure: hand back the 3xx itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// WithTimeout returns a copy of the sender with another timeout (tests).
func (s *Sender) WithTimeout(d time.Duration) *Sender {
	c := *s.client
	c.Timeout = d
	return &Sender{client: &c}
}

// Send POSTs body with its Signature header and reads at most MaxResponse
// bytes of the answer.
func (s *Sender) Send(ctx context.Context, url string, body []byte, signature string) (tambala.SendResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return tambala.SendResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Signature", signature)
	req.Header.Set("User-Agent", "tambala-webhooks/1")
	res, err := s.client.Do(req)
	if err != nil {
		return tambala.SendResult{}, err
	}
	defer res.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponse))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // let the connection be reused
	return tambala.SendResult{StatusCode: res.StatusCode, Response: head}, nil
}

// Event is a received event: the envelope's fields, data still raw.
type Event struct {
	ID        string          `json:"id"`
	EventType string          `json:"event_type"`
	CreatedAt string          `json:"created_at"`
	Balance   json.RawMessage `json:"balance"`
	Data      json.RawMessage `json:"data"`
}

// Receiver is an http.Handler for webhook deliveries.
type Receiver struct {
	// Secrets returns the secrets to accept: the current one, and during a
	// rotation the previous one too.
	Secrets func() []string
	// Handle processes an event once; an error answers
	// http.StatusInternalServerError so the sender retries. A copy arriving
	// while the same id is still being handled answers http.StatusConflict,
	// also retried. Keep it quick and do real work asynchronously.
	Handle func(ctx context.Context, e Event) error
	// MaxBody caps the body (default 1 MiB).
	MaxBody int64

	mu   sync.Mutex
	seen map[string]bool // true: handled; false: being handled now
}

var errBadEvent = errors.New("webhookhttp: body is not an event")

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	max := rc.MaxBody
	if max <= 0 {
		max = 1 << 20
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "could not read the body", http.StatusBadRequest)
		}
		return
	}
	var secrets []string
	if rc.Secrets != nil {
		secrets = rc.Secrets()
	}
	// Verify over the raw bytes, before any parsing.
	if !webhooks.Verify(body, r.Header.Get("Signature"), secrets...) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
		http.Error(w, errBadEvent.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	if rc.seen == nil {
		rc.seen = map[string]bool{}
	}
	done, dup := rc.seen[ev.ID]
	if !dup {
		rc.seen[ev.ID] = false // claim it so a concurrent duplicate is not handled twice
	}
	rc.mu.Unlock()
	if dup && done {
		w.WriteHeader(http.StatusOK)
		return
	}
	if dup {
		// Still being handled, and that may yet fail: no 2xx, so the
		// sender tries again later.
		http.Error(w, "this event is being handled", http.StatusConflict)
		return
	}
	if rc.Handle != nil {
		if err := rc.Handle(r.Context(), ev); err != nil {
			rc.mu.Lock()
			delete(rc.seen, ev.ID) // not processed: accept the retry
			rc.mu.Unlock()
			http.Error(w, "handler failed", http.StatusInternalServerError)
			return
		}
	}
	rc.mu.Lock()
	rc.seen[ev.ID] = true
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}
