package tambala

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// maxInFlightList bounds one PayoutsInFlight answer.
const maxInFlightList = 100_000

// InFlightFilter selects payouts that are not terminal yet, for the
// operator.
type InFlightFilter struct {
	Status    payouts.Status // held, submitted or pending; "" for all three
	OlderThan time.Duration  // only those accepted at least this long ago
	OrgID     string         // "" for every organization
	Limit     int            // at most this many, oldest first (default 100, at most 100,000)
}

// InFlightPayout is a payout not terminal yet, with the worker's view of
// it.
type InFlightPayout struct {
	// Payout is the payout as the worker sees it: on a /v2 payout its
	// amounts are the frozen principal and fee in the source asset.
	Payout payouts.Payout
	// V2 is set on a /v2 payout only: the payout as its client reads it
	// (source and destination assets, rate, wallet destination).
	V2 *PayoutV2
	// Overdue says it was accepted longer ago than WorkerOptions.OverdueAfter.
	Overdue bool
	// FailedCalls is how many provider calls for it failed in a row, and
	// UnknownAnswers how many times in a row the provider said it does not
	// know it.
	FailedCalls    int
	UnknownAnswers int
	// NextAttemptAt is when the worker next takes it up.
	NextAttemptAt *time.Time
}

// payoutsInFlight is Operator.PayoutsInFlight.
func (e *Engine) payoutsInFlight(ctx context.Context, f InFlightFilter) ([]InFlightPayout, error) {
	switch f.Status {
	case "", payouts.Held, payouts.Submitted, payouts.Pending:
	default:
		return nil, errcode.Newf(errcode.ValidationError, "status must be held, submitted or pending.")
	}
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, maxInFlightList)
	now := e.nowUTC()
	var out []InFlightPayout
	err := e.store.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		// Every payout not terminal is listed in the due index.
		return tx.Scan(storage.PayoutsDue, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
			var rec payoutRecord
			if err := storage.GetJSON(tx, bucketPayouts, string(k[8:]), &rec, errNotFound); err != nil {
				return false, err
			}
			p, err := rec.payout()
			if err != nil {
				return false, err
			}
			age := now.Sub(p.CreatedAt)
			if p.Status.Terminal() || (f.Status != "" && p.Status != f.Status) || age < f.OlderThan || (f.OrgID != "" && p.Org != f.OrgID) {
				return true, nil
			}
			item := InFlightPayout{Payout: p, Overdue: age >= e.worker.OverdueAfter,
				FailedCalls: rec.Attempts, UnknownAnswers: rec.Unknown, NextAttemptAt: rec.DueAt}
			if rec.V2 != nil {
				v2, err := rec.payoutV2()
				if err != nil {
					return false, err
				}
				item.V2 = &v2
			}
			out = append(out, item)
			return true, nil
		})
	})
	slices.SortFunc(out, func(a, b InFlightPayout) int {
		if c := a.Payout.CreatedAt.Compare(b.Payout.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Payout.ID, b.Payout.ID)
	})
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, err
}

// Resolution is the operator's verdict on a payout in flight, after
// reconciling it with the provider.
type Resolution struct {
	// Outcome is payouts.Succeeded or payouts.Failed.
	Outcome payouts.Status
	// Fee is the provider's observed fee of a succeeded payout; the zero Amount
	// charges the fee held at accept.
	Fee money.Amount
	// FailureCode is why a failed payout failed.
	FailureCode payouts.FailureCode
	// Reason is what the operator found (required, at most 500
	// bytes once trimmed, no control or invisible format character); it is
	// kept with the payout and logged.
	Reason string
	// Reference is the provider's own reference for the payment, as the
	// staff read it from the bank's or the mobile-money operator's portal
	// (optional, at most 100 bytes once trimmed, no control or invisible
	// format character); it is kept with the payout's resolution and in the
	// audit entry.
	Reference string
}

// maxResolutionReference bounds Resolution.Reference, in bytes.
const maxResolutionReference = 100

// resolvePayout is Operator.ResolvePayout.
func (e *Engine) resolvePayout(ctx context.Context, id string, r Resolution) (payouts.Payout, error) {
	r.Reason = strings.TrimSpace(r.Reason)
	if r.Reason == "" || len(r.Reason) > 500 {
		return payouts.Payout{}, errcode.Newf(errcode.ValidationError, "reason must be 1 to 500 characters.")
	}
	if err := textrule.CheckChars("reason", r.Reason); err != nil {
		return payouts.Payout{}, err
	}
	r.Reference = strings.TrimSpace(r.Reference)
	if len(r.Reference) > maxResolutionReference {
		return payouts.Payout{}, errcode.Newf(errcode.ValidationError, "reference must be at most %d characters.", maxResolutionReference)
	}
	if err := textrule.CheckChars("reference", r.Reference); err != nil {
		return payouts.Payout{}, err
	}
	switch r.Outcome {
	case payouts.Succeeded:
		if r.Fee.IsSet() && (r.Fee.Asset() != money.MWK || r.Fee.Sign() < 0) {
			return payouts.Payout{}, errcode.Newf(errcode.ValidationError, "fee must be a non-negative MWK amount.")
		}
		if r.Fee.IsSet() {
			if err := money.CheckMax("fee", r.Fee); err != nil {
				return payouts.Payout{}, err
			}
		}
	case payouts.Failed:
		if payouts.FailureFor(string(r.FailureCode)).Code != r.FailureCode {
			return payouts.Payout{}, errcode.Newf(errcode.ValidationError,
				"failure_code must be recipient_account_invalid, declined, provider_unavailable or temporarily_unavailable.")
		}
	default:
		return payouts.Payout{}, errcode.Newf(errcode.ValidationError, "outcome must be succeeded or failed.")
	}
	var out payouts.Payout
	var from payouts.Status
	var pending *Approval
	err := e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		var rec payoutRecord
		if err := storage.GetJSON(tx, bucketPayouts, id, &rec, errNotFound); err != nil {
			return err
		}
		if rec.Status != payouts.Submitted && rec.Status != payouts.Pending {
			return errcode.Newf(errcode.Conflict, "Only a submitted or pending payout can be resolved; this one is %s.", rec.Status)
		}
		if r.Outcome == payouts.Failed {
			// Failed returns the hold, amount and fee, to the
			// organization's available balance: four-eyes above the
			// threshold of its asset.
			p, err := rec.payout()
			if err != nil {
				return err
			}
			held := p.Amount
			if p.HeldFee.IsSet() {
				if held, err = p.Amount.Add(p.HeldFee); err != nil {
					return err
				}
			}
			pending, err = e.gateWith(ctx, tx, gateReq{kind: approvals.PayoutFailed, org: p.Org, amount: held, key: p.ID,
				role: accounts.StaffOperations, renew: true, details: map[string]string{"payout": p.ID,
					"failure_code": string(r.FailureCode), "reason": r.Reason, "reference": r.Reference}})
			if err != nil || pending != nil {
				return err
			}
		}
		var err error
		out, from, err = e.resolveInTx(ctx, tx, id, r, "")
		return err
	})
	if err == nil && pending != nil {
		return payouts.Payout{}, &ApprovalPendingError{Approval: *pending}
	}
	if err == nil {
		e.resolved(ctx, id, r, out, from)
	}
	return out, err
}

// resolveInTx finishes payout id as r says in tx (r checked): the
// transition, its ledger entries and event, the resolution kept and the
// audit entry, whose summary ends with note. It returns the payout and
// the status it was in.
func (e *Engine) resolveInTx(ctx context.Context, tx store.Tx, id string, r Resolution, note string) (payouts.Payout, payouts.Status, error) {
	var rec payoutRecord
	if err := storage.GetJSON(tx, bucketPayouts, id, &rec, errNotFound); err != nil {
		return payouts.Payout{}, "", err
	}
	from := rec.Status
	if rec.Status != payouts.Submitted && rec.Status != payouts.Pending {
		return payouts.Payout{}, from, errcode.Newf(errcode.Conflict, "Only a submitted or pending payout can be resolved; this one is %s.", rec.Status)
	}
	p, err := rec.payout()
	if err != nil {
		return payouts.Payout{}, from, err
	}
	now := e.nowUTC()
	rec.Resolution = &resolutionRecord{Outcome: r.Outcome, Reason: r.Reason, Reference: r.Reference, At: now}
	if p.Status == payouts.Submitted { // the state machine finishes from pending
		if p, err = p.MarkPending(now); err != nil {
			return payouts.Payout{}, from, err
		}
	}
	if r.Outcome == payouts.Succeeded {
		err = e.finishSuccess(tx, &rec, p, observedFee(r.Fee), now)
	} else {
		err = e.finishFailure(tx, &rec, p, string(r.FailureCode), now)
	}
	if err != nil {
		return payouts.Payout{}, from, err
	}
	out, err := rec.payout()
	if err != nil {
		return payouts.Payout{}, from, err
	}
	summary := fmt.Sprintf("status %s -> %s, reason %q", from, out.Status, r.Reason)
	if r.Outcome == payouts.Succeeded && r.Fee.IsSet() {
		summary += ", fee charged " + amountText(r.Fee)
	} else if r.Outcome == payouts.Failed {
		summary += ", failure code " + string(r.FailureCode)
	}
	if r.Reference != "" {
		summary += fmt.Sprintf(", provider reference %q", r.Reference)
	}
	if err := e.auditAs(ctx, tx, out.Org, AuditPayoutResolved, id, summary+note); err != nil {
		return payouts.Payout{}, from, err
	}
	return out, from, storage.PutJSON(tx, bucketPayouts, rec.ID, rec)
}

// resolved logs and reports a resolution once committed.
func (e *Engine) resolved(_ context.Context, id string, r Resolution, out payouts.Payout, from payouts.Status) {
	e.log.Info("payout resolved by the operator", slog.String("payout", id), slog.String("org", out.Org),
		slog.String("outcome", string(r.Outcome)), slog.String("reason", r.Reason))
	e.reportPayout(stateChange{id: id, org: out.Org, rail: out.Rail, from: from, to: out.Status, by: "operator"})
}
