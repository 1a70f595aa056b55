package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// BenchmarkPayoutAcceptOrgs measures the payout accept through the engine
// from 64 callers paying from one organization, and from 1,000 (each
// accept from the next organization in turn), on pebble and PostgreSQL:
// the cost of many organizations without HTTP or a load generator in the
// way (docs/performance.md, "Many organizations"). The one-organization
// arm is the baseline of the same store in the same command.
func BenchmarkPayoutAcceptOrgs(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"pebblestore", func(b *testing.B) store.Store {
			s, err := pebblestore.Open(filepath.Join(b.TempDir(), "pebble"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s
		}},
		{"pgstore", func(b *testing.B) store.Store { return teststores.Pgstore(nil).Open(b) }},
	}
	for _, st := range stores {
		for _, n := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/orgs%d", st.name, n), func(b *testing.B) {
				e, err := tambala.New(st.open(b), nil)
				if err != nil {
					b.Fatal(err)
				}
				ps := benchOrgs(b, e, n)
				var next atomic.Int64
				b.ReportAllocs()
				b.SetParallelism(32)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := next.Add(1)
						acceptOne(b, e, ps[int(i)%len(ps)], i)
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
			})
		}
	}
}

// benchOrgs makes n funded organizations with limits out of the way, 64
// at a time.
func benchOrgs(b *testing.B, e *tambala.Engine, n int) []tambala.Principal {
	ps := make([]tambala.Principal, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ps[i], errs[i] = newBenchOrg(context.Background(), e)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	return ps
}
