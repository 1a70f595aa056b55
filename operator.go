package tambala

import (
	"context"
	"net/netip"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
	"go.opentelemetry.io/otel/trace"
)

// Operator is the face of the engine the operator's staff use:
// organizations and their keys, settings and limits, funding and
// deposits, the desk's queue and moves, corridors and asset limits, the
// pause switches, payouts to resolve by hand, and webhook endpoints and
// deliveries.
//
// Two kinds of caller use it. Engine.Operator is the operator's
// automation (the admin API's token, a host's own jobs): it may call
// everything, and its changes are recorded as the actor automation.
// Sessions.Operator is a signed-in staff user: each call checks the session
// again and the user's staff roles (accounts.StaffRole: support reads,
// desk moves orders and sets corridors and asset limits, operations does
// the rest), forbidden otherwise, extends the session, and records the
// user as the actor. A change checks and extends inside its own
// transaction, so that it is one write transaction with its check.
//
// Every call that changes something appends an entry to the audit trail
// in the transaction of its change, with the caller as its actor and the
// address and request id of the context's RequestInfo; a call that
// changes nothing (a read, a repeated funding ref, a move already made)
// appends none.
//
// It is safe for concurrent use.
type Operator struct {
	e *Engine
	// token is the staff user's session; "" for the automation.
	token string
}

// Operator returns the operator's automation face of the engine: every
// call allowed, recorded as the actor automation.
func (e *Engine) Operator() *Operator { return &Operator{e: e} }

// act checks that o's caller may make a call needing role ("" for a
// read, which every staff role may make) and returns ctx whose changes are
// audited with the caller as the actor.
func (o *Operator) act(ctx context.Context, role accounts.StaffRole) (context.Context, error) {
	return o.e.actAs(ctx, o.token, role)
}

// change is act for a call that changes something (changeAs): a staff
// user is checked in a read transaction, then again inside each write
// transaction of the change, which extends the session; done, to be
// deferred, extends it when none did.
func (o *Operator) change(ctx context.Context, role accounts.StaffRole) (context.Context, func(), error) {
	return o.e.changeAs(ctx, o.token, role)
}

// allCorridorsOfOperator is Desk.Corridors.
func (o *Operator) allCorridorsOfOperator(ctx context.Context) (_ []quotes.Corridor, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.AllCorridors")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return o.e.allCorridors(ctx)
}

// assetLimitsOfOperator is Desk.AssetLimits.
func (o *Operator) assetLimitsOfOperator(ctx context.Context, asset money.AssetCode, op string) (_ quotes.Limits, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.AssetLimits")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return quotes.Limits{}, err
	}
	return o.e.readAssetLimits(ctx, asset, op)
}

// backlogOfOperator is BackOffice.Backlog.
func (o *Operator) backlogOfOperator(ctx context.Context) (_ Backlog, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Backlog")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Backlog{}, err
	}
	return o.e.backlog(ctx)
}

// BootstrapOrganization creates the store's first organization with its
// funding, the corridors and an API key, in one storage transaction, unless
// the store has recorded b.Marker or already holds an organization: then
// it creates nothing and answers Created false. Two callers at once (two
// servers starting on one empty database) create one organization between
// them: the transaction that records the marker commits, and the other,
// run again on the committed state, finds it.
func (o *Operator) BootstrapOrganization(ctx context.Context, b Bootstrap) (_ Bootstrapped, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.BootstrapOrganization")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Bootstrapped{}, err
	}
	defer done()
	return o.e.bootstrapOrganization(ctx, b)
}

// clawbackPayoutOfOperator is BackOffice.ClawbackPayout.
func (o *Operator) clawbackPayoutOfOperator(ctx context.Context, id string) (err error) {
	ctx, span := o.span(ctx, "tambala.Operator.ClawbackPayout")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return err
	}
	defer done()
	return o.e.clawbackPayout(ctx, id)
}

// CreateKey issues a key for an organization in the engine's environment.
// The full key is returned here once and can never be read again. An
// organization holds at most Limits.MaxActiveKeys active keys; at that
// limit CreateKey fails with conflict until one is revoked.
func (o *Operator) CreateKey(ctx context.Context, orgID string) (full string, key APIKey, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.CreateKey")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return "", APIKey{}, err
	}
	defer done()
	return o.e.createKey(ctx, orgID)
}

// CreateOrganization creates an organization (the operator's side).
func (o *Operator) CreateOrganization(ctx context.Context, n NewOrganization) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.CreateOrganization")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.createOrganization(ctx, n)
}

// Deliveries lists an organization's deliveries newest first, each with its
// attempts newest first (the operator's side).
func (o *Operator) Deliveries(ctx context.Context, orgID string, page PageRequest) (_ Page[DeliveryView], err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Deliveries")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Page[DeliveryView]{}, err
	}
	return o.e.deliveries(ctx, orgID, page)
}

// deskOrderOfOperator is Desk.Order.
func (o *Operator) deskOrderOfOperator(ctx context.Context, id string) (_ orders.Order, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.DeskOrder")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return orders.Order{}, err
	}
	return o.e.deskOrder(ctx, id)
}

// deskOrdersOfOperator is Desk.Orders.
func (o *Operator) deskOrdersOfOperator(ctx context.Context, q DeskQueue, page PageRequest) (_ Page[orders.Order], err error) {
	ctx, span := o.span(ctx, "tambala.Operator.DeskOrders")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Page[orders.Order]{}, err
	}
	return o.e.deskOrders(ctx, q, page)
}

// deskProofOfOperator is Desk.Proof.
func (o *Operator) deskProofOfOperator(ctx context.Context, orderID string) (_ ProofFile, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.DeskProof")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return ProofFile{}, err
	}
	return o.e.deskProof(ctx, orderID)
}

// Fund credits an organization's available balance from the operator's
// float: the operator's manual funding (the demo organization's starting
// balance, test setups). ref identifies the funding (text with no control
// or invisible format character); funding the same ref twice credits once.
// Above the asset's approval threshold it waits for a second staff
// member's approval (ApprovalPendingError).
func (o *Operator) Fund(ctx context.Context, orgID string, amount money.Amount, ref string) (err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Fund")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return err
	}
	defer done()
	return o.e.fundOrg(ctx, orgID, amount, ref)
}

// FundOnce is Fund, telling what this call did: Replayed false, it
// credited the amount; Replayed true, ref had already credited the same
// amount to the organization, and nothing more was credited. A caller
// that reports the outcome to a person (the admin API, the tambala
// command) says which.
func (o *Operator) FundOnce(ctx context.Context, orgID string, amount money.Amount, ref string) (_ Created[Funding], err error) {
	ctx, span := o.span(ctx, "tambala.Operator.FundOnce")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Created[Funding]{}, err
	}
	defer done()
	credited, err := o.e.fundOrgOnce(ctx, orgID, amount, ref)
	if err != nil {
		return Created[Funding]{}, err
	}
	return Created[Funding]{Resource: Funding{Amount: amount, Ref: ref}, Replayed: !credited}, nil
}

// Keys lists an organization's keys, oldest first, by prefix.
func (o *Operator) Keys(ctx context.Context, orgID string) (_ []APIKey, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Keys")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return o.e.keys(ctx, orgID)
}

// moveOrderOfOperator is Desk.MoveOrder.
func (o *Operator) moveOrderOfOperator(ctx context.Context, id string, cmd orders.Command) (_ orders.Order, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.MoveOrder")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffDesk)
	if err != nil {
		return orders.Order{}, err
	}
	defer done()
	return o.e.moveOrder(ctx, id, cmd)
}

// OrgBalances reads an organization's balances (the operator's side): its
// MWK balance (the /v1 balance) first, then its balance in each other
// asset it has enabled, in the order of its assets. It is a staff read
// (every staff role may make it), whatever the organization's status, its
// /v2 access or the pause switches: the operator sees a suspended
// organization's money too. The admin API and the console both read
// balances through it.
func (o *Operator) OrgBalances(ctx context.Context, orgID string) (_ []ledger.Balance, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.OrgBalances")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return o.e.orgBalances(ctx, orgID)
}

// Organization returns an organization (the operator's side).
func (o *Operator) Organization(ctx context.Context, id string) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Organization")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Organization{}, err
	}
	return o.e.organization(ctx, id)
}

// Organizations lists every organization, oldest first (the operator's side).
func (o *Operator) Organizations(ctx context.Context) (_ []Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Organizations")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return o.e.organizations(ctx)
}

// PauseState returns the pause switches.
func (o *Operator) PauseState(ctx context.Context) (_ PauseState, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Pause")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return PauseState{}, err
	}
	return o.e.pause(ctx)
}

// payoutsInFlightOfOperator is BackOffice.PayoutsInFlight.
func (o *Operator) payoutsInFlightOfOperator(ctx context.Context, f InFlightFilter) (_ []InFlightPayout, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.PayoutsInFlight")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return o.e.payoutsInFlight(ctx, f)
}

// RecordCollection credits a collection net of the collection fee, in one
// transaction with the collection record. Above the MWK approval
// threshold it waits for a second staff member's approval
// (ApprovalPendingError); a collection has no reference of its own, so
// each such call makes a new approval.
func (o *Operator) RecordCollection(ctx context.Context, orgID string, n NewCollection) (_ Collection, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.RecordCollection")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Collection{}, err
	}
	defer done()
	return o.e.recordCollectionByOperator(ctx, orgID, n)
}

// recordDepositOfOperator is Desk.RecordDeposit.
func (o *Operator) recordDepositOfOperator(ctx context.Context, orgID string, d Deposit) (_ Created[CollectionV2], err error) {
	ctx, span := o.span(ctx, "tambala.Operator.RecordDeposit")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Created[CollectionV2]{}, err
	}
	defer done()
	return o.e.recordDepositOnce(ctx, orgID, d)
}

// recordTradeOfOperator is Desk.RecordTrade.
func (o *Operator) recordTradeOfOperator(ctx context.Context, orgID string, n NewTrade) (_ Trade, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.RecordTrade")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Trade{}, err
	}
	defer done()
	return o.e.recordTrade(ctx, orgID, n)
}

// Redeliver sends a dead-lettered delivery again on request (the
// operator's side): the same bytes, signed with the secret it was created
// with, for one more full schedule.
func (o *Operator) Redeliver(ctx context.Context, orgID string, id string) (_ DeliveryView, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Redeliver")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return DeliveryView{}, err
	}
	defer done()
	return o.e.redeliver(ctx, orgID, id)
}

// resolvePayoutOfOperator is BackOffice.ResolvePayout.
func (o *Operator) resolvePayoutOfOperator(ctx context.Context, id string, r Resolution) (_ payouts.Payout, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.ResolvePayout")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return payouts.Payout{}, err
	}
	defer done()
	return o.e.resolvePayout(ctx, id, r)
}

// ReverseCollection reverses a settled collection (the operator's side):
// the credit and its fee are undone, so the organization must still have
// the credited amount available (else insufficient_funds).
func (o *Operator) ReverseCollection(ctx context.Context, orgID string, id string) (_ Collection, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.ReverseCollection")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Collection{}, err
	}
	defer done()
	return o.e.reverseCollection(ctx, orgID, id)
}

// RevokeKey revokes a key of the organization, named by its id or its
// prefix. It takes effect on the very next request. Revoking a revoked key
// is not an error.
func (o *Operator) RevokeKey(ctx context.Context, orgID string, idOrPrefix string) (_ APIKey, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.RevokeKey")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return APIKey{}, err
	}
	defer done()
	return o.e.revokeKey(ctx, orgID, idOrPrefix)
}

// rotateDepositAddressOfOperator is Desk.RotateDepositAddress.
func (o *Operator) rotateDepositAddressOfOperator(ctx context.Context, orgID string, network string) (_ DepositAddress, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.RotateDepositAddress")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return DepositAddress{}, err
	}
	defer done()
	return o.e.rotateDepositAddress(ctx, orgID, network)
}

// SetAllowlist replaces an organization's IP allowlist: exact IPv4 or IPv6
// addresses without a zone (validation_error otherwise), kept unmapped,
// sorted and without repeats; orgs.ParseAllowlist reads a list written as
// text. An empty list allows every address. Only the operator's side can
// change it, never an API key.
func (o *Operator) SetAllowlist(ctx context.Context, id string, addrs []netip.Addr) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetAllowlist")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setAllowlist(ctx, id, addrs)
}

// setAssetLimitsOfOperator is Desk.SetAssetLimits.
func (o *Operator) setAssetLimitsOfOperator(ctx context.Context, asset money.AssetCode, op string, l quotes.Limits) (err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetAssetLimits")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffDesk)
	if err != nil {
		return err
	}
	defer done()
	return o.e.setAssetLimits(ctx, asset, op, l)
}

// SetAssets replaces the assets and operations enabled for an organization.
func (o *Operator) SetAssets(ctx context.Context, id string, assets []AssetAccess) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetAssets")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setAssets(ctx, id, assets)
}

// SetBalanceFloor sets the MWK floor below which balance.low is sent: an
// MWK amount of zero or more (validation_error otherwise); the zero
// Amount removes it.
func (o *Operator) SetBalanceFloor(ctx context.Context, id string, floorMWK money.Amount) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetBalanceFloor")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setBalanceFloor(ctx, id, floorMWK)
}

// setCorridorOfOperator is Desk.SetCorridor.
func (o *Operator) setCorridorOfOperator(ctx context.Context, c quotes.Corridor) (_ quotes.Corridor, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetCorridor")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffDesk)
	if err != nil {
		return quotes.Corridor{}, err
	}
	defer done()
	return o.e.setCorridor(ctx, c)
}

// SetOrganizationStatus suspends or reactivates an organization. Every
// call of a suspended organization is forbidden.
func (o *Operator) SetOrganizationStatus(ctx context.Context, id string, s OrgStatus) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetOrganizationStatus")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setOrganizationStatus(ctx, id, s)
}

// SetPause pauses api (Maintenance or Incident) or makes it Live again (the
// operator's side). Payouts accepted before a pause go on, and webhooks are
// still delivered.
func (o *Operator) SetPause(ctx context.Context, api API, mode PauseMode) (_ PauseState, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetPause")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return PauseState{}, err
	}
	defer done()
	return o.e.setPause(ctx, api, mode)
}

// SetPayoutLimits sets an organization's /v1 payout limits: amounts of
// MWK, zero or more, and an hourly count not negative (validation_error
// otherwise). Unset fields (the zero Amount, a zero count) keep the
// defaults.
func (o *Operator) SetPayoutLimits(ctx context.Context, id string, l PayoutLimits) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetPayoutLimits")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setPayoutLimits(ctx, id, l)
}

// Rails reads the payout rails' switches.
func (o *Operator) Rails(ctx context.Context) (_ Rails, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.Rails")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Rails{}, err
	}
	var r Rails
	err = o.e.store.View(ctx, func(tx store.Tx) error {
		var rec codec.RailsRecord
		err := storage.SettingJSON(tx, "rails", &rec, nil)
		r = Rails(rec)
		return err
	})
	return r, err
}

// SetRailDisabled pauses or resumes a payout rail (the operator's side).
func (o *Operator) SetRailDisabled(ctx context.Context, rail payouts.Rail, disabled bool) (_ Rails, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetRailDisabled")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Rails{}, err
	}
	defer done()
	return o.e.setRailDisabled(ctx, rail, disabled)
}

// SetV2Access sets an organization's access to /v2.
func (o *Operator) SetV2Access(ctx context.Context, id string, a V2Access) (_ Organization, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetV2Access")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return o.e.setV2Access(ctx, id, a)
}

// SetWebhookEndpoint registers (or replaces) an organization's endpoint
// and returns its new signing secret, shown this once. Deliveries already
// created keep the secret they were created with. The URL must be https;
// plain http is allowed only to a loopback address in the sandbox.
func (o *Operator) SetWebhookEndpoint(ctx context.Context, orgID string, rawURL string) (_ Endpoint, _ string, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SetWebhookEndpoint")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return Endpoint{}, "", err
	}
	defer done()
	return o.e.setWebhookEndpoint(ctx, orgID, rawURL)
}

// SyncInstitutions replaces the institutions reference data (the
// operator's side, or a provider sync job), after checking it
// (payouts.CheckInstitutions: validation_error, nothing replaced).
func (o *Operator) SyncInstitutions(ctx context.Context, list []payouts.Institution) (err error) {
	ctx, span := o.span(ctx, "tambala.Operator.SyncInstitutions")
	defer span.end(&err)
	ctx, done, err := o.change(ctx, accounts.StaffOperations)
	if err != nil {
		return err
	}
	defer done()
	return o.e.syncInstitutions(ctx, list)
}

// WebhookEndpoint returns an organization's endpoint, if any.
func (o *Operator) WebhookEndpoint(ctx context.Context, orgID string) (_ Endpoint, _ bool, err error) {
	ctx, span := o.span(ctx, "tambala.Operator.WebhookEndpoint")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Endpoint{}, false, err
	}
	return o.e.webhookEndpoint(ctx, orgID)
}

func (o *Operator) span(ctx context.Context, name string) (context.Context, span) {
	return o.e.startSpan(ctx, name, trace.SpanKindInternal)
}

// Backlog is what waits on the engine's background work, for gauges.
type Backlog struct {
	// PayoutsDue and DeliveriesDue are the items due now in the worker's
	// and the dispatcher's due index.
	PayoutsDue, DeliveriesDue int
	// PayoutsInFlight counts payouts not terminal by status (held,
	// submitted, pending); PayoutsOverdue those older than
	// WorkerOptions.OverdueAfter.
	PayoutsInFlight map[payouts.Status]int
	PayoutsOverdue  int
}

// backlog is BackOffice.Backlog.
func (e *Engine) backlog(ctx context.Context) (Backlog, error) {
	now := e.nowUTC()
	b := Backlog{PayoutsInFlight: map[payouts.Status]int{payouts.Held: 0, payouts.Submitted: 0, payouts.Pending: 0}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if b.DeliveriesDue, err = storage.DeliveriesDue.CountDue(tx, now); err != nil {
			return err
		}
		b.PayoutsDue, err = storage.PayoutsDue.CountDue(tx, now)
		return err
	})
	if err != nil {
		return b, err
	}
	list, err := e.payoutsInFlight(ctx, InFlightFilter{Limit: maxInFlightList})
	for _, p := range list {
		b.PayoutsInFlight[p.Payout.Status]++
		if p.Overdue {
			b.PayoutsOverdue++
		}
	}
	return b, err
}

// Desk is the operator's stablecoin desk: the orders and their moves, the
// proofs clients upload, the corridors and asset limits, OTC trades and
// network deposits. Operator.Desk returns it, with the operator's
// caller (the automation, or a staff session and its roles).
type Desk struct{ x *Operator }

// Desk is the desk of o's caller.
func (o *Operator) Desk() Desk { return Desk{o} }

// Backlog reads the backlog in one read transaction: the due indexes up to
// now, and every payout not terminal. It costs a read of each payout in
// flight, so call it at scrape intervals, not per request.
func (u BackOffice) Backlog(ctx context.Context) (Backlog, error) {
	return u.o.backlogOfOperator(ctx)
}

// ClawbackPayout records a provider clawback of a succeeded payout (the
// operator's side): its amount returns to the organization, so above the
// threshold of its asset it waits for a second staff member's approval
// (ApprovalPendingError).
func (u BackOffice) ClawbackPayout(ctx context.Context, id string) error {
	return u.o.clawbackPayoutOfOperator(ctx, id)
}

// PayoutsInFlight lists the payouts that are not terminal, oldest first
// (the operator's side): what a restart, an unreachable provider or a
// stuck rail has left in flight, each with its overdue flag.
func (u BackOffice) PayoutsInFlight(ctx context.Context, f InFlightFilter) ([]InFlightPayout, error) {
	return u.o.payoutsInFlightOfOperator(ctx, f)
}

// ResolvePayout finishes a submitted or pending payout as the operator
// found it at the provider, through the same transition, ledger entries
// and event as the worker: succeeded captures the hold (the observed fee
// charged, an excess above the hold from available or as shortfall);
// failed releases it whole. A payout in another status is conflict; the
// worker, which may be talking to the provider about it at the same time,
// leaves a payout the operator has finished alone. Failed returns the hold
// to the organization: above the threshold of the payout's asset it waits
// for a second staff member's approval (ApprovalPendingError), the payout
// left as it is; a rejected one may be asked again.
func (u BackOffice) ResolvePayout(ctx context.Context, id string, r Resolution) (payouts.Payout, error) {
	return u.o.resolvePayoutOfOperator(ctx, id, r)
}

// AssetLimits returns the limits of op in asset (the operator's side).
func (u Desk) AssetLimits(ctx context.Context, asset money.AssetCode, op string) (quotes.Limits, error) {
	return u.x.assetLimitsOfOperator(ctx, asset, op)
}

// Corridors lists every corridor (the operator's side).
func (u Desk) Corridors(ctx context.Context) ([]quotes.Corridor, error) {
	return u.x.allCorridorsOfOperator(ctx)
}

// MoveOrder makes one desk or operator move of an order (the operator's
// side): orders.StartProcessing, CoinsSent, Complete, Fail, Cancel,
// ReturnRefund, Instructions, RejectProof, ConfirmFunds. Each move is one
// transaction with its ledger entries and events; repeating a move already
// made returns the order unchanged; a move the order's state does not allow
// is conflict. Moves go on while /v2 is paused: they are the operator's
// work, not /v2 requests. A to-bank order goes accepted → processing
// (StartProcessing) → completed (Complete; CoinsSent before it records
// that the stablecoin left); a from-bank order awaiting_instructions →
// awaiting_funds (Instructions) → proof_submitted (the client's proof) →
// funds_confirmed (ConfirmFunds) → completed (Complete). Package orders
// has the whole machine.
func (u Desk) MoveOrder(ctx context.Context, id string, cmd orders.Command) (orders.Order, error) {
	return u.x.moveOrderOfOperator(ctx, id, cmd)
}

// Order returns any order (the operator's side).
func (u Desk) Order(ctx context.Context, id string) (orders.Order, error) {
	return u.x.deskOrderOfOperator(ctx, id)
}

// Orders lists orders for the desk, newest first: those in one status
// (the queue of work), or all, optionally of one organization.
func (u Desk) Orders(ctx context.Context, q DeskQueue, page PageRequest) (Page[orders.Order], error) {
	return u.x.deskOrdersOfOperator(ctx, q, page)
}

// Proof opens the newest funding proof of an order (the operator's
// side); the caller closes Content.
func (u Desk) Proof(ctx context.Context, orderID string) (ProofFile, error) {
	return u.x.deskProofOfOperator(ctx, orderID)
}

// RecordDeposit credits a deposit: Credit From external net of the
// asset's collection fee, a /v2 collection with source deposit and
// collection_v2.settled, in one transaction. It is idempotent per
// (network, tx_ref): the same deposit again returns the same collection;
// other figures under that pair are conflict. The network must be known
// and carry the asset (unsupported_network), the asset configured
// (unsupported_asset) and enabled with collection for the organization
// (corridor_not_enabled). Above the asset's approval threshold it waits
// for a second staff member's approval (ApprovalPendingError). The
// answer tells what this call did: Replayed false, it credited the
// deposit (Resource is the new collection); Replayed true, the same
// deposit was credited before, and Resource is that collection.
func (u Desk) RecordDeposit(ctx context.Context, orgID string, d Deposit) (Created[CollectionV2], error) {
	return u.x.recordDepositOfOperator(ctx, orgID, d)
}

// RecordTrade records an OTC trade (the operator's side): the amount at the
// rate gives whole kwacha, rounded down, credited to the organization's MWK
// balance from the operator's float. Ref makes it happen once: recording
// the same ref again returns the first trade; the same ref with other
// figures is conflict. Above the MWK approval threshold (the kwacha it
// credits) it waits for a second staff member's approval
// (ApprovalPendingError).
func (u Desk) RecordTrade(ctx context.Context, orgID string, n NewTrade) (Trade, error) {
	return u.x.recordTradeOfOperator(ctx, orgID, n)
}

// RotateDepositAddress gives org a new address on network (the operator's
// side, and the only way an address changes): the issuer is asked outside
// any transaction, its address checked and stored in place of the old one.
// An unknown organization is not_found, an unknown network
// unsupported_network; an issuer that fails or gives the address already in
// use makes it service_unavailable. Assets are those of the organization's
// list with collection that the network carries (possibly none).
func (u Desk) RotateDepositAddress(ctx context.Context, orgID string, network string) (DepositAddress, error) {
	return u.x.rotateDepositAddressOfOperator(ctx, orgID, network)
}

// SetAssetLimits sets the smallest and largest amount of one /v2
// operation (OpConvert on the from side, OpPayout on the amount delivered)
// in asset (the operator's side); nil bounds remove them. Amounts must be
// of the asset, positive, and min at most max.
func (u Desk) SetAssetLimits(ctx context.Context, asset money.AssetCode, op string, l quotes.Limits) error {
	return u.x.setAssetLimitsOfOperator(ctx, asset, op, l)
}

// SetCorridor creates or replaces the corridor of a fiat asset (the
// operator's side): its rates per direction (nil closes one), minimum,
// optional maximum and whether it is open. Quotes already issued keep
// their frozen terms.
func (u Desk) SetCorridor(ctx context.Context, c quotes.Corridor) (quotes.Corridor, error) {
	return u.x.setCorridorOfOperator(ctx, c)
}
