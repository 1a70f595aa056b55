package tambala_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
)

// The organization's face: a Client binds the Principal once, and every
// call acts for it under the organization's rules.
func ExampleEngine_Client() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 10_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	c := e.Client(p)
	if _, err := c.V1().CreatePayout(ctx, exampleMomo("1000.00"), tambala.Idempotency{Key: "rent-march"}); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := c.V1().Balance(ctx)
	page, _ := c.V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
	fmt.Println("available", b.Available, "held", b.Held, "payouts", len(page.Items))
	// Output:
	// available 8755.60 held 1244.40 payouts 1
}

// The operator's face: the staff suspend an organization, and its Client's
// next call is refused, whatever the Principal it was made with.
func ExampleEngine_Operator() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 10_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	op := e.Operator()
	if _, err := op.SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgSuspended); err != nil {
		fmt.Println(err)
		return
	}
	_, err = e.Client(p).V1().CreatePayout(ctx, exampleMomo("1000.00"), tambala.Idempotency{Key: "late"})
	fmt.Println(err)
	orgs, _ := op.Organizations(ctx)
	fmt.Println(orgs[0].Name, orgs[0].Status)
	// Output:
	// forbidden: This organization is suspended.
	// Acme Ltd suspended
}

// A host told of events in-process: the handler gets every committed
// event as a typed value, here a payout's success, without any webhook.
// ProcessEvents is the event loop's single pass; Run calls it.
func ExampleEventHandlerFunc() {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	handler := tambala.EventHandlerFunc(func(_ context.Context, ev tambala.Event) error {
		if ev.Payout != nil {
			fmt.Println(ev.Type, ev.Payout.Amount, "fee", ev.Payout.Fee)
		}
		return nil // an error hands the event over again later
	})
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, &tambala.Options{Clock: clock, Events: handler,
		Payouts: sandbox.New(&sandbox.Options{Clock: clock, Delay: time.Second})})
	p, err := exampleOrg(ctx, e, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := e.Client(p).V1().CreatePayout(ctx, exampleMomo("5000.00"), tambala.Idempotency{Key: "k"}); err != nil {
		fmt.Println(err)
		return
	}
	for range 3 { // the worker's passes, as Run would make them
		if _, err := e.Work().ProcessPayouts(ctx); err != nil {
			fmt.Println(err)
			return
		}
		now = now.Add(time.Second)
	}
	n, err := e.Work().ProcessEvents(ctx)
	fmt.Println("handed over", n, err)
	// Output:
	// payout.succeeded 5000.00 fee 282.00
	// handed over 1 <nil>
}
