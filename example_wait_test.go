package tambala_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// A host that answers only once a payout has settled: Run settles it in
// the background, and WaitPayout returns it terminal. No event handler,
// no fan-out of the host's own: the wait reads the payout, then waits
// for its event.
func ExampleClientV1_WaitPayout() {
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, &tambala.Options{
		Payouts: sandbox.New(&sandbox.Options{Delay: time.Millisecond}),
		Worker:  tambala.WorkerOptions{Interval: 5 * time.Millisecond},
	})
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	defer func() { stop(); <-ran }()

	p, err := exampleOrg(ctx, e, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := e.Client(p)
	created, err := c.V1().CreatePayout(ctx, exampleMomo("5000.00"), tambala.Idempotency{Key: "invoice-7"})
	if err != nil {
		fmt.Println(err)
		return
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	po, err := c.V1().WaitPayout(wait, created.Resource.ID)
	fmt.Println(po.Status, po.Amount, err)
	// Output:
	// succeeded 5000.00 <nil>
}

// The engine's event stream: a subscriber is given the events that pass
// its filter as each transaction commits, into a buffer of its own. A
// subscriber that falls behind loses its subscription, never anyone
// else's events, and is told so.
func ExampleEventStream_Subscribe() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 10_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	collections := e.Events().Subscribe(tambala.EventFilter{Org: p.Org.ID, Types: []string{"collection.*"}}, 16)
	defer collections.Close()
	late := e.Events().Subscribe(tambala.EventFilter{}, 1) // never read until the end

	c := e.Client(p)
	for _, amount := range []string{"250.00", "125.50"} {
		amt, _ := money.Parse(money.MWK, amount)
		if _, err := c.V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: amt, Rail: payouts.Bank}); err != nil {
			fmt.Println(err)
			return
		}
		ev, err := collections.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Type, ev.Collection.AmountMWK)
	}
	for ev := range late.C() {
		fmt.Println("late reader kept", ev.Type)
	}
	fmt.Println(late.Err())
	// Output:
	// collection.settled 250.00
	// collection.settled 125.50
	// late reader kept collection.settled
	// tambala: subscription overflowed: its buffer was full and events were dropped
}
