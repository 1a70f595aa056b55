package tambala_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/webhooks"
)

// recordingMetrics keeps the /v2 moves the engine reports; the rest of
// the Metrics port counts nothing here.
type recordingMetrics struct {
	mu    sync.Mutex
	moves []string
}

func (m *recordingMetrics) add(s string) { m.mu.Lock(); m.moves = append(m.moves, s); m.mu.Unlock() }

func (*recordingMetrics) PayoutAccepted(payouts.Rail)                         {}
func (*recordingMetrics) PayoutFinished(payouts.Rail, payouts.Status, string) {}
func (*recordingMetrics) IdempotentReplay(tambala.Operation)                  {}
func (*recordingMetrics) WorkerPass(time.Duration, int)                       {}
func (*recordingMetrics) DispatcherPass(time.Duration, int)                   {}
func (*recordingMetrics) WebhookAttempt(webhooks.State)                       {}
func (m *recordingMetrics) OrderMoved(d orders.Direction, s orders.Status, by string) {
	m.add("order " + string(d) + " " + string(s) + " " + by)
}
func (m *recordingMetrics) ConversionMoved(s tambala.ConversionStatus, by string) {
	m.add("conversion " + string(s) + " " + by)
}

// Orders and conversions are counted once per committed change of status,
// with who made it: not on replays, repeats or moves that keep the status.
func TestMetrics_OrdersAndConversions(t *testing.T) {
	m := &recordingMetrics{}
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) {
		o.Metrics = m
		o.Converter = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)

	o := d.toBank(t, "10")
	d.move(t, o.ID, orders.StartProcessing{})
	d.move(t, o.ID, orders.CoinsSent{}) // status unchanged: not counted
	d.move(t, o.ID, orders.Complete{})
	d.move(t, o.ID, orders.Complete{}) // a repeat: not counted

	q, err := d.e.Client(d.p).QuoteConversion(d.ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("5")})
	require.NoError(t, err)
	for range 2 { // the second is a replay: not counted
		_, err = d.e.Client(d.p).CreateConversion(d.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "c"})
		require.NoError(t, err)
	}
	_, err = d.e.Work().ProcessConversions(d.ctx)
	require.NoError(t, err)
	d.clock.Advance(convDelay + time.Second)
	_, err = d.e.Work().ProcessConversions(d.ctx)
	require.NoError(t, err)

	assert.Equal(t, []string{
		"order to_bank accepted api",
		"order to_bank processing desk",
		"order to_bank completed desk",
		"conversion processing api",
		"conversion completed worker",
	}, m.moves)
}
