package sandbox_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// TestDestinations pins the exported test destinations to the sandbox's
// reference data and to what its Provider pays.
func TestDestinations(t *testing.T) {
	byID := map[int]payouts.Institution{}
	for _, in := range payouts.DefaultInstitutions() {
		byID[in.ID] = in
	}
	for id, want := range map[int]struct {
		name string
		rail payouts.Rail
	}{
		sandbox.NationalBankOfMalawi: {"National Bank of Malawi", payouts.Bank},
		sandbox.StandardBankMalawi:   {"Standard Bank Malawi", payouts.Bank},
		sandbox.FDHBank:              {"FDH Bank", payouts.Bank},
		sandbox.NBSBank:              {"NBS Bank", payouts.Bank},
		sandbox.FirstCapitalBank:     {"First Capital Bank", payouts.Bank},
		sandbox.AirtelMoney:          {"Airtel Money", payouts.Momo},
		sandbox.TNMMpamba:            {"TNM Mpamba", payouts.Momo},
	} {
		assert.Equal(t, want.name, byID[id].Name, "institution %d", id)
		assert.Equal(t, want.rail, byID[id].Rail, "institution %d", id)
	}
	assert.Len(t, byID, 7, "every institution has its constant")

	assert.Contains(t, tambala.SandboxBankAccounts, sandbox.TestBankAccount)
	assert.Contains(t, tambala.SandboxWallets, sandbox.TestWallet)
	for network, addr := range map[string]string{sandbox.Tron: sandbox.TestTronAddress, sandbox.Ethereum: sandbox.TestEthereumAddress} {
		n, err := networks.Default().Lookup(network)
		require.NoError(t, err)
		assert.NoError(t, n.CheckAddress(money.USDT.Code, addr))
		assert.Equal(t, addr, sandbox.TestWalletAddresses[network][0])
	}
	assert.Len(t, networks.Default(), 2, "every network has its constant")

	// The Provider pays each test destination.
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	prov := sandbox.New(&sandbox.Options{Clock: func() time.Time { return at }, Delay: time.Second})
	ctx := context.Background()
	for ref, sub := range map[string]tambala.PayoutSubmission{
		"bank": {Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 5000), Destination: payouts.Destination{
			InstitutionID: sandbox.NationalBankOfMalawi, AccountNumber: sandbox.TestBankAccount, BeneficiaryName: "T"}},
		"momo": {Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000), Destination: payouts.Destination{
			InstitutionID: sandbox.AirtelMoney, MobileNumber: sandbox.TestWallet, BeneficiaryName: "T"}},
		"tron":     {Rail: tambala.RailWallet, Network: sandbox.Tron, Address: sandbox.TestTronAddress, Amount: money.FromInt(money.USDT, 5)},
		"ethereum": {Rail: tambala.RailWallet, Network: sandbox.Ethereum, Address: sandbox.TestEthereumAddress, Amount: money.FromInt(money.USDT, 5)},
	} {
		sub.Reference = ref
		require.NoError(t, prov.Submit(ctx, sub))
		at = at.Add(time.Second)
		st, err := prov.Status(ctx, ref)
		require.NoError(t, err)
		assert.Equal(t, tambala.ProviderSucceeded, st.State, ref)
	}
}

// TestPortsSet fills every port, keeps the other options, and takes nil.
func TestPortsSet(t *testing.T) {
	ports := sandbox.NewPorts(nil, nil)
	o := ports.Set(&tambala.Options{Environment: tambala.Sandbox})
	assert.Same(t, ports.Payouts, o.Payouts)
	assert.Same(t, ports.Converter, o.Converter)
	assert.Same(t, ports.DepositIssuer, o.DepositIssuer)
	assert.Equal(t, tambala.Sandbox, o.Environment)
	assert.Same(t, ports.Payouts, ports.Set(nil).Payouts)
}

// TestNewPortsSurviveRestart is the complete sandbox of NewPorts over
// the engine's store, across a restart: a conversion and a wallet payout
// submitted before it reach their outcome after it, each paid once, and
// a rotation after it gives an address never issued before.
func TestNewPortsSurviveRestart(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			var mu sync.Mutex // the engine reads the clock from its goroutines
			at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
			advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); at = at.Add(d) }
			start := func(s store.Store) (sandbox.Ports, *tambala.Engine) {
				ports := sandbox.NewPorts(s, &sandbox.PortsOptions{Clock: clock, Delay: 2 * time.Second})
				e, err := tambala.New(s, ports.Set(&tambala.Options{Clock: clock}))
				require.NoError(t, err)
				return ports, e
			}

			s := b.open(t)
			_, e := start(s)
			org, err := e.Operator().CreateOrganization(ctx, sandbox.Organization("Acme Ltd"))
			require.NoError(t, err)
			require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.USDT, 1000), "opening"))
			_, err = e.Operator().Desk().SetCorridor(ctx, sandbox.Corridor())
			require.NoError(t, err)
			p, err := e.Act(ctx, org.ID)
			require.NoError(t, err)
			client := e.Client(p)

			q, err := client.QuoteConversion(ctx, quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: money.DecimalText("200")})
			require.NoError(t, err)
			conv, err := client.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "conv-1"})
			require.NoError(t, err)
			po, err := client.CreatePayout(ctx, tambala.PayoutV2Request{SourceAsset: money.USDT.Code, Asset: money.USDT.Code, Amount: money.DecimalText("50"),
				Destination: tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: sandbox.Tron, Address: sandbox.TestTronAddress}},
				tambala.Idempotency{Key: "payout-1"})
			require.NoError(t, err)
			_, err = e.Work().ProcessConversions(ctx)
			require.NoError(t, err)
			_, err = e.Work().ProcessPayouts(ctx)
			require.NoError(t, err)
			addrs, err := client.DepositAddresses(ctx)
			require.NoError(t, err)
			require.Len(t, addrs, 2, "an address on each network")
			first := addrs[0]
			rotated, err := e.Operator().Desk().RotateDepositAddress(ctx, org.ID, first.Network)
			require.NoError(t, err)

			// The host restarts: the store reopened, new ports and engine.
			s = b.restart(t, s)
			defer s.Close()
			ports, e := start(s)
			client = e.Client(p)
			for range 5 {
				advance(time.Minute)
				_, err = e.Work().ProcessConversions(ctx)
				require.NoError(t, err)
				_, err = e.Work().ProcessPayouts(ctx)
				require.NoError(t, err)
			}
			c, err := client.Conversion(ctx, conv.Resource.ID)
			require.NoError(t, err)
			assert.Equal(t, tambala.ConversionCompleted, c.Status)
			assert.Equal(t, 0, ports.Converter.ConvertCalls(c.ID), "the new process only asked for the status")
			got, err := client.Payout(ctx, po.Resource.ID)
			require.NoError(t, err)
			assert.Equal(t, payouts.Succeeded, got.Status)
			assert.Equal(t, 1, ports.Payouts.Payments(got.ID), "paid once, known after the restart")
			again, err := e.Operator().Desk().RotateDepositAddress(ctx, org.ID, first.Network)
			require.NoError(t, err)
			assert.False(t, slices.Contains([]string{first.Address, rotated.Address}, again.Address),
				"a rotation after the restart gives an address never issued before")
			require.NoError(t, ledger.CheckStore(ctx, s))
		})
	}
}
