package tambala_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// The engine-level tests of /v2 collections: simulate,
// its codes, and the reads of every source, on every store.

// simV2 is a simulated collection as a transport decodes it: network nil
// when absent, and strp("") when present and empty (EmptyNetwork).
func simV2(asset, amount string, network *string) tambala.SimulatedCollectionV2 {
	sc := tambala.SimulatedCollectionV2{Asset: money.AssetCode(asset), Amount: money.DecimalText(amount)}
	if network != nil {
		sc.Network, sc.EmptyNetwork = *network, *network == ""
	}
	return sc
}

func TestSimulateCollectionV2(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)

		c, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("USDT", "10.5", strp("tron")))
		require.NoError(t, err)
		assert.Equal(t, "simulated", string(c.Source))
		assert.Equal(t, "10.500000", c.Amount.String())
		assert.Equal(t, "0.000000", c.Fee.String())
		assert.Equal(t, "10.500000", c.AmountCredited.String())
		assert.Equal(t, "tron", c.Network)
		d.requireUSDT(t, "1010.500000", "0.000000")

		// Not idempotent: the same body twice is two collections.
		c2, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("USDT", "10.5", nil))
		require.NoError(t, err)
		assert.NotEqual(t, c.ID, c2.ID)
		assert.Empty(t, c2.Network)
		d.requireUSDT(t, "1021.000000", "0.000000")

		// MWK pays the /v1 collection fee.
		m, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("MWK", "10000", nil))
		require.NoError(t, err)
		v1, err := d.e.Client(actFor(d.e, d.org.ID)).V1().QuoteFee(d.ctx, "collection", "momo", money.FromInt(money.MWK, 10000))
		require.NoError(t, err)
		assert.Equal(t, v1.Total, m.Fee)
		assert.Equal(t, *v1.AmountReceived, m.AmountCredited)
		assert.Equal(t, m.AmountCredited, d.balance(t, d.org.ID, money.MWK).Available)

		noColl := d.newOrg(t, "NoCollection", []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}})
		for name, tc := range map[string]struct {
			p    tambala.Principal
			sc   tambala.SimulatedCollectionV2
			want errcode.Code
		}{
			"no asset":               {d.p, simV2("", "1", nil), errcode.ValidationError},
			"no amount":              {d.p, simV2("USDT", "", nil), errcode.ValidationError},
			"malformed asset":        {d.p, simV2("usdt", "1", nil), errcode.UnsupportedAsset},
			"compound asset":         {d.p, simV2("USDT-TRC20", "1", nil), errcode.UnsupportedAsset},
			"asset not listed":       {d.p, simV2("EUR", "1", nil), errcode.CorridorNotEnabled},
			"no collection":          {actFor(d.e, noColl.ID), simV2("USDT", "1", nil), errcode.CorridorNotEnabled},
			"unknown network":        {d.p, simV2("USDT", "1", strp("solana")), errcode.UnsupportedNetwork},
			"malformed network":      {d.p, simV2("USDT", "1", strp("Tron")), errcode.UnsupportedNetwork},
			"empty network":          {d.p, simV2("USDT", "1", strp("")), errcode.UnsupportedNetwork},
			"network on fiat":        {d.p, simV2("MWK", "1000", strp("tron")), errcode.ValidationError},
			"empty network on fiat":  {d.p, simV2("MWK", "1000", strp("")), errcode.ValidationError},
			"empty network, no coll": {actFor(d.e, noColl.ID), simV2("USDT", "1", strp("")), errcode.CorridorNotEnabled},
			"too many decimals":      {d.p, simV2("USDT", "1.0000001", nil), errcode.ValidationError},
			"MWK three decimals":     {d.p, simV2("MWK", "1.001", nil), errcode.ValidationError},
			"zero":                   {d.p, simV2("USDT", "0", nil), errcode.ValidationError},
			"negative":               {d.p, simV2("USDT", "-1", nil), errcode.ValidationError},
			"grammar":                {d.p, simV2("USDT", "1e3", nil), errcode.ValidationError},
			"MWK above the maximum":  {d.p, simV2("MWK", "1000000000000.01", nil), errcode.LimitExceeded},
			"USDT above the maximum": {d.p, simV2("USDT", "1000000000000.000001", nil), errcode.LimitExceeded},
			"30 digits of USDT":      {d.p, simV2("USDT", "900000000000000000000000000000", nil), errcode.LimitExceeded},
		} {
			_, err := d.e.Client(tc.p).SimulateCollection(d.ctx, tc.sc)
			requireCode(t, tc.want, err, name)
		}
		d.requireUSDT(t, "1021.000000", "0.000000")
		d.check(t)
	})
}

func TestSimulateCollectionV2SandboxOnly(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.Environment = tambala.Production })
	_, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("USDT", "1", nil))
	requireCode(t, errcode.SandboxOnly, err)
	_, err = d.e.Client(d.p).SimulateCollection(d.ctx, simV2("", "", nil))
	requireCode(t, errcode.SandboxOnly, err, "before anything else")
}

func TestCollectionsV2Reads(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		a, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("USDT", "1", nil))
		require.NoError(t, err)
		b, err := d.e.Client(d.p).SimulateCollection(d.ctx, simV2("MWK", "5000", nil))
		require.NoError(t, err)
		cr, err := d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, tambala.Deposit{Network: "ethereum", Asset: "USDT", Amount: mustParse(money.USDT, "2"), TxRef: "t1"})
		require.NoError(t, err)
		c := cr.Resource

		// An order refund's collection is readable too.
		o := d.toBank(t, "3")
		d.move(t, o.ID, orders.StartProcessing{})
		d.move(t, o.ID, orders.CoinsSent{})
		d.move(t, o.ID, orders.Fail{Code: orders.BeneficiaryRejected})
		d.move(t, o.ID, orders.ReturnRefund{})

		all, err := d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{})
		require.NoError(t, err)
		require.Len(t, all.Items, 4)
		ref := all.Items[0]
		assert.Equal(t, "order_refund", string(ref.Source))
		require.NotNil(t, ref.OrderID)
		assert.Equal(t, o.ID, *ref.OrderID)
		assert.Equal(t, "3.000000", ref.AmountCredited.String())
		assert.Equal(t, []tambala.CollectionV2{c, b, a}, all.Items[1:])
		got, err := d.e.Client(d.p).Collection(d.ctx, ref.ID)
		require.NoError(t, err)
		assert.Equal(t, ref, got)

		// Paging and the asset filter.
		p1, err := d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{Limit: 2}, tambala.CollectionV2Filter{Asset: "USDT"})
		require.NoError(t, err)
		require.Len(t, p1.Items, 2)
		assert.True(t, p1.HasMore)
		p2, err := d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{Limit: 2, BeforeID: p1.NextBeforeID}, tambala.CollectionV2Filter{Asset: "USDT"})
		require.NoError(t, err)
		assert.Equal(t, []tambala.CollectionV2{a}, p2.Items)
		assert.False(t, p2.HasMore)
		mwk, err := d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{Asset: "MWK"})
		require.NoError(t, err)
		assert.Equal(t, []tambala.CollectionV2{b}, mwk.Items)
		_, err = d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{Asset: "EUR"})
		requireCode(t, errcode.CorridorNotEnabled, err)
		_, err = d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{Asset: "usdt"})
		requireCode(t, errcode.UnsupportedAsset, err)
		_, err = d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{Limit: 500}, tambala.CollectionV2Filter{})
		requireCode(t, errcode.ValidationError, err)

		// Foreign, unknown and malformed ids are 404.
		other := d.newOrg(t, "Other", deskAssets())
		po := actFor(d.e, other.ID)
		for _, id := range []string{a.ID, "0190c4d2-7f3a-7b1e-8a2b-000000000000", "nope", ""} {
			_, err := d.e.Client(po).Collection(d.ctx, id)
			requireCode(t, errcode.NotFound, err, id)
		}
		theirs, err := d.e.Client(po).Collections(d.ctx, tambala.PageRequest{}, tambala.CollectionV2Filter{})
		require.NoError(t, err)
		assert.Empty(t, theirs.Items)
	})
}
