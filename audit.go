package tambala

import (
	"context"
	"fmt"
	"github.com/tambalapay/tambala/internal/codec"
	"net/netip"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/audit"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// AuditEntry is one entry of the audit trail: who did what to which
// organization's people and settings, when, and from where. An entry is
// written in the transaction of the change it records, so a change that
// does not commit leaves none; entries are never changed or removed. Its
// Address and RequestID come from the RequestInfo of the call's context
// (package audit).
type AuditEntry = audit.Entry

// AuditActor is who acted: an organization's user, one of the operator's
// staff, the operator's automation, or the engine itself (package audit).
type AuditActor = audit.Actor

// AuditActorKind is the kind of an AuditActor.
type AuditActorKind = audit.ActorKind

const (
	// ActorUser is an organization's user (the portal).
	ActorUser = audit.ActorUser
	// ActorStaff is one of the operator's staff, signed in (Sessions.Operator).
	ActorStaff = audit.ActorStaff
	// ActorAutomation is the operator's automation: the admin API's token
	// or a host's own code (Engine.Operator, Engine.People).
	ActorAutomation = audit.ActorAutomation
	// ActorSystem is the engine itself.
	ActorSystem = audit.ActorSystem
)

// AuditAction is what an audit entry records (package audit).
type AuditAction = audit.Action

// The actions of the audit trail. Sign-in failures are recorded for users
// that exist (an unknown email has no organization to file them under),
// and so are the lockouts they bring.
const (
	AuditUserInvited          AuditAction = "user.invited"
	AuditInvitationRevoked    AuditAction = "invitation.revoked"
	AuditInvitationAccepted   AuditAction = "invitation.accepted"
	AuditUserDisabled         AuditAction = "user.disabled"
	AuditUserEnabled          AuditAction = "user.enabled"
	AuditSessionsEnded        AuditAction = "user.sessions_ended"
	AuditTOTPReset            AuditAction = "user.totp_reset"
	AuditTOTPRequired         AuditAction = "org.totp_required_changed"
	AuditSignedIn             AuditAction = "user.signed_in"
	AuditSignInFailed         AuditAction = "user.sign_in_failed"
	AuditLockedOut            AuditAction = "user.locked_out"
	AuditSecondFactorPassed   AuditAction = "user.second_factor_passed"
	AuditSecondFactorFailed   AuditAction = "user.second_factor_failed"
	AuditTOTPEnrolled         AuditAction = "user.totp_enrolled"
	AuditSignedOut            AuditAction = "user.signed_out"
	AuditPasswordChanged      AuditAction = "user.password_changed"
	AuditPasswordChangeFailed AuditAction = "user.password_change_failed"
	AuditStaffRolesChanged    AuditAction = "user.staff_roles_changed"
	AuditPasswordResetIssued  AuditAction = "user.password_reset_issued"
	AuditPasswordReset        AuditAction = "user.password_reset"
)

// AuditFilter narrows the operator's read of the audit trail. Each field
// set keeps only the entries that match it; the zero filter keeps all.
// Only Org is an index: the other fields are checked entry by entry,
// newest first, until a page is full.
type AuditFilter struct {
	// Org, when set, keeps one organization's entries.
	Org string
	// ActorKind keeps one kind of actor (user, staff, automation).
	ActorKind AuditActorKind
	// Actor keeps one person's acts: a user's id or email.
	Actor string
	// Action keeps one action.
	Action AuditAction
	// Target keeps the entries about one thing (an order, a user, ...).
	Target string
	// Since and Until keep entries at or after Since and before Until.
	Since, Until time.Time
}

// keeps reports whether a matches f (Org aside: that is the index).
func (f AuditFilter) keeps(a AuditEntry) bool {
	switch {
	case f.ActorKind != "" && a.Actor.Kind != f.ActorKind,
		f.Actor != "" && a.Actor.ID != f.Actor && !strings.EqualFold(a.Actor.Email, f.Actor),
		f.Action != "" && a.Action != f.Action,
		f.Target != "" && a.Target != f.Target,
		!f.Since.IsZero() && a.At.Before(f.Since),
		!f.Until.IsZero() && !a.At.Before(f.Until):
		return false
	}
	return true
}

// narrows reports whether f has any field besides Org.
func (f AuditFilter) narrows() bool {
	f.Org = ""
	return f != AuditFilter{}
}

// RequestInfo is what a transport knows of the request behind a call: the
// client's address (sign-in throttling, the audit trail) and its request
// id (the audit trail).
type RequestInfo struct {
	Address   netip.Addr
	RequestID string
}

type requestInfoKey struct{}

// WithRequestInfo returns ctx carrying ri, for the calls made with it.
func WithRequestInfo(ctx context.Context, ri RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, ri)
}

// requestInfo is the RequestInfo ctx carries; the zero one when none.
func requestInfo(ctx context.Context) RequestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(RequestInfo)
	return ri
}

var automationActor = AuditActor{Kind: ActorAutomation}

// userActor is the actor of a user's own act.
func userActor(id, email string) AuditActor { return AuditActor{Kind: ActorUser, ID: id, Email: email} }

// staffActor is the actor of a staff user's act.
func staffActor(u accounts.User) AuditActor {
	return AuditActor{Kind: ActorStaff, ID: u.ID, Email: u.Email}
}

// audit appends an entry to the trail in tx, the transaction of the change
// it records, with the request's address and id from ctx.
func (e *Engine) audit(ctx context.Context, tx store.Tx, actor AuditActor, org string, action AuditAction, target, summary string) error {
	ri := requestInfo(ctx)
	a := AuditEntry{ID: e.newID(), At: e.nowUTC(), Actor: actor, Org: org, Action: action, Target: target,
		Summary: summary, Address: ri.Address, RequestID: ri.RequestID}
	return storage.AppendAudit(tx, org, toAuditRecord(a))
}

// loadAudit reads entry id of org.
func loadAudit(tx store.Tx, org, id string) (AuditEntry, error) {
	r, err := storage.LoadAudit(tx, org, id, errcode.New(errcode.InternalError))
	if err != nil {
		return AuditEntry{}, err
	}
	return fromAuditRecord(r)
}

// auditTrail reads one page of the trail, newest first: one
// organization's when f.Org is set, else every entry; narrowed by f.
func (e *Engine) auditTrail(ctx context.Context, page PageRequest, f AuditFilter) (Page[AuditEntry], error) {
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return Page[AuditEntry]{}, errcode.Newf(errcode.ValidationError, "since must be before until.")
	}
	var out Page[AuditEntry]
	err := e.store.View(ctx, func(tx store.Tx) error {
		index, owner := storage.AuditAll, ""
		load := func(id string) (AuditEntry, error) {
			o, err := storage.AuditOrg(tx, id)
			if err != nil {
				return AuditEntry{}, err
			}
			return loadAudit(tx, o, id)
		}
		if f.Org != "" {
			index, owner = storage.AuditByOrg, f.Org
			load = func(id string) (AuditEntry, error) { return loadAudit(tx, f.Org, id) }
		}
		var keep func(id string) (bool, error)
		if f.narrows() {
			keep = func(id string) (bool, error) {
				a, err := load(id)
				return err == nil && f.keeps(a), err
			}
		}
		var err error
		out, err = listPage(tx, index, owner, page, keep, load)
		return err
	})
	return out, err
}

// The actions of an organization admin's own changes (OrgAdmin).
const (
	AuditKeyCreated          AuditAction = "key.created"
	AuditKeyRevoked          AuditAction = "key.revoked"
	AuditAllowlistChanged    AuditAction = "org.allowlist_changed"
	AuditBalanceFloorChanged AuditAction = "org.balance_floor_changed"
	AuditOrgChanged          AuditAction = "org.changed"
	AuditWebhookEndpointSet  AuditAction = "webhook.endpoint_set"
	AuditProofUploaded       AuditAction = "order.proof_uploaded"
)

// The actions of the operator's changes (Operator). Entries of the
// engine's own settings (corridors, asset limits, pause switches, rails,
// institutions) belong to no organization: their Org is "".
const (
	AuditOrgCreated            AuditAction = "org.created"
	AuditOrgBootstrapped       AuditAction = "org.bootstrapped"
	AuditOrgStatusChanged      AuditAction = "org.status_changed"
	AuditOrgAssetsChanged      AuditAction = "org.assets_changed"
	AuditOrgV2AccessChanged    AuditAction = "org.v2_access_changed"
	AuditPayoutLimitsChanged   AuditAction = "org.payout_limits_changed"
	AuditOrgFunded             AuditAction = "org.funded"
	AuditOrderMoved            AuditAction = "order.moved"
	AuditCollectionRecorded    AuditAction = "collection.recorded"
	AuditCollectionReversed    AuditAction = "collection.reversed"
	AuditDepositRecorded       AuditAction = "deposit.recorded"
	AuditDepositAddressRotated AuditAction = "deposit_address.rotated"
	AuditTradeRecorded         AuditAction = "trade.recorded"
	AuditDeliveryRedelivered   AuditAction = "delivery.redelivered"
	AuditPayoutResolved        AuditAction = "payout.resolved"
	AuditPayoutClawedBack      AuditAction = "payout.clawed_back"
	AuditCorridorSet           AuditAction = "corridor.set"
	AuditAssetLimitsChanged    AuditAction = "asset_limits.changed"
	AuditPauseChanged          AuditAction = "pause.changed"
	AuditRailChanged           AuditAction = "rail.changed"
	AuditInstitutionsSynced    AuditAction = "institutions.synced"
)

// The actions of reconciliation: a rail's column mapping set, a
// settlement file imported, payouts resolved in bulk from one, a line
// marked explained.
const (
	AuditSettlementMappingSet AuditAction = "settlement.mapping_set"
	AuditSettlementImported   AuditAction = "settlement.imported"
	AuditSettlementResolved   AuditAction = "settlement.resolved"
	AuditSettlementExplained  AuditAction = "settlement.line_explained"
)

// The actions of four-eyes.
const (
	AuditApprovalRequested AuditAction = "approval.requested"
	AuditApprovalApproved  AuditAction = "approval.approved"
	AuditApprovalRejected  AuditAction = "approval.rejected"
	AuditThresholdChanged  AuditAction = "approval.threshold_changed"
	// A staff member's approvals suspended (their credentials reset, or
	// their invitation issued, by someone else) and confirmed again.
	AuditApprovalsSuspended AuditAction = "user.approvals_suspended"
	AuditApprovalsConfirmed AuditAction = "user.approvals_confirmed"
)

type actorKey struct{}

// asActor returns ctx whose calls of the engine's use cases append their
// changes to the audit trail with actor as its actor (auditAs). Only the
// engine's faces set it: OrgAdmin with its user, Operator with the
// operator. The engine's own work (the workers, the dispatcher, a
// client's API calls) carries none and is not audited.
func asActor(ctx context.Context, actor AuditActor) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// actorOr is the actor ctx carries, or def when it carries none.
func actorOr(ctx context.Context, def AuditActor) AuditActor {
	if a, ok := ctx.Value(actorKey{}).(AuditActor); ok {
		return a
	}
	return def
}

// auditAs appends an entry in tx when ctx carries an actor (asActor), and
// does nothing otherwise.
func (e *Engine) auditAs(ctx context.Context, tx store.Tx, org string, action AuditAction, target, summary string) error {
	actor, ok := ctx.Value(actorKey{}).(AuditActor)
	if !ok {
		return nil
	}
	return e.audit(ctx, tx, actor, org, action, target, summary)
}

// orNone is s, or "none" when s is empty, for an audit summary.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// amountText is an amount with its asset, for an audit summary.
func amountText(a money.Amount) string { return a.String() + " " + string(a.Asset().Code) }

func toAuditRecord(a AuditEntry) codec.AuditRecord {
	r := codec.AuditRecord{ID: a.ID, At: a.At, ActorKind: string(a.Actor.Kind), ActorID: a.Actor.ID, ActorEmail: a.Actor.Email,
		Org: a.Org, Action: string(a.Action), Target: a.Target, Summary: a.Summary, RequestID: a.RequestID}
	if a.Address.IsValid() {
		r.Address = a.Address.String()
	}
	return r
}

func fromAuditRecord(r codec.AuditRecord) (AuditEntry, error) {
	a := AuditEntry{ID: r.ID, At: r.At, Actor: AuditActor{Kind: AuditActorKind(r.ActorKind), ID: r.ActorID, Email: r.ActorEmail},
		Org: r.Org, Action: AuditAction(r.Action), Target: r.Target, Summary: r.Summary, RequestID: r.RequestID}
	if r.Address != "" {
		var err error
		if a.Address, err = netip.ParseAddr(r.Address); err != nil {
			return AuditEntry{}, fmt.Errorf("tambala: audit entry %s: stored address: %w", r.ID, err)
		}
	}
	return a, nil
}

// timePtr and timeOf are a record's optional time (storage.TimePtr,
// storage.TimeOf), for the records the root still converts.
func timePtr(t time.Time) *time.Time { return storage.TimePtr(t) }
func timeOf(p *time.Time) time.Time  { return storage.TimeOf(p) }
