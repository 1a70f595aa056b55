package wire

import "encoding/json"

// The request bodies of the admin API. A pointer field with omitempty is
// one a client may leave out; a pointer without it is sent as null when
// nil.

// NewOrganization is the body that creates an organization.
type NewOrganization struct {
	Name            string        `json:"name"`
	Assets          []AssetAccess `json:"assets,omitempty"`
	V2Access        string        `json:"v2_access,omitempty"`
	BalanceFloorMWK string        `json:"balance_floor_mwk,omitempty"`
}

// OrgStatus sets an organization's status.
type OrgStatus struct {
	Status string `json:"status"`
}

// OrgV2Access sets an organization's access to /v2.
type OrgV2Access struct {
	V2Access string `json:"v2_access"`
}

// OrgAssets replaces an organization's assets.
type OrgAssets struct {
	Assets []AssetAccess `json:"assets"`
}

// BalanceFloor sets (or, empty, removes) an organization's /v1 balance
// floor.
type BalanceFloor struct {
	FloorMWK string `json:"floor_mwk"`
}

// Allowlist replaces an organization's IP allowlist.
type Allowlist struct {
	Addresses []string `json:"addresses"`
}

// SetTOTPRequired says whether an organization's people must use TOTP.
type SetTOTPRequired struct {
	Required bool `json:"required"`
}

// Fund credits an organization.
type Fund struct {
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
	Ref    string `json:"ref"`
}

// RecordDeposit records a deposit by hand.
type RecordDeposit struct {
	Network string `json:"network"`
	Asset   string `json:"asset"`
	Amount  string `json:"amount"`
	TxRef   string `json:"tx_ref"`
}

// RecordTrade records a trade.
type RecordTrade struct {
	Ref        string `json:"ref"`
	USDTAmount string `json:"usdt_amount"`
	ClientRate string `json:"client_rate"`
}

// Reject rejects an approval.
type Reject struct {
	Reason string `json:"reason"`
}

// SetThreshold sets an asset's approval threshold; nil removes it.
type SetThreshold struct {
	Threshold *string `json:"threshold"`
}

// CorridorUpdate replaces an asset's corridor. The binding decodes it:
// the rates are required (null closes the direction), min is required,
// max may be left out or null; amounts and rates are JSON strings.
type CorridorUpdate struct {
	RateOffRamp json.RawMessage `json:"rate_off_ramp"`
	RateOnRamp  json.RawMessage `json:"rate_on_ramp"`
	Min         json.RawMessage `json:"min,omitempty"`
	Max         json.RawMessage `json:"max,omitempty"`
	Open        *bool           `json:"open"`
}

// Text is s as a JSON string, or null when s is nil: a field of a
// CorridorUpdate.
func Text(s *string) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(*s) // a string always encodes
	return b
}

// SetWebhook sets an organization's webhook endpoint.
type SetWebhook struct {
	URL string `json:"url"`
}

// SetPause pauses an API version (or makes it live).
type SetPause struct {
	API  string `json:"api"`
	Mode string `json:"mode"`
}

// SetRail disables (or enables) a payout rail.
type SetRail struct {
	Disabled bool `json:"disabled"`
}

// SetPayoutLimits replaces an organization's payout limits.
type SetPayoutLimits = PayoutLimits

// SetAssetLimits replaces an asset's limits of an operation; nil is none.
type SetAssetLimits struct {
	Min *string `json:"min"`
	Max *string `json:"max"`
}

// Invite invites a person to an organization; Role may be left out.
type Invite struct {
	Email string `json:"email"`
	Role  string `json:"role,omitempty"`
}

// InviteStaff invites a staff member with roles.
type InviteStaff struct {
	Email string   `json:"email"`
	Roles []string `json:"roles"`
}

// StaffRoles replaces a staff member's roles.
type StaffRoles struct {
	Roles []string `json:"roles"`
}

// Resolve resolves a payout by hand; the fields with omitempty are sent
// only when given.
type Resolve struct {
	Outcome     string  `json:"outcome"`
	Reason      string  `json:"reason"`
	Fee         *string `json:"fee,omitempty"`
	FailureCode *string `json:"failure_code,omitempty"`
	Reference   *string `json:"reference,omitempty"`
}

// ImportSettlement imports a rail's settlement file, its bytes in base64.
type ImportSettlement struct {
	Rail          string `json:"rail"`
	Name          string `json:"name"`
	ContentBase64 string `json:"content_base64"`
}
