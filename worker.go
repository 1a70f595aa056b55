package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/loop"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/work"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// WorkerOptions tune the payout worker. Zero fields take the defaults.
type WorkerOptions struct {
	// Poll is how long to wait between status checks of a pending payout
	// (default 1s).
	Poll time.Duration
	// Lease is how long a claimed payout is hidden from other workers while
	// one talks to the provider (default 30s). A worker that dies mid-call
	// leaves the payout due again after the lease: it is submitted again
	// with the same reference, which the provider treats as the same payout.
	Lease time.Duration
	// MaxBackoff caps the wait after a provider error (default 5m); the
	// wait doubles from 1s with each consecutive error, and each wait is
	// drawn at random from its upper half, so that payouts that failed
	// together do not all retry in the same instant.
	MaxBackoff time.Duration
	// MaxUnknownAnswers is how many definite "unknown reference" answers
	// in a row (Status returning ErrUnknownReference), each followed by a
	// resubmission under the same reference, fail a payout with
	// provider_unavailable and release its hold (default 3). The provider
	// never accepted it, so no money moved.
	MaxUnknownAnswers int
	// OverdueAfter is how long after acceptance a payout not yet terminal
	// is shown to the operator as overdue (default 15m).
	OverdueAfter time.Duration
	// Batch is how many due payouts one pass takes (default 100).
	Batch int
	// Interval is how often Run starts a pass of the worker (default
	// 250ms).
	Interval time.Duration
	// Concurrency is the most payouts one pass advances at once, each
	// with its own provider call (default 8). 1 advances them one at a
	// time, in due order.
	Concurrency int
}

func (w *WorkerOptions) defaults() {
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Lease <= 0 {
		w.Lease = 30 * time.Second
	}
	if w.MaxBackoff <= 0 {
		w.MaxBackoff = 5 * time.Minute
	}
	if w.Batch <= 0 {
		w.Batch = 100
	}
	if w.Concurrency <= 0 {
		w.Concurrency = 8
	}
	if w.Interval <= 0 {
		w.Interval = 250 * time.Millisecond
	}
	if w.MaxUnknownAnswers <= 0 {
		w.MaxUnknownAnswers = 3
	}
	if w.OverdueAfter <= 0 {
		w.OverdueAfter = 15 * time.Minute
	}
}

// backoff is the wait after attempts consecutive failed calls: the capped
// exponential d (1s, 2s, 4s, ... MaxBackoff), jittered into [d/2, d] and
// whole milliseconds (the engine's clock has millisecond precision, and a
// due time finer than it would not be claimed until the next millisecond).
func (w WorkerOptions) backoff(attempts int) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < w.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, w.MaxBackoff)
	return (d/2 + rand.N(d/2+1)).Truncate(time.Millisecond)
}

// schedule moves rec's due time to at (nil: not due any more).
func schedule(tx store.Tx, rec *payoutRecord, at *time.Time) error {
	if err := payoutsDue.Move(tx, rec.ID, rec.DueAt, at); err != nil {
		return err
	}
	rec.DueAt = at
	return nil
}

func at(t time.Time) *time.Time { return &t }

// putScheduled schedules rec at next and stores it.
func (e *Engine) putScheduled(tx store.Tx, rec *payoutRecord, next *time.Time) error {
	if err := schedule(tx, rec, next); err != nil {
		return err
	}
	return storage.SavePayout(tx, *rec)
}

// ErrNoPayoutProvider is returned by the payout worker's calls when the
// engine has no Options.Payouts.
var ErrNoPayoutProvider = errors.New("tambala: no payout provider configured (Options.Payouts)")

// ProcessPayouts runs one pass of the payout worker: every payout due now
// (up to Batch) is submitted, polled, or finished, up to Concurrency at
// once. It returns how many it advanced. Several workers may run over one
// store: a payout is claimed in a transaction before its provider call, so
// no two calls for it overlap within a lease. A provider call that panics
// ends the pass once the other calls under way are recorded, and the panic
// goes on in the caller's goroutine.
func (e *Engine) ProcessPayouts(ctx context.Context) (int, error) {
	n, _, err := e.processPayouts(ctx)
	return n, err
}

// processPayouts is ProcessPayouts; full says the pass took a whole Batch,
// so more may be due already.
func (e *Engine) processPayouts(ctx context.Context) (advanced int, full bool, err error) {
	if e.provider == nil {
		return 0, false, ErrNoPayoutProvider
	}
	start := time.Now()
	ids, err := payoutsDue.Due(ctx, e.store, e.now(), e.worker.Batch)
	if err != nil {
		return 0, false, err
	}
	defer func() { e.metrics.WorkerPass(time.Since(start), advanced) }()
	advanced = work.Pass(ctx, e.store, e.log, e.worker.Concurrency, ids, e.payoutJob())
	return advanced, len(ids) == e.worker.Batch, ctx.Err()
}

// RunPayoutWorker runs ProcessPayouts every interval until ctx ends, and
// returns once the pass under way has finished. A pass that took a whole
// Batch is followed by the next at once, so a backlog drains at the
// provider's pace rather than one Batch per interval. Without a payout
// provider it returns ErrNoPayoutProvider at once. Run runs it for a host.
func (e *Engine) RunPayoutWorker(ctx context.Context, interval time.Duration) error {
	if e.provider == nil {
		return ErrNoPayoutProvider
	}
	if interval <= 0 {
		return errors.New("tambala: the payout worker's interval must be positive")
	}
	loop.Run(ctx, interval, func(ctx context.Context) (bool, error) {
		_, full, err := e.processPayouts(ctx)
		return full, err
	}, func(err error) { e.log.Error("payout worker pass", slog.Any("error", err)) })
	return nil
}

// claimedPayout is a payout under this worker's lease; from is Held when
// the claim submitted it.
type claimedPayout struct {
	rec  payoutRecord
	from payouts.Status
}

// payoutJob is the payout worker's work: a due payout claimed under a
// lease (a held one becomes submitted), the provider called, the outcome
// recorded.
func (e *Engine) payoutJob() work.Job[claimedPayout, payoutCall] {
	return work.Job[claimedPayout, payoutCall]{
		Name: "payout worker", Item: "payout",
		ID:    func(c claimedPayout) string { return c.rec.ID },
		Claim: e.claimPayout,
		Claimed: func(c claimedPayout) {
			if c.from != "" {
				e.reportPayout(stateChange{id: c.rec.ID, org: c.rec.Org, rail: c.rec.Rail, from: c.from, to: c.rec.Status, by: "worker"})
			}
		},
		Call:   e.callProvider,
		Record: e.recordPayoutCall,
	}
}

// claimPayout takes a due payout under a lease inside tx; a held payout
// becomes submitted in the same transaction. ok is false when another
// worker has it.
func (e *Engine) claimPayout(tx store.Tx, id string) (claimedPayout, bool, error) {
	var rec payoutRecord
	var from payouts.Status
	if err := storage.ReadPayout(tx, id, &rec, errNotFound); err != nil {
		return claimedPayout{}, false, err
	}
	now := e.nowUTC()
	if rec.DueAt == nil || rec.DueAt.After(now) {
		return claimedPayout{}, false, nil // finished or claimed meanwhile
	}
	if rec.Status == payouts.Held && rec.V2 != nil {
		// A /v2 payout still held is not submitted while /v2 is paused: it
		// stays due, polled again later.
		ps, err := e.readPause(tx)
		if err != nil {
			return claimedPayout{}, false, err
		}
		if ps.Err(APIv2) != nil {
			return claimedPayout{}, false, e.putScheduled(tx, &rec, at(now.Add(e.worker.Poll)))
		}
	}
	if rec.Status == payouts.Held {
		p, err := storage.PayoutOf(rec)
		if err != nil {
			return claimedPayout{}, false, err
		}
		if p, err = p.Submit(now); err != nil {
			return claimedPayout{}, false, err
		}
		from, rec = payouts.Held, withState(rec, p)
	}
	if err := e.putScheduled(tx, &rec, at(now.Add(e.worker.Lease))); err != nil {
		return claimedPayout{}, false, err
	}
	return claimedPayout{rec: rec, from: from}, true, nil
}

// withState copies the domain state of p onto rec, keeping the worker's
// bookkeeping.
func withState(rec payoutRecord, p payouts.Payout) payoutRecord {
	n := storage.ToPayoutRecord(p)
	n.DueAt, n.Attempts, n.Unknown, n.Resubmit, n.Resolution = rec.DueAt, rec.Attempts, rec.Unknown, rec.Resubmit, rec.Resolution
	n.V2 = rec.V2
	return n
}

// payoutCall is the outcome of the provider call the claimed payout's
// state asks for.
type payoutCall struct {
	step    payoutStep
	err     error // a failure before the call: nothing is recorded
	callErr error // the provider's answer
	status  ProviderStatus
}

type payoutStep int

const (
	stepSubmit     payoutStep = iota // a submitted payout handed to the provider
	stepResubmit                     // a pending one handed over again
	stepPoll                         // a pending one polled
	stepUnschedule                   // a terminal one left due (should not happen)
)

// callProvider submits, submits again or polls the claimed payout, with no
// transaction open.
func (e *Engine) callProvider(ctx context.Context, c claimedPayout) (payoutCall, bool) {
	rec := c.rec
	switch {
	case rec.Status == payouts.Submitted:
		callErr, err := e.submit(ctx, rec)
		return payoutCall{step: stepSubmit, err: err, callErr: callErr}, true
	case rec.Status == payouts.Pending && rec.Resubmit:
		callErr, err := e.submit(ctx, rec)
		return payoutCall{step: stepResubmit, err: err, callErr: callErr}, true
	case rec.Status == payouts.Pending:
		st, callErr := e.providerStatus(ctx, rec.ID)
		return payoutCall{step: stepPoll, callErr: callErr, status: st}, true
	default:
		return payoutCall{step: stepUnschedule}, true
	}
}

// recordPayoutCall records the outcome of the provider call.
func (e *Engine) recordPayoutCall(ctx context.Context, c claimedPayout, out payoutCall) (bool, error) {
	if out.err != nil {
		return false, out.err
	}
	id, callErr := c.rec.ID, out.callErr
	switch out.step {
	case stepSubmit:
		return true, e.settle(ctx, id, payouts.Submitted, func(tx store.Tx, rec *payoutRecord, p payouts.Payout, now time.Time) error {
			if callErr != nil {
				return e.retryLater(tx, rec, now, callErr)
			}
			p, err := p.MarkPending(now)
			if err != nil {
				return err
			}
			*rec = withState(*rec, p)
			rec.Attempts = 0
			return schedule(tx, rec, at(now.Add(e.worker.Poll)))
		})
	case stepResubmit:
		return true, e.settle(ctx, id, payouts.Pending, func(tx store.Tx, rec *payoutRecord, p payouts.Payout, now time.Time) error {
			if callErr != nil {
				return e.retryLater(tx, rec, now, callErr)
			}
			rec.Resubmit, rec.Attempts = false, 0
			return schedule(tx, rec, at(now.Add(e.worker.Poll)))
		})
	case stepPoll:
		st := out.status
		return true, e.settle(ctx, id, payouts.Pending, func(tx store.Tx, rec *payoutRecord, p payouts.Payout, now time.Time) error {
			if errors.Is(callErr, ErrUnknownReference) {
				return e.unknownReference(tx, rec, p, now)
			}
			if callErr != nil {
				return e.retryLater(tx, rec, now, callErr)
			}
			rec.Unknown = 0
			switch st.State {
			case ProviderSucceeded, ProviderReversed:
				if err := e.finishSuccess(tx, rec, p, observedFee(st.Fee), now); err != nil {
					return err
				}
				if st.State == ProviderReversed {
					return e.clawback(tx, rec, now)
				}
				return nil
			case ProviderFailed:
				return e.finishFailure(tx, rec, p, st.FailureCode, now)
			default:
				rec.Attempts = 0
				return schedule(tx, rec, at(now.Add(e.worker.Poll)))
			}
		})
	default:
		// A terminal payout left due (should not happen): unschedule it.
		return false, e.settle(ctx, id, c.rec.Status, func(tx store.Tx, rec *payoutRecord, _ payouts.Payout, _ time.Time) error {
			return schedule(tx, rec, nil)
		})
	}
}

// submit hands the payout to the provider under its id as reference:
// callErr is the provider's answer, err a record that cannot be read.
func (e *Engine) submit(ctx context.Context, rec payoutRecord) (callErr, err error) {
	p, err := storage.PayoutOf(rec)
	if err != nil {
		return nil, err
	}
	if rec.V2 != nil {
		s, err := v2Submission(rec.V2, p)
		if err != nil {
			return nil, err
		}
		return e.providerSubmit(ctx, s), nil
	}
	return e.providerSubmit(ctx, PayoutSubmission{Reference: p.ID, Rail: p.Rail, Amount: p.Amount, Destination: p.Destination}), nil
}

// settle reloads the payout in a transaction and, if it is still in status
// want, applies fn and stores the result.
// The state change is logged and counted once the transaction commits.
func (e *Engine) settle(ctx context.Context, id string, want payouts.Status,
	fn func(tx store.Tx, rec *payoutRecord, p payouts.Payout, now time.Time) error) error {
	var change stateChange
	err := e.store.Update(ctx, func(tx store.Tx) error {
		change = stateChange{}
		var rec payoutRecord
		if err := storage.ReadPayout(tx, id, &rec, errNotFound); err != nil {
			return err
		}
		if rec.Status != want {
			return nil
		}
		p, err := storage.PayoutOf(rec)
		if err != nil {
			return err
		}
		if err := fn(tx, &rec, p, e.nowUTC()); err != nil {
			return err
		}
		change = stateChange{id: rec.ID, org: rec.Org, rail: rec.Rail, from: want, to: rec.Status, by: "worker"}
		return storage.SavePayout(tx, rec)
	})
	if err == nil {
		if change.to == payouts.Reversed && change.from != payouts.Succeeded { // paid, then clawed back, in one answer
			e.reportPayout(stateChange{id: change.id, org: change.org, rail: change.rail, from: change.from, to: payouts.Succeeded, by: change.by})
			change.from = payouts.Succeeded
		}
		e.reportPayout(change)
	}
	return err
}

func (e *Engine) retryLater(tx store.Tx, rec *payoutRecord, now time.Time, cause error) error {
	rec.Attempts++
	wait := e.worker.backoff(rec.Attempts)
	e.log.Warn("payout provider call failed; retrying", slog.String("payout", rec.ID),
		slog.Int("attempts", rec.Attempts), slog.Duration("wait", wait), slog.Any("error", cause))
	return schedule(tx, rec, at(now.Add(wait)))
}

// unknownReference handles a definite "unknown reference" answer: the
// provider never accepted the payout, so it is submitted again under the
// same reference (submission is idempotent by reference); after
// MaxUnknownAnswers such answers in a row it is failed with
// provider_unavailable and its hold released, no money having moved.
func (e *Engine) unknownReference(tx store.Tx, rec *payoutRecord, p payouts.Payout, now time.Time) error {
	rec.Unknown++
	rec.Attempts = 0
	if rec.Unknown >= e.worker.MaxUnknownAnswers {
		e.log.Warn("payout failed: the provider does not know its reference", slog.String("payout", rec.ID),
			slog.Int("unknown_answers", rec.Unknown))
		return e.finishFailure(tx, rec, p, string(payouts.ProviderUnavailable), now)
	}
	e.log.Warn("payout unknown to the provider; submitting it again", slog.String("payout", rec.ID),
		slog.Int("unknown_answers", rec.Unknown))
	rec.Resubmit = true
	return schedule(tx, rec, at(now))
}

func captureEntry(id string) string { return "payout:" + id + ":capture" }

// finishSuccess captures the hold: the amount goes to the provider, the fee
// charged is the observed fee (the quoted fee when the provider reported
// none), and the rest of the hold returns to available. An observed fee
// above the held fee is charged too: the excess comes from available, and
// what available cannot cover becomes the organization's shortfall.
func (e *Engine) finishSuccess(tx store.Tx, rec *payoutRecord, p payouts.Payout, fee *money.Amount, now time.Time) error {
	if err := countOutcome(tx, p.Org, payouts.Succeeded, now); err != nil {
		return err
	}
	if rec.V2 != nil {
		return e.finishSuccessV2(tx, rec, p, fee, now)
	}
	charged, excess := p.HeldFee, money.Zero(money.MWK)
	if fee != nil {
		if fee.Asset() != money.MWK || fee.Sign() < 0 {
			return fmt.Errorf("payout %s: provider reported fee %s", p.ID, fee)
		}
		charged = *fee
		if fee.Cmp(p.HeldFee) > 0 {
			charged = p.HeldFee
			excess, _ = fee.Sub(p.HeldFee)
		}
	}
	p, err := p.Succeed(fee, now)
	if err != nil {
		return err
	}
	if _, err := postLedger(tx, ledger.CaptureHold{
		EntryID: captureEntry(p.ID), HoldID: holdID(p.ID), Amount: p.Amount, Fee: charged, To: ledger.Provider, Ref: p.ID, At: now,
	}); err != nil {
		return err
	}
	if excess.Sign() > 0 {
		if _, err := postLedger(tx, ledger.Charge{
			EntryID: "payout:" + p.ID + ":fee-excess", Org: p.Org, Amount: excess, Ref: p.ID, At: now,
		}); err != nil {
			return err
		}
		if err := e.checkBalanceLow(tx, p.Org); err != nil {
			return err
		}
	}
	*rec = withState(*rec, p)
	if err := e.emit(tx, p.Org, webhooks.PayoutSucceeded, render.Payout(p), jsonResource(eventPayout, storage.ToPayoutRecord(p))); err != nil {
		return err
	}
	return schedule(tx, rec, nil)
}

// finishFailure releases the whole hold and fails the payout.
func (e *Engine) finishFailure(tx store.Tx, rec *payoutRecord, p payouts.Payout, code string, now time.Time) error {
	if err := countOutcome(tx, p.Org, payouts.Failed, now); err != nil {
		return err
	}
	p, err := p.Fail(payouts.FailureFor(code), now)
	if err != nil {
		return err
	}
	if _, err := postLedger(tx, ledger.ReleaseHold{EntryID: "payout:" + p.ID + ":release", HoldID: holdID(p.ID), Ref: p.ID, At: now}); err != nil {
		return err
	}
	*rec = withState(*rec, p)
	if rec.V2 != nil {
		if err := e.emitPayoutV2(tx, *rec, EventPayoutV2Failed); err != nil {
			return err
		}
		return schedule(tx, rec, nil)
	}
	if err := e.emit(tx, p.Org, webhooks.PayoutFailed, render.Payout(p), jsonResource(eventPayout, storage.ToPayoutRecord(p))); err != nil {
		return err
	}
	return schedule(tx, rec, nil)
}

// clawback reverses a succeeded payout: the amount returns to available,
// the fee stays charged, terminal_at does not move.
func (e *Engine) clawback(tx store.Tx, rec *payoutRecord, now time.Time) error {
	p, err := storage.PayoutOf(*rec)
	if err != nil {
		return err
	}
	if p, err = p.Reverse(now); err != nil {
		return err
	}
	if _, err := postLedger(tx, ledger.Reverse{EntryID: "payout:" + p.ID + ":clawback", Of: captureEntry(p.ID), Ref: p.ID, At: now}); err != nil {
		return err
	}
	*rec = withState(*rec, p)
	if rec.V2 != nil {
		return e.emitPayoutV2(tx, *rec, EventPayoutV2Reversed)
	}
	return e.emit(tx, p.Org, webhooks.PayoutReversed, render.Payout(p), jsonResource(eventPayout, storage.ToPayoutRecord(p)))
}

// clawbackPayout is Operator.ClawbackPayout.
func (e *Engine) clawbackPayout(ctx context.Context, id string) error {
	var rec payoutRecord
	var pending *Approval
	err := e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		var cur payoutRecord
		if err := storage.ReadPayout(tx, id, &cur, errNotFound); err != nil {
			return err
		}
		if cur.Status != payouts.Succeeded {
			return errcode.Newf(errcode.Conflict, "Only a succeeded payout can be clawed back; this one is %s.", cur.Status)
		}
		// The amount returns to the organization: four-eyes above the
		// threshold of its asset.
		p, err := storage.PayoutOf(cur)
		if err != nil {
			return err
		}
		if pending, err = e.gateWith(ctx, tx, gateReq{kind: approvals.PayoutClawback, org: p.Org, amount: p.Amount, key: p.ID,
			role: accounts.StaffOperations, renew: true, details: map[string]string{"payout": p.ID}}); err != nil || pending != nil {
			return err
		}
		rec, err = e.clawbackInTx(ctx, tx, id, "")
		return err
	})
	if err == nil && pending != nil {
		return &ApprovalPendingError{Approval: *pending}
	}
	if err == nil {
		e.reportPayout(stateChange{id: rec.ID, org: rec.Org, rail: rec.Rail, from: payouts.Succeeded, to: rec.Status, by: "operator"})
	}
	return err
}

// clawbackInTx claws back succeeded payout id in tx, audited with a
// summary ending with note.
func (e *Engine) clawbackInTx(ctx context.Context, tx store.Tx, id, note string) (payoutRecord, error) {
	var rec payoutRecord
	if err := storage.ReadPayout(tx, id, &rec, errNotFound); err != nil {
		return rec, err
	}
	if rec.Status != payouts.Succeeded {
		return rec, errcode.Newf(errcode.Conflict, "Only a succeeded payout can be clawed back; this one is %s.", rec.Status)
	}
	if err := e.clawback(tx, &rec, e.nowUTC()); err != nil {
		return rec, err
	}
	if err := e.auditAs(ctx, tx, rec.Org, AuditPayoutClawedBack, rec.ID, fmt.Sprintf("status %s -> %s", payouts.Succeeded, rec.Status)+note); err != nil {
		return rec, err
	}
	return rec, storage.SavePayout(tx, rec)
}
