package wire

// DeskOrder is a /v2 order as the desk sees it: the organization's
// rendering under "order", and beside it the owner, the newest proof and
// when the coins left.
type DeskOrder struct {
	Org         string     `json:"org"`
	Order       Order      `json:"order"`
	Proof       *DeskProof `json:"proof"`
	CoinsLeftAt *string    `json:"coins_left_at"`
}

// DeskProof is an order's newest proof of funding.
type DeskProof struct {
	ID          string `json:"id"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

// DeskOrders is a page of the desk's queue.
type DeskOrders struct {
	Orders       []DeskOrder `json:"orders"`
	HasMore      bool        `json:"has_more"`
	NextBeforeID *string     `json:"next_before_id"`
}

// DeskMove is the answer of a desk move: the order moved, or the approval
// the move waits for.
type DeskMove struct {
	DeskOrder
	Approval *Approval `json:"approval,omitempty"`
}

// Order is a /v2 order as its organization reads it.
type Order struct {
	ID          string            `json:"id"`
	ClientRef   string            `json:"client_ref"`
	FromAsset   string            `json:"from_asset"`
	FromAmount  string            `json:"from_amount"`
	ToAsset     string            `json:"to_asset"`
	ToAmount    string            `json:"to_amount"`
	Rate        string            `json:"rate"`
	Status      string            `json:"status"`
	Failure     *Failure          `json:"failure"`
	Refund      *OrderRefund      `json:"refund,omitempty"`
	Beneficiary *OrderBeneficiary `json:"beneficiary,omitempty"`
	Funding     *OrderFunding     `json:"funding,omitempty"`
	Proofs      OrderProofs       `json:"proofs"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	ExpiresAt   *string           `json:"expires_at,omitempty"`
}

// Failure is why a payout or an order failed.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// OrderRefund is an order's refund.
type OrderRefund struct {
	Status string `json:"status"`
}

// OrderBeneficiary is the bank account a to-bank order pays.
type OrderBeneficiary struct {
	Name          string  `json:"name"`
	BankName      string  `json:"bank_name"`
	AccountNumber string  `json:"account_number"`
	Branch        *string `json:"branch,omitempty"`
}

// OrderFunding are a from-bank order's funding instructions.
type OrderFunding struct {
	BankName      string `json:"bank_name"`
	AccountName   string `json:"account_name"`
	AccountNumber string `json:"account_number"`
	Reference     string `json:"reference"`
	Amount        string `json:"amount"`
	Asset         string `json:"asset"`
	Deadline      string `json:"deadline"`
}

// OrderProofs are an order's proofs.
type OrderProofs struct {
	Funding *FundingProof `json:"funding,omitempty"`
}

// FundingProof is the newest proof of an order's funding.
type FundingProof struct {
	UploadedAt     string  `json:"uploaded_at"`
	RejectedReason *string `json:"rejected_reason,omitempty"`
}

// InFlight is a payout in flight: the payout as its client reads it (/v1
// or /v2) and the worker's view.
type InFlight struct {
	APIVersion     string         `json:"api_version"`
	Payout         InFlightPayout `json:"payout"`
	Org            string         `json:"org"`
	Overdue        bool           `json:"overdue"`
	FailedCalls    int            `json:"failed_calls"`
	UnknownAnswers int            `json:"unknown_answers"`
	NextAttemptAt  *string        `json:"next_attempt_at"`
}

// InFlightPayout is a /v1 or a /v2 payout, as its client reads it: the
// fields of one version are empty in the other's.
type InFlightPayout struct {
	ID           string              `json:"id"`
	AmountMWK    string              `json:"amount_mwk,omitempty"`    // v1
	SourceAsset  string              `json:"source_asset,omitempty"`  // v2
	SourceAmount string              `json:"source_amount,omitempty"` // v2
	Asset        string              `json:"asset,omitempty"`         // v2
	Amount       string              `json:"amount,omitempty"`        // v2
	Rate         *string             `json:"rate,omitempty"`          // v2
	Fee          *string             `json:"fee"`
	Rail         string              `json:"rail,omitempty"` // v1
	Status       string              `json:"status"`
	Destination  InFlightDestination `json:"destination"`
	Failure      *Failure            `json:"failure"`
	CreatedAt    string              `json:"created_at"`
	TerminalAt   *string             `json:"terminal_at"`
}

// InFlightDestination is where a payout goes: the fields of its type only.
type InFlightDestination struct {
	Type            string `json:"type,omitempty"` // v2
	InstitutionID   int    `json:"institution_id,omitempty"`
	AccountNumber   string `json:"account_number,omitempty"`
	MobileNumber    string `json:"mobile_number,omitempty"`
	BeneficiaryName string `json:"beneficiary_name,omitempty"`
	Network         string `json:"network,omitempty"` // v2
	Address         string `json:"address,omitempty"` // v2
}

// InFlights is the list of payouts in flight.
type InFlights struct {
	Payouts []InFlight `json:"payouts"`
}

// Resolved is the answer of a payout resolved by hand: the /v1 payout, or
// the approval the resolution waits for (then the payout's fields are
// empty).
type Resolved struct {
	Approval *Approval `json:"approval,omitempty"`
	InFlightPayout
}
