package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// portsOrg is an organization ready for every /v2 flow (access, MWK and
// USDT with every operation), funded, with the MWK corridor open: only
// the engine's ports are missing.
func portsOrg(t *testing.T, e *tambala.Engine) (*tambala.Client, tambala.Organization) {
	t.Helper()
	ctx := context.Background()
	every := []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Ports Ltd", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{{Asset: money.MWK.Code, Operations: every}, {Asset: money.USDT.Code, Operations: every}}})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"))
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.USDT, 1000), "opening"))
	_, err = e.Operator().Desk().SetCorridor(ctx, quotes.Corridor{Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"),
		RateOnRamp: money.MustRate("1800"), Min: money.FromInt(money.MWK, 1000), Open: true})
	require.NoError(t, err)
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)
	return e.Client(p), org
}

func newPortsEngine(t *testing.T, s store.Store, o tambala.Options) *tambala.Engine {
	t.Helper()
	e, err := tambala.New(s, &o)
	require.NoError(t, err)
	return e
}

// requireMissingPort checks the error of a flow refused for a missing
// port: service_unavailable with the API's message unchanged, and a Go
// error that names the option to set.
func requireMissingPort(t *testing.T, err error, cause error, option, message string) {
	t.Helper()
	require.ErrorIs(t, err, errcode.ErrServiceUnavailable)
	assert.ErrorIs(t, err, cause)
	assert.Contains(t, err.Error(), option, "the Go error names the option to set")
	assert.Equal(t, message, errcode.Message(err), "the API's message is unchanged")
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestOptions_WithoutConverter pins Options.Converter's doc: without one,
// a conversion quote and a create are refused with service_unavailable
// whose Go error names Options.Converter (ErrNoConverter), nothing is
// held, and the worker's calls return ErrNoConverter.
func TestOptions_WithoutConverter(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	with := newPortsEngine(t, s, tambala.Options{Converter: sandbox.NewConverter(nil)})
	client, org := portsOrg(t, with)
	req := quotes.Request{FromAsset: money.USDT.Code, ToAsset: money.MWK.Code, FromAmount: money.DecimalText("10")}
	q, err := client.QuoteConversion(ctx, req) // quoted while a converter was there
	require.NoError(t, err)

	without := newPortsEngine(t, s, tambala.Options{})
	p, err := without.Act(ctx, org.ID)
	require.NoError(t, err)
	c := without.Client(p)
	_, err = c.QuoteConversion(ctx, req)
	requireMissingPort(t, err, tambala.ErrNoConverter, "Options.Converter", "Conversions are not available.")
	_, err = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "conv-1"})
	requireMissingPort(t, err, tambala.ErrNoConverter, "Options.Converter", "Conversions are not available.")
	all, err := c.Balances(ctx)
	require.NoError(t, err)
	for _, b := range all {
		assert.True(t, b.Held.IsZero(), "nothing is held: %s", b.Asset.Code)
	}
	list, err := c.Conversions(ctx, tambala.PageRequest{}, tambala.ConversionFilter{})
	require.NoError(t, err)
	assert.Empty(t, list.Items, "no conversion was accepted")

	_, err = without.Work().ProcessConversions(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoConverter)
	assert.ErrorIs(t, without.Work().RunConversionWorker(ctx, 1), tambala.ErrNoConverter)
	assert.ErrorIs(t, without.Run(ctx, tambala.LoopConversions), tambala.ErrNoConverter)
}

// TestOptions_WithoutDepositIssuer pins Options.DepositIssuer's doc:
// without one, the deposit addresses of an organization that collects on
// a network, and a rotation, are service_unavailable whose Go error
// names Options.DepositIssuer; recorded deposits need no issuer.
func TestOptions_WithoutDepositIssuer(t *testing.T) {
	ctx := context.Background()
	e := newPortsEngine(t, memstore.New(), tambala.Options{})
	client, org := portsOrg(t, e)
	_, err := client.DepositAddresses(ctx)
	requireMissingPort(t, err, tambala.ErrNoDepositIssuer, "Options.DepositIssuer", "Deposit addresses are not available.")
	_, err = e.Operator().Desk().RotateDepositAddress(ctx, org.ID, sandbox.Tron)
	requireMissingPort(t, err, tambala.ErrNoDepositIssuer, "Options.DepositIssuer", "Deposit addresses are not available.")
	_, err = e.Operator().Desk().RecordDeposit(ctx, org.ID, tambala.Deposit{Network: sandbox.Tron, Asset: money.USDT.Code,
		Amount: money.FromInt(money.USDT, 5), TxRef: "tron-tx-1"})
	require.NoError(t, err, "a recorded deposit needs no issuer")

	// An organization that collects on no network has no address to issue.
	mwkOnly, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "MWK Only", V2Access: tambala.V2Enabled})
	require.NoError(t, err)
	p, err := e.Act(ctx, mwkOnly.ID)
	require.NoError(t, err)
	list, err := e.Client(p).DepositAddresses(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
}

// TestOptions_WithoutPayoutProvider pins Options.Payouts' doc: without
// one, /v1 and /v2 payouts are accepted and held, and ProcessPayouts and
// Run return ErrNoPayoutProvider.
func TestOptions_WithoutPayoutProvider(t *testing.T) {
	ctx := context.Background()
	e := newPortsEngine(t, memstore.New(), tambala.Options{})
	client, _ := portsOrg(t, e)
	v1, err := client.V1().CreatePayout(ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: sandbox.AirtelMoney, MobileNumber: sandbox.TestWallet, BeneficiaryName: "Test Wallet"}},
		tambala.Idempotency{Key: "v1-1"})
	require.NoError(t, err)
	assert.Equal(t, payouts.Held, v1.Resource.Status)
	v2, err := client.CreatePayout(ctx, tambala.PayoutV2Request{SourceAsset: money.USDT.Code, Asset: money.USDT.Code, Amount: money.DecimalText("5"),
		Destination: tambala.PayoutV2Destination{Type: tambala.DestinationWallet, Network: sandbox.Tron, Address: sandbox.TestTronAddress}},
		tambala.Idempotency{Key: "v2-1"})
	require.NoError(t, err)
	assert.Equal(t, payouts.Held, v2.Resource.Status)

	_, err = e.Work().ProcessPayouts(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoPayoutProvider)
	assert.ErrorIs(t, e.Run(ctx), tambala.ErrNoPayoutProvider)
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopPayouts), tambala.ErrNoPayoutProvider)
	assert.Contains(t, tambala.ErrNoPayoutProvider.Error(), "Options.Payouts")
}

// TestOptions_WithoutWebhooksOrEvents pins Options.Webhooks' and
// Options.Events' docs: without them Run runs the other loops, and the
// calls that need them return the error that names the option.
func TestOptions_WithoutWebhooksOrEvents(t *testing.T) {
	ctx := context.Background()
	e := newPortsEngine(t, memstore.New(), tambala.Options{Payouts: sandbox.New(nil)})
	_, org := portsOrg(t, e)
	_, _, err := e.Operator().SetWebhookEndpoint(ctx, org.ID, "https://hooks.example.com/ports")
	require.NoError(t, err)
	_, err = e.Operator().Desk().RecordDeposit(ctx, org.ID, tambala.Deposit{Network: sandbox.Tron, Asset: money.USDT.Code,
		Amount: money.FromInt(money.USDT, 5), TxRef: "tron-tx-1"}) // an event
	require.NoError(t, err)
	waiting, err := e.Operator().Deliveries(ctx, org.ID, tambala.PageRequest{})
	require.NoError(t, err)
	require.NotEmpty(t, waiting.Items, "the deliveries are written to the outbox")
	for _, d := range waiting.Items {
		assert.Empty(t, d.Attempts, "and wait there: %s", d.EventType)
	}
	_, err = e.Work().ProcessDeliveries(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoWebhookSender)
	assert.Contains(t, tambala.ErrNoWebhookSender.Error(), "Options.Webhooks")
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopDeliveries), tambala.ErrNoWebhookSender)
	_, err = e.Work().ProcessEvents(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoEventHandler)
	assert.Contains(t, tambala.ErrNoEventHandler.Error(), "Options.Events")
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopEvents), tambala.ErrNoEventHandler)
	assert.NoError(t, e.Run(cancelled()), "Run runs without the dispatcher, the converter and the event loop")
}
