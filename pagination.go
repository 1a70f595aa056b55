package tambala

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
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

// listIDs reads one page of ids from an owner's index, newest first, and
// the next page's cursor ("" when there is none); see storage.PageIDs.
func listIDs(tx store.Tx, index []byte, owner string, p PageRequest, keep func(id string) (bool, error)) (ids []string, next string, err error) {
	p, err = p.check()
	if err != nil {
		return nil, "", err
	}
	return storage.PageIDs(tx, index, owner, p.Limit, p.BeforeID, keep)
}
