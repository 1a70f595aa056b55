package tambala_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/webhooks"
)

// TestPendingDeliveryFollowsReplacedURL: replacing a broken endpoint
// rescues the deliveries still pending; they keep their bytes and secret.
func TestPendingDeliveryFollowsReplacedURL(t *testing.T) {
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer broken.Close()
	var mu sync.Mutex
	var got [][]byte
	var sigs []string
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, sigs = append(got, b), append(sigs, r.Header.Get("Signature"))
		mu.Unlock()
	}))
	defer good.Close()

	clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e, err := tambala.New(memstore.New(), &tambala.Options{Clock: clock.Now, Webhooks: webhookhttp.NewSender(nil)})
	require.NoError(t, err)
	ctx := context.Background()
	p := fundedPrincipal(t, e, "10.00")
	_, oldSecret, err := e.Operator().SetWebhookEndpoint(ctx, p.Org.ID, broken.URL)
	require.NoError(t, err)
	_, err = e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 100)})
	require.NoError(t, err)
	_, err = e.Work().ProcessDeliveries(ctx)
	require.NoError(t, err)

	_, newSecret, err := e.Operator().SetWebhookEndpoint(ctx, p.Org.ID, good.URL)
	require.NoError(t, err)
	clock.Advance(2 * time.Minute)
	_, err = e.Work().ProcessDeliveries(ctx)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	assert.True(t, webhooks.Verify(got[0], sigs[0], oldSecret), "signed with the secret it was created with")
	assert.False(t, webhooks.Verify(got[0], sigs[0], newSecret))
	page, err := e.Operator().Deliveries(ctx, p.Org.ID, tambala.PageRequest{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, webhooks.Delivered, page.Items[0].State)
	assert.Equal(t, string(got[0]), page.Items[0].Body, "identical bytes")
}
