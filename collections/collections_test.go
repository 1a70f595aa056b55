package collections_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/webhooks"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func mwk(t testing.TB, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(money.MWK, s)
	require.NoError(t, err)
	return a
}

func usdt(t testing.TB, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(money.USDT, s)
	require.NoError(t, err)
	return a
}

// code is the error code of err, "" for none.
func code(err error) errcode.Code { return errcode.Of(err) }

func TestStatus(t *testing.T) {
	assert.False(t, collections.Settled.Terminal(), "a settled collection may still be reversed")
	assert.True(t, collections.Reversed.Terminal())
	assert.Equal(t, webhooks.CollectionSettled, collections.EventSettled)
	assert.Equal(t, webhooks.CollectionReversed, collections.EventReversed)
}

func TestReceivedCheck(t *testing.T) {
	for name, tc := range map[string]struct {
		r    collections.Received
		rail payouts.Rail
		want errcode.Code
	}{
		"default rail":     {collections.Received{Amount: mwk(t, "1")}, payouts.Momo, ""},
		"bank":             {collections.Received{Amount: mwk(t, "1"), Rail: payouts.Bank}, payouts.Bank, ""},
		"the maximum":      {collections.Received{Amount: payouts.MaxAmount}, payouts.Momo, ""},
		"unknown rail":     {collections.Received{Amount: mwk(t, "1"), Rail: "carrier-pigeon"}, "", errcode.ValidationError},
		"rail before zero": {collections.Received{Rail: "carrier-pigeon"}, "", errcode.ValidationError},
		"no amount":        {collections.Received{}, "", errcode.ValidationError},
		"zero":             {collections.Received{Amount: money.Zero(money.MWK)}, "", errcode.ValidationError},
		"negative":         {collections.Received{Amount: mwk(t, "1").Neg()}, "", errcode.ValidationError},
		"USDT":             {collections.Received{Amount: usdt(t, "1")}, "", errcode.ValidationError},
		"above the max":    {collections.Received{Amount: mwk(t, "1000000000000.01")}, "", errcode.ValidationError},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.r.Check()
			if tc.want != "" {
				assert.Equal(t, tc.want, code(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.rail, got.Rail)
			assert.Equal(t, tc.r.Amount, got.Amount)
		})
	}
	_, err := collections.Received{Rail: "x"}.Check()
	assert.Equal(t, "rail must be momo or bank.", errcode.Message(err), "the rail is checked first")
}

func TestSimulated(t *testing.T) {
	assert.Equal(t, errcode.ValidationError, code(collections.Simulated{}.Check()))
	assert.Equal(t, errcode.ValidationError, code(collections.Simulated{Amount: usdt(t, "1")}.Check()))
	assert.NoError(t, collections.Simulated{Amount: mwk(t, "5"), Rail: "anything"}.Check(), "the rail is Received.Check's")
	r := collections.Simulated{Amount: mwk(t, "5"), Rail: payouts.Bank}.Received("ref-1")
	assert.Equal(t, collections.Received{Amount: mwk(t, "5"), Rail: payouts.Bank, SourceCustomerName: "Sandbox Customer",
		SourceAccountNumber: "265880000000", SourceInstitution: "Sandbox", RTPReferenceNumber: "SIM-ref-1"}, r)
}

func TestFee(t *testing.T) {
	s := payouts.DefaultFeeSchedule()
	for _, tc := range []struct {
		amount, fee string
	}{
		{"33.33", "0.50"}, // 0.49995 rounded half up
		{"10000", "150.00"},
		{"0.01", "0.00"},
		{"1000000000000", "15000000000.00"},
	} {
		for _, rail := range []payouts.Rail{payouts.Momo, payouts.Bank} {
			fee, err := collections.Fee(s, rail, mwk(t, tc.amount))
			require.NoError(t, err)
			assert.Equal(t, tc.fee, fee.String(), "%s on %s", tc.amount, rail)
		}
	}
}

func TestSettle(t *testing.T) {
	r := collections.Received{Amount: mwk(t, "33.33"), Rail: payouts.Bank, SourceCustomerName: "A", SourceAccountNumber: "1",
		SourceInstitution: "B", RTPReferenceNumber: "R"}
	c, ps, event, err := collections.Settle("c1", "org", r, mwk(t, "0.50"), t0)
	require.NoError(t, err)
	assert.Equal(t, collections.Collection{ID: "c1", Status: collections.Settled, AmountMWK: r.Amount, Fee: mwk(t, "0.50"),
		AmountCredited: mwk(t, "32.83"), Rail: payouts.Bank, SourceCustomerName: "A", SourceAccountNumber: "1",
		SourceInstitution: "B", RTPReferenceNumber: "R", CreatedAt: t0}, c)
	assert.Equal(t, collections.EventSettled, event)
	assert.Equal(t, []collections.Posting{{Kind: collections.KindCredit, EntryID: "collection:c1", Org: "org", Amount: r.Amount,
		Fee: mwk(t, "0.50"), System: collections.External, Ref: "c1"}}, ps)

	for name, fee := range map[string]money.Amount{
		"above the amount": mwk(t, "33.34"),
		"negative":         mwk(t, "1").Neg(),
		"another asset":    usdt(t, "0"),
		"no fee":           {},
	} {
		_, ps, _, err := collections.Settle("c1", "org", r, fee, t0)
		assert.ErrorIs(t, err, collections.ErrBelowFee, name)
		assert.Nil(t, ps, name)
	}
	c, _, _, err = collections.Settle("c2", "org", r, r.Amount, t0)
	require.NoError(t, err, "a fee of the whole amount credits nothing")
	assert.True(t, c.AmountCredited.IsZero())
}

func TestReverse(t *testing.T) {
	settled, _, _, err := collections.Settle("c1", "org", collections.Received{Amount: mwk(t, "100"), Rail: payouts.Momo}, mwk(t, "1.50"), t0)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		from  collections.Status
		to    collections.Status
		event string
		err   string
	}{
		{"settled", collections.Settled, collections.Reversed, collections.EventReversed, ""},
		{"reversed", collections.Reversed, collections.Reversed, "", "This collection is already reversed."},
		{"unknown status", "lost", "lost", "", "This collection is already lost."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := settled
			c.Status = tc.from
			got, ps, event, err := collections.Reverse(c)
			assert.Equal(t, tc.to, got.Status)
			assert.Equal(t, tc.event, event)
			if tc.err != "" {
				assert.Equal(t, errcode.Conflict, code(err))
				assert.ErrorIs(t, err, collections.ErrNotSettled)
				assert.Equal(t, tc.err, errcode.Message(err))
				assert.Nil(t, ps)
				assert.Equal(t, c, got, "unchanged")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []collections.Posting{{Kind: collections.KindReverse, EntryID: "collection:c1:reverse", Of: "collection:c1", Ref: "c1"}}, ps)
			want := settled
			want.Status = collections.Reversed
			assert.Equal(t, want, got, "only the status changes")
		})
	}
}

func TestFeeV2(t *testing.T) {
	s := payouts.DefaultFeeSchedule()
	fee, err := collections.FeeV2(s, usdt(t, "25.5"))
	require.NoError(t, err)
	assert.Equal(t, "0.000000", fee.String(), "stablecoins pay no collection fee")
	fee, err = collections.FeeV2(s, mwk(t, "10000"))
	require.NoError(t, err)
	v1, err := collections.Fee(s, payouts.Momo, mwk(t, "10000"))
	require.NoError(t, err)
	assert.Equal(t, v1, fee, "MWK pays the /v1 fee on the momo schedule")

	_, err = collections.FeeV2(s, mwk(t, "1000000000000.01"))
	assert.Equal(t, errcode.LimitExceeded, code(err))
	huge, err := money.Parse(money.USDT, "9000000000000")
	require.NoError(t, err)
	fee, err = collections.FeeV2(s, huge)
	require.NoError(t, err, "only MWK is bounded here: ParseAmount bounds every asset")
	assert.True(t, fee.IsZero())

	greedy := s
	greedy.CollectionRateAll = money.MustRate("1.5")
	_, err = collections.FeeV2(greedy, mwk(t, "10"))
	assert.Equal(t, errcode.ValidationError, code(err))
	assert.ErrorIs(t, err, collections.ErrBelowFee)
	assert.Equal(t, "amount is below the collection fee of 15.00 MWK.", errcode.Message(err))
	whole := s
	whole.CollectionRateAll = money.MustRate("1")
	fee, err = collections.FeeV2(whole, mwk(t, "10"))
	require.NoError(t, err, "a fee of the whole amount is allowed")
	assert.Equal(t, "10.00", fee.String())
}

func TestSettleV2(t *testing.T) {
	c, ps, event, err := collections.SettleV2("c1", "org", usdt(t, "25.5"), money.Zero(money.USDT), "tron", collections.SourceDeposit, t0)
	require.NoError(t, err)
	assert.Equal(t, collections.CollectionV2{ID: "c1", Status: collections.Settled, Asset: money.USDT, Amount: usdt(t, "25.5"),
		Fee: money.Zero(money.USDT), AmountCredited: usdt(t, "25.5"), Network: "tron", Source: collections.SourceDeposit, CreatedAt: t0}, c)
	assert.Equal(t, collections.EventV2Settled, event)
	assert.Equal(t, []collections.Posting{{Kind: collections.KindCredit, EntryID: "collection_v2:c1", Org: "org", Amount: usdt(t, "25.5"),
		Fee: money.Zero(money.USDT), System: collections.External, Ref: "c1"}}, ps)

	c, _, _, err = collections.SettleV2("c2", "org", mwk(t, "5000"), mwk(t, "75"), "", collections.SourceSimulated, t0)
	require.NoError(t, err)
	assert.Equal(t, "4925.00", c.AmountCredited.String())
	assert.Empty(t, c.Network)
	assert.Nil(t, c.OrderID)

	_, _, _, err = collections.SettleV2("c3", "org", mwk(t, "1"), mwk(t, "2"), "", collections.SourceSimulated, t0)
	assert.ErrorIs(t, err, collections.ErrBelowFee)
	_, _, _, err = collections.SettleV2("c3", "org", usdt(t, "1"), money.Zero(money.MWK), "", collections.SourceSimulated, t0)
	assert.ErrorIs(t, err, collections.ErrBelowFee)
}

func TestRefunded(t *testing.T) {
	rc := orders.RefundCollection{OrderID: "o1", Org: "org", EntryID: "order:o1:refund", Amount: usdt(t, "3")}
	c, event := collections.Refunded("c1", rc, t0)
	require.NotNil(t, c.OrderID)
	assert.Equal(t, "o1", *c.OrderID)
	c.OrderID = nil
	assert.Equal(t, collections.CollectionV2{ID: "c1", Status: collections.Settled, Asset: money.USDT, Amount: rc.Amount,
		Fee: money.Zero(money.USDT), AmountCredited: rc.Amount, Source: collections.SourceOrderRefund, CreatedAt: t0}, c)
	assert.Equal(t, collections.EventV2Settled, event)
}

func TestSimulatedV2(t *testing.T) {
	assert.Equal(t, "asset is required.", errcode.Message(collections.SimulatedV2{}.Check()), "the asset first")
	assert.Equal(t, "amount is required.", errcode.Message(collections.SimulatedV2{Asset: "USDT"}.Check()))
	assert.Equal(t, "amount is required.", errcode.Message(collections.SimulatedV2{Asset: "USDT", Amount: money.DecimalText("")}.Check()))
	assert.NoError(t, collections.SimulatedV2{Asset: "?", Amount: money.DecimalText("x")}.Check(), "the rest is checked later")

	classes := quotes.DefaultClasses()
	table := networks.Default()
	table["polygon"] = networks.Network{ID: "polygon", Kind: networks.EVM, Assets: []money.AssetCode{"USDC"}}
	for name, tc := range map[string]struct {
		s     collections.SimulatedV2
		asset money.Asset
		want  string
		code  errcode.Code
	}{
		"none":                {collections.SimulatedV2{}, money.USDT, "", ""},
		"none on fiat":        {collections.SimulatedV2{}, money.MWK, "", ""},
		"tron":                {collections.SimulatedV2{Network: "tron"}, money.USDT, "tron", ""},
		"ethereum":            {collections.SimulatedV2{Network: "ethereum"}, money.USDT, "ethereum", ""},
		"on fiat":             {collections.SimulatedV2{Network: "tron"}, money.MWK, "", errcode.ValidationError},
		"empty on fiat":       {collections.SimulatedV2{EmptyNetwork: true}, money.MWK, "", errcode.ValidationError},
		"empty":               {collections.SimulatedV2{EmptyNetwork: true}, money.USDT, "", errcode.UnsupportedNetwork},
		"unknown":             {collections.SimulatedV2{Network: "solana"}, money.USDT, "", errcode.UnsupportedNetwork},
		"malformed":           {collections.SimulatedV2{Network: "Tron"}, money.USDT, "", errcode.UnsupportedNetwork},
		"not carried":         {collections.SimulatedV2{Network: "polygon"}, money.USDT, "", errcode.UnsupportedNetwork},
		"unclassed asset":     {collections.SimulatedV2{Network: "polygon"}, money.Asset{Code: "USDC", Decimals: 6}, "polygon", ""},
		"network beats empty": {collections.SimulatedV2{Network: "tron", EmptyNetwork: true}, money.USDT, "tron", ""},
	} {
		got, err := tc.s.CheckNetwork(tc.asset, classes, table)
		assert.Equal(t, tc.code, code(err), name)
		assert.Equal(t, tc.want, got, name)
	}
	_, err := collections.SimulatedV2{EmptyNetwork: true}.CheckNetwork(money.USDT, classes, table)
	assert.Equal(t, `The network "" is not supported.`, errcode.Message(err))
}

func TestParseAmount(t *testing.T) {
	for text, want := range map[string]errcode.Code{
		"10.5":                           "",
		"1000000000000":                  "",
		"1.0000001":                      errcode.ValidationError,
		"0":                              errcode.ValidationError,
		"-1":                             errcode.ValidationError,
		"1e3":                            errcode.ValidationError,
		"":                               errcode.ValidationError,
		"1000000000000.000001":           errcode.LimitExceeded,
		"900000000000000000000000000000": errcode.LimitExceeded,
	} {
		a, err := collections.ParseAmount(money.USDT, money.DecimalText(text))
		assert.Equal(t, want, code(err), text)
		if want == "" {
			assert.Equal(t, money.USDT, a.Asset(), text)
		}
	}
	_, err := collections.ParseAmount(money.MWK, money.DecimalText("1.001"))
	assert.Equal(t, errcode.ValidationError, code(err))
	assert.True(t, strings.HasPrefix(errcode.Message(err), "amount: "), errcode.Message(err))
	_, err = collections.ParseAmount(money.USDT, money.DecimalText("0"))
	assert.Equal(t, "amount must be greater than 0.", errcode.Message(err))
}

func TestDepositCheck(t *testing.T) {
	table, assets := networks.Default(), money.DefaultAssets()
	ok := collections.Deposit{Network: "tron", Asset: "USDT", Amount: usdt(t, "25.5"), TxRef: "0xabc"}
	n, asset, err := ok.Check(table, assets)
	require.NoError(t, err)
	assert.Equal(t, "tron", n.ID)
	assert.Equal(t, money.USDT, asset)

	with := func(f func(*collections.Deposit)) collections.Deposit {
		d := ok
		f(&d)
		return d
	}
	for name, tc := range map[string]struct {
		d    collections.Deposit
		want errcode.Code
	}{
		"no tx_ref":           {with(func(d *collections.Deposit) { d.TxRef = "" }), errcode.ValidationError},
		"long tx_ref":         {with(func(d *collections.Deposit) { d.TxRef = strings.Repeat("a", 256) }), errcode.ValidationError},
		"longest tx_ref":      {with(func(d *collections.Deposit) { d.TxRef = strings.Repeat("a", 255) }), ""},
		"control in tx_ref":   {with(func(d *collections.Deposit) { d.TxRef = "0x\x00" }), errcode.ValidationError},
		"format in tx_ref":    {with(func(d *collections.Deposit) { d.TxRef = "0x\u200b1" }), errcode.ValidationError},
		"tx_ref first":        {with(func(d *collections.Deposit) { d.TxRef, d.Network = "", "solana" }), errcode.ValidationError},
		"unknown network":     {with(func(d *collections.Deposit) { d.Network = "solana" }), errcode.UnsupportedNetwork},
		"network before":      {with(func(d *collections.Deposit) { d.Network, d.Asset = "solana", "EUR" }), errcode.UnsupportedNetwork},
		"asset not carried":   {with(func(d *collections.Deposit) { d.Asset, d.Amount = "MWK", mwk(t, "1") }), errcode.UnsupportedNetwork},
		"unknown asset":       {with(func(d *collections.Deposit) { d.Asset = "EUR" }), errcode.UnsupportedAsset},
		"zero":                {with(func(d *collections.Deposit) { d.Amount = money.Zero(money.USDT) }), errcode.ValidationError},
		"negative":            {with(func(d *collections.Deposit) { d.Amount = usdt(t, "1").Neg() }), errcode.ValidationError},
		"asset mismatch":      {with(func(d *collections.Deposit) { d.Amount = mwk(t, "1") }), errcode.ValidationError},
		"no amount":           {with(func(d *collections.Deposit) { d.Amount = money.Amount{} }), errcode.ValidationError},
		"above the maximum":   {with(func(d *collections.Deposit) { d.Amount = usdt(t, "1000000000000.000001") }), errcode.LimitExceeded},
		"exactly the maximum": {with(func(d *collections.Deposit) { d.Amount = money.Max(money.USDT) }), ""},
	} {
		_, _, err := tc.d.Check(table, assets)
		assert.Equal(t, tc.want, code(err), name)
	}
	_, _, err = with(func(d *collections.Deposit) { d.Asset = money.AssetCode(strings.Repeat("E", 40)) }).Check(table, assets)
	assert.Equal(t, `The asset "EEEEEEEEEEEE" is not configured.`, errcode.Message(err), "the asset is cut in the message")
}

func TestDepositReplay(t *testing.T) {
	d := collections.Deposit{Network: "tron", Asset: "USDT", Amount: usdt(t, "25.5"), TxRef: "0xabc"}
	first := d.Recorded("org", "c1")
	assert.Equal(t, collections.Recorded{Org: "org", Asset: "USDT", Amount: "25.500000", Collection: "c1"}, first)
	id, err := d.Replay("org", first)
	require.NoError(t, err)
	assert.Equal(t, "c1", id)
	same := d
	same.Amount = usdt(t, "25.500000")
	id, err = same.Replay("org", first)
	require.NoError(t, err, "the same amount written otherwise")
	assert.Equal(t, "c1", id)

	other := d
	other.Amount = usdt(t, "26")
	for name, tc := range map[string]struct {
		d   collections.Deposit
		org string
	}{
		"another amount":       {other, "org"},
		"another organization": {d, "org2"},
		"another asset":        {collections.Deposit{Network: "tron", Asset: "MWK", Amount: mwk(t, "25.5"), TxRef: "0xabc"}, "org"},
	} {
		_, err := tc.d.Replay(tc.org, first)
		assert.Equal(t, errcode.Conflict, code(err), name)
		assert.Equal(t, "The deposit 0xabc on tron was recorded with other figures.", errcode.Message(err), name)
	}
	long := d
	long.TxRef = strings.Repeat("f", 100)
	_, err = long.Replay("org2", long.Recorded("org", "c1"))
	assert.Equal(t, "The deposit "+strings.Repeat("f", 64)+" on tron was recorded with other figures.", errcode.Message(err))
}

func TestDepositAddresses(t *testing.T) {
	table := networks.Default()
	table["polygon"] = networks.Network{ID: "polygon", Kind: networks.EVM, Assets: []money.AssetCode{"USDT", "USDC"}}
	table["bitcoin_x"] = networks.Network{ID: "bitcoin_x", Kind: networks.TRON, Assets: []money.AssetCode{"XBT"}}
	only := func(codes ...money.AssetCode) func(money.AssetCode) bool {
		return func(a money.AssetCode) bool {
			for _, c := range codes {
				if a == c {
					return true
				}
			}
			return false
		}
	}
	assert.Equal(t, []collections.DepositAddress{
		{Network: "ethereum", Assets: []money.AssetCode{"USDT"}},
		{Network: "polygon", Assets: []money.AssetCode{"USDT", "USDC"}},
		{Network: "tron", Assets: []money.AssetCode{"USDT"}},
	}, collections.DepositNetworks(table, only("USDC", "USDT", "MWK")), "by network id, assets in the network's order")
	assert.Equal(t, []collections.DepositAddress{{Network: "polygon", Assets: []money.AssetCode{"USDC"}}},
		collections.DepositNetworks(table, only("USDC")))
	assert.Nil(t, collections.DepositNetworks(table, only("MWK")))

	d := collections.AddressOn(table["tron"], "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", only())
	assert.Equal(t, collections.DepositAddress{Network: "tron", Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Assets: []money.AssetCode{}}, d,
		"no asset is an empty list")

	assert.NoError(t, collections.CheckIssued(table["tron"], "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))
	assert.NoError(t, collections.CheckIssued(table["ethereum"], "0xdAC17F958D2ee523a2206206994597C13D831ec7"))
	assert.Equal(t, errcode.InvalidWalletAddress, code(collections.CheckIssued(table["ethereum"], "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")))
	assert.Equal(t, errcode.InvalidWalletAddress, code(collections.CheckIssued(table["tron"], "")))

	assert.NoError(t, collections.CheckRotation("", "a"))
	assert.NoError(t, collections.CheckRotation("a", "b"))
	err := collections.CheckRotation("a", "a")
	assert.Equal(t, errcode.ServiceUnavailable, code(err))
	assert.True(t, errors.Is(err, collections.ErrSameAddress))
	assert.Equal(t, "The issuer gave the address already in use; try again later.", errcode.Message(err))
}
