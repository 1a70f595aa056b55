package tambala_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// maxAcceptAllocs bounds the allocations of one /v1 payout accept through
// the engine on memstore (CreatePayout with a typed request and a caller's
// fingerprint, as the HTTP binding makes it): the count measured when it
// was set, plus 2. Raise it only for an allocation a change needs and
// says why; issue #38 took it from 77 to 19.
const maxAcceptAllocs = 21

// TestPayoutAcceptAllocs holds the engine's accept to maxAcceptAllocs, so
// that allocations per accept cannot silently grow back.
func TestPayoutAcceptAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts; this guard runs without -race")
	}
	e, err := tambala.New(memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Allocs"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Operator().SetPayoutLimits(ctx, org.ID, tambala.PayoutLimits{DailyVolumeMWK: money.FromInt(money.MWK, 1_000_000_000_000), HourlyCount: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000_000_000), "allocs"); err != nil {
		t.Fatal(err)
	}
	v1 := e.Client(actFor(e, org.ID)).V1()
	req := payouts.Request{Rail: payouts.Momo, Amount: mustParse(money.MWK, "1500.00"),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Allocs"}}
	const warm, runs = 200, 400
	// Every accept has a key of its own, made before it is measured.
	keys := make([]string, warm+runs+1)
	for i := range keys {
		keys[i] = "allocs-" + strconv.Itoa(i)
	}
	n := 0
	accept := func() {
		c, err := v1.CreatePayout(ctx, req, tambala.Idempotency{Key: keys[n], Fingerprint: tambala.Fingerprint{1}})
		n++
		if err != nil || c.Replayed {
			t.Fatalf("accept %d: replayed %v, %v", n, c.Replayed, err)
		}
	}
	// Warm up: the engine's caches, the pools, the store's buckets.
	for range warm {
		accept()
	}
	if got := testing.AllocsPerRun(runs, accept); got > maxAcceptAllocs {
		t.Errorf("a payout accept allocates %v times, more than %d", got, maxAcceptAllocs)
	} else {
		t.Logf("a payout accept allocates %v times (at most %d)", got, maxAcceptAllocs)
	}
}
