package storage

import (
	"context"
	"time"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// The events waiting for the in-process handler, by id, and by the time
// each is next due.
var (
	bucketEvents = []byte("events.inprocess")
	eventsDue    = DueIndex("events.due")
)

// LoadEvent reads event id; a missing one (handed over already) is
// notFound.
func LoadEvent(tx store.Tx, id string, notFound error) (codec.EventRecord, error) {
	var r codec.EventRecord
	err := GetJSON(tx, bucketEvents, id, &r, notFound)
	return r, err
}

// SaveEvent writes event r, due at r.NextAt; old is when it was due
// before (nil for a new event).
func SaveEvent(tx store.Tx, r codec.EventRecord, old *time.Time) error {
	if err := PutJSON(tx, bucketEvents, r.ID, r); err != nil {
		return err
	}
	next := r.NextAt
	return eventsDue.Move(tx, r.ID, old, &next)
}

// DeleteEvent forgets event r, due at r.NextAt.
func DeleteEvent(tx store.Tx, r codec.EventRecord) error {
	if err := tx.Delete(bucketEvents, []byte(r.ID)); err != nil {
		return err
	}
	old := r.NextAt
	return eventsDue.Move(tx, r.ID, &old, nil)
}

// DueEvents returns up to limit ids of events due at or before now,
// earliest first.
func DueEvents(ctx context.Context, s store.Store, now time.Time, limit int) ([]string, error) {
	return eventsDue.Due(ctx, s, now, limit)
}
