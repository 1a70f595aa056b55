package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func main() {
	st := memstore.New() // or boltstore.Open(path, nil): one file on disk
	e := must(tambala.New(st, &tambala.Options{Payouts: sandbox.New(nil), Webhooks: webhookhttp.NewSender(nil)}))
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }() // the payout worker, the webhook dispatcher, pruning

	org := must(e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"}))
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"); err != nil {
		log.Fatal(err)
	}
	p := must(e.Act(ctx, org.ID)) // for a user the host authenticated itself
	dest := payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}
	req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000), Destination: dest}
	po := must(e.Client(p).CreatePayout(ctx, req, tambala.Idempotency{Key: "order-1042"})).Resource
	for !po.Status.Terminal() { // the sandbox pays its test wallets after 2 s
		time.Sleep(100 * time.Millisecond)
		po = must(e.Client(p).Payout(ctx, po.ID))
	}
	fmt.Println("payout", po.Status, "fee", po.Fee)

	cancel() // Run returns once every loop has finished its pass: then close the store
	if err := errors.Join(<-ran, st.Close()); err != nil {
		log.Fatal(err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
