package tambala

import (
	"context"
	"net/netip"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"go.opentelemetry.io/otel/trace"
)

// OrgAdmin is the face of the engine for a signed-in organization admin
// managing their own organization: its API keys, IP allowlist, webhook
// endpoint and deliveries, balance floor, and audit trail. Every call
// checks the session again (live, signed in, its user enabled, the
// organization active) and extends it: a change does both inside its own
// transaction, where it appends an entry to the audit trail, with the
// user as its actor. The rules are the operator's (Operator.CreateKey, ...):
// at most Limits.MaxActiveKeys active keys, a key or a webhook secret
// shown once.
//
// It is safe for concurrent use.
type OrgAdmin struct {
	e     *Engine
	token string
}

// Admin checks the session of token, in a read transaction, and returns
// the face through which its user administers their organization; each
// of its calls extends the session. A session that is not signed in, or
// whose organization is suspended, is refused as Session and Principal
// refuse it.
func (p *Sessions) Admin(ctx context.Context, token string) (_ *OrgAdmin, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.Admin")
	defer span.end(&err)
	if _, err := p.e.view(ctx, newCall(ctx, token, accounts.Need{Org: true}, ""), false); err != nil {
		return nil, err
	}
	return &OrgAdmin{e: p.e, token: token}, nil
}

// AuditTrail reads one page of the organization's audit trail, newest
// first.
func (a *OrgAdmin) AuditTrail(ctx context.Context, page PageRequest) (_ Page[AuditEntry], err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.AuditTrail")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Page[AuditEntry]{}, err
	}
	return a.e.auditTrail(ctx, page, AuditFilter{Org: org})
}

// CreateKey issues an API key for the organization. The full key is
// returned here once and can never be read again; at Limits.MaxActiveKeys
// active keys it is conflict until one is revoked.
func (a *OrgAdmin) CreateKey(ctx context.Context) (full string, key APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.CreateKey")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return "", APIKey{}, err
	}
	defer done()
	return a.e.createKey(ctx, p.Org.ID)
}

// Deliveries lists the organization's webhook deliveries newest first,
// each with its attempts newest first.
func (a *OrgAdmin) Deliveries(ctx context.Context, page PageRequest) (_ Page[DeliveryView], err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Deliveries")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Page[DeliveryView]{}, err
	}
	return a.e.deliveries(ctx, org, page)
}

// Keys lists the organization's API keys, never the keys themselves.
func (a *OrgAdmin) Keys(ctx context.Context) (_ []APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Keys")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return nil, err
	}
	return a.e.keys(ctx, org)
}

// Organization reads the organization.
func (a *OrgAdmin) Organization(ctx context.Context) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Organization")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	return a.e.organization(ctx, org)
}

// RevokeKey revokes one of the organization's keys, by id or prefix; a
// key revoked already is returned as is.
func (a *OrgAdmin) RevokeKey(ctx context.Context, idOrPrefix string) (_ APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.RevokeKey")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return APIKey{}, err
	}
	defer done()
	return a.e.revokeKey(ctx, p.Org.ID, idOrPrefix)
}

// SetAllowlist replaces the organization's IP allowlist with exact
// addresses; an empty list allows every address.
func (a *OrgAdmin) SetAllowlist(ctx context.Context, addrs []netip.Addr) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetAllowlist")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return a.e.setAllowlist(ctx, p.Org.ID, addrs)
}

// SetBalanceFloor sets the organization's MWK balance floor; the zero
// Amount removes it.
func (a *OrgAdmin) SetBalanceFloor(ctx context.Context, floorMWK money.Amount) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetBalanceFloor")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	defer done()
	return a.e.setBalanceFloor(ctx, p.Org.ID, floorMWK)
}

// SetWebhookEndpoint sets the organization's webhook endpoint with a new
// signing secret, returned here once; replacing the endpoint rotates the
// secret.
func (a *OrgAdmin) SetWebhookEndpoint(ctx context.Context, rawURL string) (_ Endpoint, _ string, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetWebhookEndpoint")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return Endpoint{}, "", err
	}
	defer done()
	return a.e.setWebhookEndpoint(ctx, p.Org.ID, rawURL)
}

// UploadProof uploads a funding proof for one of the organization's
// from-bank orders, as Client.UploadProof does, and records it in the
// audit trail with the user as its actor.
func (a *OrgAdmin) UploadProof(ctx context.Context, orderID string, up ProofUpload) (_ orders.Order, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.UploadProof")
	defer span.end(&err)
	ctx, p, done, err := a.e.adminChange(ctx, a.token)
	if err != nil {
		return orders.Order{}, err
	}
	defer done()
	return a.e.uploadProof(ctx, p, orderID, up)
}

// WebhookEndpoint reads the organization's webhook endpoint; false when it
// has none.
func (a *OrgAdmin) WebhookEndpoint(ctx context.Context) (_ Endpoint, _ bool, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.WebhookEndpoint")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Endpoint{}, false, err
	}
	return a.e.webhookEndpoint(ctx, org)
}

// adminContext checks the session of token for an admin's read (as
// Principal does: signed in, its organization active) and extends it
// (read), and returns ctx carrying its user as the audit actor, and the
// organization.
func (e *Engine) adminContext(ctx context.Context, token string) (context.Context, string, error) {
	r, err := e.read(ctx, newCall(ctx, token, accounts.Need{Org: true}, ""))
	if err != nil {
		return ctx, "", err
	}
	return asActor(ctx, userActor(r.user.ID, r.user.Email)), r.user.Org, nil
}

// adminChange checks the session of token for an admin's change as
// adminContext does, in a read transaction, then again inside each write
// transaction of the change, which extends the session (begin). It
// returns ctx carrying the check and the user as the audit actor, the
// Principal of the organization, and done, to be deferred, which extends
// the session when no write transaction of the change did.
func (e *Engine) adminChange(ctx context.Context, token string) (_ context.Context, _ Principal, done func(), _ error) {
	c := newCall(ctx, token, accounts.Need{Org: true}, "")
	c.wantPrincipal = true
	ctx, r, done, err := e.begin(ctx, c)
	if err != nil {
		return ctx, Principal{}, nil, err
	}
	return asActor(ctx, userActor(r.user.ID, r.user.Email)), r.principal, done, nil
}

func (a *OrgAdmin) span(ctx context.Context, name string) (context.Context, span) {
	return a.e.startSpan(ctx, name, trace.SpanKindInternal)
}
