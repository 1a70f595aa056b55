package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// record is an accepted submission as the Store keeps it, under its
// reference in Bucket: when it was first accepted, what was submitted, and
// the outcome decided then. Scripted timeouts are not in it: they are
// calls of one process failing, not part of the payout's fate.
type record struct {
	At time.Time `json:"submitted_at"`
	// Due is when the outcome is reported: the delay after At, fixed then.
	Due    time.Time    `json:"due_at"`
	Rail   payouts.Rail `json:"rail"`
	Amount amountRecord `json:"amount"`
	// Fail is the failure code; empty for a payout that succeeds.
	Fail string `json:"fail,omitempty"`
	// Fee is the fee reported on success; nil reports none.
	Fee      *amountRecord `json:"fee,omitempty"`
	Clawback bool          `json:"clawback,omitempty"`
	// FeeError is why the fee schedule could not price the payout; Status
	// answers it once the payout is due, as the provider cannot settle it.
	FeeError *errorRecord `json:"fee_error,omitempty"`
}

// amountRecord is an amount with its asset, so that it reads back whole.
type amountRecord struct {
	Value    string `json:"value"`
	Asset    string `json:"asset"`
	Decimals int32  `json:"decimals"`
}

func toAmountRecord(a money.Amount) amountRecord {
	return amountRecord{Value: a.String(), Asset: string(a.Asset().Code), Decimals: a.Asset().Decimals}
}

func (r amountRecord) amount() (money.Amount, error) {
	asset, err := money.NewAsset(money.AssetCode(r.Asset), int(r.Decimals))
	if err != nil {
		return money.Amount{}, fmt.Errorf("sandbox: stored amount: %w", err)
	}
	a, err := money.ParseSigned(asset, r.Value)
	if err != nil {
		return money.Amount{}, fmt.Errorf("sandbox: stored amount: %w", err)
	}
	return a, nil
}

// errorRecord is an error with its code, when it has one.
type errorRecord struct {
	Code    errcode.Code `json:"code,omitempty"`
	Message string       `json:"message"`
}

func toErrorRecord(err error) *errorRecord {
	var c *errcode.Error
	if errors.As(err, &c) {
		return &errorRecord{Code: c.Code, Message: errcode.Message(err)}
	}
	return &errorRecord{Message: err.Error()}
}

func (r errorRecord) err() error {
	if r.Code != "" {
		return &errcode.Error{Code: r.Code, Message: r.Message}
	}
	return errors.New(r.Message)
}

// decide fixes the outcome of a submission of amount on rail, accepted at
// at and reported from due, under outcome o: o's failure, else success
// (reversed for a clawback) with o's fee, no fee, or the schedule's fee.
func (p *Provider) decide(rail payouts.Rail, amount money.Amount, o Outcome, at, due time.Time) record {
	r := record{At: at, Due: due, Rail: rail, Amount: toAmountRecord(amount)}
	if o.Fail != "" {
		r.Fail = o.Fail
		return r
	}
	r.Clawback = o.Clawback
	switch {
	case o.NoFee:
	case o.Fee != nil:
		f := toAmountRecord(*o.Fee)
		r.Fee = &f
	default:
		q, err := p.fees.Quote(payouts.DirPayout, rail, amount)
		if err != nil {
			r.FeeError = toErrorRecord(err)
			break
		}
		f := toAmountRecord(q.Total)
		r.Fee = &f
	}
	return r
}

// status is the provider's report on a payout that is due.
func (r record) status() (tambala.ProviderStatus, error) {
	switch {
	case r.Fail != "":
		return tambala.ProviderStatus{State: tambala.ProviderFailed, FailureCode: r.Fail}, nil
	case r.FeeError != nil:
		return tambala.ProviderStatus{}, r.FeeError.err()
	}
	st := tambala.ProviderStatus{State: tambala.ProviderSucceeded}
	if r.Clawback {
		st.State = tambala.ProviderReversed
	}
	if r.Fee != nil {
		f, err := r.Fee.amount()
		if err != nil {
			return tambala.ProviderStatus{}, err
		}
		st.Fee = f
	}
	return st, nil
}

// submissions keeps the accepted submissions, one record per reference.
type submissions interface {
	// accept keeps newRecord() under ref unless ref has a record, and
	// reports whether it did.
	accept(ctx context.Context, ref string, newRecord func() record) (created bool, err error)
	// get returns the record of ref; ok is false when there is none.
	get(ctx context.Context, ref string) (r record, ok bool, err error)
	// replace rewrites the record of ref, when there is one, with fn's.
	replace(ctx context.Context, ref string, fn func(record) (record, error)) (found bool, err error)
}

// memSubmissions keeps the records in memory: a Provider without a Store.
type memSubmissions struct {
	mu sync.Mutex
	m  map[string]record
}

func (s *memSubmissions) accept(ctx context.Context, ref string, newRecord func() record) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[ref]; ok {
		return false, nil
	}
	s.m[ref] = newRecord()
	return true, nil
}

func (s *memSubmissions) get(ctx context.Context, ref string) (record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[ref]
	return r, ok, nil
}

func (s *memSubmissions) replace(ctx context.Context, ref string, fn func(record) (record, error)) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[ref]
	if !ok {
		return false, nil
	}
	r, err := fn(r)
	if err != nil {
		return true, err
	}
	s.m[ref] = r
	return true, nil
}

// storeSubmissions keeps the records in Bucket of a store, one small
// transaction per change.
type storeSubmissions struct{ st store.Store }

func (s storeSubmissions) accept(ctx context.Context, ref string, newRecord func() record) (bool, error) {
	var created bool
	err := s.st.Update(ctx, func(tx store.Tx) error {
		_, err := tx.Get(bucket, []byte(ref))
		if created = errors.Is(err, store.ErrNotFound); !created {
			return err // nil: accepted before
		}
		return putRecord(tx, ref, newRecord())
	})
	return created, err
}

func (s storeSubmissions) get(ctx context.Context, ref string) (r record, ok bool, err error) {
	err = s.st.View(ctx, func(tx store.Tx) error {
		r, ok, err = getRecord(tx, ref)
		return err
	})
	return r, ok, err
}

func (s storeSubmissions) replace(ctx context.Context, ref string, fn func(record) (record, error)) (bool, error) {
	var found bool
	err := s.st.Update(ctx, func(tx store.Tx) error {
		r, ok, err := getRecord(tx, ref)
		if found = ok; err != nil || !ok {
			return err
		}
		if r, err = fn(r); err != nil {
			return err
		}
		return putRecord(tx, ref, r)
	})
	return found, err
}

// getRecord reads the record of ref; ok is false when there is none.
func getRecord(tx store.Tx, ref string) (r record, ok bool, err error) {
	b, err := tx.Get(bucket, []byte(ref))
	if errors.Is(err, store.ErrNotFound) {
		return record{}, false, nil
	}
	if err != nil {
		return record{}, false, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return record{}, false, fmt.Errorf("sandbox: submission %q: %w", ref, err)
	}
	return r, true, nil
}

func putRecord(tx store.Tx, ref string, r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return tx.Put(bucket, []byte(ref), b)
}
