package tambala

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/store"
)

// Page sizes of list endpoints.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// PageRequest asks for one page of a list, newest first.
type PageRequest struct {
	Limit    int    // 1..200; 0 means DefaultPageSize
	BeforeID string // cursor: the previous page's NextBeforeID
}

func (p PageRequest) check() (PageRequest, error) {
	if p.Limit == 0 {
		p.Limit = DefaultPageSize
	}
	if p.Limit < 1 || p.Limit > MaxPageSize {
		return p, errcode.Newf(errcode.ValidationError, "limit must be an integer from 1 to %d", MaxPageSize)
	}
	return p, nil
}

// Page is one page of a list. A page of a filtered list (a status, an
// asset, an organization) looks at a bounded number of records: it may
// hold fewer items than the limit, even none, with HasMore set; paging on
// with NextBeforeID until HasMore is false yields every match once.
type Page[T any] struct {
	Items        []T
	HasMore      bool
	NextBeforeID string // "" when there is no next page
}

// listPage reads one page of an owner's index and loads each item; keep,
// when set, filters ids before they count towards the page.
func listPage[T any](tx store.Tx, index []byte, owner string, p PageRequest,
	keep func(id string) (bool, error), load func(id string) (T, error)) (Page[T], error) {
	out := Page[T]{Items: []T{}}
	ids, next, err := listIDs(tx, index, owner, p, keep)
	if err != nil {
		return out, err
	}
	for _, id := range ids {
		item, err := load(id)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, item)
	}
	out.HasMore, out.NextBeforeID = next != "", next
	return out, nil
}

// examineBudget is how many records a filtered page of limit items looks
// at, at most. A filter the newest records do not match would otherwise
// read an organization's whole history for one page (a minute over a
// million payouts, while other organizations wait on the same store):
// past the budget the page ends with what it found, has_more set and the
// cursor at the last record looked at, and the next page goes on from
// there (docs/decisions.md, "Filtered lists look at a bounded number of
// records").
func examineBudget(limit int) int { return max(1000, 10*limit) }

// listIDs reads one page of ids from an owner's index bucket, newest first,
// and the next page's cursor ("" when there is none). Ids sort by creation
// time, so a page never has gaps or duplicates while new items arrive:
// they sort after every cursor already handed out. An unknown cursor is
// validation_error. keep, when set, filters ids, looking at no more than
// examineBudget of them.
func listIDs(tx store.Tx, index []byte, owner string, p PageRequest, keep func(id string) (bool, error)) (ids []string, next string, err error) {
	p, err = p.check()
	if err != nil {
		return nil, "", err
	}
	opt := store.ScanOptions{Prefix: records.IndexPrefix(owner), Reverse: true}
	if p.BeforeID != "" {
		k := records.IndexKey(owner, p.BeforeID)
		if _, err := tx.Get(index, k); err != nil {
			if err == store.ErrNotFound {
				return nil, "", errcode.Newf(errcode.ValidationError, "before_id is not a cursor of this list")
			}
			return nil, "", err
		}
		opt.End = k
	}
	budget, examined, last := examineBudget(p.Limit), 0, ""
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
		if len(ids) == p.Limit { // one more that matches
			next = ids[len(ids)-1]
			return false, nil
		}
		ids = append(ids, id)
		last = id
		return true, nil
	})
	return ids, next, err
}
