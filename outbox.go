package tambala

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Endpoint is an organization's webhook endpoint.
type Endpoint struct {
	URL       string
	SecretID  string
	CreatedAt time.Time
}

// setWebhookEndpoint is Operator.SetWebhookEndpoint.
func (e *Engine) setWebhookEndpoint(ctx context.Context, orgID, rawURL string) (Endpoint, string, error) {
	if err := e.checkEndpointURL(rawURL); err != nil {
		return Endpoint{}, "", err
	}
	random := make([]byte, webhooks.SecretBytes)
	if _, err := io.ReadFull(e.random, random); err != nil {
		return Endpoint{}, "", err
	}
	secret, err := webhooks.NewSecret(random)
	if err != nil {
		return Endpoint{}, "", err
	}
	ep := Endpoint{URL: rawURL, SecretID: e.newID(), CreatedAt: e.nowUTC()}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		var prev Endpoint
		if err := loadEndpoint(tx, orgID, &prev, errNotFound); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
		summary := "url " + prev.URL + " -> " + ep.URL + "; secret rotated"
		if prev.URL == "" {
			summary = "url none -> " + ep.URL + "; secret made"
		}
		if err := e.auditAs(ctx, tx, orgID, AuditWebhookEndpointSet, orgID, summary); err != nil {
			return err
		}
		// The secret is kept in the clear: it is an HMAC key the engine
		// signs with, not a credential it checks.
		if err := storage.SaveWebhookSecret(tx, ep.SecretID, codec.SecretRecord{Org: orgID, Secret: secret}); err != nil {
			return err
		}
		return storage.SaveEndpoint(tx, orgID, codec.EndpointRecord(ep))
	})
	if err != nil {
		return Endpoint{}, "", err
	}
	return ep, secret, nil
}

// checkEndpointURL checks a webhook URL against the engine's destination
// rule (webhooks.Policy): https to a public destination, plain http and
// loopback only in the sandbox, never the host's own listeners. Where a
// name resolves is checked again at every dial, by the sender.
func (e *Engine) checkEndpointURL(raw string) error {
	if err := e.destinations.CheckURL(raw); err != nil {
		return errcode.Newf(errcode.ValidationError, "%s", err.Error())
	}
	return nil
}

// webhookEndpoint is Operator.WebhookEndpoint.
func (e *Engine) webhookEndpoint(ctx context.Context, orgID string) (Endpoint, bool, error) {
	var ep Endpoint
	err := e.store.View(ctx, func(tx store.Tx) error {
		return loadEndpoint(tx, orgID, &ep, errNotFound)
	})
	if errors.Is(err, errNotFound) {
		return Endpoint{}, false, nil
	}
	return ep, err == nil, err
}

// emit writes an event for the organization, in the caller's transaction:
// into the outbox when it has an endpoint (the envelope rendered now, with
// the MWK balance as it stands after the change), and for the event
// handler when the engine has one (res, the resource as stored). Without
// either nothing is written. Either way the event is given to the
// engine's subscribers (Engine.Events) once tx commits.
func (e *Engine) emit(tx store.Tx, orgID, eventType string, data []byte, res eventResource) error {
	var ep Endpoint
	err := loadEndpoint(tx, orgID, &ep, errNotFound)
	endpoint := err == nil
	if err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	if !endpoint && e.events == nil {
		// Nothing to write: the event's id and time are drawn only if a
		// subscriber wants it.
		keepForSubscribers(tx, pendingEvent{org: orgID, typ: eventType, res: res})
		return nil
	}
	now := e.nowUTC()
	id := e.newID()
	keepForSubscribers(tx, pendingEvent{id: id, org: orgID, typ: eventType, at: now, res: res})
	if err := e.keepEvent(tx, id, orgID, eventType, now, res); err != nil {
		return err
	}
	if !endpoint {
		return nil
	}
	bal, err := ledger.ReadBalance(tx, orgID, money.MWK)
	if err != nil {
		return err
	}
	body, err := webhooks.Envelope{
		ID: id, EventType: eventType, CreatedAt: now,
		Balance: webhooks.Balance{Available: bal.Available, Held: bal.Held, Currency: string(money.MWK.Code)},
		Data:    data,
	}.Render()
	if err != nil {
		return err
	}
	d := deliveryRecord{ID: id, Org: orgID, EventType: eventType, URL: ep.URL, SecretID: ep.SecretID, Body: body,
		State: webhooks.Pending, NextAt: now, CreatedAt: now}
	if err := storage.AddDelivery(tx, d); err != nil {
		return err
	}
	return deliveriesDue.Move(tx, id, nil, &now)
}

// checkBalanceLow emits balance.low when the organization's available MWK
// is below its floor, at most once per cooldown while that holds. Called
// in every transaction that lowers available.
func (e *Engine) checkBalanceLow(tx store.Tx, orgID string) error {
	fl, err := tx.Get(bucketOrgFloors, []byte(orgID))
	if errors.Is(err, store.ErrNotFound) {
		return nil // no floor
	}
	if err != nil {
		return err
	}
	floor, err := money.Parse(money.MWK, string(fl))
	if err != nil {
		return err
	}
	bal, err := ledger.ReadBalance(tx, orgID, money.MWK)
	if err != nil {
		return err
	}
	if bal.Available.Cmp(floor) >= 0 {
		return nil
	}
	now := e.nowUTC()
	last, err := storage.LoadBalanceLow(tx, orgID)
	if err != nil {
		return err
	}
	if !last.IsZero() && now.Sub(last) < e.balanceLowCooldown {
		return nil
	}
	data := render.BalanceLow(bal, floor)
	res := jsonResource(eventBalanceLow, balanceLowRecord{Available: bal.Available.String(), Held: bal.Held.String(), Floor: floor.String()})
	if err := e.emit(tx, orgID, webhooks.BalanceLow, data, res); err != nil {
		return err
	}
	return storage.SaveBalanceLow(tx, orgID, now)
}
