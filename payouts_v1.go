package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// payoutRecord is a payout as stored, with the worker's bookkeeping
// (internal/storage reads and writes it).
type payoutRecord = codec.PayoutRecord

// resolutionRecord is how the operator finished a payout.
type resolutionRecord = codec.ResolutionRecord

// payoutV2Record is the /v2 part of a payout record.
type payoutV2Record = codec.PayoutV2Record

// SandboxBankAccounts and SandboxWallets are the sandbox provider's test
// destinations (docs/decisions.md). The wallets are exempt from the
// mobile-number pattern in the sandbox only.
var (
	SandboxBankAccounts = func() []string {
		out := make([]string, 10)
		for i := range out {
			out[i] = "333388880" + string(rune('0'+i))
		}
		return out
	}()
	SandboxWallets = []string{
		"111100000112", "111100000221", "111100000330", "111100000445", "111100000553",
		"111100000662", "111100000778", "111100000889", "111100000990", "111100000498",
	}
)

// sandboxWalletSet is SandboxWallets as a set; never modified.
var sandboxWalletSet = func() map[string]bool {
	m := make(map[string]bool, len(SandboxWallets))
	for _, w := range SandboxWallets {
		m[w] = true
	}
	return m
}()

func (e *Engine) sandboxWallets() map[string]bool {
	if e.env != Sandbox {
		return nil
	}
	return sandboxWalletSet
}

// holdID is the ledger hold of a payout.
func holdID(payoutID string) string { return payouts.HoldID(payoutID) }

// placeHold is the ledger command of h.
func placeHold(h payouts.Hold) ledger.PlaceHold {
	return ledger.PlaceHold{EntryID: h.EntryID, HoldID: h.HoldID, Org: h.Org, Amount: h.Amount, Ref: h.Ref, At: h.At}
}

// PayoutOperation is the idempotent create of a payout on rail.
func PayoutOperation(rail payouts.Rail) Operation {
	if rail == payouts.Bank {
		return CreateBankPayout
	}
	return CreateMomoPayout
}

// payoutCodec reads the payout a decided create stored: the payout record
// (version 2), or the rendering earlier versions stored.
var payoutCodec = resourceCodec[payouts.Payout]{
	decode: func(_ string, stored []byte) (payouts.Payout, error) {
		rec, err := cache.DecodeJSON[payoutRecord](stored)
		if err != nil {
			return payouts.Payout{}, err
		}
		return storage.PayoutOf(rec)
	},
	decodeLegacy: func(org string, body []byte) (payouts.Payout, error) {
		p, err := codec.PayoutFromRendering(body)
		p.Org = org
		return p, err
	},
}

// createPayout is ClientV1.CreatePayout.
func (e *Engine) createPayout(ctx context.Context, p Principal, req payouts.Request, idem Idempotency) (Created[payouts.Payout], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = req.Fingerprint()
	}
	// The checks that read nothing stored (the request and the fee) run
	// before the transaction, so they hold no lock and keep the store's
	// serial section short. Their verdict is only delivered inside the
	// idempotent transaction, after the stored outcome is looked up, like
	// every other check: a replay returns the original payout even if a
	// rule changed since, and a key reused with a different request is
	// conflict even when that request is invalid.
	quote, early := e.checkPayoutRequest(req)
	op := PayoutOperation(req.Rail)
	created, err := create(ctx, e, p, op, idem, fp, payoutCodec, func(tx store.Tx, org *Organization) (payouts.Payout, []byte, error) {
		if early != nil {
			return payouts.Payout{}, nil, early
		}
		return e.acceptPayout(tx, org, req, quote)
	})
	switch {
	case err != nil:
	case created.Replayed:
		e.metrics.IdempotentReplay(op)
	default:
		e.metrics.PayoutAccepted(req.Rail)
		po := created.Resource
		e.reportPayout(stateChange{id: po.ID, org: po.Org, rail: po.Rail, to: po.Status, by: "api"})
	}
	return created, err
}

// checkPayoutRequest is the check of a /v1 request that reads nothing
// stored: the request's rules and its fee.
func (e *Engine) checkPayoutRequest(req payouts.Request) (payouts.FeeQuote, error) {
	if err := req.Validate(e.sandboxWallets()); err != nil {
		return payouts.FeeQuote{}, err
	}
	quote, err := e.fees.Quote(payouts.DirPayout, req.Rail, req.Amount)
	if err != nil {
		return quote, errcode.Wrap(errcode.RateUnavailable, err)
	}
	return quote, nil
}

// acceptPayout accepts the checked /v1 request req of org in tx: load the
// terms, accept (payouts.AcceptV1), count the window, post the hold, store.
func (e *Engine) acceptPayout(tx store.Tx, org *Organization, req payouts.Request, quote payouts.FeeQuote) (payouts.Payout, []byte, error) {
	if _, err := e.enabledAsset(org, money.MWK.Code, OpPayout); err != nil {
		return payouts.Payout{}, nil, err
	}
	limits := org.PayoutLimitsInForce()
	paused, err := e.railPaused(tx, req.Rail)
	if err != nil {
		return payouts.Payout{}, nil, err
	}
	insts, _, noRef := e.institutions(tx)
	if noRef != nil && errcode.Of(noRef) != errcode.ServiceUnavailable {
		return payouts.Payout{}, nil, noRef
	}
	now := e.nowUTC()
	window, sum, err := payoutWindow(tx, org.ID, limits, now)
	if err != nil {
		return payouts.Payout{}, nil, err
	}
	po, hold, err := payouts.AcceptV1(req, payouts.V1Terms{NewID: e.newID, Org: org.ID, Now: now,
		MaxPerPayout: limits.MaxPerPayoutMWK, RailPaused: paused, Institutions: insts, NoReference: noRef,
		Wallets: e.sandboxWallets(), Window: window, Fee: quote})
	if err != nil {
		return payouts.Payout{}, nil, err
	}
	if err := storage.CountPayoutWindow(tx, org.ID, now.Unix()/60, req.Amount, sum); err != nil {
		return payouts.Payout{}, nil, err
	}
	if _, err := postLedger(tx, placeHold(hold)); err != nil {
		return payouts.Payout{}, nil, err
	}
	stored, err := e.storeAccepted(tx, storage.ToPayoutRecord(po), storage.PayoutsByOrg, true)
	return po, stored, err
}

// storeAccepted stores the accepted payout rec, listed in index, schedules
// it for the worker and counts it; lowBalance checks the organization's
// balance floor after the hold.
func (e *Engine) storeAccepted(tx store.Tx, rec payoutRecord, index []byte, lowBalance bool) ([]byte, error) {
	if err := schedule(tx, &rec, at(rec.CreatedAt)); err != nil {
		return nil, err
	}
	stored, err := storage.AddPayout(tx, rec, index)
	if err != nil {
		return nil, err
	}
	if err := countAccepted(tx, rec.Rail, rec.CreatedAt); err != nil {
		return nil, err
	}
	if lowBalance {
		if err := e.checkBalanceLow(tx, rec.Org); err != nil {
			return nil, err
		}
	}
	return stored, nil
}

// checkAndCountWindow enforces the rolling 24-hour volume and 1-hour count
// over per-minute cells (payouts.Window), then counts this payout. A
// running sum per organization (codec.WindowSum) holds the cells' totals,
// so that a payout reads two records rather than a day of cells
// (storage.PayoutWindowSum).
func (e *Engine) checkAndCountWindow(tx store.Tx, org string, l PayoutLimits, amount money.Amount, now time.Time) error {
	w, sum, err := payoutWindow(tx, org, l, now)
	if err != nil {
		return err
	}
	if err := w.Check(amount); err != nil {
		return err
	}
	return storage.CountPayoutWindow(tx, org, now.Unix()/60, amount, sum)
}

// payoutReads appends the keys a /v1 payout's transaction reads of org
// at now beside its record (operationInfo's reads): its balance floor,
// its window sum and cell, and its MWK balances and line head.
func payoutReads(dst []store.KeyRef, org string, now time.Time) []store.KeyRef {
	dst = storage.AppendOrgFloorKey(dst, org)
	dst = storage.AppendPayoutWindowKeys(dst, org, now.Unix()/60)
	return ledger.AppendOrgKeys(dst, org, money.MWK)
}

// payoutWindow is org's rolling window at now under l, and its stored sum.
func payoutWindow(tx store.Tx, org string, l PayoutLimits, now time.Time) (payouts.Window, codec.WindowSum, error) {
	sum, err := storage.PayoutWindowSum(tx, org, now.Unix()/60)
	if err != nil {
		return payouts.Window{}, sum, err
	}
	return payouts.Window{HourCount: sum.HourCount, DayVolume: sum.DayVolume, HourlyCount: l.HourlyCount, DailyVolume: l.DailyVolumeMWK}, sum, nil
}

// payout is ClientV1.Payout.
func (e *Engine) payout(ctx context.Context, p Principal, id string) (payouts.Payout, error) {
	var out payouts.Payout
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		out, err = loadPayout(tx, p.Org.ID, id)
		return err
	})
	return out, err
}

func loadPayout(tx store.Tx, org, id string) (payouts.Payout, error) {
	if id == "" || len(id) > 64 {
		return payouts.Payout{}, errNotFound
	}
	r, err := storage.LoadPayout(tx, id, errNotFound)
	if err != nil {
		return payouts.Payout{}, err
	}
	if r.Org != org || r.V2 != nil { // a /v2 payout is not a /v1 resource
		return payouts.Payout{}, errNotFound
	}
	return storage.PayoutOf(r)
}

// PayoutFilter narrows a list of payouts.
type PayoutFilter struct {
	Status payouts.Status // "" for every status
}

// payouts is ClientV1.Payouts.
func (e *Engine) payouts(ctx context.Context, p Principal, page PageRequest, f PayoutFilter) (Page[payouts.Payout], error) {
	var out Page[payouts.Payout]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		cache := map[string]payouts.Payout{}
		keep := func(id string) (bool, error) {
			po, err := loadPayout(tx, p.Org.ID, id)
			if err != nil {
				return false, err
			}
			cache[id] = po
			return f.Status == "" || po.Status == f.Status, nil
		}
		var err error
		out, err = listPage(tx, storage.PayoutsByOrg, p.Org.ID, page, keep, func(id string) (payouts.Payout, error) {
			return cache[id], nil
		})
		return err
	})
	return out, err
}

// quoteFee is ClientV1.QuoteFee.
func (e *Engine) quoteFee(ctx context.Context, p Principal, dir payouts.Direction, rail payouts.Rail, amount money.Amount) (payouts.FeeQuote, error) {
	if err := e.admitNow(ctx, p, APIv1); err != nil {
		return payouts.FeeQuote{}, err
	}
	if dir != payouts.DirPayout && dir != payouts.DirCollection {
		return payouts.FeeQuote{}, errcode.Newf(errcode.ValidationError, "direction must be payout or collection.")
	}
	if err := payouts.CheckAmount(amount); err != nil {
		return payouts.FeeQuote{}, err
	}
	if rail != payouts.Bank && rail != payouts.Momo {
		return payouts.FeeQuote{}, errcode.Newf(errcode.ValidationError, "rail must be momo or bank.")
	}
	q, err := e.fees.Quote(dir, rail, amount)
	var coded *errcode.Error
	if err != nil && !errors.As(err, &coded) {
		return q, errcode.Wrap(errcode.RateUnavailable, err)
	}
	return q, err
}

// syncInstitutions is Operator.SyncInstitutions.
func (e *Engine) syncInstitutions(ctx context.Context, list []payouts.Institution) error {
	if err := payouts.CheckInstitutions(list); err != nil {
		return err
	}
	rec := storage.ToInstitutionsRecord(list, e.nowUTC())
	return e.store.Update(ctx, func(tx store.Tx) error {
		if err := e.auditAs(ctx, tx, "", AuditInstitutionsSynced, "institutions", fmt.Sprintf("%d institutions", len(list))); err != nil {
			return err
		}
		return storage.SaveInstitutions(tx, rec)
	})
}

// institutions returns the reference data: the last sync, or in the
// sandbox the built-in list until one happens. Production with no sync
// yet is service_unavailable.
func (e *Engine) institutions(tx store.Tx) ([]payouts.Institution, time.Time, error) {
	raw, found, err := storage.Institutions(tx)
	if err != nil {
		return nil, time.Time{}, err
	}
	if !found {
		if e.env == Sandbox {
			return e.sandboxInstitutions, e.started, nil
		}
		return nil, time.Time{}, errcode.Newf(errcode.ServiceUnavailable, "Institution reference data has not been synced yet.")
	}
	rec, err := e.cachedInstitutions.Decode(raw, storage.DecodeInstitutions)
	return rec.Institutions, rec.SyncedAt, err
}

// referenceDataReadyOfEngine is Work.ReferenceDataReady.
func (e *Engine) referenceDataReadyOfEngine(ctx context.Context) error {
	return e.store.View(ctx, func(tx store.Tx) error {
		_, _, err := e.institutions(tx)
		return err
	})
}

// listInstitutions is Client.Institutions.
func (e *Engine) listInstitutions(ctx context.Context, p Principal) ([]payouts.Institution, time.Time, error) {
	var list []payouts.Institution
	var at time.Time
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		list, at, err = e.institutions(tx)
		return err
	})
	return slices.Clone(list), at, err // the engine's copy is shared
}

func (e *Engine) checkRail(tx store.Tx, rail payouts.Rail) error {
	paused, err := e.railPaused(tx, rail)
	if err == nil && paused {
		err = payouts.RailPaused(rail)
	}
	return err
}

// railPaused reports whether rail is paused.
func (e *Engine) railPaused(tx store.Tx, rail payouts.Rail) (bool, error) {
	var r Rails
	raw, found, err := storage.RailsRaw(tx)
	if err != nil {
		return false, err
	}
	if found {
		if r, err = e.cachedRails.Decode(raw, func(b []byte) (Rails, error) { r, err := storage.DecodeRails(b); return Rails(r), err }); err != nil {
			return false, err
		}
	}
	return (rail == payouts.Bank && r.BankDisabled) || (rail == payouts.Momo && r.MomoDisabled), nil
}

// setRailDisabled is Operator.SetRailDisabled.
func (e *Engine) setRailDisabled(ctx context.Context, rail payouts.Rail, disabled bool) (Rails, error) {
	var r Rails
	err := e.store.Update(ctx, func(tx store.Tx) error {
		rec, err := storage.LoadRails(tx)
		if err != nil {
			return err
		}
		r = Rails(rec)
		var was bool
		switch rail {
		case payouts.Bank:
			was, r.BankDisabled = r.BankDisabled, disabled
		case payouts.Momo:
			was, r.MomoDisabled = r.MomoDisabled, disabled
		default:
			return errcode.Newf(errcode.ValidationError, "rail must be bank or momo.")
		}
		if err := e.auditAs(ctx, tx, "", AuditRailChanged, string(rail), fmt.Sprintf("%s disabled %t -> %t", rail, was, disabled)); err != nil {
			return err
		}
		return storage.SaveRails(tx, codec.RailsRecord(r))
	})
	return r, err
}

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
// it (package payouts); Overdue says it was accepted longer ago than
// WorkerOptions.OverdueAfter.
type InFlightPayout = payouts.InFlight

// payoutsInFlight is BackOffice.PayoutsInFlight.
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
		return storage.PayoutsDue.ForEach(tx, func(id string) (bool, error) {
			rec, err := storage.LoadPayout(tx, id, errNotFound)
			if err != nil {
				return false, err
			}
			p, err := storage.PayoutOf(rec)
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
				v2, err := storage.PayoutV2Of(rec)
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
const maxResolutionReference = payouts.MaxResolutionReference

// resolvePayout is BackOffice.ResolvePayout.
func (e *Engine) resolvePayout(ctx context.Context, id string, r Resolution) (payouts.Payout, error) {
	checked, err := payouts.Resolution(r).Check()
	if err != nil {
		return payouts.Payout{}, err
	}
	r = Resolution(checked)
	var out payouts.Payout
	var from payouts.Status
	var pending *Approval
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		if pending, err = e.gateResolution(ctx, tx, id, r); err != nil || pending != nil {
			return err
		}
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

// gateResolution refuses a payout that cannot be resolved and, on a
// failed outcome, which returns the hold (amount and fee) to the
// organization's available balance, asks four-eyes above the threshold of
// its asset: the approval pending, if any.
func (e *Engine) gateResolution(ctx context.Context, tx store.Tx, id string, r Resolution) (*Approval, error) {
	rec, err := storage.LoadPayout(tx, id, errNotFound)
	if err != nil {
		return nil, err
	}
	if err := payouts.CheckResolvable(rec.Status); err != nil {
		return nil, err
	}
	if r.Outcome != payouts.Failed {
		return nil, nil
	}
	p, err := storage.PayoutOf(rec)
	if err != nil {
		return nil, err
	}
	held, err := p.Held()
	if err != nil {
		return nil, err
	}
	return e.gateWith(ctx, tx, gateReq{kind: approvals.PayoutFailed, org: p.Org, amount: held, key: p.ID,
		role: accounts.StaffOperations, renew: true, details: map[string]string{"payout": p.ID,
			"failure_code": string(r.FailureCode), "reason": r.Reason, "reference": r.Reference}})
}

// resolveInTx finishes payout id as r says in tx (r checked): the
// transition, its ledger entries and event, the resolution kept and the
// audit entry, whose summary ends with note. It returns the payout and
// the status it was in.
func (e *Engine) resolveInTx(ctx context.Context, tx store.Tx, id string, r Resolution, note string) (payouts.Payout, payouts.Status, error) {
	rec, err := storage.LoadPayout(tx, id, errNotFound)
	if err != nil {
		return payouts.Payout{}, "", err
	}
	from := rec.Status
	p, err := storage.PayoutOf(rec)
	if err != nil {
		return payouts.Payout{}, from, err
	}
	now := e.nowUTC()
	if p, err = payouts.Resolution(r).Resolve(p, now); err != nil {
		return payouts.Payout{}, from, err
	}
	rec.Resolution = &resolutionRecord{Outcome: r.Outcome, Reason: r.Reason, Reference: r.Reference, At: now}
	if r.Outcome == payouts.Succeeded {
		err = e.finishSuccess(tx, &rec, p, observedFee(r.Fee), now)
	} else {
		err = e.finishFailure(tx, &rec, p, string(r.FailureCode), now)
	}
	if err != nil {
		return payouts.Payout{}, from, err
	}
	out, err := storage.PayoutOf(rec)
	if err != nil {
		return payouts.Payout{}, from, err
	}
	if err := e.auditAs(ctx, tx, out.Org, AuditPayoutResolved, id, resolutionSummary(r, from, out.Status)+note); err != nil {
		return payouts.Payout{}, from, err
	}
	return out, from, storage.SavePayout(tx, rec)
}

// resolutionSummary is the audit summary of r moving a payout from from
// to to.
func resolutionSummary(r Resolution, from, to payouts.Status) string {
	summary := fmt.Sprintf("status %s -> %s, reason %q", from, to, r.Reason)
	if r.Outcome == payouts.Succeeded && r.Fee.IsSet() {
		summary += ", fee charged " + amountText(r.Fee)
	} else if r.Outcome == payouts.Failed {
		summary += ", failure code " + string(r.FailureCode)
	}
	if r.Reference != "" {
		summary += fmt.Sprintf(", provider reference %q", r.Reference)
	}
	return summary
}

// resolved logs and reports a resolution once committed.
func (e *Engine) resolved(_ context.Context, id string, r Resolution, out payouts.Payout, from payouts.Status) {
	e.log.Info("payout resolved by the operator", slog.String("payout", id), slog.String("org", out.Org),
		slog.String("outcome", string(r.Outcome)), slog.String("reason", r.Reason))
	e.reportPayout(stateChange{id: id, org: out.Org, rail: out.Rail, from: from, to: out.Status, by: "operator"})
}

// ReferenceDataReady reports whether payouts can be priced against
// reference data, for readiness probes: nil in the sandbox (it ships its
// own) and in production once SyncInstitutions has run; otherwise
// service_unavailable, the answer payouts get meanwhile. A store that
// does not answer gives its error.
func (u Work) ReferenceDataReady(ctx context.Context) error {
	return u.x.referenceDataReadyOfEngine(ctx)
}
