package tambala

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// Paging a filtered list to its end yields every match once, newest
// first, however few the matches and wherever they are; no page looks at
// more than examineBudget records, and a page may end short of its limit
// (even empty) with a cursor when the budget ran out.
func TestFilteredPagesLookAtABoundedNumber(t *testing.T) {
	ctx := context.Background()
	index := []byte("things.by_owner")
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 3500).Draw(t, "records")
		limit := rapid.SampledFrom([]int{1, 7, 50, 200}).Draw(t, "limit")
		every := rapid.SampledFrom([]int{1, 2, 97, 1500, 10_000}).Draw(t, "one match in")
		s := memstore.New()
		var want []string
		if err := s.Update(ctx, func(tx store.Tx) error {
			for i := range n {
				id := fmt.Sprintf("id-%05d", i)
				if err := tx.Put(index, storage.IndexKey("o", id), nil); err != nil {
					return err
				}
				// Another owner's entries around it are never looked at.
				if err := tx.Put(index, storage.IndexKey("p", id), nil); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := n - 1; i >= 0; i-- {
			if i%every == 0 {
				want = append(want, fmt.Sprintf("id-%05d", i))
			}
		}
		var got []string
		cursor, pages := "", 0
		for {
			looked := 0
			keep := func(id string) (bool, error) {
				looked++
				var i int
				fmt.Sscanf(id, "id-%05d", &i)
				return i%every == 0, nil
			}
			var ids []string
			var next string
			err := s.View(ctx, func(tx store.Tx) error {
				var err error
				ids, next, err = listIDs(tx, index, "o", PageRequest{Limit: limit, BeforeID: cursor}, keep)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if looked > storage.ExamineBudget(limit) {
				t.Fatalf("a page looked at %d records, the budget is %d", looked, storage.ExamineBudget(limit))
			}
			if len(ids) > limit {
				t.Fatalf("a page of %d, the limit is %d", len(ids), limit)
			}
			got = append(got, ids...)
			if pages++; pages > n+2 {
				t.Fatal("paging does not end")
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("paged %d ids, want %d:\n%v\n%v", len(got), len(want), got, want)
		}
	})
}
