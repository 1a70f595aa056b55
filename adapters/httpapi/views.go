package httpapi

import (
	"encoding/json"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
)

// The engine's own resources as internal/render takes them, and the
// bodies the admin API takes for them. render cannot import the engine
// (the engine renders its events there), so the binding hands it each
// resource's fields.

// renderOrg is the rendering of an organization.
func renderOrg(o tambala.Organization) json.RawMessage { return render.Organization(o) }

// assetAccessJSON is an asset and its operations as the admin API takes
// them.
type assetAccessJSON struct {
	Asset      money.AssetCode `json:"asset"`
	Operations []string        `json:"operations"`
}

// assetAccesses reads a list of assetAccessJSON; nil stays nil (no list
// given).
func assetAccesses(in []assetAccessJSON) []tambala.AssetAccess {
	if in == nil {
		return nil
	}
	out := make([]tambala.AssetAccess, len(in))
	for i, a := range in {
		out[i] = tambala.AssetAccess(a)
	}
	return out
}

// payoutLimitsJSON is an organization's /v1 payout limits as the admin
// API takes them.
type payoutLimitsJSON struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}

// renderKey is the rendering of an API key (never its secret).
func renderKey(k tambala.APIKey) []byte { return render.APIKey(k) }

// renderInvitation is the rendering of an invitation (never its token).
func renderInvitation(i tambala.Invitation) []byte { return render.Invitation(invitationFields(i)) }

// renderDelivery is the rendering of a webhook delivery.
func renderDelivery(v tambala.DeliveryView) json.RawMessage { return render.Delivery(v) }

// renderUser is the rendering of a portal user: never a secret of theirs.
func renderUser(u tambala.User) json.RawMessage {
	return render.User(render.UserFields{ID: u.ID, Org: u.Org, Email: u.Email, Role: string(u.Role), StaffRoles: staffRoleTexts(u.StaffRoles),
		Status: string(u.Status), TOTPEnrolled: u.TOTPEnrolled, RecoveryCodesLeft: u.RecoveryCodesLeft, CreatedAt: u.CreatedAt,
		DisabledAt: u.DisabledAt})
}

// staffRoleTexts is a staff user's or invitation's roles as text; none
// for an organization's.
func staffRoleTexts(roles []accounts.StaffRole) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}

// invitationFields is an invitation as render takes it (never its token).
func invitationFields(i tambala.Invitation) render.InvitationFields {
	return render.InvitationFields{ID: i.ID, ResetOf: i.ResetOf, Org: i.Org, Email: i.Email, Role: string(i.Role),
		StaffRoles: staffRoleTexts(i.StaffRoles), InvitedBy: i.InvitedBy, Status: string(i.Status), CreatedAt: i.CreatedAt,
		ExpiresAt: i.ExpiresAt, AcceptedAt: i.AcceptedAt, UserID: i.UserID, RevokedAt: i.RevokedAt}
}

// renderAuditEntry is the rendering of an entry of the audit trail.
func renderAuditEntry(a tambala.AuditEntry) json.RawMessage { return render.AuditEntry(a) }
