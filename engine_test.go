package tambala_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testEngine is an engine over a fresh memstore with a fake clock.
func testEngine(t *testing.T, opts *tambala.Options) (*tambala.Engine, *clock) {
	t.Helper()
	c := newClock()
	var o tambala.Options
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = c.Now
	}
	e, err := tambala.New(memstore.New(), &o)
	require.NoError(t, err)
	return e, c
}

// orgWithKey creates an organization funded with mwk kwacha and one key,
// and returns the key's principal.
func orgWithKey(t *testing.T, e *tambala.Engine, name string, mwk int64) (tambala.Principal, string) {
	t.Helper()
	ctx := context.Background()
	o, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: name})
	require.NoError(t, err)
	if mwk > 0 {
		require.NoError(t, e.Operator().Fund(ctx, o.ID, money.FromInt(money.MWK, mwk), "seed"))
	}
	key, _, err := e.Operator().CreateKey(ctx, o.ID)
	require.NoError(t, err)
	p, err := e.Authenticate(ctx, key)
	require.NoError(t, err)
	return p, key
}

func codeOf(err error) errcode.Code { return errcode.Of(err) }

func TestNew_Options(t *testing.T) {
	_, err := tambala.New(nil, nil)
	assert.Error(t, err, "nil store")
	_, err = tambala.New(memstore.New(), &tambala.Options{Environment: "staging"})
	assert.Error(t, err, "unknown environment")
	_, err = tambala.New(memstore.New(), &tambala.Options{Assets: money.Assets{"USDT": money.USDT}})
	assert.Error(t, err, "MWK missing")

	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	assert.Equal(t, tambala.Sandbox, e.Settings().Environment())
	assert.Equal(t, tambala.Limits{MaxActiveKeys: 3, RatePerSecond: 50, RateBurst: 100, IdempotencyRetention: 72 * time.Hour, MaxBodyBytes: 1 << 20, InFlightPerOrg: 16}, e.Settings().Limits())
	_, ok := e.Settings().Assets().Lookup("USDT")
	assert.True(t, ok)

	// Retention under 24 hours is not allowed; it falls back to the default.
	e, err = tambala.New(memstore.New(), &tambala.Options{Limits: tambala.Limits{IdempotencyRetention: time.Hour}})
	require.NoError(t, err)
	assert.Equal(t, 72*time.Hour, e.Settings().Limits().IdempotencyRetention)
	e, err = tambala.New(memstore.New(), &tambala.Options{Limits: tambala.Limits{IdempotencyRetention: 24 * time.Hour, MaxActiveKeys: 5}})
	require.NoError(t, err)
	assert.Equal(t, 24*time.Hour, e.Settings().Limits().IdempotencyRetention)
	assert.Equal(t, 5, e.Settings().Limits().MaxActiveKeys)
}

func TestPause_Switches(t *testing.T) {
	e, _ := testEngine(t, nil)
	ctx := context.Background()
	s, err := e.Operator().PauseState(ctx)
	require.NoError(t, err)
	assert.Equal(t, tambala.PauseState{}, s)
	assert.Equal(t, "live", s.PingStatus())
	assert.NoError(t, s.Err(tambala.APIv1))

	s, err = e.Operator().SetPause(ctx, tambala.APIv2, tambala.Incident)
	require.NoError(t, err)
	assert.Equal(t, "outage", s.PingStatus())
	assert.Equal(t, errcode.ServiceIncident, codeOf(s.Err(tambala.APIv2)))
	assert.NoError(t, s.Err(tambala.APIv1))
	s, err = e.Operator().SetPause(ctx, tambala.APIv1, tambala.Maintenance)
	require.NoError(t, err)
	assert.Equal(t, errcode.ServiceMaintenance, codeOf(s.Err(tambala.APIv1)))
	assert.Equal(t, tambala.Incident, s.V2, "setting v1 keeps v2")
	s, err = e.Operator().SetPause(ctx, tambala.APIv2, tambala.Maintenance)
	require.NoError(t, err)
	assert.Equal(t, "maintenance", s.PingStatus())

	_, err = e.Operator().SetPause(ctx, "v3", tambala.Live)
	assert.Equal(t, errcode.ValidationError, codeOf(err))
	_, err = e.Operator().SetPause(ctx, tambala.APIv1, "closed")
	assert.Equal(t, errcode.ValidationError, codeOf(err))

	// Every later Authenticate sees the switches in the same read.
	_, key := orgWithKey(t, e, "A", 0)
	p, err := e.Authenticate(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, tambala.Maintenance, p.Pause.V1)
	assert.Equal(t, tambala.Maintenance, p.Pause.V2)
	require.Len(t, p.Pause.V2Pauses, 1, "the /v2 pause is remembered")
	assert.Nil(t, p.Pause.V2Pauses[0].To, "and still lasts")
}

func TestAllow_TokenBucketPerOrganization(t *testing.T) {
	e, c := testEngine(t, &tambala.Options{Limits: tambala.Limits{RatePerSecond: 2, RateBurst: 2}})
	for i := 0; i < 2; i++ {
		ok, _ := tambala.GateOf(e).Allow("a")
		assert.True(t, ok)
	}
	ok, retry := tambala.GateOf(e).Allow("a")
	assert.False(t, ok)
	assert.Equal(t, 1, retry)
	ok, _ = tambala.GateOf(e).Allow("b")
	assert.True(t, ok, "another organization has its own bucket")
	c.Advance(500 * time.Millisecond)
	ok, _ = tambala.GateOf(e).Allow("a")
	assert.True(t, ok)
	ok, retry = tambala.GateOf(e).Allow("a")
	assert.False(t, ok)
	assert.GreaterOrEqual(t, retry, 1)
}

var _ store.Store = (*memstore.Store)(nil)
