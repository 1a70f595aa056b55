package tambala_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// BenchmarkStatementGrowth measures whether a statement page costs the
// same over a long history as over a short one (BenchmarkGrowth's method:
// pages/s and allocations of one page at each size, back to back): one
// organization with n MWK funding entries (1e3, 1e5 and, with
// STATEMENT_GROWTH_1E6 set, 1e6), posted straight into the ledger 5,000 to
// a transaction on a fresh store (bbolt, pebble, PostgreSQL where it
// answers), then:
//
//	first   Client.Statement, the first page (50 lines) of the whole history
//	deep    the page after the cursor of the line halfway
//	period  a one-day period starting halfway (its opening read too)
//
// Nothing runs without -bench.
func BenchmarkStatementGrowth(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	if os.Getenv("STATEMENT_GROWTH_1E6") != "" {
		sizes = append(sizes, 1_000_000)
	}
	kinds := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"bbolt", func(b *testing.B) store.Store {
			s, err := boltstore.Open(b.TempDir()+"/s.bolt", &boltstore.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"pebble", func(b *testing.B) store.Store {
			s, err := pebblestore.Open(b.TempDir(), &pebblestore.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	if teststores.PGAvailable(b) {
		kinds = append(kinds, struct {
			name string
			open func(b *testing.B) store.Store
		}{"pg", func(b *testing.B) store.Store { return teststores.Pgstore(nil).Open(b) }})
	}
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("1e%d", len(fmt.Sprint(n))-1), func(b *testing.B) {
					s := k.open(b)
					defer s.Close()
					e, err := tambala.New(s, &tambala.Options{Clock: func() time.Time { return t0 }})
					if err != nil {
						b.Fatal(err)
					}
					org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Statements", V2Access: tambala.V2Enabled,
						Assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpPayout}}}})
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					// One entry a second: the line halfway is booked at t0 + n/2 s.
					for i := 0; i < n; i += 5000 {
						err := s.Update(ctx, func(tx store.Tx) error {
							for j := i; j < min(n, i+5000); j++ {
								ref := fmt.Sprintf("r%07d", j)
								if _, err := ledger.Post(tx, ledger.Credit{EntryID: "fund:" + org.ID + ":MWK:" + ref, Org: org.ID,
									Amount: money.FromUnits(money.MWK, 100), From: ledger.Float, Ref: ref, At: t0.Add(time.Duration(j) * time.Second)}); err != nil {
									return err
								}
							}
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
					}
					b.Logf("seeded %d entries in %v", n, time.Since(start).Round(time.Millisecond))
					p, err := e.Act(ctx, org.ID)
					if err != nil {
						b.Fatal(err)
					}
					c := e.Client(p)
					mid := t0.Add(time.Duration(n/2) * time.Second)
					half, err := c.Statement(ctx, tambala.StatementRequest{Asset: "MWK", From: mid}, tambala.PageRequest{Limit: 1})
					if err != nil || half.Lines.NextBeforeID == "" {
						b.Fatalf("%v %v", half, err)
					}
					arms := []struct {
						name string
						req  tambala.StatementRequest
						page tambala.PageRequest
					}{
						{"first", tambala.StatementRequest{Asset: "MWK"}, tambala.PageRequest{}},
						{"deep", tambala.StatementRequest{Asset: "MWK"}, tambala.PageRequest{BeforeID: half.Lines.NextBeforeID}},
						{"period", tambala.StatementRequest{Asset: "MWK", From: mid, To: mid.Add(24 * time.Hour)}, tambala.PageRequest{}},
					}
					for _, a := range arms {
						b.Run(a.name, func(b *testing.B) {
							st, err := c.Statement(ctx, a.req, a.page)
							if err != nil || len(st.Lines.Items) != tambala.DefaultPageSize {
								b.Fatalf("%d lines, %v", len(st.Lines.Items), err)
							}
							b.ReportAllocs()
							b.ResetTimer()
							for range b.N {
								if _, err := c.Statement(ctx, a.req, a.page); err != nil {
									b.Fatal(err)
								}
							}
							b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
						})
					}
				})
			}
		})
	}
}
