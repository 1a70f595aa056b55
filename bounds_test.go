package tambala_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The bound on every amount that enters (docs/decisions.md, "Bounded
// amounts"), on every store: one organization's oversized amounts are
// refused with limit_exceeded and create and hold nothing, its accepted
// amounts at the maximum leave every balance readable, and another
// organization's payouts and conversions go on.

const (
	poison30 = "900000000000000000000000000000" // 9 × 10^29, the attack's amount
	nines30  = "999999999999999999999999999999"
	poison27 = "500000000000000000000000000" // 5 × 10^26, the conversion attack's amount
	maxUSDT  = "1000000000000"
)

type boundsEnv struct {
	*pv2Env
	victim  tambala.Organization
	victimP tambala.Principal
}

func newBoundsEnv(t *testing.T, s store.Store) *boundsEnv {
	t.Helper()
	d := newPV2Env(t, s, func(o *tambala.Options) {
		o.Converter = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
		o.ConversionWorker.Concurrency = 1
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	v := d.newOrg(t, "Victim", convAssets())
	require.NoError(t, d.e.Operator().Fund(d.ctx, v.ID, money.FromInt(money.USDT, 1000), "victim-usdt"))
	require.NoError(t, d.e.Operator().Fund(d.ctx, v.ID, money.FromInt(money.MWK, 100000), "victim-mwk"))
	return &boundsEnv{pv2Env: d, victim: v, victimP: actFor(d.e, v.ID)}
}

// snapshot is the whole ledger, rendered.
func (b *boundsEnv) snapshot(t *testing.T) ledger.Snapshot {
	t.Helper()
	var snap ledger.Snapshot
	require.NoError(t, b.s.View(b.ctx, func(tx store.Tx) error {
		var err error
		snap, err = ledger.ReadSnapshot(tx)
		return err
	}))
	return snap
}

// settle runs both workers until nothing is due.
func (b *boundsEnv) settle(t *testing.T) {
	t.Helper()
	for range 4 {
		_, err := b.e.Work().ProcessPayouts(b.ctx)
		require.NoError(t, err)
		_, err = b.e.Work().ProcessConversions(b.ctx)
		require.NoError(t, err)
		b.clock.Advance(convDelay + time.Second)
	}
	b.check(t)
}

// victimGoesOn: the other organization's USDT payout and conversion
// complete, and its balances read.
func (b *boundsEnv) victimGoesOn(t *testing.T) {
	t.Helper()
	po, err := b.payFor(b.victimP, "USDT", "USDT", "10", walletDest("tron", pv2Tron))
	require.NoError(t, err)
	q, err := b.e.Client(b.victimP).QuoteConversion(b.ctx, quoteReq("USDT", "MWK", "2"))
	require.NoError(t, err)
	cv, err := b.e.Client(b.victimP).CreateConversion(b.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: b.next("conv")})
	require.NoError(t, err)
	sim, err := b.e.Client(b.victimP).SimulateCollection(b.ctx, simV2("USDT", "5", nil))
	require.NoError(t, err)
	require.Equal(t, "5.000000", sim.AmountCredited.String())
	b.settle(t)
	got, err := b.e.Client(b.victimP).Payout(b.ctx, po.Resource.ID)
	require.NoError(t, err)
	require.Equal(t, payouts.Succeeded, got.Status)
	c, err := b.e.Client(b.victimP).Conversion(b.ctx, cv.Resource.ID)
	require.NoError(t, err)
	require.Equal(t, tambala.ConversionCompleted, c.Status)
	for _, p := range []tambala.Principal{b.victimP, b.p} {
		_, err := b.e.Client(p).Balances(b.ctx)
		require.NoError(t, err)
	}
}

func TestBoundsRefuseOversizedAmounts(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		b := newBoundsEnv(t, s)
		before := b.snapshot(t)
		huge := mustParse(money.USDT, poison30)
		refused := map[string]func() error{
			"simulate 9e29 USDT": func() error {
				_, err := b.e.Client(b.p).SimulateCollection(b.ctx, simV2("USDT", poison30, nil))
				return err
			},
			"simulate 30 nines": func() error {
				_, err := b.e.Client(b.p).SimulateCollection(b.ctx, simV2("USDT", nines30, nil))
				return err
			},
			"simulate one unit above the maximum": func() error {
				_, err := b.e.Client(b.p).SimulateCollection(b.ctx, simV2("USDT", maxUSDT+".000001", nil))
				return err
			},
			"payout 9e29 USDT to a wallet": func() error {
				_, err := b.payFor(b.p, "USDT", "USDT", poison30, walletDest("tron", pv2Tron))
				return err
			},
			"FX payout above the maximum of MWK": func() error {
				_, err := b.payFor(b.p, "USDT", "MWK", "1000000000000.01", bankDest())
				return err
			},
			"conversion quote of 5e26 USDT": func() error {
				_, err := b.e.Client(b.p).QuoteConversion(b.ctx, quoteReq("USDT", "MWK", poison27))
				return err
			},
			"conversion quote whose MWK side is above the maximum": func() error {
				_, err := b.e.Client(b.p).QuoteConversion(b.ctx, quoteReq("USDT", "MWK", "1000000000"))
				return err
			},
			"order quote of 5e26 USDT": func() error {
				_, err := b.e.Client(b.p).QuoteOrder(b.ctx, quoteReq("USDT", "MWK", poison27))
				return err
			},
			"operator deposit of 9e29 USDT": func() error {
				_, err := b.e.Operator().Desk().RecordDeposit(b.ctx, b.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: huge, TxRef: "0xpoison"})
				return err
			},
			"operator funding of 9e29 USDT": func() error {
				return b.e.Operator().Fund(b.ctx, b.org.ID, huge, "poison")
			},
			"OTC trade of 9e29 USDT": func() error {
				_, err := b.e.Operator().Desk().RecordTrade(b.ctx, b.org.ID, tambala.NewTrade{Ref: "poison", USDTAmount: huge, ClientRate: money.MustRate("1750")})
				return err
			},
			"OTC trade worth more than the MWK maximum": func() error {
				_, err := b.e.Operator().Desk().RecordTrade(b.ctx, b.org.ID, tambala.NewTrade{Ref: "poison-rate", USDTAmount: money.FromInt(money.USDT, 1000),
					ClientRate: money.MustRate("1000000000000")})
				return err
			},
		}
		for name, op := range refused {
			for range 2 { // the attack ran everything twice
				requireCode(t, errcode.LimitExceeded, op(), name)
			}
		}
		// Nothing was created or held: the ledger is as it was, and no
		// payout or collection exists.
		require.Equal(t, before, b.snapshot(t))
		list, err := b.e.Client(b.p).Payouts(b.ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
		require.NoError(t, err)
		require.Empty(t, list.Items)
		cols, err := b.e.Client(b.p).Collections(b.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{})
		require.NoError(t, err)
		require.Empty(t, cols.Items)
		b.check(t)
		b.victimGoesOn(t)
	})
}

// Amounts at the maximum are accepted, again and again, and every balance,
// the shared system accounts' included, stays readable and usable by
// everyone.
func TestBoundsAtTheMaximumKeepLedgerReadable(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		b := newBoundsEnv(t, s)
		for range 3 {
			_, err := b.e.Client(b.p).SimulateCollection(b.ctx, simV2("USDT", maxUSDT, nil))
			require.NoError(t, err)
			_, err = b.e.Operator().Desk().RecordDeposit(b.ctx, b.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, maxUSDT), TxRef: b.next("0x")})
			require.NoError(t, err)
		}
		for range 2 {
			b.pay(t, "USDT", "USDT", maxUSDT, walletDest("tron", pv2Tron))
		}
		q, err := b.e.Client(b.p).QuoteConversion(b.ctx, quoteReq("MWK", "USDT", "1000000000"))
		require.NoError(t, err)
		_, err = b.e.Client(b.p).CreateConversion(b.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: b.next("conv")})
		requireCode(t, errcode.InsufficientFunds, err, "the attacker has no such MWK")
		b.settle(t)
		bal, err := b.e.Client(b.p).Balance(b.ctx, "USDT")
		require.NoError(t, err)
		// 6 × 10^12 in, 2 × 10^12 paid out (no fee on tron), 1000 to start.
		require.Equal(t, "4000000001000.000000", bal.Available.String())
		b.victimGoesOn(t)
	})
}

func quoteReq(from, to, fromAmount string) quotes.Request {
	return quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: money.DecimalText(fromAmount)}
}

// genBoundAmount draws an amount text of asset: mostly ordinary, often at
// or just around the maximum, sometimes far beyond it (up to the wire's
// 30 digits).
func genBoundAmount(t *rapid.T, asset money.Asset, label string) string {
	frac := ""
	if asset.Decimals > 0 {
		frac = "." + strings.Repeat("0", int(asset.Decimals)-1) + "1"
	}
	switch rapid.IntRange(0, 4).Draw(t, label+"_kind") {
	case 0:
		return maxUSDT
	case 1:
		if frac == "" {
			return "1000000000001"
		}
		return maxUSDT + frac // one minor unit above the maximum
	case 2:
		n := rapid.SampledFrom([]int{13, 20, money.MaxIntegerDigits - 1, money.MaxIntegerDigits}).Draw(t, label+"_digits")
		return strings.Repeat("9", n)
	default:
		return fmt.Sprint(rapid.IntRange(1, 5000).Draw(t, label+"_small"))
	}
}

// TestBoundsRapidEveryBalanceReadsBack: after any sequence of one
// organization's operations, oversized or not, every balance (the shared
// system accounts' included) reads back, ledger.CheckStore passes, no
// operation fails with an internal error, and the other organization's
// payouts still complete.
func TestBoundsRapidEveryBalanceReadsBack(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := rapidCases(name) / 4
		rapid.Check(t, func(rt *rapid.T) {
			if cases--; cases < 0 {
				return
			}
			runBoundsModel(rt, open())
		})
	})
}

func runBoundsModel(rt *rapid.T, s store.Store) {
	d := newPV2Env(rt, s, func(o *tambala.Options) {
		o.Converter = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
		o.ConversionWorker.Concurrency = 1
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(rt, err)
	assets := []money.Asset{money.USDT, money.MWK}
	accepted := func(what string, err error) {
		if err != nil {
			require.NotEqual(rt, errcode.InternalError, errcode.Of(err), "%s: %v", what, err)
		}
	}
	steps := rapid.IntRange(1, 25).Draw(rt, "steps")
	for i := range steps {
		asset := rapid.SampledFrom(assets).Draw(rt, "asset")
		amt := genBoundAmount(rt, asset, "amount")
		switch rapid.IntRange(0, 6).Draw(rt, "op") {
		case 0:
			_, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2(string(asset.Code), amt, nil))
			accepted("simulate", err)
		case 1:
			a, err := money.Parse(asset, amt)
			require.NoError(rt, err)
			accepted("fund", d.e.Operator().Fund(d.ctx, d.org.ID, a, fmt.Sprint("fund-", i)))
		case 2:
			a, err := money.Parse(money.USDT, genBoundAmount(rt, money.USDT, "deposit"))
			require.NoError(rt, err)
			_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: a, TxRef: fmt.Sprint("0x", i)})
			accepted("deposit", err)
		case 3:
			dest := walletDest("tron", pv2Tron)
			if asset == money.MWK {
				dest = bankDest()
			}
			_, err := d.payFor(d.p, string(asset.Code), string(asset.Code), amt, dest)
			accepted("payout", err)
		case 4:
			to := "MWK"
			if asset == money.MWK {
				to = "USDT"
			}
			q, err := d.e.Client(d.p).QuoteConversion(d.ctx, quoteReq(string(asset.Code), to, amt))
			accepted("quote", err)
			if err == nil {
				_, err = d.e.Client(d.p).CreateConversion(d.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: d.next("conv")})
				accepted("conversion", err)
			}
		case 5:
			a, err := money.Parse(money.USDT, genBoundAmount(rt, money.USDT, "trade"))
			require.NoError(rt, err)
			_, err = d.e.Operator().Desk().RecordTrade(d.ctx, d.org.ID, tambala.NewTrade{Ref: fmt.Sprint("t-", i), USDTAmount: a, ClientRate: money.MustRate("1750")})
			accepted("trade", err)
		case 6:
			for range 2 {
				_, err := d.e.Work().ProcessPayouts(d.ctx)
				require.NoError(rt, err)
				_, err = d.e.Work().ProcessConversions(d.ctx)
				require.NoError(rt, err)
				d.clock.Advance(convDelay + time.Second)
			}
		}
		// Every balance reads back, and the ledger's rules hold.
		require.NoError(rt, s.View(d.ctx, func(tx store.Tx) error {
			_, err := ledger.ReadSnapshot(tx)
			return err
		}))
		d.check(rt)
		_, err := d.e.Client(d.p).Balances(d.ctx)
		require.NoError(rt, err)
	}
	// Another organization's payout still completes.
	v := d.newOrg(rt, "Victim", convAssets())
	require.NoError(rt, d.e.Operator().Fund(d.ctx, v.ID, money.FromInt(money.USDT, 100), "victim"))
	po, err := d.payFor(actFor(d.e, v.ID), "USDT", "USDT", "10", walletDest("tron", pv2Tron))
	require.NoError(rt, err)
	for range 4 {
		_, err := d.e.Work().ProcessPayouts(d.ctx)
		require.NoError(rt, err)
		d.clock.Advance(2 * time.Second)
	}
	got, err := d.e.Client(actFor(d.e, v.ID)).Payout(d.ctx, po.Resource.ID)
	require.NoError(rt, err)
	require.Equal(rt, payouts.Succeeded, got.Status)
	d.check(rt)
}

// A store that the old code let an organization poison (shared system
// accounts beyond 30 digits, written before the bound) opens and works:
// the balances read back, the other organization's payout and conversion
// complete, and the poisoned organization's balances read.
func TestBoundsPoisonedStoreFromBefore(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		b := newBoundsEnv(t, s)
		huge := mustParse(money.USDT, poison30)
		// What two simulated collections and two payouts of 9 × 10^29
		// USDT wrote before the bound: 31-digit system balances.
		require.NoError(t, s.Update(b.ctx, func(tx store.Tx) error {
			for i, id := range []string{"poison-1", "poison-2"} {
				if _, err := ledger.Post(tx, ledger.Credit{EntryID: id, Org: b.org.ID, Amount: huge}); err != nil {
					return err
				}
				hold := fmt.Sprint("poison-hold-", i)
				if _, err := ledger.Post(tx, ledger.PlaceHold{EntryID: hold, HoldID: hold, Org: b.org.ID, Amount: huge}); err != nil {
					return err
				}
				if _, err := ledger.Post(tx, ledger.CaptureHold{EntryID: hold + "-capture", HoldID: hold, Amount: huge}); err != nil {
					return err
				}
			}
			return nil
		}))
		ext, err := ledgerAccount(b, ledger.SystemAccount(ledger.External, money.USDT))
		require.NoError(t, err)
		require.Equal(t, "-1800000000000000000000000000000.000000", ext.String())
		b.check(t)
		b.victimGoesOn(t)
	})
}

func ledgerAccount(b *boundsEnv, a ledger.Account) (money.Amount, error) {
	var v money.Amount
	err := b.s.View(b.ctx, func(tx store.Tx) error {
		var err error
		v, err = ledger.ReadAccount(tx, a)
		return err
	})
	return v, err
}
