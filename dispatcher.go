package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/loop"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/work"
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
// A failed send's error may say what listens where: the engine records
// only its class (webhooks.Classify; a *webhooks.SendError names its own)
// and logs the error itself.
type WebhookSender interface {
	Send(ctx context.Context, url string, body []byte, signature string) (SendResult, error)
}

// WebhookDestinations is implemented by a WebhookSender that checks each
// address it connects to, after DNS, against the destination rule
// (adapters/webhookhttp.Sender). New hands it the engine's rule (the
// environment's, with Options.WebhookAllow and Options.OwnListeners) and
// sends through the sender it returns. The engine checks every URL itself
// before each send too, but a name may resolve anywhere: a sender without
// this check leaves that to its transport.
type WebhookDestinations interface {
	WithDestinations(webhooks.Policy) WebhookSender
}

// guardWebhooks sets the engine's destination rule and hands it to the
// sender.
func (e *Engine) guardWebhooks(allow []netip.Prefix, own []netip.AddrPort) {
	e.destinations = webhooks.Policy{Loopback: e.env == Sandbox, Allow: allow, Own: own}
	if g, ok := e.sender.(WebhookDestinations); ok {
		e.sender = g.WithDestinations(e.destinations)
	}
}

// Attempt is one recorded delivery attempt.
type Attempt struct {
	At         time.Time
	StatusCode int
	// Error is why no answer came, in one of the fixed wordings of
	// webhooks.Failure; "" when an answer came.
	Error    string
	Duration time.Duration
	// Response is the start of the answer, at most webhooks.MaxResponse
	// bytes; "" for a refused destination.
	Response  string
	Signature string
}

// DeliveryView is a delivery as the operator lists it.
type DeliveryView struct {
	ID        string
	EventType string
	URL       string
	State     webhooks.State
	Attempts  []Attempt // newest first
	Body      string
	CreatedAt time.Time
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
	sent := work.Pass(ctx, e.store, e.log, e.dispatch.Concurrency, ids, e.deliveryJob())
	e.metrics.DispatcherPass(time.Since(start), sent)
	if err := ctx.Err(); err != nil {
		return sent, err
	}
	return sent, nil
}

// deliveryJob is the dispatcher's work: a pending delivery claimed under a
// lease, sent, and its attempt recorded.
func (e *Engine) deliveryJob() work.Job[claimedDelivery, sentDelivery] {
	return work.Job[claimedDelivery, sentDelivery]{
		Name: "webhook dispatcher", Item: "delivery",
		ID:    func(c claimedDelivery) string { return c.d.ID },
		Claim: e.claimDelivery,
		Call: func(ctx context.Context, c claimedDelivery) (sentDelivery, bool) {
			a, status, ok := e.send(ctx, c)
			return sentDelivery{attempt: a, status: status}, ok
		},
		Record: func(ctx context.Context, c claimedDelivery, s sentDelivery) (bool, error) {
			err := e.record(ctx, c.d.ID, s.attempt, s.status)
			return err == nil, err
		},
	}
}

// sentDelivery is the outcome of a send: the attempt and the status it
// counts as.
type sentDelivery struct {
	attempt Attempt
	status  int
}

// claimedDelivery is a delivery under this dispatcher's lease.
type claimedDelivery struct {
	d      deliveryRecord // URL is the endpoint's current one
	secret string
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

// claimDelivery claims delivery id, if still due, under a lease inside tx.
func (e *Engine) claimDelivery(tx store.Tx, id string) (claimedDelivery, bool, error) {
	now := e.nowUTC()
	d, err := storage.LoadDelivery(tx, id, errNotFound)
	if err != nil {
		return claimedDelivery{}, false, err
	}
	if d.State != webhooks.Pending || d.NextAt.After(now) {
		return claimedDelivery{}, false, nil // finished, or claimed by another dispatcher
	}
	secret, err := storage.LoadWebhookSecret(tx, d.SecretID, errNotFound)
	if err != nil {
		return claimedDelivery{}, false, err
	}
	// The bytes and the secret are the delivery's own; the address is the
	// endpoint's current one, so replacing a broken URL rescues the
	// deliveries still pending.
	var ep Endpoint
	if err := loadEndpoint(tx, d.Org, &ep, errNotFound); err == nil {
		d.URL = ep.URL
	} else if !errors.Is(err, errNotFound) {
		return claimedDelivery{}, false, err
	}
	if err := moveDue(tx, &d, at(now.Add(e.dispatch.Lease))); err != nil {
		return claimedDelivery{}, false, err
	}
	if err := storage.SaveDelivery(tx, d); err != nil {
		return claimedDelivery{}, false, err
	}
	return claimedDelivery{d: d, secret: secret.Secret}, true, nil
}

// send sends a claimed delivery: the attempt and the status it counts as,
// or ok false when ctx ended during the send (nothing to record). A URL
// the destination rule refuses now (set under an older rule, or naming a
// listener the host has since opened) is not sent at all. A failure is
// recorded in its fixed wording only; the error itself goes to the log
// (webhookhttp's errors leave the URL out: its query may carry the
// receiver's token).
func (e *Engine) send(ctx context.Context, c claimedDelivery) (a Attempt, status int, ok bool) {
	sig := webhooks.Sign(c.secret, c.d.Body)
	start := time.Now()
	var res SendResult
	sendErr := e.destinations.CheckURL(c.d.URL)
	if sendErr == nil {
		res, sendErr = e.webhookSend(ctx, c.d, sig)
	}
	if ctx.Err() != nil {
		// Stopped mid-send: record nothing; the lease brings it back.
		return Attempt{}, 0, false
	}
	a = Attempt{At: e.nowUTC(), StatusCode: res.StatusCode, Duration: time.Since(start), Response: capResponse(res.Response), Signature: sig}
	status = a.StatusCode
	if sendErr != nil {
		failure := webhooks.Classify(sendErr)
		a.Error = string(failure)
		if failure == webhooks.FailDestination {
			a.StatusCode, a.Response = 0, ""
		}
		status = 0 // an error is a failure whatever the status
		e.log.Warn("webhook attempt failed", slog.String("delivery", c.d.ID), slog.String("org", c.d.Org),
			slog.String("failure", a.Error), slog.String("error", sendErr.Error()))
	}
	return a, status, true
}

// capResponse is the part of an answer kept: at most webhooks.MaxResponse
// bytes, whatever the sender read.
func capResponse(b []byte) string {
	if len(b) > webhooks.MaxResponse {
		b = b[:webhooks.MaxResponse]
	}
	return string(b)
}

// record records an attempt at delivery id in a transaction of its own.
func (e *Engine) record(ctx context.Context, id string, attempt Attempt, status int) error {
	var after webhooks.State
	err := e.store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		after = ""
		cur, err := storage.LoadDelivery(tx, id, errNotFound)
		if err != nil {
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
		if err := storage.SaveAttempt(tx, id, uint32(total), codec.AttemptRecord(attempt)); err != nil {
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
			if err := countDead(tx, 1); err != nil {
				return err
			}
			e.log.Error("webhook delivery dead-lettered; operator action needed",
				slog.String("delivery", id), slog.String("org", cur.Org), slog.String("event_type", cur.EventType),
				slog.Int("attempts", cur.Attempts))
		}
		after = next.State
		return storage.SaveDelivery(tx, cur)
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
		out, err = listPage(tx, storage.DeliveriesByOrg, orgID, page, nil, func(id string) (DeliveryView, error) {
			return e.deliveryView(tx, id)
		})
		return err
	})
	return out, err
}

// deliveryView is delivery id as the faces show it. An attempt's error is
// shown in its fixed wording (an older version stored the raw error), and
// no answer is shown for a URL the destination rule refuses now: what an
// older version fetched from inside the network stays hidden.
func (e *Engine) deliveryView(tx store.Tx, id string) (DeliveryView, error) {
	d, err := storage.LoadDelivery(tx, id, errNotFound)
	if err != nil {
		return DeliveryView{}, err
	}
	refused := e.destinations.CheckURL(d.URL) != nil
	v := DeliveryView{ID: d.ID, EventType: d.EventType, URL: d.URL, State: d.State, Body: string(d.Body), CreatedAt: d.CreatedAt, Attempts: []Attempt{}}
	err = storage.EachAttempt(tx, id, func(r codec.AttemptRecord) error {
		a := Attempt(r)
		a.Error = webhooks.Shown(a.Error)
		a.Response = capResponse([]byte(a.Response))
		if refused {
			a.Response = ""
		}
		v.Attempts = append(v.Attempts, a)
		return nil
	})
	return v, err
}

// redeliver is Operator.Redeliver.
func (e *Engine) redeliver(ctx context.Context, orgID, id string) (DeliveryView, error) {
	var v DeliveryView
	err := e.store.Update(ctx, func(tx store.Tx) error {
		d, err := storage.LoadDelivery(tx, id, errNotFound)
		if err != nil {
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
		if err := countDead(tx, -1); err != nil {
			return err
		}
		if err := deliveriesDue.Move(tx, d.ID, nil, &d.NextAt); err != nil {
			return err
		}
		if err := storage.SaveDelivery(tx, d); err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, orgID, AuditDeliveryRedelivered, d.ID, fmt.Sprintf("%s delivery to %s: dead -> %s after %d attempts",
			d.EventType, d.URL, d.State, d.Attempts)); err != nil {
			return err
		}
		v, err = e.deliveryView(tx, id)
		return err
	})
	return v, err
}
