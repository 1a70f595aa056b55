package tambala

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/loop"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// SendResult is what one delivery attempt got back.
type SendResult struct {
	StatusCode int    // 0 when no response came (timeout, refused, redirect error)
	Response   []byte // the start of the response body, truncated
}

// WebhookSender is the port that POSTs a delivery (adapters/webhookhttp).
// It must not follow redirects, must time out, and must cap what it reads.
type WebhookSender interface {
	Send(ctx context.Context, url string, body []byte, signature string) (SendResult, error)
}

// Attempt is one recorded delivery attempt.
type Attempt struct {
	At         time.Time     `json:"at"`
	StatusCode int           `json:"status_code"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	Response   string        `json:"response,omitempty"`
	Signature  string        `json:"signature"`
}

// DeliveryView is a delivery as the operator lists it.
type DeliveryView struct {
	ID        string         `json:"id"`
	EventType string         `json:"event_type"`
	URL       string         `json:"url"`
	State     webhooks.State `json:"state"`
	Attempts  []Attempt      `json:"attempts"` // newest first
	Body      string         `json:"body"`
	CreatedAt time.Time      `json:"created_at"`
}

// DispatcherOptions tune webhook delivery. Zero fields take the defaults.
type DispatcherOptions struct {
	Schedule []time.Duration // default webhooks.DefaultSchedule
	Lease    time.Duration   // default 60s: hides a delivery being sent
	Batch    int             // default 100: the most due deliveries one pass takes
	// Concurrency is the most deliveries one pass sends at once (default
	// 8). 1 sends them one at a time, in due order.
	Concurrency int
	// Interval is how often Run starts a pass of the dispatcher (default
	// 500ms).
	Interval time.Duration
}

func (d *DispatcherOptions) defaults() {
	if d.Schedule == nil {
		d.Schedule = webhooks.DefaultSchedule
	}
	if d.Lease <= 0 {
		d.Lease = time.Minute
	}
	if d.Batch <= 0 {
		d.Batch = 100
	}
	if d.Concurrency <= 0 {
		d.Concurrency = 8
	}
	if d.Interval <= 0 {
		d.Interval = 500 * time.Millisecond
	}
}

// ErrNoWebhookSender is returned by the dispatcher's calls when the engine
// has no Options.Webhooks.
var ErrNoWebhookSender = errors.New("tambala: no webhook sender configured (Options.Webhooks)")

// ProcessDeliveries sends every delivery due now (up to Batch), up to
// Concurrency at once. Whenever senders are free, as many due deliveries
// are claimed under a lease in one transaction, so a lease starts when its
// send does (or, for a sender still recording its last attempt, a local
// commit before). Each is sent outside any transaction with the secret it
// was created with, and its attempt recorded in a transaction of its own,
// which retries it on the schedule, dead-letters it after the last retry,
// or finishes it on a success status. A dispatcher that dies between send
// and record leaves the delivery due again after its lease: at least once.
// Deliveries may be sent in any order (the reference promises none); with
// Concurrency 1 they are sent one at a time in due order.
//
// The calling goroutine is one of the senders, and the pass returns only
// once every send it started is recorded. A Send that panics or ends its
// goroutine (runtime.Goexit) ends the pass as it would with one sender:
// nothing more is claimed, and once the other sends are recorded
// ProcessDeliveries panics with the same value or ends its caller's
// goroutine.
func (e *Engine) ProcessDeliveries(ctx context.Context) (int, error) {
	if e.sender == nil {
		return 0, ErrNoWebhookSender
	}
	start := time.Now()
	ids, err := deliveriesDue.Due(ctx, e.store, e.now(), e.dispatch.Batch)
	if err != nil {
		return 0, err
	}
	p := &dispatchPass{e: e, ids: ids, workers: max(1, min(e.dispatch.Concurrency, len(ids)))}
	p.cond.L = &p.mu
	var wg sync.WaitGroup
	for range p.workers - 1 {
		wg.Go(func() { p.helper(ctx) })
	}
	finished := false
	defer func() {
		if !finished {
			// A Send on this goroutine panicked or called Goexit: let the
			// helpers record what they sent, then go on dying.
			p.halt(nil, false)
			wg.Wait()
		}
	}()
	p.work(ctx)
	wg.Wait()
	finished = true
	if p.panicked != nil {
		panic(p.panicked)
	}
	if p.exited {
		runtime.Goexit()
	}
	e.metrics.DispatcherPass(time.Since(start), p.sent)
	if err := ctx.Err(); err != nil {
		return p.sent, err
	}
	return p.sent, nil
}

// dispatchPass is one ProcessDeliveries: its workers take claimed
// deliveries from ready, and the first to find it empty claims more for
// every worker free then. A worker is free once its send returns: the
// claim for its next delivery overlaps the record of its last, and a group
// commit can share one fsync between them.
type dispatchPass struct {
	e       *Engine
	workers int

	mu       sync.Mutex
	cond     sync.Cond         // signalled when a claim ends or the pass halts
	ids      []string          // due when the pass began, not claimed yet
	ready    []claimedDelivery // claimed, waiting for a free worker
	busy     int               // workers sending
	claiming bool              // a claim is under way (one at a time)
	halted   bool
	sent     int
	panicked any  // a helper's Send panicked
	exited   bool // a helper's Send called runtime.Goexit
}

// claimedDelivery is a delivery under this dispatcher's lease.
type claimedDelivery struct {
	d      deliveryRecord // URL is the endpoint's current one
	secret string
}

// helper is a worker on a goroutine of its own: a panic or Goexit in it is
// handed to the pass's caller.
func (p *dispatchPass) helper(ctx context.Context) {
	normal := false
	defer func() {
		if !normal {
			v := recover() // nil after runtime.Goexit
			p.halt(v, v == nil)
		}
	}()
	p.work(ctx)
	normal = true
}

func (p *dispatchPass) halt(panicked any, exited bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.halted = true
	if p.panicked == nil && !p.exited {
		p.panicked, p.exited = panicked, exited
	}
	p.cond.Broadcast()
}

func (p *dispatchPass) work(ctx context.Context) {
	for {
		c, ok := p.next(ctx)
		if !ok {
			return
		}
		a, status, ok := p.e.send(ctx, c)
		p.mu.Lock()
		p.busy-- // free: the next claim may be for this worker while it records
		p.mu.Unlock()
		var err error
		if ok {
			err = p.e.record(ctx, c.d.ID, a, status)
		}
		if err != nil {
			p.e.log.Error("webhook dispatcher", slog.String("delivery", c.d.ID), slog.Any("error", err))
		}
		p.mu.Lock()
		if err == nil {
			p.sent++
		}
		p.mu.Unlock()
	}
}

// next hands the calling worker a claimed delivery; false when the pass is
// over for it.
func (p *dispatchPass) next(ctx context.Context) (claimedDelivery, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.halted || ctx.Err() != nil {
			return claimedDelivery{}, false
		}
		if len(p.ready) > 0 {
			c := p.ready[0]
			p.ready = p.ready[1:]
			p.busy++
			return c, true
		}
		if p.claiming { // what it claims may be for this worker
			p.cond.Wait()
			continue
		}
		if len(p.ids) == 0 {
			return claimedDelivery{}, false
		}
		// Claim for every worker free now (this one at least), in one
		// transaction: none waits in ready for more than a record, so its
		// lease covers its send.
		n := max(1, min(p.workers-p.busy, len(p.ids)))
		take := p.ids[:n:n]
		p.ids = p.ids[n:]
		p.ready = append(p.ready, p.claim(ctx, take)...)
	}
}

// claim runs claimDeliveries without the lock; called and returning with
// it held, also when claimDeliveries panics.
func (p *dispatchPass) claim(ctx context.Context, ids []string) []claimedDelivery {
	p.claiming = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.claiming = false
		p.cond.Broadcast()
	}()
	return p.e.claimDeliveries(ctx, ids)
}

// RunDispatcher runs ProcessDeliveries every interval until ctx ends, and
// returns once the pass under way has finished. Without a webhook sender
// it returns ErrNoWebhookSender at once. Run runs it for a host.
func (e *Engine) RunDispatcher(ctx context.Context, interval time.Duration) error {
	if e.sender == nil {
		return ErrNoWebhookSender
	}
	if interval <= 0 {
		return errors.New("tambala: the dispatcher's interval must be positive")
	}
	loop.Run(ctx, interval, func(ctx context.Context) (bool, error) {
		_, err := e.ProcessDeliveries(ctx)
		return false, err
	}, func(err error) { e.log.Error("webhook dispatcher pass", slog.Any("error", err)) })
	return nil
}

// moveDue re-lists a delivery: a pending one is listed at its NextAt.
func moveDue(tx store.Tx, d *deliveryRecord, next *time.Time) error {
	var old *time.Time
	if d.State == webhooks.Pending {
		old = &d.NextAt
	}
	if err := deliveriesDue.Move(tx, d.ID, old, next); err != nil {
		return err
	}
	if next != nil {
		d.NextAt = *next
	}
	return nil
}

// claimDeliveries claims those of ids still due, under a lease, in one
// transaction. Should that fail, it claims them one transaction each, so
// one bad delivery holds back no other; failures are logged.
func (e *Engine) claimDeliveries(ctx context.Context, ids []string) []claimedDelivery {
	out, err := e.claimIn(ctx, ids)
	if err == nil {
		return out
	}
	if ctx.Err() != nil {
		return nil
	}
	if len(ids) == 1 {
		e.log.Error("webhook dispatcher", slog.String("delivery", ids[0]), slog.Any("error", err))
		return nil
	}
	out = nil
	for _, id := range ids {
		c, err := e.claimIn(ctx, []string{id})
		if err != nil {
			if ctx.Err() != nil {
				return out
			}
			e.log.Error("webhook dispatcher", slog.String("delivery", id), slog.Any("error", err))
			continue
		}
		out = append(out, c...)
	}
	return out
}

func (e *Engine) claimIn(ctx context.Context, ids []string) ([]claimedDelivery, error) {
	var out []claimedDelivery
	err := e.store.Update(ctx, func(tx store.Tx) error {
		out = out[:0] // the store may run fn again
		now := e.nowUTC()
		for _, id := range ids {
			var d deliveryRecord
			if err := records.GetJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
				return err
			}
			if d.State != webhooks.Pending || d.NextAt.After(now) {
				continue // finished, or claimed by another dispatcher
			}
			var secret secretRecord
			if err := records.GetJSON(tx, bucketSecrets, d.SecretID, &secret, errNotFound); err != nil {
				return err
			}
			// The bytes and the secret are the delivery's own; the address is
			// the endpoint's current one, so replacing a broken URL rescues the
			// deliveries still pending.
			var ep Endpoint
			if err := records.GetJSON(tx, bucketEndpoints, d.Org, &ep, errNotFound); err == nil {
				d.URL = ep.URL
			} else if !errors.Is(err, errNotFound) {
				return err
			}
			if err := moveDue(tx, &d, at(now.Add(e.dispatch.Lease))); err != nil {
				return err
			}
			if err := records.PutJSON(tx, bucketDeliveries, d.ID, d); err != nil {
				return err
			}
			out = append(out, claimedDelivery{d: d, secret: secret.Secret})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// send sends a claimed delivery: the attempt and the status it counts as,
// or ok false when ctx ended during the send (nothing to record).
func (e *Engine) send(ctx context.Context, c claimedDelivery) (a Attempt, status int, ok bool) {
	sig := webhooks.Sign(c.secret, c.d.Body)
	start := time.Now()
	res, sendErr := e.sender.Send(ctx, c.d.URL, c.d.Body, sig)
	if ctx.Err() != nil {
		// Stopped mid-send: record nothing; the lease brings it back.
		return Attempt{}, 0, false
	}
	a = Attempt{At: e.nowUTC(), StatusCode: res.StatusCode, Duration: time.Since(start), Response: string(res.Response), Signature: sig}
	status = a.StatusCode
	if sendErr != nil {
		a.Error = sendErr.Error()
		status = 0 // an error is a failure whatever the status
	}
	return a, status, true
}

// record records an attempt at delivery id in a transaction of its own.
func (e *Engine) record(ctx context.Context, id string, attempt Attempt, status int) error {
	var after webhooks.State
	err := e.store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		after = ""
		var cur deliveryRecord
		if err := records.GetJSON(tx, bucketDeliveries, id, &cur, errNotFound); err != nil {
			return err
		}
		if cur.State != webhooks.Pending {
			return nil
		}
		// The schedule counts the attempts of this round only: a re-delivery
		// gets a full schedule again, while the log keeps numbering on.
		next, err := webhooks.Delivery{State: cur.State, Attempts: cur.Attempts - cur.RoundStart, NextAt: cur.NextAt}.
			Record(attempt.At, status, e.dispatch.Schedule, rand.Float64())
		if err != nil {
			return err
		}
		total := cur.RoundStart + next.Attempts
		key := binary.BigEndian.AppendUint32(records.IndexPrefix(id), uint32(total))
		if err := records.PutJSON(tx, bucketAttempts, string(key), attempt); err != nil {
			return err
		}
		var due *time.Time
		if next.State == webhooks.Pending {
			due = &next.NextAt
		}
		if err := moveDue(tx, &cur, due); err != nil {
			return err
		}
		cur.State, cur.Attempts = next.State, total
		if next.State == webhooks.Dead {
			e.log.Error("webhook delivery dead-lettered; operator action needed",
				slog.String("delivery", id), slog.String("org", cur.Org), slog.String("event_type", cur.EventType),
				slog.Int("attempts", cur.Attempts))
		}
		after = next.State
		return records.PutJSON(tx, bucketDeliveries, cur.ID, cur)
	})
	if err == nil && after != "" {
		e.metrics.WebhookAttempt(after)
	}
	return err
}

// deliveries is Operator.Deliveries.
func (e *Engine) deliveries(ctx context.Context, orgID string, page PageRequest) (Page[DeliveryView], error) {
	var out Page[DeliveryView]
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = listPage(tx, bucketDeliveriesOrg, orgID, page, nil, func(id string) (DeliveryView, error) {
			return deliveryView(tx, id)
		})
		return err
	})
	return out, err
}

func deliveryView(tx store.Tx, id string) (DeliveryView, error) {
	var d deliveryRecord
	if err := records.GetJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
		return DeliveryView{}, err
	}
	v := DeliveryView{ID: d.ID, EventType: d.EventType, URL: d.URL, State: d.State, Body: string(d.Body), CreatedAt: d.CreatedAt, Attempts: []Attempt{}}
	err := tx.Scan(bucketAttempts, store.ScanOptions{Prefix: records.IndexPrefix(id), Reverse: true}, func(_, val []byte) (bool, error) {
		var a Attempt
		if err := json.Unmarshal(val, &a); err != nil {
			return false, err
		}
		v.Attempts = append(v.Attempts, a)
		return true, nil
	})
	return v, err
}

// redeliver is Operator.Redeliver.
func (e *Engine) redeliver(ctx context.Context, orgID, id string) (DeliveryView, error) {
	var v DeliveryView
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var d deliveryRecord
		if err := records.GetJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
			return err
		}
		if d.Org != orgID {
			return errNotFound
		}
		now := e.nowUTC()
		next, err := webhooks.Delivery{State: d.State, Attempts: d.Attempts}.Redeliver(now)
		if err != nil {
			return errcode.Newf(errcode.Conflict, "Only a dead-lettered delivery is re-delivered; this one is %s.", d.State)
		}
		// A new round of the schedule; attempt numbers keep counting so the
		// log keeps every attempt.
		d.State, d.NextAt, d.RoundStart = next.State, next.NextAt, d.Attempts
		if err := deliveriesDue.Move(tx, d.ID, nil, &d.NextAt); err != nil {
			return err
		}
		if err := records.PutJSON(tx, bucketDeliveries, d.ID, d); err != nil {
			return err
		}
		v, err = deliveryView(tx, id)
		return err
	})
	return v, err
}
