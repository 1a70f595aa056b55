package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
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

// Run and the passes it runs. The machinery (a pass at an interval, the
// set of loops, the backoff) is internal/loop's, and a pass's claim, call
// and record internal/work's; this file wires the engine's passes into
// them: the payout worker, the webhook dispatcher, the order expiry sweep
// and the pruning (the conversion worker and the event loop are wired
// here too, their passes being the conversions' and the events' own).

// ErrRunning is returned by Run while another Run of the engine is under
// way.
var ErrRunning = errors.New("tambala: Run is already running")

// Loop names one of the loops Run runs.
type Loop int

const (
	// LoopPayouts is the payout worker (Options.Payouts, Options.Worker).
	LoopPayouts Loop = iota + 1
	// LoopDeliveries is the webhook dispatcher (Options.Webhooks,
	// Options.Dispatcher).
	LoopDeliveries
	// LoopConversions is the conversion worker (Options.Converter,
	// Options.ConversionWorker).
	LoopConversions
	// LoopEvents hands committed events to Options.Events
	// (Options.EventLoop).
	LoopEvents
	// LoopOrderExpiry is the expiry sweep of unfunded desk orders
	// (ProcessOrders, every OrderOptions.SweepInterval).
	LoopOrderExpiry
	// LoopPruning prunes decided idempotency outcomes, old quotes, and
	// old sessions and sign-in throttles (Options.Prune).
	LoopPruning
)

func (l Loop) String() string {
	switch l {
	case LoopPayouts:
		return "payouts"
	case LoopDeliveries:
		return "deliveries"
	case LoopConversions:
		return "conversions"
	case LoopEvents:
		return "events"
	case LoopOrderExpiry:
		return "order_expiry"
	case LoopPruning:
		return "pruning"
	}
	return "loop(" + strconv.Itoa(int(l)) + ")"
}

// ErrUnknownLoop is returned by Run for a Loop it does not know.
var ErrUnknownLoop = errors.New("tambala: unknown loop")

// Run runs the engine's background work until ctx ends: the loops named,
// or, when none is, every loop whose port is configured. That is the
// payout worker (which needs Options.Payouts: without it Run fails at once
// with ErrNoPayoutProvider), the order expiry sweep and pruning always;
// the webhook dispatcher when Options.Webhooks is set (without it
// deliveries wait in the outbox); the conversion worker when
// Options.Converter is set; and the event loop when Options.Events is
// set. A loop named whose port is missing fails Run at once
// (ErrNoPayoutProvider, ErrNoWebhookSender, ErrNoConverter,
// ErrNoEventHandler). After ctx ends Run returns nil only once every loop
// has finished the pass it was in, so the host may close the store right
// after; a second Run while one is under way gets ErrRunning.
//
// A host that schedules the work itself calls the single passes instead:
// ProcessPayouts, ProcessDeliveries, ProcessConversions, ProcessEvents,
// ProcessOrders, PruneIdempotency and PruneQuotes.
func (e *Engine) Run(ctx context.Context, loops ...Loop) error {
	if len(loops) == 0 {
		if e.provider == nil {
			return ErrNoPayoutProvider
		}
		loops = e.configuredLoops()
	}
	run := make([]func(context.Context) error, 0, len(loops))
	seen := make(map[Loop]bool, len(loops))
	for _, l := range loops {
		if err := e.missingPort(l); err != nil {
			return err
		}
		if !seen[l] {
			seen[l] = true
			run = append(run, e.loopOf(l))
		}
	}
	started, err := e.loops.Run(ctx, run...)
	if !started {
		return ErrRunning
	}
	return err
}

// configuredLoops are the loops Run runs when none is named: the payout
// worker, the order expiry sweep and pruning, and every loop whose port
// is configured.
func (e *Engine) configuredLoops() []Loop {
	loops := []Loop{LoopPayouts, LoopOrderExpiry, LoopPruning}
	if e.sender != nil {
		loops = append(loops, LoopDeliveries)
	}
	if e.converter != nil {
		loops = append(loops, LoopConversions)
	}
	if e.events != nil {
		loops = append(loops, LoopEvents)
	}
	return loops
}

// missingPort is why loop l cannot run: the error naming the option of
// its missing port, or ErrUnknownLoop; nil when it can.
func (e *Engine) missingPort(l Loop) error {
	switch {
	case l == LoopPayouts && e.provider == nil:
		return ErrNoPayoutProvider
	case l == LoopDeliveries && e.sender == nil:
		return ErrNoWebhookSender
	case l == LoopConversions && e.converter == nil:
		return ErrNoConverter
	case l == LoopEvents && e.events == nil:
		return ErrNoEventHandler
	case l < LoopPayouts || l > LoopPruning:
		return fmt.Errorf("%w: %d", ErrUnknownLoop, int(l))
	}
	return nil
}

// loopOf is loop l, wired to the engine's passes and options.
func (e *Engine) loopOf(l Loop) func(context.Context) error {
	switch l {
	case LoopPayouts:
		return func(ctx context.Context) error { return e.Work().RunPayoutWorker(ctx, e.worker.Interval) }
	case LoopDeliveries:
		return func(ctx context.Context) error { return e.Work().RunDispatcher(ctx, e.dispatch.Interval) }
	case LoopConversions:
		return func(ctx context.Context) error {
			if err := e.Work().RunConversionWorker(ctx, e.convOpts.Interval); err != nil {
				e.log.Error("conversion worker", slog.Any("error", err))
			}
			return nil
		}
	case LoopEvents:
		return loop.Every(e.eventOpts.Interval, func(ctx context.Context) (bool, error) {
			n, err := e.Work().ProcessEvents(ctx)
			return n == e.eventOpts.Batch, err
		}, e.logPassError("event loop"))
	case LoopOrderExpiry:
		return loop.Every(e.orderOpts.SweepInterval, func(ctx context.Context) (bool, error) {
			_, err := e.Work().ProcessOrders(ctx)
			return false, err
		}, e.logPassError("order expiry sweep"))
	default: // LoopPruning
		return loop.Every(e.prune.Interval, e.prunePass, e.logPassError("pruning"))
	}
}

// prunePass prunes a batch of decided idempotency outcomes, of old
// quotes and of old sessions and sign-in throttles; full when any batch
// was.
func (e *Engine) prunePass(ctx context.Context) (full bool, err error) {
	n, err := e.Work().PruneIdempotency(ctx, e.prune.Batch)
	if err != nil {
		return false, err
	}
	q, err := e.Work().PruneQuotes(ctx, e.prune.Batch)
	if err != nil {
		return false, err
	}
	s, err := e.Work().PruneSessions(ctx, e.prune.Batch)
	return n == e.prune.Batch || q == e.prune.Batch || s >= e.prune.Batch, err
}

// logPassError logs the error of a pass of the loop name.
func (e *Engine) logPassError(name string) func(error) {
	return func(err error) { e.log.Error(name, slog.Any("error", err)) }
}

// schedule moves rec's due time to at (nil: not due any more).
func schedule(tx store.Tx, rec *payoutRecord, at *time.Time) error {
	if err := storage.PayoutsDue.Move(tx, rec.ID, rec.DueAt, at); err != nil {
		return err
	}
	rec.DueAt = at
	return nil
}

func at(t time.Time) *time.Time { return &t }

// payoutOf reads payout id as stored; an unknown id is not_found.
func payoutOf(tx store.Tx, id string) (payoutRecord, error) {
	return storage.LoadPayout(tx, id, errNotFound)
}

// putPayout stores a payout that is already listed.
func putPayout(tx store.Tx, rec payoutRecord) error {
	return storage.SavePayout(tx, rec)
}

// putScheduled schedules rec at next and stores it.
func (e *Engine) putScheduled(tx store.Tx, rec *payoutRecord, next *time.Time) error {
	if err := schedule(tx, rec, next); err != nil {
		return err
	}
	return putPayout(tx, *rec)
}

// ErrNoPayoutProvider is returned by the payout worker's calls when the
// engine has no Options.Payouts.
var ErrNoPayoutProvider = errors.New("tambala: no payout provider configured (Options.Payouts)")

// processPayoutsOfEngine is Work.ProcessPayouts.
func (e *Engine) processPayoutsOfEngine(ctx context.Context) (int, error) {
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
	ids, err := storage.PayoutsDue.Due(ctx, e.store, e.now(), e.worker.Batch)
	if err != nil {
		return 0, false, err
	}
	defer func() { e.metrics.WorkerPass(time.Since(start), advanced) }()
	advanced = work.Pass(ctx, e.store, e.log, e.worker.Concurrency, ids, e.payoutJob())
	return advanced, len(ids) == e.worker.Batch, ctx.Err()
}

// runPayoutWorkerOfEngine is Work.RunPayoutWorker.
func (e *Engine) runPayoutWorkerOfEngine(ctx context.Context, interval time.Duration) error {
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
	var from payouts.Status
	rec, err := payoutOf(tx, id)
	if err != nil {
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
		rec, err := payoutOf(tx, id)
		if err != nil {
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
		return putPayout(tx, rec)
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

// clawbackPayout is BackOffice.ClawbackPayout.
func (e *Engine) clawbackPayout(ctx context.Context, id string) error {
	var rec payoutRecord
	var pending *Approval
	err := e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		cur, err := payoutOf(tx, id)
		if err != nil {
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
	rec, err := payoutOf(tx, id)
	if err != nil {
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
	return rec, putPayout(tx, rec)
}

// ErrNoWebhookSender is returned by the dispatcher's calls when the engine
// has no Options.Webhooks.
var ErrNoWebhookSender = errors.New("tambala: no webhook sender configured (Options.Webhooks)")

// processDeliveriesOfEngine is Work.ProcessDeliveries.
func (e *Engine) processDeliveriesOfEngine(ctx context.Context) (int, error) {
	if e.sender == nil {
		return 0, ErrNoWebhookSender
	}
	start := time.Now()
	ids, err := storage.DeliveriesDue.Due(ctx, e.store, e.now(), e.dispatch.Batch)
	if err != nil {
		return 0, err
	}
	sent := work.Pass(ctx, e.store, e.log, e.dispatch.Concurrency, ids, e.deliveryJob())
	e.metrics.DispatcherPass(time.Since(start), sent)
	if err := ctx.Err(); err != nil {
		return sent, err
	}
	return sent, nil
}

// deliveryJob is the dispatcher's work: a pending delivery claimed under a
// lease, sent, and its attempt recorded.
func (e *Engine) deliveryJob() work.Job[claimedDelivery, sentDelivery] {
	return work.Job[claimedDelivery, sentDelivery]{
		Name: "webhook dispatcher", Item: "delivery",
		ID:    func(c claimedDelivery) string { return c.d.ID },
		Claim: e.claimDelivery,
		Call: func(ctx context.Context, c claimedDelivery) (sentDelivery, bool) {
			a, status, ok := e.send(ctx, c)
			return sentDelivery{attempt: a, status: status}, ok
		},
		Record: func(ctx context.Context, c claimedDelivery, s sentDelivery) (bool, error) {
			err := e.record(ctx, c.d.ID, s.attempt, s.status)
			return err == nil, err
		},
	}
}

// sentDelivery is the outcome of a send: the attempt and the status it
// counts as.
type sentDelivery struct {
	attempt Attempt
	status  int
}

// claimedDelivery is a delivery under this dispatcher's lease.
type claimedDelivery struct {
	d      deliveryRecord // URL is the endpoint's current one
	secret string
}

// runDispatcherOfEngine is Work.RunDispatcher.
func (e *Engine) runDispatcherOfEngine(ctx context.Context, interval time.Duration) error {
	if e.sender == nil {
		return ErrNoWebhookSender
	}
	if interval <= 0 {
		return errors.New("tambala: the dispatcher's interval must be positive")
	}
	loop.Run(ctx, interval, func(ctx context.Context) (bool, error) {
		_, err := e.Work().ProcessDeliveries(ctx)
		return false, err
	}, func(err error) { e.log.Error("webhook dispatcher pass", slog.Any("error", err)) })
	return nil
}

// moveDue re-lists a delivery: a pending one is listed at its NextAt.
func moveDue(tx store.Tx, d *deliveryRecord, next *time.Time) error {
	var old *time.Time
	if d.State == webhooks.Pending {
		old = &d.NextAt
	}
	if err := storage.DeliveriesDue.Move(tx, d.ID, old, next); err != nil {
		return err
	}
	if next != nil {
		d.NextAt = *next
	}
	return nil
}

// claimDelivery claims delivery id, if still due, under a lease inside tx.
func (e *Engine) claimDelivery(tx store.Tx, id string) (claimedDelivery, bool, error) {
	now := e.nowUTC()
	d, err := storage.LoadDelivery(tx, id, errNotFound)
	if err != nil {
		return claimedDelivery{}, false, err
	}
	if d.State != webhooks.Pending || d.NextAt.After(now) {
		return claimedDelivery{}, false, nil // finished, or claimed by another dispatcher
	}
	secret, err := storage.LoadWebhookSecret(tx, d.SecretID, errNotFound)
	if err != nil {
		return claimedDelivery{}, false, err
	}
	// The bytes and the secret are the delivery's own; the address is the
	// endpoint's current one, so replacing a broken URL rescues the
	// deliveries still pending.
	var ep Endpoint
	if err := loadEndpoint(tx, d.Org, &ep, errNotFound); err == nil {
		d.URL = ep.URL
	} else if !errors.Is(err, errNotFound) {
		return claimedDelivery{}, false, err
	}
	if err := moveDue(tx, &d, at(now.Add(e.dispatch.Lease))); err != nil {
		return claimedDelivery{}, false, err
	}
	if err := storage.SaveDelivery(tx, d); err != nil {
		return claimedDelivery{}, false, err
	}
	return claimedDelivery{d: d, secret: secret.Secret}, true, nil
}

// send sends a claimed delivery: the attempt and the status it counts as,
// or ok false when ctx ended during the send (nothing to record). A URL
// the destination rule refuses now (set under an older rule, or naming a
// listener the host has since opened) is not sent at all. A failure is
// recorded in its fixed wording only; the error itself goes to the log
// (webhookhttp's errors leave the URL out: its query may carry the
// receiver's token).
func (e *Engine) send(ctx context.Context, c claimedDelivery) (a Attempt, status int, ok bool) {
	sig := webhooks.Sign(c.secret, c.d.Body)
	start := time.Now()
	var res SendResult
	sendErr := e.destinations.CheckURL(c.d.URL)
	if sendErr == nil {
		res, sendErr = e.webhookSend(ctx, c.d, sig)
	}
	if ctx.Err() != nil {
		// Stopped mid-send: record nothing; the lease brings it back.
		return Attempt{}, 0, false
	}
	a = Attempt{At: e.nowUTC(), StatusCode: res.StatusCode, Duration: time.Since(start), Response: capResponse(res.Response), Signature: sig}
	status = a.StatusCode
	if sendErr != nil {
		failure := webhooks.Classify(sendErr)
		a.Error = string(failure)
		if failure == webhooks.FailDestination {
			a.StatusCode, a.Response = 0, ""
		}
		status = 0 // an error is a failure whatever the status
		e.log.Warn("webhook attempt failed", slog.String("delivery", c.d.ID), slog.String("org", c.d.Org),
			slog.String("failure", a.Error), slog.String("error", sendErr.Error()))
	}
	return a, status, true
}

// capResponse is the part of an answer kept: at most webhooks.MaxResponse
// bytes, whatever the sender read.
func capResponse(b []byte) string {
	if len(b) > webhooks.MaxResponse {
		b = b[:webhooks.MaxResponse]
	}
	return string(b)
}

// record records an attempt at delivery id in a transaction of its own.
func (e *Engine) record(ctx context.Context, id string, attempt Attempt, status int) error {
	var after webhooks.State
	err := e.store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		after = ""
		cur, err := storage.LoadDelivery(tx, id, errNotFound)
		if err != nil {
			return err
		}
		if cur.State != webhooks.Pending {
			return nil
		}
		// The schedule counts the attempts of this round only: a re-delivery
		// gets a full schedule again, while the log keeps numbering on.
		next, err := webhooks.Delivery{State: cur.State, Attempts: cur.Attempts - cur.RoundStart, NextAt: cur.NextAt}.
			Record(attempt.At, status, e.dispatch.Schedule, rand.Float64())
		if err != nil {
			return err
		}
		total := cur.RoundStart + next.Attempts
		if err := storage.SaveAttempt(tx, id, uint32(total), codec.AttemptRecord(attempt)); err != nil {
			return err
		}
		var due *time.Time
		if next.State == webhooks.Pending {
			due = &next.NextAt
		}
		if err := moveDue(tx, &cur, due); err != nil {
			return err
		}
		cur.State, cur.Attempts = next.State, total
		if next.State == webhooks.Dead {
			if err := countDead(tx, 1); err != nil {
				return err
			}
			e.log.Error("webhook delivery dead-lettered; operator action needed",
				slog.String("delivery", id), slog.String("org", cur.Org), slog.String("event_type", cur.EventType),
				slog.Int("attempts", cur.Attempts))
		}
		after = next.State
		return storage.SaveDelivery(tx, cur)
	})
	if err == nil && after != "" {
		e.metrics.WebhookAttempt(after)
	}
	return err
}

// ProcessDeliveries sends every delivery due now (up to Batch), up to
// Concurrency at once. Whenever senders are free, as many due deliveries
// are claimed under a lease in one transaction, so a lease starts when its
// send does (or, for a sender still recording its last attempt, a local
// commit before). Each is sent outside any transaction with the secret it
// was created with, and its attempt recorded in a transaction of its own,
// which retries it on the schedule, dead-letters it after the last retry,
// or finishes it on a success status. A dispatcher that dies between send
// and record leaves the delivery due again after its lease: at least once.
// Deliveries may be sent in any order (the reference promises none); with
// Concurrency 1 they are sent one at a time in due order.
//
// The calling goroutine is one of the senders, and the pass returns only
// once every send it started is recorded. A Send that panics or ends its
// goroutine (runtime.Goexit) ends the pass as it would with one sender:
// nothing more is claimed, and once the other sends are recorded
// ProcessDeliveries panics with the same value or ends its caller's
// goroutine.
func (u Work) ProcessDeliveries(ctx context.Context) (int, error) {
	return u.x.processDeliveriesOfEngine(ctx)
}

// ProcessPayouts runs one pass of the payout worker: every payout due now
// (up to Batch) is submitted, polled, or finished, up to Concurrency at
// once. It returns how many it advanced. Several workers may run over one
// store: a payout is claimed in a transaction before its provider call, so
// no two calls for it overlap within a lease. A provider call that panics
// ends the pass once the other calls under way are recorded, and the panic
// goes on in the caller's goroutine.
func (u Work) ProcessPayouts(ctx context.Context) (int, error) {
	return u.x.processPayoutsOfEngine(ctx)
}

// RunDispatcher runs ProcessDeliveries every interval until ctx ends, and
// returns once the pass under way has finished. Without a webhook sender
// it returns ErrNoWebhookSender at once. Run runs it for a host.
func (u Work) RunDispatcher(ctx context.Context, interval time.Duration) error {
	return u.x.runDispatcherOfEngine(ctx, interval)
}

// RunPayoutWorker runs ProcessPayouts every interval until ctx ends, and
// returns once the pass under way has finished. A pass that took a whole
// Batch is followed by the next at once, so a backlog drains at the
// provider's pace rather than one Batch per interval. Without a payout
// provider it returns ErrNoPayoutProvider at once. Run runs it for a host.
func (u Work) RunPayoutWorker(ctx context.Context, interval time.Duration) error {
	return u.x.runPayoutWorkerOfEngine(ctx, interval)
}
