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

// Page is one page of a list.
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
	ids, more, err := listIDs(tx, index, owner, p, keep)
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
	if more && len(ids) > 0 {
		out.HasMore, out.NextBeforeID = true, ids[len(ids)-1]
	}
	return out, nil
}

// listIDs reads one page of ids from an owner's index bucket, newest first.
// Ids sort by creation time, so a page never has gaps or duplicates while
// new items arrive: they sort after every cursor already handed out. An
// unknown cursor is validation_error. keep, when set, filters ids.
func listIDs(tx store.Tx, index []byte, owner string, p PageRequest, keep func(id string) (bool, error)) (ids []string, hasMore bool, err error) {
	p, err = p.check()
	if err != nil {
		return nil, false, err
	}
	opt := store.ScanOptions{Prefix: records.IndexPrefix(owner), Reverse: true}
	if p.BeforeID != "" {
		k := records.IndexKey(owner, p.BeforeID)
		if _, err := tx.Get(index, k); err != nil {
			if err == store.ErrNotFound {
				return nil, false, errcode.Newf(errcode.ValidationError, "before_id is not a cursor of this list")
			}
			return nil, false, err
		}
		opt.End = k
	}
	err = tx.Scan(index, opt, func(k, _ []byte) (bool, error) {
		id := string(k[len(owner)+1:])
		if keep != nil {
			ok, err := keep(id)
			if err != nil || !ok {
				return err == nil, err
			}
		}
		if len(ids) == p.Limit {
			hasMore = true
			return false, nil
		}
		ids = append(ids, id)
		return true, nil
	})
	return ids, hasMore, err
}
