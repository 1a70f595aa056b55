package sandbox

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// ErrTimeout is what a scripted timeout returns from Submit or Status.
var ErrTimeout = errors.New("sandbox: provider timed out")

// Outcome scripts what happens to a payout.
type Outcome struct {
	// Fail, when set, is the failure code the provider reports (any string;
	// the engine maps unknown codes to declined).
	Fail string
	// Fee overrides the schedule's fee on success.
	Fee *money.Amount
	// NoFee reports success without a fee (the payout's fee stays null).
	NoFee bool
	// TimeoutSubmits makes that many Submit calls accept the payout and
	// then return ErrTimeout.
	TimeoutSubmits int
	// TimeoutStatus makes that many Status calls return ErrTimeout.
	TimeoutStatus int
	// Clawback reports the payout reversed after it succeeded.
	Clawback bool
}

// Provider is the simulated provider. The zero value is not usable; call New.
type Provider struct {
	mu        sync.Mutex
	now       func() time.Time
	delay     time.Duration
	fees      payouts.FeeSchedule
	byDest    map[string]Outcome
	byRef     map[string]Outcome
	submitted map[string]*submission
	calls     map[string]int
}

type submission struct {
	s       tambala.PayoutSubmission
	at      time.Time
	outcome Outcome
}

var _ tambala.PayoutProvider = (*Provider)(nil)

// Options configure a Provider; nil takes the defaults.
type Options struct {
	Clock func() time.Time     // default time.Now
	Delay time.Duration        // time to an outcome; default 2s
	Fees  *payouts.FeeSchedule // default payouts.DefaultFeeSchedule
}

// New returns a provider.
func New(o *Options) *Provider {
	p := &Provider{now: time.Now, delay: 2 * time.Second, fees: payouts.DefaultFeeSchedule(),
		byDest: map[string]Outcome{}, byRef: map[string]Outcome{}, submitted: map[string]*submission{}, calls: map[string]int{}}
	if o != nil {
		if o.Clock != nil {
			p.now = o.Clock
		}
		if o.Delay > 0 {
			p.delay = o.Delay
		}
		if o.Fees != nil {
			p.fees = *o.Fees
		}
	}
	return p
}

// ScriptDestination sets the outcome of payouts to an account number or
// mobile number.
func (p *Provider) ScriptDestination(dest string, o Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byDest[dest] = o
}

// ScriptPayout sets the outcome of one payout, by its id (the reference).
func (p *Provider) ScriptPayout(ref string, o Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byRef[ref] = o
	if s, ok := p.submitted[ref]; ok {
		s.outcome = o
	}
}

// Payments reports how many times ref was accepted for payment: never more
// than once, however often it was submitted.
func (p *Provider) Payments(ref string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.submitted[ref]; ok {
		return 1
	}
	return 0
}

// SubmitCalls reports how many times Submit was called for ref.
func (p *Provider) SubmitCalls(ref string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[ref]
}

func dest(d payouts.Destination) string {
	if d.AccountNumber != "" {
		return d.AccountNumber
	}
	return d.MobileNumber
}

func payable(d payouts.Destination) bool {
	return slices.Contains(tambala.SandboxBankAccounts, d.AccountNumber) || slices.Contains(tambala.SandboxWallets, d.MobileNumber)
}

// Submit accepts a payout once per reference.
func (p *Provider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[s.Reference]++
	sub, ok := p.submitted[s.Reference]
	if !ok {
		o, scripted := p.byRef[s.Reference]
		if !scripted {
			if o, scripted = p.byDest[dest(s.Destination)]; !scripted && !payable(s.Destination) {
				o = Outcome{Fail: string(payouts.RecipientAccountInvalid)}
			}
		}
		sub = &submission{s: s, at: p.now(), outcome: o}
		p.submitted[s.Reference] = sub
	}
	if sub.outcome.TimeoutSubmits > 0 {
		sub.outcome.TimeoutSubmits--
		return ErrTimeout
	}
	return nil
}

// Status reports pending until the delay has passed, then the outcome.
func (p *Provider) Status(ctx context.Context, ref string) (tambala.ProviderStatus, error) {
	if err := ctx.Err(); err != nil {
		return tambala.ProviderStatus{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sub, ok := p.submitted[ref]
	if !ok {
		return tambala.ProviderStatus{}, tambala.ErrUnknownReference
	}
	if sub.outcome.TimeoutStatus > 0 {
		sub.outcome.TimeoutStatus--
		return tambala.ProviderStatus{}, ErrTimeout
	}
	if p.now().Sub(sub.at) < p.delay {
		return tambala.ProviderStatus{State: tambala.ProviderPending}, nil
	}
	o := sub.outcome
	if o.Fail != "" {
		return tambala.ProviderStatus{State: tambala.ProviderFailed, FailureCode: o.Fail}, nil
	}
	st := tambala.ProviderStatus{State: tambala.ProviderSucceeded}
	if o.Clawback {
		st.State = tambala.ProviderReversed
	}
	switch {
	case o.NoFee:
	case o.Fee != nil:
		f := *o.Fee
		st.Fee = &f
	default:
		q, err := p.fees.Quote(payouts.DirPayout, sub.s.Rail, sub.s.Amount)
		if err != nil {
			return tambala.ProviderStatus{}, err
		}
		st.Fee = &q.Total
	}
	return st, nil
}
