package storage

import (
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// The webhook outbox: each organization's endpoint and the secrets it
// signs with, the deliveries (listed by organization), each delivery's
// attempts, and when balance.low was last emitted.
var (
	bucketEndpoints  = []byte("webhooks.endpoints")
	bucketSecrets    = []byte("webhooks.secrets")
	bucketDeliveries = []byte("webhooks.deliveries")
	bucketAttempts   = []byte("webhooks.attempts")
	bucketBalanceLow = []byte("webhooks.balance_low")
)

// DeliveriesByOrg indexes the deliveries by organization (IndexKey(org,
// id)), for a page of an organization's deliveries.
var DeliveriesByOrg = []byte("webhooks.by_org")

// LoadEndpoint reads org's webhook endpoint; none is notFound.
func LoadEndpoint(tx store.Tx, org string, notFound error) (codec.EndpointRecord, error) {
	var r codec.EndpointRecord
	err := GetJSON(tx, bucketEndpoints, org, &r, notFound)
	return r, err
}

// SaveEndpoint stores org's webhook endpoint.
func SaveEndpoint(tx store.Tx, org string, r codec.EndpointRecord) error {
	return PutJSON(tx, bucketEndpoints, org, r)
}

// LoadWebhookSecret reads the signing secret id; none is notFound.
func LoadWebhookSecret(tx store.Tx, id string, notFound error) (codec.SecretRecord, error) {
	var r codec.SecretRecord
	err := GetJSON(tx, bucketSecrets, id, &r, notFound)
	return r, err
}

// SaveWebhookSecret stores the signing secret id.
func SaveWebhookSecret(tx store.Tx, id string, r codec.SecretRecord) error {
	return PutJSON(tx, bucketSecrets, id, r)
}

// LoadDelivery reads delivery id; none is notFound.
func LoadDelivery(tx store.Tx, id string, notFound error) (codec.DeliveryRecord, error) {
	var r codec.DeliveryRecord
	err := GetJSON(tx, bucketDeliveries, id, &r, notFound)
	return r, err
}

// SaveDelivery stores a delivery that is already listed.
func SaveDelivery(tx store.Tx, r codec.DeliveryRecord) error {
	return PutJSON(tx, bucketDeliveries, r.ID, r)
}

// AddDelivery stores a new delivery and lists it under its organization.
func AddDelivery(tx store.Tx, r codec.DeliveryRecord) error {
	if err := SaveDelivery(tx, r); err != nil {
		return err
	}
	return tx.Put(DeliveriesByOrg, IndexKey(r.Org, r.ID), nil)
}

// SaveAttempt stores attempt number n (from 1, numbered across rounds) of
// delivery id.
func SaveAttempt(tx store.Tx, delivery string, n uint32, r codec.AttemptRecord) error {
	key := binary.BigEndian.AppendUint32(IndexPrefix(delivery), n)
	return PutJSON(tx, bucketAttempts, string(key), r)
}

// EachAttempt calls fn with the attempts of delivery id, newest first.
func EachAttempt(tx store.Tx, delivery string, fn func(codec.AttemptRecord) error) error {
	opts := store.ScanOptions{Prefix: IndexPrefix(delivery), Reverse: true}
	return tx.Scan(bucketAttempts, opts, func(_, val []byte) (bool, error) {
		var r codec.AttemptRecord
		if err := json.Unmarshal(val, &r); err != nil {
			return false, err
		}
		return true, fn(r)
	})
}

// LoadBalanceLow reads when balance.low was last emitted for org; the
// zero time when never.
func LoadBalanceLow(tx store.Tx, org string) (time.Time, error) {
	var last time.Time
	err := GetJSON(tx, bucketBalanceLow, org, &last, nil)
	return last, err
}

// SaveBalanceLow records that balance.low was emitted for org at t.
func SaveBalanceLow(tx store.Tx, org string, t time.Time) error {
	return PutJSON(tx, bucketBalanceLow, org, t)
}

// CountDue counts the items of ix due at or before now.
func (ix DueIndex) CountDue(tx store.Tx, now time.Time) (int, error) {
	n := 0
	err := tx.Scan(ix, store.ScanOptions{End: DueEnd(now)}, func(_, _ []byte) (bool, error) {
		n++
		return true, nil
	})
	return n, err
}
