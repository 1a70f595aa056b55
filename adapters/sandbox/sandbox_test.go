package sandbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func sub(ref, wallet string) tambala.PayoutSubmission {
	return tambala.PayoutSubmission{Reference: ref, Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: wallet, BeneficiaryName: "T"}}
}

func TestOutcomes(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := sandbox.New(&sandbox.Options{Clock: c.now, Delay: time.Second})
	fee := money.FromInt(money.MWK, 7)
	p.ScriptDestination("111100000221", sandbox.Outcome{Fail: "provider_unavailable"})
	cases := []struct {
		ref, wallet string
		script      *sandbox.Outcome
		want        tambala.ProviderStatus
	}{
		{"ok", "111100000112", nil, tambala.ProviderStatus{State: tambala.ProviderSucceeded, Fee: money.FromUnits(money.MWK, 28200)}},
		{"stranger", "265991234567", nil, tambala.ProviderStatus{State: tambala.ProviderFailed, FailureCode: "recipient_account_invalid"}},
		{"by-dest", "111100000221", nil, tambala.ProviderStatus{State: tambala.ProviderFailed, FailureCode: "provider_unavailable"}},
		{"fee", "111100000330", &sandbox.Outcome{Fee: &fee}, tambala.ProviderStatus{State: tambala.ProviderSucceeded, Fee: fee}},
		{"nofee", "111100000330", &sandbox.Outcome{NoFee: true}, tambala.ProviderStatus{State: tambala.ProviderSucceeded}},
		{"claw", "111100000330", &sandbox.Outcome{Clawback: true, NoFee: true}, tambala.ProviderStatus{State: tambala.ProviderReversed}},
	}
	for _, tc := range cases {
		if tc.script != nil {
			p.ScriptPayout(tc.ref, *tc.script)
		}
		require.NoError(t, p.Submit(ctx, sub(tc.ref, tc.wallet)))
		st, err := p.Status(ctx, tc.ref)
		require.NoError(t, err)
		assert.Equal(t, tambala.ProviderPending, st.State, "pending until the delay passed")
	}
	c.t = c.t.Add(time.Second)
	for _, tc := range cases {
		st, err := p.Status(ctx, tc.ref)
		require.NoError(t, err)
		assert.Equal(t, tc.want.State, st.State, tc.ref)
		assert.Equal(t, tc.want.FailureCode, st.FailureCode, tc.ref)
		if !tc.want.Fee.IsSet() {
			assert.False(t, st.Fee.IsSet(), tc.ref)
		} else {
			require.True(t, st.Fee.IsSet(), tc.ref)
			assert.Equal(t, tc.want.Fee.String(), st.Fee.String(), tc.ref)
		}
	}
	_, err := p.Status(ctx, "never")
	assert.ErrorIs(t, err, tambala.ErrUnknownReference)
}

func TestIdempotentSubmitAndTimeouts(t *testing.T) {
	ctx := context.Background()
	p := sandbox.New(&sandbox.Options{Delay: time.Nanosecond})
	p.ScriptPayout("r", sandbox.Outcome{TimeoutSubmits: 2, TimeoutStatus: 1})
	assert.ErrorIs(t, p.Submit(ctx, sub("r", "111100000112")), sandbox.ErrTimeout)
	assert.ErrorIs(t, p.Submit(ctx, sub("r", "111100000112")), sandbox.ErrTimeout)
	assert.NoError(t, p.Submit(ctx, sub("r", "111100000112")))
	assert.NoError(t, p.Submit(ctx, sub("r", "111100000112")))
	assert.Equal(t, 4, p.SubmitCalls("r"))
	assert.Equal(t, 1, p.Payments("r"), "accepted once, whatever the retries")
	_, err := p.Status(ctx, "r")
	assert.ErrorIs(t, err, sandbox.ErrTimeout)
	time.Sleep(time.Millisecond)
	st, err := p.Status(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, tambala.ProviderSucceeded, st.State)
	assert.Equal(t, 0, p.Payments("other"))
}

func ptr(a money.Amount) *money.Amount { return &a }

func Example() {
	ctx := context.Background()
	p := sandbox.New(&sandbox.Options{Delay: time.Nanosecond})
	_ = p.Submit(ctx, sub("payout-1", "111100000112"))
	time.Sleep(time.Millisecond)
	st, _ := p.Status(ctx, "payout-1")
	fmt.Println(st.State, st.Fee)
	// Output: succeeded 282.00
}
