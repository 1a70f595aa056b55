package storage

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// ExamineBudget is how many records a filtered page of limit items looks
// at, at most. A filter the newest records do not match would otherwise
// read an organization's whole history for one page (a minute over a
// million payouts, while other organizations wait on the same store):
// past the budget the page ends with what it found, has_more set and the
// cursor at the last record looked at, and the next page goes on from
// there (docs/decisions.md, "Filtered lists look at a bounded number of
// records").
func ExamineBudget(limit int) int { return max(1000, 10*limit) }

// PageIDs reads one page of at most limit (already checked) ids of ids from an owner's index bucket, newest first,
// and the next page's cursor ("" when there is none). Ids sort by creation
// time, so a page never has gaps or duplicates while new items arrive:
// they sort after every cursor already handed out. An unknown cursor is
// validation_error. keep, when set, filters ids, looking at no more than
// ExamineBudget of them.
func PageIDs(tx store.Tx, index []byte, owner string, limit int, beforeID string, keep func(id string) (bool, error)) (ids []string, next string, err error) {
	opt := store.ScanOptions{Prefix: IndexPrefix(owner), Reverse: true}
	if beforeID != "" {
		k := IndexKey(owner, beforeID)
		if _, err := tx.Get(index, k); err != nil {
			if err == store.ErrNotFound {
				return nil, "", errcode.Newf(errcode.ValidationError, "before_id is not a cursor of this list")
			}
			return nil, "", err
		}
		opt.End = k
	}
	budget, examined, last := ExamineBudget(limit), 0, ""
	err = tx.Scan(index, opt, func(k, _ []byte) (bool, error) {
		if keep != nil && examined == budget { // more to look at, past the budget
			next = last
			return false, nil
		}
		id := string(k[len(owner)+1:])
		if keep != nil {
			examined++
			ok, err := keep(id)
			if err != nil {
				return false, err
			}
			if !ok {
				last = id
				return true, nil
			}
		}
		if len(ids) == limit { // one more that matches
			next = ids[len(ids)-1]
			return false, nil
		}
		ids = append(ids, id)
		last = id
		return true, nil
	})
	return ids, next, err
}
