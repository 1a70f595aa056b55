package tambala

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/tambalapay/tambala/store"
)

// dueIndex lists work by the time it is next due: a bucket whose keys are
// the due time (8 bytes, big-endian nanoseconds) followed by the item's id.
// The payout worker and the webhook dispatcher each keep one.
type dueIndex []byte

var (
	payoutsDue    = dueIndex("payouts.due")
	deliveriesDue = dueIndex("webhooks.due")
)

func dueKey(t time.Time, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())), id...)
}

// move re-lists id from old to next; a nil old means it was not listed, a
// nil next that it is not due any more.
func (ix dueIndex) move(tx store.Tx, id string, old, next *time.Time) error {
	if old != nil {
		if err := tx.Delete(ix, dueKey(*old, id)); err != nil {
			return err
		}
	}
	if next == nil {
		return nil
	}
	return tx.Put(ix, dueKey(*next, id), nil)
}

// due returns up to limit ids due at or before now, earliest first.
func (ix dueIndex) due(ctx context.Context, s store.Store, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.View(ctx, func(tx store.Tx) error {
		return tx.Scan(ix, store.ScanOptions{End: dueKey(now.Add(time.Nanosecond), "")}, func(k, _ []byte) (bool, error) {
			ids = append(ids, string(k[8:]))
			return len(ids) < limit, nil
		})
	})
	return ids, err
}
