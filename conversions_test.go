package tambala_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The engine-level tests of /v2 conversions on every store. The rapid
// model is in conversions_rapid_test.go and the races in
// conversions_race_test.go.

const convDelay = 2 * time.Second

type convEnv struct {
	*deskEnv
	conv *sandbox.Converter
}

func convAssets() []tambala.AssetAccess {
	return []tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
		{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
	}
}

// newConvEnv is the desk environment with a sandbox converter (convDelay)
// and an organization with convert on MWK and USDT, funded with 1000 USDT
// and 100000.00 MWK.
func newConvEnv(t deskTB, s store.Store) *convEnv {
	t.Helper()
	var conv *sandbox.Converter
	d := newDeskEnv(t, s, func(o *tambala.Options) {
		conv = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
		o.Converter = conv
		o.ConversionWorker.Concurrency = 1
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	require.NoError(t, d.e.Operator().Fund(d.ctx, d.org.ID, money.FromInt(money.MWK, 100000), "start-mwk"))
	return &convEnv{deskEnv: d, conv: conv}
}

func (c *convEnv) cquote(p tambala.Principal, from, to string, fromAmt, toAmt *string) (quotes.Quote, error) {
	return c.e.Client(p).QuoteConversion(c.ctx, quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: optDecimal(fromAmt), ToAmount: optDecimal(toAmt)})
}

func (c *convEnv) convert(t deskTB, from, to, amount string) tambala.Conversion {
	t.Helper()
	q, err := c.cquote(c.p, from, to, strp(amount), nil)
	require.NoError(t, err)
	cr, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: c.next("k")})
	require.NoError(t, err)
	return cr.Resource
}

// settle runs the worker: once now, and once after the converter's delay.
func (c *convEnv) settle(t deskTB) {
	t.Helper()
	_, err := c.e.Work().ProcessConversions(c.ctx)
	require.NoError(t, err)
	c.clock.Advance(convDelay + time.Second)
	_, err = c.e.Work().ProcessConversions(c.ctx)
	require.NoError(t, err)
}

func (c *convEnv) requireBal(t deskTB, a money.Asset, available, held string) {
	t.Helper()
	b := c.balance(t, c.org.ID, a)
	assert.Equal(t, available, b.Available.String(), "%s available", a.Code)
	assert.Equal(t, held, b.Held.String(), "%s held", a.Code)
}

func deskAccount(t deskTB, d *deskEnv, a money.Asset) money.Amount {
	t.Helper()
	var v money.Amount
	require.NoError(t, d.s.View(d.ctx, func(tx store.Tx) error {
		var err error
		v, err = ledger.ReadAccount(tx, ledger.SystemAccount(ledger.Desk, a))
		return err
	}))
	return v
}

func TestConversion_Quote(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		q, err := c.cquote(c.p, "USDT", "MWK", strp("123.456789"), nil)
		require.NoError(t, err)
		assert.Equal(t, quotes.KindConversion, q.Kind)
		assert.Equal(t, "216111.10", q.To.String())
		assert.Equal(t, "1750.5", q.Rate.String())
		q, err = c.cquote(c.p, "MWK", "USDT", strp("100000.00"), nil)
		require.NoError(t, err)
		assert.Equal(t, "55.555556", q.To.String())

		_, err = c.cquote(c.p, "USDT", "MWK", nil, nil)
		requireCode(t, errcode.ValidationError, err, "no amount")
		_, err = c.cquote(c.p, "usdt", "MWK", strp("1"), nil)
		requireCode(t, errcode.UnsupportedAsset, err, "malformed")
		_, err = c.cquote(c.p, "USDT", "ZMW", strp("1"), nil)
		requireCode(t, errcode.CorridorNotEnabled, err, "not in the list")
		_, err = c.cquote(c.p, "USDT", "USDT", strp("1"), nil)
		requireCode(t, errcode.UnsupportedPair, err, "same asset")
		_, err = c.cquote(c.p, "USDT", "MWK", strp("1.1234567"), nil)
		requireCode(t, errcode.ValidationError, err, "too many decimals")
		_, err = c.cquote(c.p, "USDT", "MWK", strp("0.000001"), nil)
		requireCode(t, errcode.AmountBelowMinimum, err, "derived zero")

		// convert needed on both assets.
		other := c.newOrg(t, "NoConvert", deskAssets())
		_, err = c.cquote(actFor(c.e, other.ID), "USDT", "MWK", strp("1"), nil)
		requireCode(t, errcode.CorridorNotEnabled, err, "no convert on MWK")

		// limits on the from side.
		min, max := money.FromInt(money.USDT, 10), money.FromInt(money.USDT, 500)
		require.NoError(t, c.e.Operator().Desk().SetAssetLimits(c.ctx, "USDT", tambala.OpConvert, quotes.Limits{Min: min, Max: max}))
		_, err = c.cquote(c.p, "USDT", "MWK", strp("9.999999"), nil)
		requireCode(t, errcode.AmountBelowMinimum, err)
		_, err = c.cquote(c.p, "USDT", "MWK", strp("500.000001"), nil)
		requireCode(t, errcode.LimitExceeded, err)
		_, err = c.cquote(c.p, "USDT", "MWK", nil, strp("17505.00")) // from derived: 10 USDT
		require.NoError(t, err)

		// No rate: the corridor closed, or the direction's rate null.
		c.setCorridor(t, func(k *quotes.Corridor) { k.RateOffRamp = money.Rate{} })
		_, err = c.cquote(c.p, "USDT", "MWK", strp("20"), nil)
		requireCode(t, errcode.RateUnavailable, err)
		_, err = c.cquote(c.p, "MWK", "USDT", strp("20000"), nil)
		require.NoError(t, err)
		c.setCorridor(t, func(k *quotes.Corridor) { k.Open = false })
		_, err = c.cquote(c.p, "MWK", "USDT", strp("20000"), nil)
		requireCode(t, errcode.RateUnavailable, err)
	})
}

type fixedPricer struct{ rate *money.Rate }

func (f fixedPricer) ConversionRate(_ context.Context, _ quotes.Pair) (money.Rate, bool, error) {
	if f.rate == nil {
		return money.Rate{}, false, nil
	}
	return *f.rate, true, nil
}

func TestConversion_Pricer(t *testing.T) {
	r := money.MustRate("2000")
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.ConversionPricer, o.Converter = fixedPricer{&r}, sandbox.NewConverter(nil) })
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	q, err := d.e.Client(d.p).QuoteConversion(d.ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("2")})
	require.NoError(t, err)
	assert.Equal(t, "4000.00", q.To.String())
	d2 := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.ConversionPricer, o.Converter = fixedPricer{}, sandbox.NewConverter(nil) })
	_, err = d2.e.Operator().SetAssets(d2.ctx, d2.org.ID, convAssets())
	require.NoError(t, err)
	_, err = d2.e.Client(d2.p).QuoteConversion(d2.ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("2")})
	requireCode(t, errcode.RateUnavailable, err)
}

// TestConversion_WithoutConverter: an engine without a converter refuses
// a conversion quote with a coded error, rather than holding money for a
// conversion nothing will execute.
func TestConversion_WithoutConverter(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
		require.NoError(t, err)
		before := d.balance(t, d.org.ID, money.USDT)
		_, err = d.e.Client(d.p).QuoteConversion(d.ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("2")})
		requireCode(t, errcode.ServiceUnavailable, err)
		assert.Equal(t, before, d.balance(t, d.org.ID, money.USDT))
		d.check(t)
	})
}

func TestConversion_Create(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		q, err := c.cquote(c.p, "USDT", "MWK", strp("100"), nil)
		require.NoError(t, err)
		key := tambala.Idempotency{Key: "K1"}
		cr, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, key)
		require.NoError(t, err)
		conv := cr.Resource
		assert.Equal(t, tambala.ConversionProcessing, conv.Status)
		assert.Equal(t, "100.000000", conv.From.String())
		assert.Equal(t, "175050.00", conv.To.String())
		c.requireBal(t, money.USDT, "900.000000", "100.000000")
		c.check(t)

		// Replay: the same conversion, byte for byte; another body conflicts.
		again, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, key)
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, string(render.Conversion(conv)), string(render.Conversion(again.Resource)))
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: "other"}, key)
		requireCode(t, errcode.Conflict, err)
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{})
		requireCode(t, errcode.ValidationError, err, "no key")

		// The quote's checks.
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "K2"})
		requireCode(t, errcode.QuoteUsed, err)
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: "not-a-quote"}, tambala.Idempotency{Key: "K3"})
		requireCode(t, errcode.NotFound, err)
		oq := c.quote(t, "USDT", "MWK", "10") // an order quote
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: oq.ID}, tambala.Idempotency{Key: "K4"})
		requireCode(t, errcode.NotFound, err, "order quote")
		late, err := c.cquote(c.p, "USDT", "MWK", strp("1"), nil)
		require.NoError(t, err)
		c.clock.Advance(61 * time.Second)
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: late.ID}, tambala.Idempotency{Key: "K5"})
		requireCode(t, errcode.QuoteExpired, err)

		// Short funds: 402, nothing held.
		big, err := c.cquote(c.p, "USDT", "MWK", strp("901"), nil)
		require.NoError(t, err)
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: big.ID}, tambala.Idempotency{Key: "K6"})
		requireCode(t, errcode.InsufficientFunds, err)
		c.requireBal(t, money.USDT, "900.000000", "100.000000")

		// Operation re-checked at create.
		q2, err := c.cquote(c.p, "USDT", "MWK", strp("1"), nil)
		require.NoError(t, err)
		_, err = c.e.Operator().SetAssets(c.ctx, c.org.ID, deskAssets())
		require.NoError(t, err)
		_, err = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q2.ID}, tambala.Idempotency{Key: "K7"})
		requireCode(t, errcode.CorridorNotEnabled, err)

		// Another organization's conversion is not_found.
		other := c.newOrg(t, "Other", convAssets())
		_, err = c.e.Client(actFor(c.e, other.ID)).Conversion(c.ctx, conv.ID)
		requireCode(t, errcode.NotFound, err)
		got, err := c.e.Client(c.p).Conversion(c.ctx, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, string(render.Conversion(conv)), string(render.Conversion(got)))
		c.check(t)
	})
}

func TestConversion_CompletedAndFailed(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		ok := c.convert(t, "USDT", "MWK", "100")
		bad := c.convert(t, "MWK", "USDT", "18000.00")
		c.conv.ScriptFailure(bad.ID, tambala.ConversionProviderDeclined)
		_, err := c.e.Work().ProcessConversions(c.ctx)
		require.NoError(t, err)
		got, err := c.e.Client(c.p).Conversion(c.ctx, ok.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.ConversionProcessing, got.Status, "before the converter's delay")
		c.clock.Advance(convDelay + time.Second)
		n, err := c.e.Work().ProcessConversions(c.ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, n)

		got, err = c.e.Client(c.p).Conversion(c.ctx, ok.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.ConversionCompleted, got.Status)
		assert.Nil(t, got.Failure)
		failed, err := c.e.Client(c.p).Conversion(c.ctx, bad.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.ConversionFailed, failed.Status)
		require.NotNil(t, failed.Failure)
		assert.Equal(t, "provider_declined", failed.Failure.Code)
		assert.Equal(t, "The conversion provider declined the conversion.", failed.Failure.Message)

		// completed: USDT held -100 → desk USDT +100, desk MWK -175050 → MWK +175050.
		c.requireBal(t, money.USDT, "900.000000", "0.000000")
		c.requireBal(t, money.MWK, "275050.00", "0.00")
		assert.Equal(t, "100.000000", deskAccount(t, c.deskEnv, money.USDT).String())
		assert.Equal(t, "-175050.00", deskAccount(t, c.deskEnv, money.MWK).String())
		c.check(t)

		// Events, data = the read's rendering.
		var types []string
		for _, ev := range c.events(t, c.org.ID) {
			if ev.Data["id"] == ok.ID || ev.Data["id"] == bad.ID {
				types = append(types, ev.Type)
				if ev.Data["id"] == ok.ID {
					assert.JSONEq(t, string(render.Conversion(got)), string(ev.Raw))
				}
			}
		}
		assert.ElementsMatch(t, []string{tambala.EventConversionCompleted, tambala.EventConversionFailed}, types)

		// Terminal: more passes change nothing.
		c.clock.Advance(time.Hour)
		n, err = c.e.Work().ProcessConversions(c.ctx)
		require.NoError(t, err)
		assert.Zero(t, n)
		c.requireBal(t, money.MWK, "275050.00", "0.00")

		var r map[string]any
		require.NoError(t, json.Unmarshal(render.Conversion(failed), &r))
		assert.Equal(t, []string{"created_at", "failure", "from_amount", "from_asset", "id", "rate", "status", "to_amount", "to_asset"}, sortedKeys(r))
	})
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestConversion_OtherFailureCode(t *testing.T) {
	c := newConvEnv(t, memstore.New())
	bad := c.convert(t, "USDT", "MWK", "1")
	c.conv.ScriptFailure(bad.ID, "weird")
	c.settle(t)
	got, err := c.e.Client(c.p).Conversion(c.ctx, bad.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Failure)
	assert.Equal(t, tambala.ConversionFailure{Code: "other", Message: "The conversion failed."}, *got.Failure)
	c.requireBal(t, money.USDT, "1000.000000", "0.000000")
}

func TestConversion_List(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		a := c.convert(t, "USDT", "MWK", "1")
		b := c.convert(t, "MWK", "USDT", "2000.00")
		cc := c.convert(t, "USDT", "MWK", "2")
		pg, err := c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{Limit: 2}, tambala.ConversionFilter{})
		require.NoError(t, err)
		require.Len(t, pg.Items, 2)
		assert.Equal(t, cc.ID, pg.Items[0].ID)
		assert.Equal(t, b.ID, pg.Items[1].ID)
		assert.True(t, pg.HasMore)
		pg, err = c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{Limit: 2, BeforeID: pg.NextBeforeID}, tambala.ConversionFilter{})
		require.NoError(t, err)
		require.Len(t, pg.Items, 1)
		assert.Equal(t, a.ID, pg.Items[0].ID)
		assert.False(t, pg.HasMore)

		pg, err = c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{}, tambala.ConversionFilter{Asset: "MWK"})
		require.NoError(t, err)
		assert.Len(t, pg.Items, 3, "into or out of MWK")
		_, err = c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{}, tambala.ConversionFilter{Asset: "ZMW"})
		requireCode(t, errcode.CorridorNotEnabled, err)
		_, err = c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{Limit: 500}, tambala.ConversionFilter{})
		requireCode(t, errcode.ValidationError, err)
		other := c.newOrg(t, "Other", convAssets())
		pg, err = c.e.Client(actFor(c.e, other.ID)).Conversions(c.ctx, tambala.PageRequest{}, tambala.ConversionFilter{})
		require.NoError(t, err)
		assert.Empty(t, pg.Items)
	})
}

func TestConversion_PauseDoesNotStopWorker(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		conv := c.convert(t, "USDT", "MWK", "10")
		_, err := c.e.Operator().SetPause(c.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		_, err = c.cquote(c.p, "USDT", "MWK", strp("1"), nil)
		requireCode(t, errcode.ServiceMaintenance, err)
		c.settle(t)
		_, err = c.e.Operator().SetPause(c.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		got, err := c.e.Client(c.p).Conversion(c.ctx, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.ConversionCompleted, got.Status)
		c.check(t)
	})
}

func TestConversion_NoConverter(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	_, err := d.e.Work().ProcessConversions(d.ctx)
	assert.ErrorIs(t, err, tambala.ErrNoConverter)
}

// flakyConverter fails its first calls, then defers to the sandbox.
type flakyConverter struct {
	*sandbox.Converter
	mu    sync.Mutex
	fails int
}

func (f *flakyConverter) Convert(ctx context.Context, r tambala.ConversionRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		return errors.New("converter down")
	}
	return f.Converter.Convert(ctx, r)
}

func TestConversion_RetriesConverterErrors(t *testing.T) {
	var flaky *flakyConverter
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) {
		flaky = &flakyConverter{Converter: sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: time.Millisecond}), fails: 2}
		o.Converter = flaky
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	c := &convEnv{deskEnv: d}
	conv := c.convert(t, "USDT", "MWK", "5")
	for i := 0; i < 6; i++ {
		_, err := d.e.Work().ProcessConversions(d.ctx)
		require.NoError(t, err)
		d.clock.Advance(10 * time.Second)
	}
	got, err := d.e.Client(d.p).Conversion(d.ctx, conv.ID)
	require.NoError(t, err)
	assert.Equal(t, tambala.ConversionCompleted, got.Status)
	c.requireBal(t, money.USDT, "995.000000", "0.000000")
	d.check(t)
}

// Run drives the conversion worker when a converter is configured.
func TestConversion_RunCompletes(t *testing.T) {
	conv := sandbox.NewConverter(&sandbox.ConverterOptions{Delay: time.Millisecond})
	e, err := tambala.New(memstore.New(), &tambala.Options{Payouts: sandbox.New(&sandbox.Options{Delay: time.Millisecond}), Webhooks: nopSender{},
		Converter: conv, ConversionWorker: tambala.ConversionWorkerOptions{Interval: 5 * time.Millisecond, Poll: 5 * time.Millisecond}})
	require.NoError(t, err)
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Run", Assets: convAssets(), V2Access: tambala.V2Enabled})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.USDT, 10), "seed"))
	_, err = e.Operator().Desk().SetCorridor(ctx, deskCorridor())
	require.NoError(t, err)
	p := actFor(e, org.ID)
	q, err := e.Client(p).QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("10")})
	require.NoError(t, err)
	cr, err := e.Client(p).CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "run"})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := e.Client(p).Conversion(ctx, cr.Resource.ID)
		require.NoError(t, err)
		if got.Status != tambala.ConversionProcessing {
			assert.Equal(t, tambala.ConversionCompleted, got.Status)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("conversion still processing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	require.NoError(t, <-done)
}

// A converter that lost a conversion (a sandbox converter without a Store,
// restarted) answers unknown reference: the worker hands it the conversion
// again under the same reference, and it ends once.
func TestConversion_UnknownReferenceResubmits(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		conv := c.convert(t, "USDT", "MWK", "10")
		_, err := c.e.Work().ProcessConversions(c.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, c.conv.ConvertCalls(conv.ID))

		// A new engine over the same store, with a converter that never saw it.
		fresh := sandbox.NewConverter(&sandbox.ConverterOptions{Clock: c.clock.Now, Delay: convDelay})
		e2, err := tambala.New(s, &tambala.Options{Clock: c.clock.Now, Converter: fresh})
		require.NoError(t, err)
		for i := 0; i < 4; i++ {
			c.clock.Advance(convDelay)
			_, err = e2.Work().ProcessConversions(c.ctx)
			require.NoError(t, err)
		}
		assert.Equal(t, 1, fresh.ConvertCalls(conv.ID))
		got, err := e2.Client(c.p).Conversion(c.ctx, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, tambala.ConversionCompleted, got.Status)
		c.requireBal(t, money.USDT, "990.000000", "0.000000")
		c.requireBal(t, money.MWK, "117505.00", "0.00")
		c.check(t)
	})
}
