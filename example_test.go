package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// exampleMomo is a momo payout of amount (MWK) to the first sandbox test
// wallet, on Airtel Money (institution 101).
func exampleMomo(amount string) payouts.Request {
	amt, err := money.Parse(money.MWK, amount)
	if err != nil {
		panic(err)
	}
	return payouts.Request{
		Rail:   payouts.Momo,
		Amount: amt,
		Destination: payouts.Destination{
			InstitutionID:   101,
			MobileNumber:    tambala.SandboxWallets[0],
			BeneficiaryName: "Test Wallet",
		},
	}
}

// exampleOrg creates an organization funded with mwk kwacha and returns the
// Principal a host acts for it with.
func exampleOrg(ctx context.Context, e *tambala.Engine, mwk int64) (tambala.Principal, error) {
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		return tambala.Principal{}, err
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, mwk), "opening"); err != nil {
		return tambala.Principal{}, err
	}
	return e.Act(ctx, org.ID)
}

// An engine over the in-memory store, with every option left at its
// default: the sandbox environment, MWK and USDT, no payout provider and no
// webhook sender (payouts are accepted and held; Run refuses to start).
func ExampleNew() {
	s := memstore.New()
	defer s.Close()

	e, err := tambala.New(s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Settings().Environment(), e.Settings().Limits().MaxActiveKeys, e.Settings().Limits().IdempotencyRetention)
	fmt.Println(errors.Is(e.Run(context.Background()), tambala.ErrNoPayoutProvider))
	// Output:
	// sandbox 3 72h0m0s
	// true
}

// The operator's side: an organization, funded from the operator's float.
// Funding is idempotent per reference, so the second call credits nothing.
func ExampleOperator_CreateOrganization() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)

	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(org.Name, org.Status, org.Enabled("MWK", tambala.OpPayout))

	amount, _ := money.Parse(money.MWK, "250000.00")
	for range 2 {
		if err := e.Operator().Fund(ctx, org.ID, amount, "wire-2026-03-02"); err != nil {
			fmt.Println(err)
			return
		}
	}

	p, err := e.Act(ctx, org.ID) // the host acts for the organization
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := e.Client(p).V1().Balance(ctx)
	fmt.Printf("%s available %s, held %s, shortfall %s\n", b.Asset, b.Available, b.Held, b.Shortfall)
	// Output:
	// Acme Ltd active true
	// MWK available 250000.00, held 0.00, shortfall 0.00
}

// A payout from request to succeeded, with the sandbox provider and a clock
// the example moves by hand. The engine holds amount plus fee at accept;
// the worker submits the payout, polls the provider and, on success,
// captures the hold: the amount to the provider, the fee to fees.
func ExampleClientV1_CreatePayout() {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	provider := sandbox.New(&sandbox.Options{Clock: clock, Delay: 2 * time.Second})

	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, &tambala.Options{Clock: clock, Payouts: provider})
	p, err := exampleOrg(ctx, e, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	c, err := e.Client(p).V1().CreatePayout(ctx, exampleMomo("5000.00"), tambala.Idempotency{Key: "order-1042"})
	if err != nil {
		fmt.Println(err)
		return
	}
	po := c.Resource
	fmt.Println(po.Status, po.Amount, "held fee", po.HeldFee)

	// One pass of the worker a second, as Run would do it.
	for range 4 {
		if _, err := e.Work().ProcessPayouts(ctx); err != nil {
			fmt.Println(err)
			return
		}
		now = now.Add(time.Second)
	}

	po, _ = e.Client(p).V1().Payout(ctx, po.ID)
	fmt.Println(po.Status, po.Amount, "fee", po.Fee, po.TerminalAt.Sub(po.CreatedAt))
	b, _ := e.Client(p).V1().Balance(ctx)
	fmt.Println("available", b.Available, "held", b.Held)
	// Output:
	// held 5000.00 held fee 282.00
	// succeeded 5000.00 fee 282.00 2s
	// available 94718.00 held 0.00
}

// Creates are idempotent by (organization, key): the same request under the
// same key returns the payout first accepted, Replayed set, and holds
// nothing more; another request under that key, by any create, is a
// conflict.
func ExampleClientV1_CreatePayout_replay() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	idem := tambala.Idempotency{Key: "order-1042"}
	first, _ := e.Client(p).V1().CreatePayout(ctx, exampleMomo("5000.00"), idem)
	again, err := e.Client(p).V1().CreatePayout(ctx, exampleMomo("5000.00"), idem)
	fmt.Println(first.Replayed, again.Replayed, again.Resource.ID == first.Resource.ID, err)

	_, err = e.Client(p).V1().CreatePayout(ctx, exampleMomo("7000.00"), idem)
	fmt.Println(errcode.Of(err))

	b, _ := e.Client(p).V1().Balance(ctx)
	fmt.Println("held", b.Held)
	// Output:
	// false true true <nil>
	// conflict
	// held 5282.00
}

// Every rejection is an *errcode.Error with a stable code: match it with
// errors.Is against errcode.New, or read it with errcode.Of. A rejected
// create changes nothing.
func ExampleClientV1_CreatePayout_insufficientFunds() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 1_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	// 1,000.00 plus its fee is more than the organization has.
	_, err = e.Client(p).V1().CreatePayout(ctx, exampleMomo("1000.00"), tambala.Idempotency{Key: "order-1043"})
	fmt.Println(errors.Is(err, errcode.New(errcode.InsufficientFunds)))
	fmt.Println(errcode.Of(err), httpapi.Status(errcode.Of(err)))
	fmt.Println(errcode.Message(err))

	b, _ := e.Client(p).V1().Balance(ctx)
	fmt.Println("available", b.Available, "held", b.Held)
	// Output:
	// true
	// insufficient_funds 402
	// The available MWK balance does not cover this amount.
	// available 1000.00 held 0.00
}

// Lists come a page at a time, newest first; a page's NextBeforeID is the
// cursor of the next.
func ExampleClientV1_Payouts() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	p, err := exampleOrg(ctx, e, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, amount := range []string{"100.00", "200.00", "300.00"} {
		key := fmt.Sprint("order-", i)
		if _, err := e.Client(p).V1().CreatePayout(ctx, exampleMomo(amount), tambala.Idempotency{Key: key}); err != nil {
			fmt.Println(err)
			return
		}
	}

	page := tambala.PageRequest{Limit: 2}
	for {
		res, err := e.Client(p).V1().Payouts(ctx, page, tambala.PayoutFilter{Status: payouts.Held})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, po := range res.Items {
			fmt.Println(po.Amount, po.Status)
		}
		fmt.Println("has more:", res.HasMore)
		if !res.HasMore {
			break
		}
		page.BeforeID = res.NextBeforeID
	}
	// Output:
	// 300.00 held
	// 200.00 held
	// has more: true
	// 100.00 held
	// has more: false
}
