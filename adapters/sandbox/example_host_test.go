package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

// A /v2 host in the sandbox, over bbolt: a desk order, a conversion and a
// wallet payout, typed errors, and a restart. It runs the engine's passes
// itself on its own clock (a host with Engine.Run need not).
func ExampleNewPorts() {
	ctx := context.Background()
	dir := must(os.MkdirTemp("", "tambala"))
	defer os.RemoveAll(dir)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	start := func() (*boltstore.Store, sandbox.Ports, *tambala.Engine) {
		st := must(boltstore.Open(filepath.Join(dir, "tambala.db"), nil))
		ports := sandbox.NewPorts(st, &sandbox.PortsOptions{Clock: clock})
		return st, ports, must(tambala.New(st, ports.Set(&tambala.Options{Clock: clock})))
	}
	st, _, e := start()
	op := e.Operator()
	org := must(op.CreateOrganization(ctx, sandbox.Organization("Acme Ltd")))
	check(op.Fund(ctx, org.ID, money.FromInt(money.USDT, 1000), "opening"))
	must(op.Desk().SetCorridor(ctx, sandbox.Corridor()))
	client := e.Client(must(e.Act(ctx, org.ID)))
	sell := func(usdt string) quotes.Request {
		return quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: money.DecimalText(usdt)}
	}

	_, err := client.QuoteOrder(ctx, sell("0.5"))
	fmt.Println("0.5 USDT refused:", errors.Is(err, errcode.ErrAmountBelowMinimum))
	q := must(client.QuoteOrder(ctx, sell("100")))
	payee := &orders.Beneficiary{Name: "Chikondi Banda", BankName: "National Bank of Malawi", AccountNumber: sandbox.TestBankAccount}
	order := must(client.CreateOrder(ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: "invoice-1", Beneficiary: payee}, tambala.Idempotency{Key: "order-1"}))
	must(op.Desk().MoveOrder(ctx, order.Resource.ID, orders.StartProcessing{}))
	fmt.Println("order", must(op.Desk().MoveOrder(ctx, order.Resource.ID, orders.Complete{})).Status)
	cq := must(client.QuoteConversion(ctx, sell("200")))
	conv := must(client.CreateConversion(ctx, tambala.NewConversion{QuoteID: cq.ID}, tambala.Idempotency{Key: "conversion-1"}))
	wallet := tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: sandbox.Tron, Address: sandbox.TestTronAddress}
	pay := func(usdt string) tambala.PayoutV2Request {
		return tambala.PayoutV2Request{SourceAsset: money.USDT.Code, Asset: money.USDT.Code, Amount: money.DecimalText(usdt), Destination: wallet}
	}
	payout := must(client.CreatePayout(ctx, pay("50"), tambala.Idempotency{Key: "payout-1"}))
	_, err = client.CreatePayout(ctx, pay("5000"), tambala.Idempotency{Key: "payout-2"})
	fmt.Println("5000 USDT refused:", errors.Is(err, errcode.ErrInsufficientFunds))
	must(e.Work().ProcessConversions(ctx)) // handed to the sandbox converter
	must(e.Work().ProcessPayouts(ctx))     // and to the sandbox provider
	check(st.Close())

	now = now.Add(time.Minute) // the host restarts, past the sandbox's delay
	st, ports, e := start()
	defer st.Close()
	must(e.Work().ProcessConversions(ctx))
	must(e.Work().ProcessPayouts(ctx))
	client = e.Client(must(e.Act(ctx, org.ID)))
	fmt.Println("conversion", must(client.Conversion(ctx, conv.Resource.ID)).Status)
	fmt.Println("payout", must(client.Payout(ctx, payout.Resource.ID)).Status, "payments", ports.Payouts.Payments(payout.Resource.ID))
	for _, b := range must(client.Balances(ctx)) {
		fmt.Println(b.Asset.Code, b.Available)
	}
	// Output:
	// 0.5 USDT refused: true
	// order completed
	// 5000 USDT refused: true
	// conversion completed
	// payout succeeded payments 1
	// MWK 350100.00
	// USDT 650.000000
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
