package main

import (
	"context"
	"fmt"
	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func main() {
	ctx, e := context.Background(), must(tambala.New(memstore.New(), &tambala.Options{Payouts: sandbox.New(nil)}))
	go e.Run(ctx) // the payout worker, the order sweep, pruning: until ctx ends (then close the store)
	org := must(e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})).ID
	must(0, e.Operator().Fund(ctx, org, money.FromInt(money.MWK, 100_000), "opening"))
	mwk := e.Client(must(e.Act(ctx, org))).V1() // Act: a caller the host authenticated itself
	to := payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}
	req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000), Destination: to}
	po := must(mwk.WaitPayout(ctx, must(mwk.CreatePayout(ctx, req, tambala.Idempotency{Key: "order-1042"})).Resource.ID))
	fmt.Println("payout", po.Status, "fee", po.Fee) // the sandbox pays its test wallets after 2 s
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
