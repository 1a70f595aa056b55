package storage

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/tambalapay/tambala/store"
)

// DueIndex lists work by the time it is next due: a bucket whose keys are
// the due time (8 bytes, big-endian nanoseconds) followed by the item's id.
// The payout worker and the webhook dispatcher each keep one.
type DueIndex []byte

// DueKey is the index key of id due at t.
func DueKey(t time.Time, id string) []byte {
	return appendDueKey(make([]byte, 0, 8+len(id)), t, id)
}

// Move re-lists id from old to next; a nil old means it was not listed, a
// nil next that it is not due any more.
func (ix DueIndex) Move(tx store.Tx, id string, old, next *time.Time) error {
	s := takeScratch()
	defer s.release()
	if old != nil {
		s.b = appendDueKey(s.b[:0], *old, id)
		if err := tx.Delete(ix, s.b); err != nil {
			return err
		}
	}
	if next == nil {
		return nil
	}
	s.b = appendDueKey(s.b[:0], *next, id)
	return tx.Put(ix, s.b, nil)
}

// appendDueKey appends DueKey(t, id) to b.
func appendDueKey(b []byte, t time.Time, id string) []byte {
	return append(binary.BigEndian.AppendUint64(b, uint64(t.UnixNano())), id...)
}

// DueEnd is the exclusive upper bound of a scan of the items due at or
// before now.
func DueEnd(now time.Time) []byte { return DueKey(now.Add(time.Nanosecond), "") }

// Due returns up to limit ids due at or before now, earliest first.
func (ix DueIndex) Due(ctx context.Context, s store.Store, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.View(ctx, func(tx store.Tx) error {
		return tx.Scan(ix, store.ScanOptions{End: DueEnd(now)}, func(k, _ []byte) (bool, error) {
			ids = append(ids, string(k[8:]))
			return len(ids) < limit, nil
		})
	})
	return ids, err
}
