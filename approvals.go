package tambala

import (
	"context"
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"go.opentelemetry.io/otel/trace"
)

// Approval is a money move waiting for a second staff member (four-eyes):
// see package approvals.
type Approval = approvals.Approval

// ErrApprovalPending is matched (errors.Is) by the error of an operator's
// move above its asset's approval threshold (a funding, a deposit or a
// collection recorded by hand, an OTC trade, a refund returned, a payout
// resolved failed or clawed back) or of a change that weakens a threshold:
// nothing moved or changed, and it waits as a pending approval
// (ApprovalPendingError) until a second staff member approves it.
var ErrApprovalPending = errors.New("tambala: the move waits for a staff approval")

// ApprovalPendingError is the error of a move that waits for approval.
// The same request again returns it again, with the same approval.
type ApprovalPendingError struct {
	Approval Approval
}

func (e *ApprovalPendingError) Error() string {
	return fmt.Sprintf("tambala: the %s of %s waits for a staff approval (%s)", e.Approval.Kind, amountText(e.Approval.Amount), e.Approval.ID)
}

// Is makes errors.Is(err, ErrApprovalPending) true.
func (e *ApprovalPendingError) Is(target error) bool { return target == ErrApprovalPending }

// Approvals is the operator's face for four-eyes: the pending approvals,
// their decisions, and the per-asset thresholds above which an
// operator's move that credits an organization waits for one. The rule
// is that no single credential (the admin token, or one staff member)
// moves money above a threshold. It has the caller of the Operator it
// came from: the automation may read, reject and set thresholds but never
// approve; a staff user approves with the role the approval names (desk
// for refunds returned, operations for every other) and never their own
// request, nor while their approvals are suspended (People.ConfirmStaff).
type Approvals struct {
	e     *Engine
	token string
}

// Approvals returns the four-eyes face for o's caller.
func (o *Operator) Approvals() *Approvals { return &Approvals{e: o.e, token: o.token} }

// caller checks the caller for a read needing role ("" for any staff
// role) and returns ctx with its actor, its party and its roles.
func (a *Approvals) caller(ctx context.Context, role accounts.StaffRole) (context.Context, approvals.Party, []string, error) {
	if a.token == "" {
		return asActor(ctx, automationActor), approvals.Party{Kind: approvals.Automation}, nil, nil
	}
	u, err := a.e.staffCall(ctx, a.token)
	if err != nil {
		return ctx, approvals.Party{}, nil, err
	}
	if !u.May(role) {
		return ctx, approvals.Party{}, nil, errStaffRole
	}
	party, roles := staffParty(u)
	return asActor(ctx, staffActor(u)), party, roles, nil
}

// changer is caller for a change: a staff user is checked in a read
// transaction, then again inside each write transaction of the change,
// which extends the session (begin); done, to be deferred, extends it
// when none did.
func (a *Approvals) changer(ctx context.Context, role accounts.StaffRole) (_ context.Context, _ approvals.Party, _ []string, done func(), _ error) {
	if a.token == "" {
		return asActor(ctx, automationActor), approvals.Party{Kind: approvals.Automation}, nil, func() {}, nil
	}
	ctx, r, done, err := a.e.begin(ctx, newCall(ctx, a.token, accounts.Need{Staff: true}, role))
	if err != nil {
		return ctx, approvals.Party{}, nil, nil, err
	}
	party, roles := staffParty(r.user)
	return asActor(ctx, staffActor(r.user)), party, roles, done, nil
}

// staffParty is staff user u as the approvals' party, and u's roles.
func staffParty(u accounts.User) (approvals.Party, []string) {
	roles := make([]string, len(u.StaffRoles))
	for i, r := range u.StaffRoles {
		roles[i] = string(r)
	}
	return approvals.Party{Kind: approvals.Staff, UserID: u.ID, Email: u.Email}, roles
}

// List reads one page of approvals, newest first; status "" for all.
func (a *Approvals) List(ctx context.Context, status approvals.Status, page PageRequest) (_ Page[Approval], err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.List")
	defer span.end(&err)
	ctx, _, _, err = a.caller(ctx, "")
	if err != nil {
		return Page[Approval]{}, err
	}
	var out Page[Approval]
	err = a.e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = listPage(tx, storage.ApprovalsAll, "", page, func(id string) (bool, error) {
			if status == "" {
				return true, nil
			}
			ap, err := a.e.loadApproval(tx, id)
			return ap.Status == status, err
		}, func(id string) (Approval, error) { return a.e.loadApproval(tx, id) })
		return err
	})
	return out, err
}

// Get reads one approval.
func (a *Approvals) Get(ctx context.Context, id string) (_ Approval, err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.Get")
	defer span.end(&err)
	ctx, _, _, err = a.caller(ctx, "")
	if err != nil {
		return Approval{}, err
	}
	var out Approval
	err = a.e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = a.e.loadApproval(tx, id)
		return err
	})
	return out, err
}

// Approve approves a pending approval and makes its move, in one
// transaction with the approval's record and both audit entries: the
// money moves only here. Two approvers at once: one approves, the other
// is conflict.
func (a *Approvals) Approve(ctx context.Context, id string) (_ Approval, err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.Approve")
	defer span.end(&err)
	return a.decide(ctx, id, AuditApprovalApproved, func(cur Approval, by approvals.Party, roles []string) (Approval, error) {
		return cur.Approve(by, roles, a.e.nowUTC())
	})
}

// Reject rejects a pending approval with a reason; nothing moves. The
// same request again is then conflict.
func (a *Approvals) Reject(ctx context.Context, id, reason string) (_ Approval, err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.Reject")
	defer span.end(&err)
	return a.decide(ctx, id, AuditApprovalRejected, func(cur Approval, by approvals.Party, roles []string) (Approval, error) {
		return cur.Reject(by, roles, reason, a.e.nowUTC())
	})
}

// decide makes decision on approval id in one transaction: the rules
// (approvals.Approval.Approve or Reject), the move of an approval
// approved, the record and the audit entry.
func (a *Approvals) decide(ctx context.Context, id string, action AuditAction,
	decision func(cur Approval, by approvals.Party, roles []string) (Approval, error)) (Approval, error) {
	ctx, by, roles, done, err := a.changer(ctx, "")
	if err != nil {
		return Approval{}, err
	}
	defer done()
	var out Approval
	var after func()
	err = a.e.store.Update(ctx, func(tx store.Tx) error {
		after = nil
		cur, err := a.e.loadApproval(tx, id)
		if err != nil {
			return err
		}
		next, err := decision(cur, by, roles)
		if err != nil {
			return err
		}
		summary := fmt.Sprintf("%s of %s, key %q, requested by %s: %s", next.Kind, amountText(next.Amount), next.Key,
			partyName(next.RequestedBy), next.Status)
		if next.Status == approvals.Approved {
			// A staff member whose credentials someone else reset is not a
			// second pair of eyes until another staff admin confirms them.
			if _, held, err := a.e.heldStaff(tx, by.UserID, by.Email); err != nil || held {
				return orErr(err, approvals.Suspended())
			}
			if after, err = a.e.makeApprovedMove(ctx, tx, next); err != nil {
				return err
			}
		} else {
			summary += fmt.Sprintf(", reason %q", next.Reason)
		}
		if err := a.e.putApproval(tx, next); err != nil {
			return err
		}
		out = next
		return a.e.audit(ctx, tx, actorOr(ctx, automationActor), next.Org, action, next.ID, summary)
	})
	if err == nil && after != nil {
		after()
	}
	return out, err
}

// SetThreshold sets the amount of asset above which an operator's move
// waits for approval; the zero Amount removes it (no four-eyes in that
// asset). Needs the operations role. A change that makes four-eyes
// stricter or leaves it as it is (a first threshold, a lower one) applies
// at once; one that weakens it (approvals.Weakens: removing it, raising
// it) waits, once the store has any staff member to approve it, as a
// pending approval of kind threshold_change (ApprovalPendingError),
// applied when a second credential approves it.
func (a *Approvals) SetThreshold(ctx context.Context, asset money.AssetCode, threshold money.Amount) (err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.SetThreshold")
	defer span.end(&err)
	ctx, _, _, done, err := a.changer(ctx, accounts.StaffOperations)
	if err != nil {
		return err
	}
	defer done()
	as, err := a.e.Settings().Asset(asset)
	if err != nil {
		return err
	}
	if err := approvals.CheckThreshold(as, threshold); err != nil {
		return err
	}
	var pending *Approval
	err = a.e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		prev, err := a.e.threshold(tx, as.Code)
		if err != nil {
			return err
		}
		if approvals.Weakens(prev, threshold) {
			staff, err := anyStaff(tx)
			if err != nil {
				return err
			}
			if staff {
				shown := money.Zero(as)
				if threshold.IsSet() {
					shown = threshold
				}
				pending, err = a.e.gateWith(ctx, tx, gateReq{kind: approvals.ThresholdChange, amount: shown, key: string(as.Code),
					role: accounts.StaffOperations, renew: true, always: true,
					details: map[string]string{"asset": string(as.Code), "from": thresholdValue(prev), "threshold": thresholdValue(threshold)}})
				if err != nil || pending != nil {
					return err
				}
			}
		}
		return a.e.applyThreshold(ctx, tx, as, prev, threshold, "")
	})
	if err == nil && pending != nil {
		return &ApprovalPendingError{Approval: *pending}
	}
	return err
}

// applyThreshold changes asset's threshold from prev to threshold in tx,
// audited with ctx's actor; note ends the summary.
func (e *Engine) applyThreshold(ctx context.Context, tx store.Tx, as money.Asset, prev, threshold money.Amount, note string) error {
	if err := e.audit(ctx, tx, actorOr(ctx, automationActor), "", AuditThresholdChanged, string(as.Code),
		fmt.Sprintf("%s threshold %s -> %s", as.Code, thresholdText(prev), thresholdText(threshold))+note); err != nil {
		return err
	}
	return storage.SaveThreshold(tx, as.Code, threshold)
}

// thresholdValue is a threshold as an approval's details keep it: its
// amount, or "none".
func thresholdValue(t money.Amount) string {
	if !t.IsSet() {
		return "none"
	}
	return t.String()
}

// Thresholds reads the threshold of every asset that has one.
func (a *Approvals) Thresholds(ctx context.Context) (_ map[money.AssetCode]money.Amount, err error) {
	ctx, span := a.span(ctx, "tambala.Approvals.Thresholds")
	defer span.end(&err)
	ctx, _, _, err = a.caller(ctx, "")
	if err != nil {
		return nil, err
	}
	var out map[money.AssetCode]money.Amount
	err = a.e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = storage.Thresholds(tx, a.e.assets)
		return err
	})
	return out, err
}

// threshold reads asset's threshold: the zero Amount when none is set.
func (e *Engine) threshold(tx store.Tx, asset money.AssetCode) (money.Amount, error) {
	return storage.LoadThreshold(tx, asset, e.assets)
}

func thresholdText(t money.Amount) string {
	if !t.IsSet() {
		return "none"
	}
	return amountText(t)
}

func partyName(p approvals.Party) string {
	if p.Email != "" {
		return p.Email
	}
	return string(p.Kind)
}

// partyOf is the approvals' party of an audit actor.
func partyOf(a AuditActor) approvals.Party {
	if a.Kind == ActorStaff {
		return approvals.Party{Kind: approvals.Staff, UserID: a.ID, Email: a.Email}
	}
	return approvals.Party{Kind: approvals.Automation}
}

// gate decides, in the transaction of an operator's move, whether the
// move waits for approval (gateWith with a key and no renewal).
func (e *Engine) gate(ctx context.Context, tx store.Tx, kind approvals.Kind, org string, amount money.Amount, key string,
	role accounts.StaffRole, details map[string]string) (*Approval, error) {
	return e.gateWith(ctx, tx, gateReq{kind: kind, org: org, amount: amount, key: key, role: role, details: details})
}

// gateReq is a move or change asking whether it waits for approval.
type gateReq struct {
	kind approvals.Kind
	org  string
	// amount is what the move credits, held against its asset's
	// threshold.
	amount money.Amount
	// key makes the request once (a funding's ref, an order's id); "" for
	// a move with no reference of its own, which asks anew each time.
	key     string
	role    accounts.StaffRole
	details map[string]string
	// renew: an approval decided under key does not decide the request (a
	// payout's resolution, a threshold's change may be asked again once
	// a first was rejected): a new one is made, if still needed.
	renew bool
	// always: the request needs approval whatever the threshold (a
	// threshold's change: its caller decided).
	always bool
}

// gateWith decides, in the transaction of an operator's move, whether the
// move waits for approval. A call that carries no actor (the engine's own
// work, a bootstrap) never waits. An approval under the same kind and key
// decides, unless r.renew and it is decided: pending, it is returned again
// (the same figures, else conflict); approved, the move was made and the
// caller replays it; rejected, conflict. Otherwise a move above its
// asset's threshold (or r.always) makes a new pending approval, written
// here with its audit entry, and is returned; the caller commits and makes
// no move.
func (e *Engine) gateWith(ctx context.Context, tx store.Tx, r gateReq) (*Approval, error) {
	actor, ok := ctx.Value(actorKey{}).(AuditActor)
	if !ok {
		return nil, nil
	}
	if prev, decided, err := e.askedBefore(tx, r); err != nil || decided {
		return prev, err
	}
	t, err := e.threshold(tx, r.amount.Asset().Code)
	if err != nil || !(r.always || approvals.Needed(t, r.amount)) {
		return nil, err
	}
	id := e.newID()
	if r.key == "" {
		r.key = id
	}
	a := approvals.New(id, r.kind, r.org, r.amount, r.key, string(r.role), r.details, partyOf(actor), e.nowUTC())
	if err := e.putApproval(tx, a); err != nil {
		return nil, err
	}
	if err := storage.IndexApproval(tx, a); err != nil {
		return nil, err
	}
	why := "above the threshold " + amountText(t)
	if r.kind == approvals.ThresholdChange {
		why = fmt.Sprintf("threshold %s -> %s", r.details["from"], r.details["threshold"])
	}
	if err := e.audit(ctx, tx, actor, r.org, AuditApprovalRequested, a.ID, fmt.Sprintf("%s of %s, key %q, %s: waits for %s approval",
		r.kind, amountText(r.amount), r.key, why, r.role)); err != nil {
		return nil, err
	}
	return &a, nil
}

// askedBefore finds the approval of a request asked before under r's key
// and, when it decides the request (decided), what it decides: pending,
// the approval again; approved, nil (the move was made); rejected,
// conflict (approvals.Approval.Replay). A renewable request is not
// decided by an approval no longer pending.
func (e *Engine) askedBefore(tx store.Tx, r gateReq) (_ *Approval, decided bool, _ error) {
	if r.key == "" {
		return nil, false, nil
	}
	id, ok, err := storage.ApprovalByKey(tx, r.kind, r.key)
	if !ok || err != nil {
		return nil, false, err
	}
	prev, err := e.loadApproval(tx, id)
	if err != nil {
		return nil, false, err
	}
	if r.renew && prev.Status != approvals.Pending {
		return nil, false, nil
	}
	wait, err := prev.Replay(r.kind, r.org, r.amount)
	if err != nil || !wait {
		return nil, true, err
	}
	return &prev, true, nil
}

// makeApprovedMove makes the move of approval a in tx, audited with the
// approver (ctx's actor); after, if not nil, is run once tx commits.
func (e *Engine) makeApprovedMove(ctx context.Context, tx store.Tx, a Approval) (after func(), err error) {
	by := fmt.Sprintf(", requested by %s, approved in %s", partyName(a.RequestedBy), a.ID)
	switch a.Kind {
	case approvals.Funding:
		return nil, e.approvedFunding(ctx, tx, a, by)
	case approvals.Deposit:
		d := Deposit{Network: a.Details["network"], Asset: a.Amount.Asset().Code, Amount: a.Amount, TxRef: a.Details["tx_ref"]}
		n, _, err := d.Check(e.networks, e.assets)
		if err != nil {
			return nil, err
		}
		_, err = e.creditDeposit(ctx, tx, a.Org, d, n.ID, by)
		return nil, err
	case approvals.RefundReturned:
		m, err := e.applyOrder(tx, a.Details["order"], "", orders.ReturnRefund{}, e.nowUTC())
		if err != nil || !m.Changed {
			return nil, err
		}
		return nil, e.auditAs(ctx, tx, m.Order.Org, AuditOrderMoved, m.Order.ID, orderMoveSummary(orders.ReturnRefund{}, m)+by)
	case approvals.Trade:
		n, err := tradeOfDetails(a.Details)
		if err != nil {
			return nil, err
		}
		_, err = e.makeTrade(ctx, tx, a.Org, n, by)
		return nil, err
	case approvals.Collection:
		return nil, e.approvedCollection(ctx, tx, a, by)
	case approvals.PayoutFailed, approvals.PayoutClawback:
		return e.approvedPayoutMove(ctx, tx, a, by)
	case approvals.ThresholdChange:
		return nil, e.approvedThreshold(ctx, tx, a, by)
	}
	return nil, fmt.Errorf("tambala: approval %s of unknown kind %q", a.ID, a.Kind)
}

// approvedFunding credits the funding of approval a from the float.
func (e *Engine) approvedFunding(ctx context.Context, tx store.Tx, a Approval, by string) error {
	var o Organization
	if err := loadOrg(tx, a.Org, &o, errNotFound); err != nil {
		return err
	}
	ref := a.Details["ref"]
	credited, err := e.fund(tx, &o, a.Amount, ref)
	if err != nil || !credited {
		return err
	}
	return e.auditAs(ctx, tx, a.Org, AuditOrgFunded, a.Org, fmt.Sprintf("credited %s from the float, ref %q", amountText(a.Amount), ref)+by)
}

// approvedCollection settles the collection recorded by hand of approval
// a.
func (e *Engine) approvedCollection(ctx context.Context, tx store.Tx, a Approval, by string) error {
	n, fee, err := e.collectionOfDetails(a.Amount, a.Details)
	if err != nil {
		return err
	}
	o := &Organization{}
	if err := loadOrg(tx, a.Org, o, errNotFound); err != nil {
		return err
	}
	if _, err := e.enabledAsset(o, money.MWK.Code, OpCollection); err != nil {
		return err
	}
	_, err = e.settleCollection(ctx, tx, a.Org, n, fee, by)
	return err
}

// approvedPayoutMove makes the payout's resolution failed or its
// clawback of approval a; after reports it once tx commits.
func (e *Engine) approvedPayoutMove(ctx context.Context, tx store.Tx, a Approval, by string) (after func(), err error) {
	if a.Kind == approvals.PayoutClawback {
		rec, err := e.clawbackInTx(ctx, tx, a.Details["payout"], by)
		if err != nil {
			return nil, err
		}
		return func() {
			e.reportPayout(stateChange{id: rec.ID, org: rec.Org, rail: rec.Rail, from: payouts.Succeeded, to: rec.Status, by: "operator"})
		}, nil
	}
	r := Resolution{Outcome: payouts.Failed, FailureCode: payouts.FailureCode(a.Details["failure_code"]),
		Reason: a.Details["reason"], Reference: a.Details["reference"]}
	out, from, err := e.resolveInTx(ctx, tx, a.Details["payout"], r, by)
	if err != nil {
		return nil, err
	}
	return func() { e.resolved(ctx, a.Details["payout"], r, out, from) }, nil
}

// approvedThreshold applies the threshold change of approval a.
func (e *Engine) approvedThreshold(ctx context.Context, tx store.Tx, a Approval, by string) error {
	as := a.Amount.Asset()
	prev, err := e.threshold(tx, as.Code)
	if err != nil {
		return err
	}
	var next money.Amount
	if v := a.Details["threshold"]; v != "none" {
		if next, err = money.Parse(as, v); err != nil {
			return fmt.Errorf("tambala: approval %s: threshold: %w", a.ID, err)
		}
	}
	return e.applyThreshold(ctx, tx, as, prev, next, by)
}

func (e *Engine) loadApproval(tx store.Tx, id string) (Approval, error) {
	return storage.LoadApproval(tx, id, e.assets, errNotFound)
}

func (e *Engine) putApproval(tx store.Tx, a Approval) error { return storage.SaveApproval(tx, a) }

func (a *Approvals) span(ctx context.Context, name string) (context.Context, span) {
	return a.e.startSpan(ctx, name, trace.SpanKindInternal)
}
