package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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

func main() {
	dir, err := os.MkdirTemp("", "tambala-embed-v2-")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err = run(ctx, filepath.Join(dir, "tambala.db"), os.Stdout)
	cancel()
	err = errors.Join(err, os.RemoveAll(dir))
	if err != nil {
		log.Fatal(err)
	}
}

// run is the whole program over the bbolt file at path: the first start
// (the organization, a desk order, a conversion and a wallet payout, each
// followed to its end through the in-process events, and the balances),
// then a restart over the same file, which finds all of it again.
func run(ctx context.Context, path string, out io.Writer) error {
	var payoutID string
	err := start(ctx, path, func(ctx context.Context, h *host) error {
		if !h.boot.Created {
			return errors.New("the store already holds an organization: start from an empty file")
		}
		if err := deposit(ctx, h.e.Operator(), h.boot.Organization.ID); err != nil {
			return fmt.Errorf("deposit: %w", err)
		}
		if err := deskOrder(ctx, h.e.Operator(), h.client, h.done, out); err != nil {
			return fmt.Errorf("desk order: %w", err)
		}
		if err := conversion(ctx, h.client, h.done, out); err != nil {
			return fmt.Errorf("conversion: %w", err)
		}
		id, err := walletPayout(ctx, h.client, h.done, out)
		if err != nil {
			return fmt.Errorf("wallet payout: %w", err)
		}
		payoutID = id
		return balances(ctx, h.client, out)
	})
	if err != nil {
		return err
	}
	return start(ctx, path, func(ctx context.Context, h *host) error {
		return restarted(ctx, h, payoutID, out)
	})
}

// host is one start of the program: the engine over the bbolt file with
// every sandbox port over the same store, Run in the background, and the
// organization.
type host struct {
	e      *tambala.Engine
	ports  sandbox.Ports
	done   *outcomes
	boot   tambala.Bootstrapped
	client *tambala.Client
}

// start opens the store at path, runs the engine with every sandbox port
// over it, bootstraps the organization (once per store: a restart finds
// it), calls fn, then stops Run and closes the store.
func start(ctx context.Context, path string, fn func(context.Context, *host) error) (err error) {
	st, err := boltstore.Open(path, nil)
	if err != nil {
		return err
	}
	h := &host{done: newOutcomes()}
	// Every port the sandbox simulates, over the host's store: what they
	// were doing survives a restart, as the engine's state does.
	h.ports = sandbox.NewPorts(st, &sandbox.PortsOptions{Delay: fast})
	h.e, err = tambala.New(st, h.ports.Set(options(h.done)))
	if err != nil {
		return errors.Join(err, st.Close())
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- h.e.Run(runCtx) }() // the workers and the event loop
	defer func() {
		stop() // Run returns once every loop has finished its pass: then close the store
		err = errors.Join(err, <-ran, st.Close())
	}()

	if h.boot, err = setUp(ctx, h.e.Operator()); err != nil {
		return err
	}
	p, err := h.e.Act(ctx, h.boot.Organization.ID) // for a user the host authenticated itself
	if err != nil {
		return err
	}
	h.client = h.e.Client(p)
	return fn(ctx, h)
}

// fast is the sandbox's time to an outcome, and the loops' intervals.
const fast = 10 * time.Millisecond

// options are the engine's, besides the sandbox ports: loops fast enough
// for a demo, the in-process events, and a wallet fee.
func options(done *outcomes) *tambala.Options {
	return &tambala.Options{
		Worker:           tambala.WorkerOptions{Interval: fast, Poll: fast},
		ConversionWorker: tambala.ConversionWorkerOptions{Interval: fast, Poll: fast},
		Events:           done,
		EventLoop:        tambala.EventOptions{Interval: fast},
		// A flat fee on USDT wallet payouts over tron.
		PayoutsV2: tambala.PayoutV2Options{WalletFees: map[money.AssetCode]map[string]money.Amount{
			money.USDT.Code: {sandbox.Tron: money.FromInt(money.USDT, 1)},
		}},
	}
}

// setUp is the operator's side, once per store: an organization with /v2
// access and every asset and operation (sandbox.Organization), its MWK
// funding and the sandbox's MWK corridor. On a restart it creates nothing
// and answers the organization it created.
func setUp(ctx context.Context, op *tambala.Operator) (tambala.Bootstrapped, error) {
	return op.BootstrapOrganization(ctx, tambala.Bootstrap{
		Marker:       "examples/embed-v2",
		Organization: sandbox.Organization("Acme Ltd"),
		Funding:      []tambala.Funding{{Amount: money.FromInt(money.MWK, 100_000), Ref: "opening"}},
		Corridors:    []quotes.Corridor{sandbox.Corridor()}, // 1750.5 MWK per USDT off-ramp, 1800 on-ramp
	})
}

// deposit records 1000 USDT received on tron for the organization.
func deposit(ctx context.Context, op *tambala.Operator, orgID string) error {
	_, err := op.Desk().RecordDeposit(ctx, orgID, tambala.Deposit{
		Network: sandbox.Tron, Asset: money.USDT.Code, Amount: money.FromInt(money.USDT, 1000), TxRef: "tron-tx-0001",
	})
	return err
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
		if _, err := op.Desk().MoveOrder(ctx, id, move); err != nil {
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
func walletPayout(ctx context.Context, client *tambala.Client, done *outcomes, out io.Writer) (string, error) {
	created, err := client.CreatePayout(ctx, payoutRequest, tambala.Idempotency{Key: "payout-1"})
	if err != nil {
		return "", err
	}
	id := created.Resource.ID
	po, err := await(ctx, done.payouts, func(p tambala.PayoutV2) bool { return p.ID == id })
	if err != nil {
		return "", err
	}
	fee := "none"
	if po.Fee != nil {
		fee = po.Fee.String() + " " + po.Fee.Asset().String()
	}
	_, err = fmt.Fprintf(out, "payout      %s: %s %s to %s wallet, fee %s, debited %s %s\n",
		po.Status, po.Amount, po.Asset.Code, po.Destination.Network, fee, po.SourceAmount, po.SourceAsset.Code)
	return id, err
}

// payoutRequest is the wallet payout: 50 USDT to the sandbox's test
// address on tron, which its provider pays.
var payoutRequest = tambala.PayoutV2Request{
	SourceAsset: money.USDT.Code,
	Asset:       money.USDT.Code,
	Amount:      money.DecimalOf(money.FromInt(money.USDT, 50)),
	Destination: tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: sandbox.Tron, Address: sandbox.TestTronAddress},
}

// restarted is the second start, over the same file: the organization is
// found, not made again; the payout is read back, paid once by the
// sandbox provider whose record was in the store; the same create is
// replayed, never paid twice; a quote under the corridor's minimum is
// refused with a typed error; and the balances are those of before.
func restarted(ctx context.Context, h *host, payoutID string, out io.Writer) error {
	if h.boot.Created {
		return errors.New("the restart bootstrapped a second organization")
	}
	if _, err := fmt.Fprintf(out, "restart     the same organization: %s\n", h.boot.Organization.Name); err != nil {
		return err
	}
	po, err := h.client.Payout(ctx, payoutID)
	if err != nil {
		return err
	}
	again, err := h.client.CreatePayout(ctx, payoutRequest, tambala.Idempotency{Key: "payout-1"})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "payout      %s, payments %d; created again: replayed %t, same payout %t\n",
		po.Status, h.ports.Payouts.Payments(payoutID), again.Replayed, again.Resource.ID == payoutID)
	if err != nil {
		return err
	}
	_, err = h.client.QuoteOrder(ctx, quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: money.DecimalText("0.5")})
	if errors.Is(err, errcode.ErrAmountBelowMinimum) {
		_, err = fmt.Fprintf(out, "refused     %s\n", errcode.Message(err))
	} else {
		err = fmt.Errorf("a quote under the minimum: %v, want amount_below_minimum", err)
	}
	if err != nil {
		return err
	}
	return balances(ctx, h.client, out)
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
