package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// ErrTimeout is what a scripted timeout returns from Submit or Status.
var ErrTimeout = errors.New("sandbox: provider timed out")

// Bucket is the store bucket that holds the provider's submissions, one
// record per reference.
const Bucket = "sandbox.submissions"

var bucket = []byte(Bucket)

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
	subs  submissions
	now   func() time.Time
	delay time.Duration
	fees  payouts.FeeSchedule

	mu       sync.Mutex // guards the maps below, which are this process's only
	byDest   map[string]Outcome
	byRef    map[string]Outcome
	timeouts map[string]*timeouts // scripted timeouts not yet spent, by reference
	calls    map[string]int
}

// timeouts are the scripted timeouts of one reference still to come.
type timeouts struct{ submits, status int }

var _ tambala.PayoutProvider = (*Provider)(nil)

// Options configure a Provider; nil takes the defaults.
type Options struct {
	Clock func() time.Time     // default time.Now
	Delay time.Duration        // time to an outcome; default 2s
	Fees  *payouts.FeeSchedule // default payouts.DefaultFeeSchedule
	// Store keeps the submissions, in Bucket, so that a Provider over the
	// same store after a restart answers for the payouts submitted before
	// it: same outcome, same fee, same time to it, and never a second
	// payment. Give it the engine's store. Nil keeps them in this
	// Provider's memory only.
	Store store.Store
}

// New returns a provider.
func New(o *Options) *Provider {
	p := &Provider{now: time.Now, delay: 2 * time.Second, fees: payouts.DefaultFeeSchedule(),
		byDest: map[string]Outcome{}, byRef: map[string]Outcome{}, timeouts: map[string]*timeouts{}, calls: map[string]int{}}
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
		if o.Store != nil {
			p.subs = storeSubmissions{o.Store}
		}
	}
	if p.subs == nil {
		p.subs = &memSubmissions{m: map[string]record{}}
	}
	return p
}

// ScriptDestination sets the outcome of payouts to an account number or
// mobile number submitted from now on.
func (p *Provider) ScriptDestination(dest string, o Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byDest[dest] = o
}

// ScriptPayout sets the outcome of one payout, by its id (the reference).
// For a payout already submitted it replaces the outcome decided then (in
// the Store too, keeping the time it is due) and its scripted timeouts.
// Scripts are test hooks: a store error here panics.
func (p *Provider) ScriptPayout(ref string, o Outcome) {
	p.mu.Lock()
	p.byRef[ref] = o
	p.mu.Unlock()
	if ref == "" {
		return
	}
	found, err := p.subs.replace(context.Background(), ref, func(rec record) (record, error) {
		amount, err := rec.Amount.amount()
		if err != nil {
			return record{}, err
		}
		return p.decide(rec.Rail, amount, o, rec.At, rec.Due), nil
	})
	if err != nil {
		panic(fmt.Sprintf("sandbox: ScriptPayout(%q): %v", ref, err))
	}
	if found {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.setTimeouts(ref, o)
	}
}

// Payments reports how many times ref was accepted for payment: never more
// than once, however often it was submitted, and across restarts when the
// submissions are in a Store. It is a test hook: a store error panics.
func (p *Provider) Payments(ref string) int {
	if ref == "" {
		return 0
	}
	_, ok, err := p.subs.get(context.Background(), ref)
	if err != nil {
		panic(fmt.Sprintf("sandbox: Payments(%q): %v", ref, err))
	}
	if ok {
		return 1
	}
	return 0
}

// SubmitCalls reports how many times Submit was called for ref on this
// Provider.
func (p *Provider) SubmitCalls(ref string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[ref]
}

// TestWalletAddresses are the sandbox's payable blockchain addresses for
// /v2 wallet payouts, by network id: valid TRON (base58check, version
// 0x41, payloads of 0x11, 0x22 and 0x33 bytes) and EVM (all lower case,
// so valid under EIP-55) addresses that belong to nobody. A wallet payout
// to any other address fails with recipient_account_invalid. Scripting
// by destination (ScriptDestination) takes the address.
var TestWalletAddresses = map[string][]string{
	Tron: {
		TestTronAddress,
		"TD5gsCwxykWsLN9aPrq2TAfNjByuZKYp4E",
		"TEdvoHEatmDKvTh3o9vBRB9Vdtbhn4QFhy",
	},
	Ethereum: {
		TestEthereumAddress,
		"0x2222222222222222222222222222222222222222",
		"0x3333333333333333333333333333333333333333",
	},
}

func dest(s tambala.PayoutSubmission) string {
	d := s.Destination
	if s.Address != "" {
		return s.Address
	}
	if d.AccountNumber != "" {
		return d.AccountNumber
	}
	return d.MobileNumber
}

func payable(s tambala.PayoutSubmission) bool {
	if s.Rail == tambala.RailWallet {
		return slices.Contains(TestWalletAddresses[s.Network], s.Address)
	}
	d := s.Destination
	return slices.Contains(tambala.SandboxBankAccounts, d.AccountNumber) || slices.Contains(tambala.SandboxWallets, d.MobileNumber)
}

// script returns the outcome scripted for s: by reference, else by
// destination, else success for a test destination and
// recipient_account_invalid for any other. p.mu is held.
func (p *Provider) script(s tambala.PayoutSubmission) Outcome {
	if o, ok := p.byRef[s.Reference]; ok {
		return o
	}
	if o, ok := p.byDest[dest(s)]; ok {
		return o
	}
	if !payable(s) {
		return Outcome{Fail: string(payouts.RecipientAccountInvalid)}
	}
	return Outcome{}
}

// setTimeouts arms the scripted timeouts of o for ref. p.mu is held.
func (p *Provider) setTimeouts(ref string, o Outcome) {
	if o.TimeoutSubmits > 0 || o.TimeoutStatus > 0 {
		p.timeouts[ref] = &timeouts{submits: o.TimeoutSubmits, status: o.TimeoutStatus}
	} else {
		delete(p.timeouts, ref)
	}
}

// spend uses up one scripted timeout of ref, of Submit or of Status, and
// reports whether there was one. p.mu is held.
func (p *Provider) spend(ref string, submit bool) bool {
	t := p.timeouts[ref]
	if t == nil {
		return false
	}
	n := &t.status
	if submit {
		n = &t.submits
	}
	if *n == 0 {
		return false
	}
	*n--
	if t.submits == 0 && t.status == 0 {
		delete(p.timeouts, ref)
	}
	return true
}

var errNoReference = errors.New("sandbox: a submission needs a reference")

// Submit accepts a payout once per reference. The first accepted submission
// fixes the payout's outcome and the time it is due; later ones, also by
// another Provider over the same Store, change nothing.
func (p *Provider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.Reference == "" {
		return errNoReference
	}
	p.mu.Lock()
	p.calls[s.Reference]++
	o := p.script(s)
	if s.Rail == tambala.RailWallet && o.Fee == nil {
		o.NoFee = true // the fee schedule prices bank and momo only
	}
	now := p.now()
	p.mu.Unlock()

	created, err := p.subs.accept(ctx, s.Reference, func() record { return p.decide(s.Rail, s.Amount, o, now, now.Add(p.delay)) })
	if err != nil {
		return err // nothing was accepted; the engine submits again
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if created {
		p.setTimeouts(s.Reference, o)
	}
	if p.spend(s.Reference, true) {
		return ErrTimeout
	}
	return nil
}

// Status reports pending until the delay has passed since the first
// accepted submission, then the outcome decided at that submission. Both
// the outcome and the time it is due were fixed then, under the options of
// the Provider that accepted it.
func (p *Provider) Status(ctx context.Context, ref string) (tambala.ProviderStatus, error) {
	if err := ctx.Err(); err != nil {
		return tambala.ProviderStatus{}, err
	}
	if ref == "" {
		return tambala.ProviderStatus{}, tambala.ErrUnknownReference
	}
	rec, ok, err := p.subs.get(ctx, ref)
	if err != nil {
		return tambala.ProviderStatus{}, err
	}
	if !ok {
		return tambala.ProviderStatus{}, tambala.ErrUnknownReference
	}
	p.mu.Lock()
	timedOut := p.spend(ref, false)
	now := p.now()
	p.mu.Unlock()
	if timedOut {
		return tambala.ProviderStatus{}, ErrTimeout
	}
	if now.Before(rec.Due) {
		return tambala.ProviderStatus{State: tambala.ProviderPending}, nil
	}
	return rec.status()
}
