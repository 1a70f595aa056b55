package tambala_test

import (
	"context"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/payouts"
)

// BenchmarkEmitSubscribers measures a command that commits one event
// (a simulated collection, memstore) with no subscription open, and with
// subscriptions open that the event does not pass (another
// organization's) or passes (read as it comes).
func BenchmarkEmitSubscribers(b *testing.B) {
	run := func(b *testing.B, subscribe func(e *tambala.Engine, org string) (read func())) {
		e, err := tambala.New(memstore.New(), nil)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Bench"})
		if err != nil {
			b.Fatal(err)
		}
		p, err := e.Act(ctx, org.ID)
		if err != nil {
			b.Fatal(err)
		}
		read := subscribe(e, org.ID)
		sc := tambala.SimulatedCollection{Amount: mwkAmt(b, "1.00"), Rail: payouts.Bank}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := e.Client(p).V1().SimulateCollection(ctx, sc); err != nil {
				b.Fatal(err)
			}
			read()
		}
	}
	b.Run("none", func(b *testing.B) {
		run(b, func(*tambala.Engine, string) func() { return func() {} })
	})
	b.Run("100-other-org", func(b *testing.B) {
		run(b, func(e *tambala.Engine, _ string) func() {
			for range 100 {
				s := e.Events().Subscribe(tambala.EventFilter{Org: "another"}, 0)
				b.Cleanup(s.Close)
			}
			return func() {}
		})
	})
	b.Run("1-matching", func(b *testing.B) {
		run(b, func(e *tambala.Engine, org string) func() {
			s := e.Events().Subscribe(tambala.EventFilter{Org: org}, 0)
			b.Cleanup(s.Close)
			return func() { <-s.C() }
		})
	})
}
