package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := run(ctx, os.Stdout)
	cancel()
	if err != nil {
		log.Fatal(err)
	}
}

// run is the whole program: an engine over an in-memory store with the
// sandbox's provider and converter, one /v2 organization, then a desk
// order, a conversion and a wallet payout, each followed to its end
// through the in-process events, and the organization's balances.
func run(ctx context.Context, out io.Writer) (err error) {
	st := memstore.New() // or boltstore.Open(path, nil): one file on disk
	done := newOutcomes()
	e, err := tambala.New(st, options(done))
	if err != nil {
		return errors.Join(err, st.Close())
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- e.Run(runCtx) }() // the workers and the event loop
	defer func() {
		stop() // Run returns once every loop has finished its pass: then close the store
		err = errors.Join(err, <-ran, st.Close())
	}()

	orgID, err := setUp(ctx, e.Operator())
	if err != nil {
		return err
	}
	p, err := e.Act(ctx, orgID) // for a user the host authenticated itself
	if err != nil {
		return err
	}
	client := e.Client(p)

	if err := deskOrder(ctx, e.Operator(), client, done, out); err != nil {
		return fmt.Errorf("desk order: %w", err)
	}
	if err := conversion(ctx, client, done, out); err != nil {
		return fmt.Errorf("conversion: %w", err)
	}
	if err := walletPayout(ctx, client, done, out); err != nil {
		return fmt.Errorf("wallet payout: %w", err)
	}
	return balances(ctx, client, out)
}

// options are the engine's: the sandbox's payout provider and converter,
// fast enough for a demo, and the in-process events.
func options(done *outcomes) *tambala.Options {
	const fast = 10 * time.Millisecond // the sandbox's time to an outcome, and the loops' intervals
	return &tambala.Options{
		Payouts:          sandbox.New(&sandbox.Options{Delay: fast}),
		Converter:        sandbox.NewConverter(&sandbox.ConverterOptions{Delay: fast}),
		Worker:           tambala.WorkerOptions{Interval: fast, Poll: fast},
		ConversionWorker: tambala.ConversionWorkerOptions{Interval: fast, Poll: fast},
		Events:           done,
		EventLoop:        tambala.EventOptions{Interval: fast},
		// A flat fee on USDT wallet payouts over tron.
		PayoutsV2: tambala.PayoutV2Options{WalletFees: map[money.AssetCode]map[string]money.Amount{
			money.USDT.Code: {"tron": money.FromInt(money.USDT, 1)},
		}},
	}
}

// setUp is the operator's side: an organization with /v2 access, MWK and
// USDT enabled; its MWK funding and a USDT deposit; the MWK corridor.
func setUp(ctx context.Context, op *tambala.Operator) (string, error) {
	org, err := op.CreateOrganization(ctx, tambala.NewOrganization{
		Name:     "Acme Ltd",
		V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{
			{Asset: money.MWK.Code, Operations: []string{tambala.OpPayout, tambala.OpConvert}},
			{Asset: money.USDT.Code, Operations: []string{tambala.OpPayout, tambala.OpConvert, tambala.OpCollection}},
		},
	})
	if err != nil {
		return "", err
	}
	if err := op.Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"); err != nil {
		return "", err
	}
	_, err = op.RecordDeposit(ctx, org.ID, tambala.Deposit{
		Network: "tron", Asset: money.USDT.Code, Amount: money.FromInt(money.USDT, 1000), TxRef: "tron-tx-0001",
	})
	if err != nil {
		return "", err
	}
	_, err = op.SetCorridor(ctx, quotes.Corridor{ // rates in MWK per USDT
		Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"), RateOnRamp: money.MustRate("1800"), Min: money.FromInt(money.MWK, 1000), Open: true,
	})
	return org.ID, err
}

// deskOrder sells 100 USDT to the desk for MWK paid to a bank account: the
// organization quotes and creates the order (its USDT is held), then the
// operator's desk pays the beneficiary and moves the order to completed
// (the hold is captured).
func deskOrder(ctx context.Context, op *tambala.Operator, client *tambala.Client, done *outcomes, out io.Writer) error {
	amount := money.DecimalOf(money.FromInt(money.USDT, 100))
	q, err := client.QuoteOrder(ctx, quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: amount})
	if err != nil {
		return err
	}
	created, err := client.CreateOrder(ctx, tambala.NewOrder{
		QuoteID:     q.ID,
		ClientRef:   "invoice-2291",
		Beneficiary: &orders.Beneficiary{Name: "Chikondi Banda", BankName: "National Bank of Malawi", AccountNumber: "1001234567"},
	}, tambala.Idempotency{Key: "order-2291"})
	if err != nil {
		return err
	}
	id := created.Resource.ID
	for _, move := range []orders.Command{orders.StartProcessing{}, orders.Complete{}} {
		if _, err := op.MoveOrder(ctx, id, move); err != nil {
			return err
		}
	}
	o, err := await(ctx, done.orders, func(o orders.Order) bool { return o.ID == id && o.Status.Terminal() })
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "order       %s: %s %s -> %s %s at %s\n",
		o.Status, o.From, o.From.Asset().Code, o.To, o.To.Asset().Code, o.Rate)
	return err
}

// conversion converts 200 USDT into MWK on the organization's own balances,
// executed by the sandbox converter.
func conversion(ctx context.Context, client *tambala.Client, done *outcomes, out io.Writer) error {
	amount := money.DecimalOf(money.FromInt(money.USDT, 200))
	q, err := client.QuoteConversion(ctx, quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: amount})
	if err != nil {
		return err
	}
	created, err := client.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "conversion-1"})
	if err != nil {
		return err
	}
	id := created.Resource.ID
	c, err := await(ctx, done.conversions, func(c tambala.Conversion) bool { return c.ID == id })
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "conversion  %s: %s %s -> %s %s at %s\n",
		c.Status, c.From, c.From.Asset().Code, c.To, c.To.Asset().Code, c.Rate)
	return err
}

// walletPayout pays 50 USDT to a wallet on tron, paid by the sandbox
// provider (its test addresses succeed).
func walletPayout(ctx context.Context, client *tambala.Client, done *outcomes, out io.Writer) error {
	address := sandbox.TestWalletAddresses["tron"][0]
	created, err := client.CreatePayoutV2(ctx, tambala.PayoutV2Request{
		SourceAsset: money.USDT.Code,
		Asset:       money.USDT.Code,
		Amount:      money.DecimalOf(money.FromInt(money.USDT, 50)),
		Destination: tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: "tron", Address: address},
	}, tambala.Idempotency{Key: "payout-1"})
	if err != nil {
		return err
	}
	id := created.Resource.ID
	po, err := await(ctx, done.payouts, func(p tambala.PayoutV2) bool { return p.ID == id })
	if err != nil {
		return err
	}
	fee := "none"
	if po.Fee != nil {
		fee = po.Fee.String() + " " + po.Fee.Asset().String()
	}
	_, err = fmt.Fprintf(out, "payout      %s: %s %s to %s wallet, fee %s, debited %s %s\n",
		po.Status, po.Amount, po.Asset.Code, po.Destination.Network, fee, po.SourceAmount, po.SourceAsset.Code)
	return err
}

// balances prints the organization's balance in each enabled asset.
func balances(ctx context.Context, client *tambala.Client, out io.Writer) error {
	all, err := client.Balances(ctx)
	if err != nil {
		return err
	}
	for _, b := range all {
		if _, err := fmt.Fprintf(out, "balance     %-4s available %s, held %s\n", b.Asset.Code, b.Available, b.Held); err != nil {
			return err
		}
	}
	return nil
}
