package tambala_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// fundedPrincipal creates an organization funded with balance MWK and
// returns its principal.
func fundedPrincipal(t *testing.T, e *tambala.Engine, balance string) tambala.Principal {
	t.Helper()
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Racer"})
	require.NoError(t, err)
	amt, err := money.Parse(money.MWK, balance)
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, amt, "start"))
	return actFor(e, org.ID)
}

// TestPayoutsRaceForOneBalance: many payouts race for one balance; exactly
// as many as fit are accepted, the rest are insufficient_funds, and the
// holds never exceed the balance.
func TestPayoutsRaceForOneBalance(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		s := st
		e, err := tambala.New(s, nil)
		require.NoError(t, err)
		p := fundedPrincipal(t, e, "10000.00")
		// Each payout of 500.00 momo debits 500 + 200 + 4.00 + 35.70 = 739.70.
		q, err := e.Client(p).V1().QuoteFee(context.Background(), payouts.DirPayout, payouts.Momo, money.FromInt(money.MWK, 500))
		require.NoError(t, err)
		require.Equal(t, "739.70", q.TotalDebit.String())
		const racers = 60
		want := 13 // floor(10000 / 739.70)
		var wg sync.WaitGroup
		results := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"amount_mwk":500,"institution_id":101,"mobile_number":"2659%08d","beneficiary_name":"R"}`, i)
				_, results[i] = createFromBody(context.Background(), e, p, payouts.Momo, fmt.Sprint("k", i), []byte(body))
			}()
		}
		wg.Wait()
		accepted := 0
		for _, err := range results {
			if err == nil {
				accepted++
				continue
			}
			assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err), err.Error())
		}
		assert.Equal(t, want, accepted)
		b, err := e.Client(p).V1().Balance(context.Background())
		require.NoError(t, err)
		assert.Equal(t, money.FromUnits(money.MWK, int64(want)*73970).String(), b.Held.String())
		total, _ := b.Available.Add(b.Held)
		assert.Equal(t, "10000.00", total.String())
		assert.GreaterOrEqual(t, b.Available.Sign(), 0)
		require.NoError(t, ledger.CheckStore(context.Background(), s))
		page, err := e.Client(p).V1().Payouts(context.Background(), tambala.PageRequest{Limit: 200}, tambala.PayoutFilter{})
		require.NoError(t, err)
		assert.Len(t, page.Items, want)
	})
}

// TestPayoutRejectionHoldsNothing: a rejected payout creates nothing and
// holds nothing, and its key can be used again after the fix.
func TestPayoutRejectionHoldsNothing(t *testing.T) {
	s := memstore.New()
	e, err := tambala.New(s, nil)
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "1000.00")
	ctx := context.Background()
	bad := []byte(`{"amount_mwk":5000,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"R"}`)
	_, err = createFromBody(ctx, e, p, payouts.Momo, "k", bad)
	assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))
	good := []byte(`{"amount_mwk":500,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"R"}`)
	out, err := createFromBody(ctx, e, p, payouts.Momo, "k", good)
	require.NoError(t, err)
	assert.Equal(t, 202, out.Status)
	assert.False(t, out.Replayed)
	again, err := createFromBody(ctx, e, p, payouts.Momo, "k", good)
	require.NoError(t, err)
	assert.True(t, again.Replayed)
	assert.Equal(t, out.Body, again.Body)
	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "739.70", b.Held.String())
	require.NoError(t, ledger.CheckStore(ctx, s))
}

// TestPayoutLimits: per-payout maximum, hourly count and daily volume.
func TestPayoutLimits(t *testing.T) {
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	ctx := context.Background()
	p := fundedPrincipal(t, e, "100000.00")
	org, err := e.Operator().SetPayoutLimits(ctx, p.Org.ID, tambala.PayoutLimits{MaxPerPayoutMWK: mustParse(money.MWK, "5000.00"), DailyVolumeMWK: mustParse(money.MWK, "12000.00"), HourlyCount: 3})
	require.NoError(t, err)
	p.Org = org
	body := func(amount int) []byte {
		return []byte(fmt.Sprintf(`{"amount_mwk":%d,"institution_id":1,"account_number":"3333888800","beneficiary_name":"R"}`, amount))
	}
	_, err = createFromBody(ctx, e, p, payouts.Bank, "a", body(5001))
	assert.Equal(t, errcode.AmountLimitExceeded, errcode.Of(err))
	for i, amt := range []int{5000, 5000} {
		_, err = createFromBody(ctx, e, p, payouts.Bank, fmt.Sprint("ok", i), body(amt))
		require.NoError(t, err)
	}
	_, err = createFromBody(ctx, e, p, payouts.Bank, "vol", body(2001))
	assert.Equal(t, errcode.OrgLimitExceeded, errcode.Of(err), "24h volume 10000 + 2001 > 12000")
	_, err = createFromBody(ctx, e, p, payouts.Bank, "third", body(2000))
	require.NoError(t, err)
	_, err = createFromBody(ctx, e, p, payouts.Bank, "fourth", body(1))
	assert.Equal(t, errcode.OrgLimitExceeded, errcode.Of(err), "hourly count 3")
}

// TestPayoutRateUnavailable: a payout whose fee cannot be priced is 503
// rate_unavailable and holds nothing.
func TestPayoutRateUnavailable(t *testing.T) {
	fees := payouts.DefaultFeeSchedule()
	delete(fees.Convenience, payouts.Bank) // the provider publishes no bank price
	s := memstore.New()
	e, err := tambala.New(s, &tambala.Options{Fees: &fees})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "10000.00")
	ctx := context.Background()
	_, err = createFromBody(ctx, e, p, payouts.Bank, "k", []byte(`{"amount_mwk":100,"institution_id":1,"account_number":"3333888800","beneficiary_name":"B"}`))
	assert.Equal(t, errcode.RateUnavailable, errcode.Of(err))
	assert.Equal(t, 503, httpapi.Status(errcode.Of(err)))
	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.00", b.Held.String())
	page, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	// The momo rail still prices.
	_, err = createFromBody(ctx, e, p, payouts.Momo, "k2", []byte(`{"amount_mwk":100,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"B"}`))
	assert.NoError(t, err)
	require.NoError(t, ledger.CheckStore(ctx, s))
}

// bodyOutcome is what the HTTP binding makes of a create: the status and
// the bytes it would answer.
type bodyOutcome struct {
	Status   int
	Body     []byte
	Replayed bool
	Payout   payouts.Payout
}

// createFromBody creates a payout from a request body the way the HTTP
// binding does: the fingerprint is the body's SHA-256, a body that does
// not decode goes through RefuseCreate, and the payout is rendered with
// the one renderer. The binding's strict decoder is its own
// (adapters/httpapi); here the body reads as a Go host would build the
// Request (requestFromBody), and the engine's validation answers.
func createFromBody(ctx context.Context, e *tambala.Engine, p tambala.Principal, rail payouts.Rail, key string, body []byte) (bodyOutcome, error) {
	idem := tambala.Idempotency{Key: key, Fingerprint: bodyFingerprint(body)}
	req, err := requestFromBody(rail, body)
	if err != nil {
		return bodyOutcome{}, tambala.GateOf(e).RefuseCreate(ctx, e.Client(p), tambala.PayoutOperation(rail), idem, err)
	}
	c, err := e.Client(p).V1().CreatePayout(ctx, req, idem)
	if err != nil {
		return bodyOutcome{}, err
	}
	return bodyOutcome{Status: 202, Body: render.Payout(c.Resource), Replayed: c.Replayed, Payout: c.Resource}, nil
}

// requestFromBody reads a create-payout body into a Request plainly:
// amount_mwk through money.ParseJSON, the other fields as they stand. The
// engine validates the values (payouts.Request.Validate).
func requestFromBody(rail payouts.Rail, body []byte) (payouts.Request, error) {
	var w struct {
		AmountMWK       json.RawMessage `json:"amount_mwk"`
		InstitutionID   int             `json:"institution_id"`
		AccountNumber   string          `json:"account_number"`
		MobileNumber    string          `json:"mobile_number"`
		BeneficiaryName string          `json:"beneficiary_name"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return payouts.Request{}, errcode.Wrap(errcode.ValidationError, err)
	}
	amt, err := money.ParseJSON(money.MWK, w.AmountMWK)
	if err != nil {
		return payouts.Request{}, errcode.Wrap(errcode.ValidationError, err)
	}
	return payouts.Request{Rail: rail, Amount: amt, Destination: payouts.Destination{InstitutionID: w.InstitutionID,
		AccountNumber: w.AccountNumber, MobileNumber: w.MobileNumber, BeneficiaryName: w.BeneficiaryName}}, nil
}

// payoutBytes renders a payout read as the HTTP binding does.
func payoutBytes(p payouts.Payout, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return render.Payout(p), nil
}

func mustParse(a money.Asset, s string) money.Amount {
	v, err := money.Parse(a, s)
	if err != nil {
		panic(err)
	}
	return v
}

// actFor is the engine's Principal for orgID, as a host that trusts its
// own users gets it (Act); it panics on error, so tests may call it from
// any goroutine.
func actFor(e *tambala.Engine, orgID string) tambala.Principal {
	p, err := e.Act(context.Background(), orgID)
	if err != nil {
		panic(err)
	}
	return p
}

// bodyFingerprint is the fingerprint the HTTP binding gives a body.
func bodyFingerprint(body []byte) tambala.Fingerprint { return sha256.Sum256(body) }
