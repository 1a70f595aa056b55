package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/webhooks"
)

func TestSignMatchesIndependentHMAC(t *testing.T) {
	body := []byte(`{"id":"e1","data":{"x":1}}`)
	secret := "whsec_abc"
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	assert.Equal(t, hex.EncodeToString(m.Sum(nil)), webhooks.Sign(secret, body))
}

func TestVerify(t *testing.T) {
	body := []byte(`{"a":1}`)
	old, cur := "whsec_old", "whsec_new"
	sigOld, sigNew := webhooks.Sign(old, body), webhooks.Sign(cur, body)
	assert.True(t, webhooks.Verify(body, sigOld, cur, old), "rotation: either secret")
	assert.True(t, webhooks.Verify(body, sigNew, cur, old))
	assert.False(t, webhooks.Verify(body, sigOld, cur))
	assert.False(t, webhooks.Verify([]byte(`{"a":2}`), sigNew, cur), "other bytes")
	assert.False(t, webhooks.Verify([]byte(`{"a": 1}`), sigNew, cur), "re-serialised bytes do not verify")
	assert.False(t, webhooks.Verify(body, "zz", cur))
	assert.False(t, webhooks.Verify(body, sigNew[:10], cur))
	assert.False(t, webhooks.Verify(body, sigNew))
	assert.False(t, webhooks.Verify(body, sigNew, ""))
}

func TestNewSecret(t *testing.T) {
	s, err := webhooks.NewSecret(make([]byte, 32))
	require.NoError(t, err)
	assert.Regexp(t, `^whsec_[A-Za-z0-9_-]{43}$`, s)
	_, err = webhooks.NewSecret(make([]byte, 31))
	assert.Error(t, err)
}

func TestRender(t *testing.T) {
	avail, _ := money.Parse(money.MWK, "994718.00")
	env := webhooks.Envelope{
		ID: "e1", EventType: webhooks.PayoutSucceeded,
		CreatedAt: time.Date(2026, 11, 21, 18, 0, 0, 5_000_000, time.UTC),
		Balance:   webhooks.Balance{Available: avail, Held: money.Zero(money.MWK), Currency: "MWK"},
		Data:      json.RawMessage(`{"id":"p1","amount_mwk":"5000.00"}`),
	}
	b, err := env.Render()
	require.NoError(t, err)
	assert.Equal(t, `{"id":"e1","event_type":"payout.succeeded","created_at":"2026-11-21T18:00:00.005Z","balance":{"available":994718.00,"held":0.00,"currency":"MWK"},"data":{"id":"p1","amount_mwk":"5000.00"}}`, string(b))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	_, isNumber := m["balance"].(map[string]any)["available"].(float64)
	assert.True(t, isNumber, "balance figures are JSON numbers")
	env.Data = json.RawMessage(`{`)
	_, err = env.Render()
	assert.Error(t, err)
}

func TestDeliverySchedule(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := webhooks.Delivery{State: webhooks.Pending, NextAt: start}
	now := start
	var waits []time.Duration
	for _, code := range []int{500, 0, 302, 404, 503} {
		next, err := d.Record(now, code, webhooks.DefaultSchedule, 0)
		require.NoError(t, err)
		require.Equal(t, webhooks.Pending, next.State, "failure %d is retried", code)
		waits = append(waits, next.NextAt.Sub(now))
		now, d = next.NextAt, next
	}
	assert.Equal(t, webhooks.DefaultSchedule, waits)
	total := time.Duration(0)
	for _, w := range waits {
		total += w
	}
	assert.InDelta(t, 6*time.Hour, total, float64(10*time.Minute), "about 6 hours in all")
	dead, err := d.Record(now, 500, webhooks.DefaultSchedule, 0)
	require.NoError(t, err)
	assert.Equal(t, webhooks.Dead, dead.State, "dead after 1 attempt and 5 retries")
	assert.Equal(t, 6, dead.Attempts)
	_, err = dead.Record(now, 200, webhooks.DefaultSchedule, 0)
	assert.ErrorIs(t, err, webhooks.ErrNotPending)
	again, err := dead.Redeliver(now)
	require.NoError(t, err)
	assert.Equal(t, webhooks.Pending, again.State)
	ok, err := again.Record(now, 204, webhooks.DefaultSchedule, 0)
	require.NoError(t, err)
	assert.Equal(t, webhooks.Delivered, ok.State)
	_, err = ok.Redeliver(now)
	assert.Error(t, err)
}

func TestJitter(t *testing.T) {
	d := webhooks.Delivery{State: webhooks.Pending}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, j := range []float64{0, 0.25, 0.999} {
		next, err := d.Record(now, 500, webhooks.DefaultSchedule, j)
		require.NoError(t, err)
		wait := next.NextAt.Sub(now)
		assert.GreaterOrEqual(t, wait, time.Minute)
		assert.LessOrEqual(t, wait, time.Minute+6*time.Second)
	}
}

func ExampleVerify() {
	body := []byte(`{"id":"evt_1"}`)
	sig := webhooks.Sign("whsec_old", body)
	// During a rotation a receiver accepts either secret.
	fmt.Println(webhooks.Verify(body, sig, "whsec_new", "whsec_old"))
	// Output: true
}
