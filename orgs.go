package tambala

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

var errNotFound = errcode.New(errcode.NotFound)

// The organization's rules are package orgs's; these are its names in the
// engine's API.

// Organization is a customer of the operator (orgs.Organization).
type Organization = orgs.Organization

// OrgStatus is whether an organization may use the API at all.
type OrgStatus = orgs.Status

const (
	OrgActive    = orgs.Active
	OrgSuspended = orgs.Suspended
)

// V2Access is an organization's access to the multi-asset API.
type V2Access = orgs.V2Access

const (
	V2OnboardingIncomplete = orgs.V2OnboardingIncomplete
	V2Enabled              = orgs.V2Enabled
	V2AccessSuspended      = orgs.V2AccessSuspended
)

// Operations an organization may run in an asset.
const (
	OpPayout     = orgs.OpPayout
	OpConvert    = orgs.OpConvert
	OpCollection = orgs.OpCollection
)

// AssetAccess is an asset enabled for an organization and the operations
// it may run in it.
type AssetAccess = orgs.AssetAccess

// NewOrganization is what the operator gives to create an organization
// (orgs.Params).
type NewOrganization = orgs.Params

// PayoutLimits are an organization's business limits on /v1 payouts
// (orgs.PayoutLimits): the zero value of a field is unset.
type PayoutLimits = orgs.PayoutLimits

// DefaultPayoutLimits apply to an organization with none set.
func DefaultPayoutLimits() PayoutLimits { return orgs.DefaultPayoutLimits() }

// createOrganization is Operator.CreateOrganization.
func (e *Engine) createOrganization(ctx context.Context, n NewOrganization) (Organization, error) {
	o, err := e.newOrganization(n)
	if err != nil {
		return Organization{}, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		if err := saveOrg(tx, &o); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, o.ID, AuditOrgCreated, o.ID, fmt.Sprintf("created %q", o.Name))
	})
	return o, err
}

// newOrganization makes and validates the organization n asks for, with a
// new id; nothing is written. The name is checked before an id is drawn.
func (e *Engine) newOrganization(n NewOrganization) (Organization, error) {
	if _, err := orgs.CheckName(n.Name); err != nil {
		return Organization{}, err
	}
	return orgs.New(e.newID(), n, e.assets, e.nowUTC())
}

// organization is Operator.Organization.
func (e *Engine) organization(ctx context.Context, id string) (Organization, error) {
	var o Organization
	err := e.store.View(ctx, func(tx store.Tx) error { return loadOrg(tx, id, &o, errNotFound) })
	return o, err
}

// loadOrg reads organization id into o; a missing one is notFound.
func loadOrg(tx store.Tx, id string, o *Organization, notFound error) error {
	got, err := storage.LoadOrg(tx, id, notFound)
	if err != nil {
		return err
	}
	*o = got
	return nil
}

// cachedOrg reads organization id through the engine's cache (the value is
// shared: read it, never change it); a missing one is notFound.
func (e *Engine) cachedOrg(tx store.Tx, id string, notFound error) (Organization, error) {
	return storage.CachedOrg(tx, id, &e.cachedOrgs, notFound)
}

// organizations is Operator.Organizations.
func (e *Engine) organizations(ctx context.Context) ([]Organization, error) {
	var out []Organization
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = storage.Orgs(tx)
		return err
	})
	return out, err
}

// updateOrg makes change c to organization id: c's own figures checked
// first, then, in one transaction, the organization read (not_found),
// changed and validated (orgs.Apply) and written.
func (e *Engine) updateOrg(ctx context.Context, id string, c orgs.Change) (Organization, error) {
	if c != nil {
		if err := c.Check(); err != nil {
			return Organization{}, err
		}
	}
	var o Organization
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var prev Organization
		if err := loadOrg(tx, id, &prev, errNotFound); err != nil {
			return err
		}
		next, err := orgs.Apply(prev, c, e.assets)
		if err != nil {
			return err
		}
		o = next
		if err := saveOrg(tx, &o); err != nil {
			return err
		}
		return e.auditOrgChange(ctx, tx, prev, next, c)
	})
	if err != nil {
		return Organization{}, err
	}
	return o, nil
}

// saveOrg writes the organization and its balance floor (storage.SaveOrg).
func saveOrg(tx store.Tx, o *Organization) error { return storage.SaveOrg(tx, *o) }

// setOrganizationStatus is Operator.SetOrganizationStatus.
func (e *Engine) setOrganizationStatus(ctx context.Context, id string, s OrgStatus) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetStatus{Status: s})
}

// setV2Access is Operator.SetV2Access.
func (e *Engine) setV2Access(ctx context.Context, id string, a V2Access) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetV2Access{Access: a})
}

// setAssets is Operator.SetAssets.
func (e *Engine) setAssets(ctx context.Context, id string, assets []AssetAccess) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetAssets{Assets: assets})
}

// setBalanceFloor is Operator.SetBalanceFloor.
func (e *Engine) setBalanceFloor(ctx context.Context, id string, floor money.Amount) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetBalanceFloor{Floor: floor})
}

// setAllowlist is Operator.SetAllowlist.
func (e *Engine) setAllowlist(ctx context.Context, id string, addrs []netip.Addr) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetAllowlist{Addrs: addrs})
}

// setPayoutLimits is Operator.SetPayoutLimits.
func (e *Engine) setPayoutLimits(ctx context.Context, id string, l PayoutLimits) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetPayoutLimits{Limits: l})
}

// fundOrg is Operator.Fund.
func (e *Engine) fundOrg(ctx context.Context, orgID string, amount money.Amount, ref string) error {
	_, err := e.fundOrgOnce(ctx, orgID, amount, ref)
	return err
}

// fundOrgOnce is fundOrg; credited is false when ref had credited the
// amount before (nothing moved now).
func (e *Engine) fundOrgOnce(ctx context.Context, orgID string, amount money.Amount, ref string) (credited bool, err error) {
	if err := orgs.CheckFunding(amount, ref); err != nil {
		return false, err
	}
	if err := textrule.CheckChars("ref", ref); err != nil {
		return false, err
	}
	var pending *Approval
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending, credited = nil, false
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		if err := o.CheckFundable(amount.Asset().Code); err != nil {
			return err
		}
		var err error
		pending, err = e.gate(ctx, tx, approvals.Funding, orgID, amount, orgs.FundingEntryID(orgID, string(amount.Asset().Code), ref),
			accounts.StaffOperations, map[string]string{"ref": ref})
		if err != nil || pending != nil {
			return err
		}
		credited, err = e.fund(tx, &o, amount, ref)
		if err != nil || !credited {
			return err
		}
		return e.auditAs(ctx, tx, orgID, AuditOrgFunded, orgID, fmt.Sprintf("credited %s from the float, ref %q", amountText(amount), ref))
	})
	if err == nil && pending != nil {
		return false, &ApprovalPendingError{Approval: *pending}
	}
	return credited && err == nil, err
}

// fund credits o from the operator's float in tx (orgs.CheckFunding
// first); credited is false when ref had already credited the same amount.
func (e *Engine) fund(tx store.Tx, o *Organization, amount money.Amount, ref string) (credited bool, err error) {
	code := amount.Asset().Code
	if err := o.CheckFundable(code); err != nil {
		return false, err
	}
	eff, err := postLedger(tx, ledger.Credit{
		EntryID: orgs.FundingEntryID(o.ID, string(code), ref), Org: o.ID, Amount: amount, From: ledger.Float, Ref: ref, At: e.nowUTC(),
	})
	if errors.Is(err, ledger.ErrEntryIDReused) {
		return false, errcode.Newf(errcode.Conflict, "This funding ref was already used with another amount.")
	}
	if err != nil {
		return false, fmt.Errorf("fund %s: %w", o.ID, err)
	}
	return !eff.Replayed, nil
}

// Bootstrap is an organization made ready to use in one go, at most once
// per store: the demo organization of a sandbox server, a host's first
// tenant.
type Bootstrap struct {
	// Marker names this bootstrap in the store (1 to 100 characters, such
	// as "demo"). It is recorded in the transaction that creates the
	// organization; once it is, a bootstrap under the same marker creates
	// nothing, from this process or any other sharing the store.
	Marker string
	// Organization is created as CreateOrganization creates it.
	Organization NewOrganization
	// Funding credits the organization from the operator's float, as Fund
	// does.
	Funding []Funding
	// Corridors are created or replaced as SetCorridor does.
	Corridors []quotes.Corridor
}

// Funding is one credit of a Bootstrap: an amount and its ref.
type Funding struct {
	Amount money.Amount
	Ref    string
}

// Bootstrapped is what BootstrapOrganization did.
type Bootstrapped struct {
	// Created says this call created the organization.
	Created bool
	// Organization is the organization created now or, when Created is
	// false, the one an earlier bootstrap under the marker created (zero
	// when the store held other organizations and no marker).
	Organization Organization
	// Key is the new organization's API key when Created: returned this
	// once, never again. APIKey is its record.
	Key    string
	APIKey APIKey
}

// bootstrapOrganization is Operator.BootstrapOrganization: b checked and
// its key made, then in one transaction the marker read and, when no
// bootstrap ran and the store holds no organization, everything created.
func (e *Engine) bootstrapOrganization(ctx context.Context, b Bootstrap) (Bootstrapped, error) {
	o, err := e.checkBootstrap(b)
	if err != nil {
		return Bootstrapped{}, err
	}
	nk, err := e.newKey(o.ID)
	if err != nil {
		return Bootstrapped{}, err
	}
	var out Bootstrapped
	err = e.store.Update(ctx, func(tx store.Tx) error {
		out = Bootstrapped{}
		id, done, err := storage.BootstrapMarker(tx, b.Marker)
		if err != nil || done {
			if err == nil {
				err = loadOrg(tx, id, &out.Organization, errNotFound)
			}
			return err
		}
		if some, err := storage.AnyOrg(tx); err != nil || some {
			return err
		}
		out, err = e.bootstrapIn(ctx, tx, b, o.Clone(), nk)
		return err
	})
	if err != nil {
		return Bootstrapped{}, err
	}
	return out, nil
}

// checkBootstrap checks b (its marker, organization, fundings and
// corridors) and makes its organization, with a new id; nothing is
// written.
func (e *Engine) checkBootstrap(b Bootstrap) (Organization, error) {
	if b.Marker == "" || len(b.Marker) > 100 {
		return Organization{}, errcode.Newf(errcode.ValidationError, "the bootstrap marker must be 1 to 100 characters")
	}
	o, err := e.newOrganization(b.Organization)
	if err != nil {
		return Organization{}, err
	}
	for _, f := range b.Funding {
		if err := orgs.CheckFunding(f.Amount, f.Ref); err != nil {
			return Organization{}, err
		}
	}
	for _, c := range b.Corridors {
		if err := e.checkCorridor(c); err != nil {
			return Organization{}, err
		}
	}
	return o, nil
}

// bootstrapIn creates what b asks for in tx: the organization, its
// fundings, the corridors, the key and the marker, then the audit entry.
func (e *Engine) bootstrapIn(ctx context.Context, tx store.Tx, b Bootstrap, org Organization, nk madeKey) (Bootstrapped, error) {
	if err := saveOrg(tx, &org); err != nil {
		return Bootstrapped{}, err
	}
	for _, f := range b.Funding {
		if _, err := e.fund(tx, &org, f.Amount, f.Ref); err != nil {
			return Bootstrapped{}, err
		}
	}
	for _, c := range b.Corridors {
		if err := putCorridor(tx, c); err != nil {
			return Bootstrapped{}, err
		}
	}
	if err := putKey(tx, nk); err != nil {
		return Bootstrapped{}, err
	}
	if err := storage.SaveBootstrapMarker(tx, b.Marker, org.ID); err != nil {
		return Bootstrapped{}, err
	}
	return Bootstrapped{Created: true, Organization: org, Key: nk.full, APIKey: nk.rec.APIKey},
		e.auditAs(ctx, tx, org.ID, AuditOrgBootstrapped, org.ID, fmt.Sprintf("created %q with %d fundings, %d corridors and the key %s",
			org.Name, len(b.Funding), len(b.Corridors), nk.rec.Prefix))
}

// API names a versioned half of the API, paused separately.
type API string

const (
	APIv1 API = "v1"
	APIv2 API = "v2"
)

// PauseMode is why an API is paused; "" means live.
type PauseMode string

const (
	Live        PauseMode = ""
	Maintenance PauseMode = "maintenance"
	Incident    PauseMode = "incident"
)

// PauseState holds both switches, and the recent /v2 pauses (the order
// expiry sweep and proof uploads honour funding deadlines that fell inside
// one).
type PauseState struct {
	V1       PauseMode
	V2       PauseMode
	V2Pauses []PauseWindow
}

// PauseWindow is one /v2 pause: From when it started, To when /v2 was live
// again (nil while it lasts).
type PauseWindow struct {
	From time.Time
	To   *time.Time
}

// maxPauseWindows is how many /v2 pauses are remembered: enough for every
// funding window (72 h by default) to meet each pause that touched it.
const maxPauseWindows = 64

// Of returns the mode of api.
func (s PauseState) Of(api API) PauseMode {
	if api == APIv2 {
		return s.V2
	}
	return s.V1
}

// Err returns the error a request to api gets while paused, or nil.
func (s PauseState) Err(api API) error {
	switch s.Of(api) {
	case Maintenance:
		return errcode.New(errcode.ServiceMaintenance)
	case Incident:
		return errcode.New(errcode.ServiceIncident)
	}
	return nil
}

// PingStatus is the state of /v2 under s, as a /v2 ping reports it: live,
// maintenance or outage.
func (s PauseState) PingStatus() string {
	switch s.V2 {
	case Maintenance:
		return "maintenance"
	case Incident:
		return "outage"
	}
	return "live"
}

// readPause reads the switches in tx; the decoding is cached while the
// stored bytes are unchanged, since every use case reads them.
func (e *Engine) readPause(tx store.Tx) (PauseState, error) {
	raw, err := storage.Pause(tx)
	if err != nil || raw == nil {
		return PauseState{}, err
	}
	return e.cachedPause.Decode(raw, decodePause)
}

// pause is Operator.PauseState.
func (e *Engine) pause(ctx context.Context) (PauseState, error) {
	var s PauseState
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		s, err = e.readPause(tx)
		return err
	})
	return s, err
}

// setPause is Operator.SetPause.
func (e *Engine) setPause(ctx context.Context, api API, mode PauseMode) (PauseState, error) {
	if api != APIv1 && api != APIv2 {
		return PauseState{}, errcode.Newf(errcode.ValidationError, "api must be v1 or v2")
	}
	if mode != Live && mode != Maintenance && mode != Incident {
		return PauseState{}, errcode.Newf(errcode.ValidationError, "mode must be live, maintenance or incident")
	}
	var s PauseState
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		if s, err = e.readPause(tx); err != nil {
			return err
		}
		was := s.V1
		if api == APIv2 {
			was = s.V2
		}
		if err := e.auditAs(ctx, tx, "", AuditPauseChanged, string(api), fmt.Sprintf("%s %s -> %s", api, modeText(was), modeText(mode))); err != nil {
			return err
		}
		if api == APIv1 {
			s.V1 = mode
		} else {
			now := e.nowUTC()
			switch {
			case s.V2 == Live && mode != Live:
				s.V2Pauses = append(s.V2Pauses, PauseWindow{From: now})
				if len(s.V2Pauses) > maxPauseWindows {
					s.V2Pauses = s.V2Pauses[len(s.V2Pauses)-maxPauseWindows:]
				}
			case s.V2 != Live && mode == Live && len(s.V2Pauses) > 0:
				s.V2Pauses[len(s.V2Pauses)-1].To = &now
			}
			s.V2 = mode
		}
		return storage.SavePause(tx, toPauseRecord(s))
	})
	return s, err
}

// modeText is a pause mode for the audit trail: "live" for Live.
func modeText(m PauseMode) string {
	if m == Live {
		return "live"
	}
	return string(m)
}

// toPauseRecord is the stored form of s.
func toPauseRecord(s PauseState) codec.PauseRecord {
	r := codec.PauseRecord{V1: string(s.V1), V2: string(s.V2)}
	if s.V2Pauses != nil {
		r.V2Pauses = make([]codec.PauseWindowRecord, len(s.V2Pauses))
		for i, w := range s.V2Pauses {
			r.V2Pauses[i] = codec.PauseWindowRecord{From: w.From, To: w.To}
		}
	}
	return r
}

// fromPauseRecord reads stored switches back.
func fromPauseRecord(r codec.PauseRecord) PauseState {
	s := PauseState{V1: PauseMode(r.V1), V2: PauseMode(r.V2)}
	if r.V2Pauses != nil {
		s.V2Pauses = make([]PauseWindow, len(r.V2Pauses))
		for i, w := range r.V2Pauses {
			s.V2Pauses[i] = PauseWindow{From: w.From, To: w.To}
		}
	}
	return s
}

// decodePause decodes the stored switches.
func decodePause(raw []byte) (PauseState, error) {
	r, err := cache.DecodeJSON[codec.PauseRecord](raw)
	return fromPauseRecord(r), err
}

// setAssetLimits is Desk.SetAssetLimits.
func (e *Engine) setAssetLimits(ctx context.Context, asset money.AssetCode, op string, l quotes.Limits) error {
	a, ok := e.assets.Lookup(asset)
	if !ok {
		return money.NotConfigured(truncate(string(asset), 12))
	}
	if op != OpConvert && op != OpPayout {
		return errcode.Newf(errcode.ValidationError, "operation must be convert or payout.")
	}
	var rec codec.AssetLimitsRecord
	for _, b := range []struct {
		v   money.Amount
		out **string
	}{{l.Min, &rec.Min}, {l.Max, &rec.Max}} {
		if !b.v.IsSet() {
			continue
		}
		if b.v.Asset() != a || b.v.Sign() <= 0 {
			return errcode.Newf(errcode.ValidationError, "limits must be positive %s amounts.", a.Code)
		}
		s := b.v.String()
		*b.out = &s
	}
	if l.Min.IsSet() && l.Max.IsSet() && l.Min.Cmp(l.Max) > 0 {
		return errcode.Newf(errcode.ValidationError, "min must be at most max.")
	}
	return e.store.Update(ctx, func(tx store.Tx) error {
		prev, err := storage.AssetLimits(tx, asset, op)
		if err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, "", AuditAssetLimitsChanged, string(asset), fmt.Sprintf("%s %s: min %s -> %s, max %s -> %s",
			asset, op, orNone(deref(prev.Min)), orNone(deref(rec.Min)), orNone(deref(prev.Max)), orNone(deref(rec.Max)))); err != nil {
			return err
		}
		return storage.SaveAssetLimits(tx, asset, op, rec)
	})
}

// assetLimits reads the limits of op in asset (none: zero Limits).
func (e *Engine) assetLimits(tx store.Tx, asset money.Asset, op string) (quotes.Limits, error) {
	rec, err := storage.AssetLimits(tx, asset.Code, op)
	if err != nil {
		return quotes.Limits{}, err
	}
	var l quotes.Limits
	for _, b := range []struct {
		s   *string
		out *money.Amount
	}{{rec.Min, &l.Min}, {rec.Max, &l.Max}} {
		if b.s == nil {
			continue
		}
		a, err := money.Parse(asset, *b.s)
		if err != nil {
			return quotes.Limits{}, err
		}
		*b.out = a
	}
	return l, nil
}

// readAssetLimits is Desk.AssetLimits.
func (e *Engine) readAssetLimits(ctx context.Context, asset money.AssetCode, op string) (quotes.Limits, error) {
	a, ok := e.assets.Lookup(asset)
	if !ok {
		return quotes.Limits{}, money.NotConfigured(truncate(string(asset), 12))
	}
	var l quotes.Limits
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		l, err = e.assetLimits(tx, a, op)
		return err
	})
	return l, err
}

// networksOfEngine is Settings.Networks.
func (e *Engine) networksOfEngine() []networks.Network {
	out := e.networks.Sorted()
	for i := range out {
		out[i].Assets = slices.Clone(out[i].Assets)
	}
	return out
}

// auditOrgChange appends change c of organization prev (now next) to the
// audit trail when ctx carries an actor.
func (e *Engine) auditOrgChange(ctx context.Context, tx store.Tx, prev, next Organization, c orgs.Change) error {
	switch c.(type) {
	case orgs.SetAllowlist:
		return e.auditAs(ctx, tx, next.ID, AuditAllowlistChanged, next.ID,
			fmt.Sprintf("allowlist %s -> %s", addrList(prev.Allowlist), addrList(next.Allowlist)))
	case orgs.SetBalanceFloor:
		return e.auditAs(ctx, tx, next.ID, AuditBalanceFloorChanged, next.ID,
			fmt.Sprintf("balance floor %s -> %s", floorText(prev.BalanceFloorMWK), floorText(next.BalanceFloorMWK)))
	case orgs.SetStatus:
		return e.auditAs(ctx, tx, next.ID, AuditOrgStatusChanged, next.ID, fmt.Sprintf("status %s -> %s", prev.Status, next.Status))
	case orgs.SetV2Access:
		return e.auditAs(ctx, tx, next.ID, AuditOrgV2AccessChanged, next.ID, fmt.Sprintf("/v2 access %s -> %s", prev.V2Access, next.V2Access))
	case orgs.SetAssets:
		return e.auditAs(ctx, tx, next.ID, AuditOrgAssetsChanged, next.ID, fmt.Sprintf("assets %s -> %s", assetsText(prev.Assets), assetsText(next.Assets)))
	case orgs.SetPayoutLimits:
		return e.auditAs(ctx, tx, next.ID, AuditPayoutLimitsChanged, next.ID,
			fmt.Sprintf("payout limits %s -> %s", limitsText(prev.PayoutLimits), limitsText(next.PayoutLimits)))
	default:
		return e.auditAs(ctx, tx, next.ID, AuditOrgChanged, next.ID, fmt.Sprintf("%T", c))
	}
}

// assetsText is an organization's asset access for the audit trail.
func assetsText(list []AssetAccess) string {
	s := make([]string, len(list))
	for i, a := range list {
		s[i] = string(a.Asset) + ":" + strings.Join(a.Operations, ",")
	}
	return "[" + strings.Join(s, " ") + "]"
}

// limitsText is an organization's own payout limits for the audit trail
// (unset ones are "default").
func limitsText(p *PayoutLimits) string {
	var l PayoutLimits
	if p != nil {
		l = *p
	}
	amount := func(a money.Amount) string {
		if !a.IsSet() {
			return "default"
		}
		return a.String()
	}
	count := "default"
	if l.HourlyCount > 0 {
		count = fmt.Sprint(l.HourlyCount)
	}
	return fmt.Sprintf("[per payout %s, daily %s, hourly count %s]", amount(l.MaxPerPayoutMWK), amount(l.DailyVolumeMWK), count)
}

func addrList(addrs []netip.Addr) string {
	if len(addrs) == 0 {
		return "[any]"
	}
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func floorText(a money.Amount) string {
	if !a.IsSet() {
		return "none"
	}
	return a.String() + " MWK"
}

// Networks lists the blockchain networks the engine accepts, by id, with
// the assets each carries (Options.Networks; the operator's side). They
// are set when the engine is made, since each has an address validator.
func (u Settings) Networks() []networks.Network {
	return u.x.networksOfEngine()
}
