package httpapi_test

import (
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
)

// TestGolden_TwoInstances runs the whole golden scenario against two
// instances over one PostgreSQL schema, each an engine with its own
// connection pool and its own handlers, as two server processes behind a
// load balancer are: every request of the public and admin APIs goes to
// the other instance than the one before, and so does every worker pass
// (payouts, conversions, orders, deliveries). The transcript, the webhook
// sends and the store must be the golden files' bytes, exactly: whichever
// instance answers, a client sees one service. Nothing an instance keeps
// in memory (caches of organizations, keys, settings) may answer
// differently from the store.
func TestGolden_TwoInstances(t *testing.T) {
	if *updateGolden {
		t.Skip("TestGolden writes the golden files; this test only compares")
	}
	a, b := teststores.Pgstore(nil).OpenTwo(t)
	g := newGoldenEnvOn(t, tambala.Sandbox, tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000}, a, b)
	orgs := goldenSetup(g)
	goldenV1(g, orgs)
	goldenOrders(g, orgs)
	goldenConversions(g, orgs)
	goldenPayoutsV2(g, orgs)
	goldenCollectionsV2(g, orgs)
	goldenAdmin(g, orgs)
	g.checkFiles()
	checkGolden(t, "webhooks.golden", g.dumpWebhooks([]string{orgs.a, orgs.b, orgs.c}, goldenEventTypes))
	checkGolden(t, "store.golden", g.dumpStore())
	if err := ledger.CheckStore(t.Context(), a); err != nil {
		t.Error(err)
	}
	if g.served[0] < g.n/3 || g.served[1] < g.n/3 {
		t.Errorf("the exchanges did not alternate: %v", g.served)
	}
	t.Logf("%d exchanges and %d worker passes, alternating between two instances", g.n, g.passes)
}
