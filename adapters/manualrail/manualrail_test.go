package manualrail_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/manualrail"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func sub(ref string) tambala.PayoutSubmission {
	return tambala.PayoutSubmission{Reference: ref, Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}}
}

// The provider on its own: every submission is accepted, again and again,
// and every status is pending; it never reports an outcome.
func TestProvider(t *testing.T) {
	ctx := context.Background()
	p := manualrail.New(nil)
	for range 3 {
		require.NoError(t, p.Submit(ctx, sub("payout-1")), "idempotent per reference")
	}
	assert.Error(t, p.Submit(ctx, sub("")), "a submission needs a reference")
	for _, ref := range []string{"payout-1", "payout-2"} {
		st, err := p.Status(ctx, ref)
		require.NoError(t, err)
		assert.Equal(t, tambala.ProviderStatus{State: tambala.ProviderPending}, st, ref)
	}
}

// events records the events the engine hands over.
type events struct {
	mu  sync.Mutex
	got []tambala.Event
}

func (e *events) HandleEvent(_ context.Context, ev tambala.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
	return nil
}

func (e *events) types(payout string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.got {
		if ev.Payout != nil && ev.Payout.ID == payout {
			out = append(out, ev.Type)
		}
	}
	return out
}

type env struct {
	engine *tambala.Engine
	p      tambala.Principal
	events *events
	now    time.Time
}

// newEnv is a production engine over memstore with the manual rail, one
// institution and one organization funded with 100000.00 MWK.
func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	s := memstore.New()
	en := &env{events: &events{}, now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Environment: tambala.Production, Payouts: manualrail.New(nil),
		Events: en.events, Clock: func() time.Time { return en.now }})
	require.NoError(t, err)
	en.engine = e
	require.NoError(t, e.Operator().SyncInstitutions(ctx, []payouts.Institution{{ID: 101, Name: "Airtel Money", Rail: payouts.Momo, Network: "9"}}))
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"))
	en.p, err = e.Act(ctx, org.ID)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, ledger.CheckStore(context.Background(), s))
		require.NoError(t, s.Close())
	})
	return en
}

func (en *env) payout(t *testing.T, key string) payouts.Payout {
	t.Helper()
	c, err := en.engine.Client(en.p).V1().CreatePayout(context.Background(), payouts.Request{Rail: payouts.Momo,
		Amount:      money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}},
		tambala.Idempotency{Key: key})
	require.NoError(t, err)
	return c.Resource
}

// passes runs n worker passes an hour apart, then hands the events over.
func (en *env) passes(t *testing.T, n int) {
	t.Helper()
	for range n {
		_, err := en.engine.Work().ProcessPayouts(context.Background())
		require.NoError(t, err)
		en.now = en.now.Add(time.Hour)
	}
	_, err := en.engine.Work().ProcessEvents(context.Background())
	require.NoError(t, err)
}

func (en *env) status(t *testing.T, id string) payouts.Payout {
	t.Helper()
	p, err := en.engine.Client(en.p).V1().Payout(context.Background(), id)
	require.NoError(t, err)
	return p
}

func (en *env) balance(t *testing.T) ledger.Balance {
	t.Helper()
	b, err := en.engine.Client(en.p).V1().Balance(context.Background())
	require.NoError(t, err)
	return b
}

// In production with the manual rail, an accepted payout stays pending
// through worker passes; the staff's outcome, recorded through
// ResolvePayout, finishes it as the worker would: succeeded captures the
// hold with the fee given, failed releases it whole.
func TestWithEngine(t *testing.T) {
	ctx := context.Background()
	en := newEnv(t)
	paid, bounced := en.payout(t, "order-1"), en.payout(t, "order-2")
	assert.Equal(t, payouts.Held, paid.Status)
	en.passes(t, 5)
	for _, id := range []string{paid.ID, bounced.ID} {
		assert.Equal(t, payouts.Pending, en.status(t, id).Status, "pending until the staff record the outcome")
	}
	b := en.balance(t)
	assert.Equal(t, "10564.00", b.Held.String(), "two holds of 5000.00 and the 282.00 fee")
	assert.Equal(t, "89436.00", b.Available.String())

	// The queue is the list of payouts in flight.
	inFlight, err := en.engine.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
	require.NoError(t, err)
	require.Len(t, inFlight, 2)
	assert.ElementsMatch(t, []string{paid.ID, bounced.ID}, []string{inFlight[0].Payout.ID, inFlight[1].Payout.ID})

	fee := money.FromInt(money.MWK, 250)
	done, err := en.engine.Operator().BackOffice().ResolvePayout(ctx, paid.ID, tambala.Resolution{Outcome: payouts.Succeeded, Fee: fee,
		Reason: "Paid through the operator's portal.", Reference: "  MP240311.1523.A12345  "})
	require.NoError(t, err)
	assert.Equal(t, payouts.Succeeded, done.Status)
	require.NotNil(t, done.Fee)
	assert.Equal(t, "250.00", done.Fee.String(), "the fee the staff gave is charged")
	failed, err := en.engine.Operator().BackOffice().ResolvePayout(ctx, bounced.ID, tambala.Resolution{Outcome: payouts.Failed,
		FailureCode: payouts.RecipientAccountInvalid, Reason: "The operator's portal rejected the number."})
	require.NoError(t, err)
	assert.Equal(t, payouts.Failed, failed.Status)

	en.passes(t, 3) // the worker leaves them alone
	assert.Equal(t, payouts.Succeeded, en.status(t, paid.ID).Status)
	assert.Equal(t, payouts.Failed, en.status(t, bounced.ID).Status)
	b = en.balance(t)
	assert.Equal(t, "0.00", b.Held.String())
	assert.Equal(t, "94750.00", b.Available.String(), "5000.00 and the 250.00 fee paid; the failed hold released whole")
	assert.Equal(t, []string{"payout.succeeded"}, en.events.types(paid.ID))
	assert.Equal(t, []string{"payout.failed"}, en.events.types(bounced.ID))
	inFlight, err = en.engine.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
	require.NoError(t, err)
	assert.Empty(t, inFlight)

	// The audit entry names the provider's reference, trimmed.
	page, err := en.engine.People().AuditTrail(ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.AuditFilter{})
	require.NoError(t, err)
	var summaries []string
	for _, a := range page.Items {
		if a.Action == tambala.AuditPayoutResolved {
			summaries = append(summaries, a.Summary)
		}
	}
	assert.ElementsMatch(t, []string{
		`status pending -> succeeded, reason "Paid through the operator's portal.", fee charged 250.00 MWK, provider reference "MP240311.1523.A12345"`,
		`status pending -> failed, reason "The operator's portal rejected the number.", failure code recipient_account_invalid`,
	}, summaries)
}

// The provider's reference is optional, at most 100 bytes once trimmed,
// and holds no control or invisible format character.
func TestResolutionReference(t *testing.T) {
	ctx := context.Background()
	en := newEnv(t)
	id := en.payout(t, "order-1").ID
	en.passes(t, 1)
	for name, ref := range map[string]string{
		"too long":            strings.Repeat("R", 101),
		"a control character": "MP24\n0311",
		"a zero-width space":  "MP24\u200b0311",
	} {
		_, err := en.engine.Operator().BackOffice().ResolvePayout(ctx, id, tambala.Resolution{Outcome: payouts.Succeeded, Reason: "paid", Reference: ref})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), name)
	}
	assert.Equal(t, payouts.Pending, en.status(t, id).Status, "a refused resolution changes nothing")
	_, err := en.engine.Operator().BackOffice().ResolvePayout(ctx, id, tambala.Resolution{Outcome: payouts.Succeeded, Reason: "paid",
		Reference: " " + strings.Repeat("R", 100) + " "})
	require.NoError(t, err, "100 bytes once trimmed")
}

// Production with the manual rail: the payout waits, pending, for the
// staff to pay it through the provider's own portal and record the outcome.
func Example() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, &tambala.Options{Environment: tambala.Production, Payouts: manualrail.New(nil)})
	_ = e.Operator().SyncInstitutions(ctx, []payouts.Institution{{ID: 101, Name: "Airtel Money", Rail: payouts.Momo, Network: "9"}})
	org, _ := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	_ = e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening")
	p, _ := e.Act(ctx, org.ID)
	c, err := e.Client(p).V1().CreatePayout(ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}},
		tambala.Idempotency{Key: "order-1042"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		_, _ = e.Work().ProcessPayouts(ctx) // the worker submits, then polls: pending
	}
	queue, _ := e.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
	fmt.Println(len(queue), queue[0].Payout.Status)

	// The staff paid it through the operator's portal.
	done, err := e.Operator().BackOffice().ResolvePayout(ctx, c.Resource.ID, tambala.Resolution{Outcome: payouts.Succeeded,
		Fee: money.FromInt(money.MWK, 250), Reason: "Paid through the portal.", Reference: "MP240311.1523.A12345"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.Status, done.Fee)
	// Output:
	// 1 pending
	// succeeded 250.00
}
