package main

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func main() {
	st := memstore.New() // or boltstore.Open(path, nil): one file on disk
	e := must(tambala.New(st, &tambala.Options{Payouts: sandbox.New(nil)}))
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }() // the payout worker, the order sweep, pruning

	org := must(e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"}))
	must(struct{}{}, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"))
	client := e.Client(must(e.Act(ctx, org.ID))) // for a user the host authenticated itself
	dest := payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}
	req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000), Destination: dest}
	created := must(client.CreatePayout(ctx, req, tambala.Idempotency{Key: "order-1042"}))
	po := must(client.WaitPayout(ctx, created.Resource.ID)) // the sandbox pays its test wallets after 2 s
	fmt.Println("payout", po.Status, "fee", po.Fee)

	cancel() // Run returns once every loop has finished its pass: then close the store
	must(struct{}{}, errors.Join(<-ran, st.Close()))
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
