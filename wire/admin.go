package wire

// Error is the envelope of every error answer.
type Error struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Organization is an organization as the admin API renders it.
type Organization struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	Status          string        `json:"status"`
	V2Access        string        `json:"v2_access"`
	Assets          []AssetAccess `json:"assets"`
	BalanceFloorMWK string        `json:"balance_floor_mwk"`
	Allowlist       []string      `json:"ip_allowlist"`
	PayoutLimits    *PayoutLimits `json:"payout_limits,omitempty"`
	CreatedAt       string        `json:"created_at"`
}

// AssetAccess is an asset an organization may use and its operations.
type AssetAccess struct {
	Asset      string   `json:"asset"`
	Operations []string `json:"operations"`
}

// PayoutLimits are an organization's payout limits.
type PayoutLimits struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}

// Organizations is the list of organizations.
type Organizations struct {
	Organizations []Organization `json:"organizations"`
}

// Key is an API key; Key (the secret) only in the answer that made it.
type Key struct {
	Key         string  `json:"key,omitempty"`
	ID          string  `json:"id"`
	Org         string  `json:"org_id"`
	Prefix      string  `json:"prefix"`
	Environment string  `json:"environment"`
	CreatedAt   string  `json:"created_at"`
	RevokedAt   *string `json:"revoked_at"`
}

// Keys is an organization's list of keys.
type Keys struct {
	Keys []Key `json:"keys"`
}

// Approval is a change waiting for (or decided by) a second person.
type Approval struct {
	ID          string            `json:"id"`
	Kind        string            `json:"kind"`
	Key         string            `json:"key"`
	Org         string            `json:"org_id"`
	Asset       string            `json:"asset"`
	Amount      string            `json:"amount"`
	Role        string            `json:"role"`
	Details     map[string]string `json:"details"`
	RequestedBy *Party            `json:"requested_by"`
	RequestedAt string            `json:"requested_at"`
	Status      string            `json:"status"`
	DecidedBy   *Party            `json:"decided_by"`
	DecidedAt   *string           `json:"decided_at"`
	Reason      *string           `json:"reason"`
}

// Party is who requested or decided an approval.
type Party struct {
	Kind   string  `json:"kind"`
	UserID *string `json:"user_id"`
	Email  *string `json:"email"`
}

// Pending is the answer of a change that waits for an approval: the
// approval, and (when the change was made at once) nothing else.
type Pending struct {
	Approval *Approval `json:"approval"`
}

// Approvals is a page of approvals.
type Approvals struct {
	Approvals    []Approval `json:"approvals"`
	HasMore      bool       `json:"has_more"`
	NextBeforeID *string    `json:"next_before_id"`
}

// Thresholds are the approval thresholds by asset.
type Thresholds struct {
	Thresholds map[string]string `json:"thresholds"`
}

// Threshold is one asset's approval threshold as set, or the approval the
// change waits for.
type Threshold struct {
	Approval  *Approval `json:"approval,omitempty"`
	Asset     string    `json:"asset,omitempty"`
	Threshold *string   `json:"threshold"`
}

// Funding is the answer of a funding: the credit made, or the approval it
// waits for.
type Funding struct {
	Approval *Approval `json:"approval,omitempty"`
	Org      string    `json:"org_id,omitempty"`
	Asset    string    `json:"asset,omitempty"`
	Amount   string    `json:"amount,omitempty"`
	Ref      string    `json:"ref,omitempty"`
}

// Corridor is an asset's corridor.
type Corridor struct {
	Asset       string  `json:"asset"`
	RateOffRamp *string `json:"rate_off_ramp"`
	RateOnRamp  *string `json:"rate_on_ramp"`
	Min         string  `json:"min"`
	Max         *string `json:"max"`
	Open        bool    `json:"open"`
}

// Corridors is the list of corridors.
type Corridors struct {
	Corridors []Corridor `json:"corridors"`
}

// Endpoint is an organization's webhook endpoint; Secret only in the
// answer that set it.
type Endpoint struct {
	URL       string `json:"url"`
	SecretID  string `json:"secret_id"`
	CreatedAt string `json:"created_at"`
	Secret    string `json:"secret,omitempty"`
}

// Pause is the pause of each API version.
type Pause struct {
	V1 string `json:"v1"`
	V2 string `json:"v2"`
}

// Rails says which payout rails are disabled.
type Rails struct {
	BankDisabled bool `json:"bank_disabled"`
	MomoDisabled bool `json:"momo_disabled"`
}

// Balance is one of an organization's balances and its shortfall.
type Balance struct {
	Asset     string `json:"asset"`
	Available string `json:"available"`
	Held      string `json:"held"`
	Shortfall string `json:"shortfall"`
}

// Balances are an organization's balances.
type Balances struct {
	Org      string    `json:"org_id"`
	Balances []Balance `json:"balances"`
}

// AssetLimits are an asset's limits of one operation.
type AssetLimits struct {
	Asset     string  `json:"asset"`
	Operation string  `json:"operation"`
	Min       *string `json:"min"`
	Max       *string `json:"max"`
}

// Network is a blockchain network the server accepts.
type Network struct {
	ID     string   `json:"id"`
	Kind   string   `json:"kind"`
	Assets []string `json:"assets"`
}

// Networks is the list of networks.
type Networks struct {
	Networks []Network `json:"networks"`
}

// DepositAddress is an organization's deposit address on a network.
type DepositAddress struct {
	Network string   `json:"network"`
	Address string   `json:"address"`
	Assets  []string `json:"assets"`
}

// Institutions is the answer of a sync of the payable institutions.
type Institutions struct {
	Institutions int `json:"institutions"`
}
