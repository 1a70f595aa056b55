package tambala

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"

	"github.com/tambalapay/tambala/errcode"
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
	Batch    int             // default 100
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
}

var errNoSender = errors.New("tambala: no webhook sender configured")

// ProcessDeliveries sends every delivery due now: each is claimed under a
// lease in a transaction, sent outside any transaction with the secret it
// was created with, and its attempt recorded in another transaction, which
// retries it on the schedule, dead-letters it after the last retry, or
// finishes it on a 2xx. A dispatcher that dies between send and record
// leaves the delivery due again after its lease: at least once.
func (e *Engine) ProcessDeliveries(ctx context.Context) (int, error) {
	if e.sender == nil {
		return 0, errNoSender
	}
	ids, err := deliveriesDue.due(ctx, e.store, e.now(), e.dispatch.Batch)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return sent, err
		}
		ok, err := e.deliver(ctx, id)
		if err != nil {
			e.log.Error("webhook dispatcher", zap.String("delivery", id), zap.Error(err))
			continue
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

// RunDispatcher runs ProcessDeliveries every interval until ctx ends.
func (e *Engine) RunDispatcher(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := e.ProcessDeliveries(ctx); err != nil && ctx.Err() == nil {
			e.log.Error("webhook dispatcher pass", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// moveDue re-lists a delivery: a pending one is listed at its NextAt.
func moveDue(tx store.Tx, d *deliveryRecord, next *time.Time) error {
	var old *time.Time
	if d.State == webhooks.Pending {
		old = &d.NextAt
	}
	if err := deliveriesDue.move(tx, d.ID, old, next); err != nil {
		return err
	}
	if next != nil {
		d.NextAt = *next
	}
	return nil
}

func (e *Engine) deliver(ctx context.Context, id string) (bool, error) {
	var d deliveryRecord
	var secret secretRecord
	claimed := false
	err := e.store.Update(ctx, func(tx store.Tx) error {
		claimed = false
		if err := getJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
			return err
		}
		now := e.nowUTC()
		if d.State != webhooks.Pending || d.NextAt.After(now) {
			return nil
		}
		if err := getJSON(tx, bucketSecrets, d.SecretID, &secret, errNotFound); err != nil {
			return err
		}
		// The bytes and the secret are the delivery's own; the address is
		// the endpoint's current one, so replacing a broken URL rescues the
		// deliveries still pending.
		var ep Endpoint
		if err := getJSON(tx, bucketEndpoints, d.Org, &ep, errNotFound); err == nil {
			d.URL = ep.URL
		} else if !errors.Is(err, errNotFound) {
			return err
		}
		if err := moveDue(tx, &d, at(now.Add(e.dispatch.Lease))); err != nil {
			return err
		}
		claimed = true
		return putJSON(tx, bucketDeliveries, d.ID, d)
	})
	if err != nil || !claimed {
		return false, err
	}
	sig := webhooks.Sign(secret.Secret, d.Body)
	start := time.Now()
	res, sendErr := e.sender.Send(ctx, d.URL, d.Body, sig)
	if ctx.Err() != nil {
		// Stopped mid-send: record nothing; the lease brings it back.
		return true, nil
	}
	attempt := Attempt{At: e.nowUTC(), StatusCode: res.StatusCode, Duration: time.Since(start), Response: string(res.Response), Signature: sig}
	status := attempt.StatusCode
	if sendErr != nil {
		attempt.Error = sendErr.Error()
		status = 0 // an error is a failure whatever the status
	}
	return true, e.store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		var cur deliveryRecord
		if err := getJSON(tx, bucketDeliveries, id, &cur, errNotFound); err != nil {
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
		key := binary.BigEndian.AppendUint32(indexPrefix(id), uint32(total))
		if err := putJSON(tx, bucketAttempts, string(key), attempt); err != nil {
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
				zap.String("delivery", id), zap.String("org", cur.Org), zap.String("event_type", cur.EventType),
				zap.Int("attempts", cur.Attempts))
		}
		return putJSON(tx, bucketDeliveries, cur.ID, cur)
	})
}

// Deliveries lists an organization's deliveries newest first, each with its
// attempts newest first (the operator's side).
func (e *Engine) Deliveries(ctx context.Context, orgID string, page PageRequest) (Page[DeliveryView], error) {
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
	if err := getJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
		return DeliveryView{}, err
	}
	v := DeliveryView{ID: d.ID, EventType: d.EventType, URL: d.URL, State: d.State, Body: string(d.Body), CreatedAt: d.CreatedAt, Attempts: []Attempt{}}
	err := tx.Scan(bucketAttempts, store.ScanOptions{Prefix: indexPrefix(id), Reverse: true}, func(_, val []byte) (bool, error) {
		var a Attempt
		if err := json.Unmarshal(val, &a); err != nil {
			return false, err
		}
		v.Attempts = append(v.Attempts, a)
		return true, nil
	})
	return v, err
}

// Redeliver sends a dead-lettered delivery again on request (the
// operator's side): the same bytes, signed with the secret it was created
// with, for one more full schedule.
func (e *Engine) Redeliver(ctx context.Context, orgID, id string) (DeliveryView, error) {
	var v DeliveryView
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var d deliveryRecord
		if err := getJSON(tx, bucketDeliveries, id, &d, errNotFound); err != nil {
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
		if err := deliveriesDue.move(tx, d.ID, nil, &d.NextAt); err != nil {
			return err
		}
		if err := putJSON(tx, bucketDeliveries, d.ID, d); err != nil {
			return err
		}
		v, err = deliveryView(tx, id)
		return err
	})
	return v, err
}
