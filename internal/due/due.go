// Package due keeps work listed by the time it is next due, in a bucket of
// the store, maintained in the same transaction as the work's record.
package due

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/tambalapay/tambala/store"
)

// Index lists work by the time it is next due: a bucket whose keys are
// the due time (8 bytes, big-endian nanoseconds) followed by the item's id.
// The payout worker and the webhook dispatcher each keep one.
type Index []byte

// Key is the index key of id due at t.
func Key(t time.Time, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())), id...)
}

// Move re-lists id from old to next; a nil old means it was not listed, a
// nil next that it is not due any more.
func (ix Index) Move(tx store.Tx, id string, old, next *time.Time) error {
	if old != nil {
		if err := tx.Delete(ix, Key(*old, id)); err != nil {
			return err
		}
	}
	if next == nil {
		return nil
	}
	return tx.Put(ix, Key(*next, id), nil)
}

// End is the exclusive upper bound of a scan of the items due at or
// before now.
func End(now time.Time) []byte { return Key(now.Add(time.Nanosecond), "") }

// Due returns up to limit ids due at or before now, earliest first.
func (ix Index) Due(ctx context.Context, s store.Store, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.View(ctx, func(tx store.Tx) error {
		return tx.Scan(ix, store.ScanOptions{End: End(now)}, func(k, _ []byte) (bool, error) {
			ids = append(ids, string(k[8:]))
			return len(ids) < limit, nil
		})
	})
	return ids, err
}
