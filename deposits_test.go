package tambala_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/store"
)

// The engine-level tests of deposit addresses and deposits on every
// store.

// countingIssuer is the sandbox issuer counting its calls per network.
type countingIssuer struct {
	*sandbox.Issuer
	mu    sync.Mutex
	calls map[string]int
}

func newCountingIssuer() *countingIssuer {
	return &countingIssuer{Issuer: sandbox.NewIssuer(nil), calls: map[string]int{}}
}

func (c *countingIssuer) Issue(ctx context.Context, org, network string) (string, error) {
	c.mu.Lock()
	c.calls[network]++
	c.mu.Unlock()
	return c.Issuer.Issue(ctx, org, network)
}

func (c *countingIssuer) count(network string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[network]
}

func TestDepositAddresses(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		iss := newCountingIssuer()
		d := newDeskEnv(t, s, func(o *tambala.Options) { o.DepositIssuer = iss })

		got, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		require.Len(t, got, 2, "one entry per network carrying an asset with collection")
		assert.Equal(t, "ethereum", got[0].Network)
		assert.Equal(t, "tron", got[1].Network)
		table := networks.Default()
		for _, a := range got {
			assert.Equal(t, []money.AssetCode{"USDT"}, a.Assets)
			require.NoError(t, table[a.Network].CheckAddress("USDT", a.Address))
			assert.Equal(t, 1, iss.count(a.Network), "issued on the first read")
		}

		// Stable: later reads never ask again, even after the issuer breaks.
		iss.Fail("tron", errors.New("down"))
		again, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, got, again)
		assert.Equal(t, 1, iss.count("tron"))
		iss.Fail("tron", nil)

		// A second organization gets its own addresses.
		other := d.newOrg(t, "Other", deskAssets())
		theirs, err := d.e.Client(actFor(d.e, other.ID)).DepositAddresses(d.ctx)
		require.NoError(t, err)
		require.Len(t, theirs, 2)
		assert.NotEqual(t, got[0].Address, theirs[0].Address)

		// No asset with collection on any network: an empty list, no issue.
		mwkOnly := d.newOrg(t, "MWKOnly", []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpCollection}},
			{Asset: "USDT", Operations: []string{tambala.OpPayout}}})
		none, err := d.e.Client(actFor(d.e, mwkOnly.ID)).DepositAddresses(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, []tambala.DepositAddress{}, none)
		assert.Equal(t, 2, iss.count("tron"))

		// One address the issuer can't give: 503, no partial list, and
		// nothing stored for that org (the next read issues both again,
		// keeping the one already given).
		third := d.newOrg(t, "Third", deskAssets())
		p3 := actFor(d.e, third.ID)
		iss.Fail("tron", errors.New("down"))
		_, err = d.e.Client(p3).DepositAddresses(d.ctx)
		requireCode(t, errcode.ServiceUnavailable, err)
		iss.Fail("tron", nil)
		ok3, err := d.e.Client(p3).DepositAddresses(d.ctx)
		require.NoError(t, err)
		require.Len(t, ok3, 2)

		// /v2 rules apply (admission is the engine's).
		_, err = d.e.Operator().SetV2Access(d.ctx, third.ID, tambala.V2AccessSuspended)
		require.NoError(t, err)
		_, err = d.e.Client(actFor(d.e, third.ID)).DepositAddresses(d.ctx)
		requireCode(t, errcode.AccessSuspended, err)
	})
}

func TestDepositAddressesNoIssuer(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		_, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		requireCode(t, errcode.ServiceUnavailable, err)
	})
}

// badIssuer gives an address that is not valid for the network.
type badIssuer struct{}

func (badIssuer) Issue(context.Context, string, string) (string, error) { return "not-an-address", nil }

func TestDepositAddressesInvalidFromIssuer(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.DepositIssuer = badIssuer{} })
	_, err := d.e.Client(d.p).DepositAddresses(d.ctx)
	requireCode(t, errcode.ServiceUnavailable, err)
}

func TestDepositAddressesRace(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		var n atomic.Int64
		d := newDeskEnv(t, s, func(o *tambala.Options) {
			o.DepositIssuer = issuerFunc(func(ctx context.Context, org, network string) (string, error) {
				// A different valid address per call: only one may stay.
				i := n.Add(1)
				return sandbox.NewIssuer(nil).Issue(ctx, org+string(rune('a'+i%26)), network)
			})
		})
		var wg sync.WaitGroup
		results := make([][]tambala.DepositAddress, 4)
		for i := range results {
			wg.Go(func() {
				var err error
				results[i], err = d.e.Client(d.p).DepositAddresses(d.ctx)
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		final, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		for _, r := range results {
			assert.Equal(t, final, r, "every racing read answers with the stored address")
		}
	})
}

type issuerFunc func(ctx context.Context, org, network string) (string, error)

func (f issuerFunc) Issue(ctx context.Context, org, network string) (string, error) {
	return f(ctx, org, network)
}

func TestRecordDeposit(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		dep := tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, "25.5"), TxRef: "0xabc"}
		cr, err := d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, dep)
		require.NoError(t, err)
		c := cr.Resource
		assert.Equal(t, "deposit", string(c.Source))
		assert.Equal(t, "settled", string(c.Status))
		assert.Equal(t, "tron", c.Network)
		assert.Nil(t, c.OrderID)
		assert.Equal(t, "25.500000", c.Amount.String())
		assert.Equal(t, "0.000000", c.Fee.String(), "stablecoins pay no collection fee")
		assert.Equal(t, "25.500000", c.AmountCredited.String())
		d.requireUSDT(t, "1025.500000", "0.000000")

		// Idempotent per (network, tx_ref).
		again, err := d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, dep)
		require.NoError(t, err)
		assert.Equal(t, c, again.Resource)
		d.requireUSDT(t, "1025.500000", "0.000000")
		// Other figures under the same pair: 409.
		other := dep
		other.Amount = mustParse(money.USDT, "26")
		_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, other)
		requireCode(t, errcode.Conflict, err)
		org2 := d.newOrg(t, "Second", deskAssets())
		_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, org2.ID, dep)
		requireCode(t, errcode.Conflict, err, "another organization")
		// The same tx_ref on another network is another deposit.
		eth := dep
		eth.Network = "ethereum"
		c2, err := d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, eth)
		require.NoError(t, err)
		assert.NotEqual(t, c.ID, c2.Resource.ID)
		d.requireUSDT(t, "1051.000000", "0.000000")

		// The event is the read.
		read, err := d.e.Client(d.p).Collection(d.ctx, c.ID)
		require.NoError(t, err)
		assert.Equal(t, c, read)
		var settled []deskEvent
		for _, ev := range d.events(t, d.org.ID) {
			if ev.Type == tambala.EventCollectionV2Settled {
				settled = append(settled, ev)
			}
		}
		require.Len(t, settled, 2, "one event per deposit, none on a replay")
		assert.JSONEq(t, string(tambala.RenderCollectionV2(c)), string(settled[0].Raw))

		// Codes.
		for name, tc := range map[string]struct {
			org  string
			dep  tambala.Deposit
			want errcode.Code
		}{
			"unknown network":   {d.org.ID, tambala.Deposit{Network: "solana", Asset: "USDT", Amount: mustParse(money.USDT, "1"), TxRef: "x1"}, errcode.UnsupportedNetwork},
			"asset not carried": {d.org.ID, tambala.Deposit{Network: "tron", Asset: "MWK", Amount: mustParse(money.MWK, "1"), TxRef: "x2"}, errcode.UnsupportedNetwork},
			"unknown asset":     {d.org.ID, tambala.Deposit{Network: "tron", Asset: "EUR", Amount: mustParse(money.USDT, "1"), TxRef: "x3"}, errcode.UnsupportedAsset},
			"no tx_ref":         {d.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, "1")}, errcode.ValidationError},
			"zero":              {d.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: money.Zero(money.USDT), TxRef: "x4"}, errcode.ValidationError},
			"asset mismatch":    {d.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.MWK, "1"), TxRef: "x5"}, errcode.ValidationError},
			"unknown org":       {"0190c4d2-7f3a-7b1e-8a2b-000000000000", tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, "1"), TxRef: "x6"}, errcode.NotFound},
		} {
			_, err := d.e.Operator().Desk().RecordDeposit(d.ctx, tc.org, tc.dep)
			requireCode(t, tc.want, err, name)
		}
		noColl := d.newOrg(t, "NoCollection", []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}})
		_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, noColl.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, "1"), TxRef: "x7"})
		requireCode(t, errcode.CorridorNotEnabled, err)
		noUSDT := d.newOrg(t, "NoUSDT", []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpCollection}}})
		_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, noUSDT.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: mustParse(money.USDT, "1"), TxRef: "x8"})
		requireCode(t, errcode.CorridorNotEnabled, err)

		// The ledger: external -amount, org +credited.
		require.NoError(t, s.View(d.ctx, func(tx store.Tx) error {
			ext, err := ledger.ReadAccount(tx, ledger.SystemAccount(ledger.External, money.USDT))
			require.NoError(t, err)
			fees, err := ledger.ReadAccount(tx, ledger.SystemAccount(ledger.Fees, money.USDT))
			require.NoError(t, err)
			assert.True(t, fees.IsZero())
			e, err := ledger.GetEntry(tx, "collection_v2:"+c.ID)
			require.NoError(t, err)
			assert.Equal(t, ledger.KindCredit, e.Kind)
			_ = ext
			return nil
		}))
		d.check(t)
	})
}

func TestRotateDepositAddress(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		iss := newCountingIssuer()
		d := newDeskEnv(t, s, func(o *tambala.Options) { o.DepositIssuer = iss })
		before, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		r, err := d.e.Operator().Desk().RotateDepositAddress(d.ctx, d.org.ID, "tron")
		require.NoError(t, err)
		assert.Equal(t, "tron", r.Network)
		assert.Equal(t, []money.AssetCode{"USDT"}, r.Assets)
		assert.NotEqual(t, before[1].Address, r.Address)
		require.NoError(t, networks.Default()["tron"].CheckAddress("USDT", r.Address))
		after, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, before[0], after[0], "the other network keeps its address")
		assert.Equal(t, r, after[1])

		_, err = d.e.Operator().Desk().RotateDepositAddress(d.ctx, d.org.ID, "solana")
		requireCode(t, errcode.UnsupportedNetwork, err)
		_, err = d.e.Operator().Desk().RotateDepositAddress(d.ctx, "0190c4d2-7f3a-7b1e-8a2b-000000000000", "tron")
		requireCode(t, errcode.NotFound, err)
		iss.Fail("tron", errors.New("down"))
		_, err = d.e.Operator().Desk().RotateDepositAddress(d.ctx, d.org.ID, "tron")
		requireCode(t, errcode.ServiceUnavailable, err)
		iss.Fail("tron", nil)
		again, err := d.e.Client(d.p).DepositAddresses(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, after, again, "a failed rotation changes nothing")

		// An issuer that gives the address in use: 503, nothing changes.
		same := newDeskEnv(t, s, func(o *tambala.Options) {
			o.DepositIssuer = issuerFunc(func(ctx context.Context, org, network string) (string, error) {
				return sandbox.NewIssuer(nil).Issue(ctx, org, network)
			})
		})
		_, err = same.e.Client(same.p).DepositAddresses(same.ctx)
		require.NoError(t, err)
		_, err = same.e.Operator().Desk().RotateDepositAddress(same.ctx, same.org.ID, "tron")
		requireCode(t, errcode.ServiceUnavailable, err)
	})
}
