package wire

// CollectionV2 is a /v2 collection.
type CollectionV2 struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Asset          string  `json:"asset"`
	Amount         string  `json:"amount"`
	Fee            string  `json:"fee"`
	AmountCredited string  `json:"amount_credited"`
	Network        *string `json:"network"`
	Source         string  `json:"source"`
	OrderID        *string `json:"order_id"`
	CreatedAt      string  `json:"created_at"`
}

// Deposit is the answer of a recorded deposit: the collection, or the
// approval it waits for (then the collection's fields are empty).
type Deposit struct {
	Approval *Approval `json:"approval,omitempty"`
	CollectionV2
}

// CollectionV1 is a /v1 collection.
type CollectionV1 struct {
	ID                  string `json:"id"`
	Status              string `json:"status"`
	AmountMWK           string `json:"amount_mwk"`
	Fee                 string `json:"fee"`
	AmountCredited      string `json:"amount_credited"`
	Rail                string `json:"rail"`
	SourceCustomerName  string `json:"source_customer_name"`
	SourceAccountNumber string `json:"source_account_number"`
	SourceInstitution   string `json:"source_institution"`
	RTPReferenceNumber  string `json:"rtp_reference_number"`
	CreatedAt           string `json:"created_at"`
}

// Trade is the answer of a recorded trade: the trade, or the approval it
// waits for.
type Trade struct {
	Approval   *Approval `json:"approval,omitempty"`
	ID         string    `json:"id,omitempty"`
	USDTAmount string    `json:"usdt_amount,omitempty"`
	ClientRate string    `json:"client_rate,omitempty"`
	MWKAmount  int64     `json:"mwk_amount,omitempty"`
	Status     string    `json:"status,omitempty"`
	CreatedAt  string    `json:"created_at,omitempty"`
	SettledAt  *string   `json:"settled_at,omitempty"`
}

// Clawback is the answer of a payout's clawback, or the approval it waits
// for.
type Clawback struct {
	Approval *Approval `json:"approval,omitempty"`
	Payout   string    `json:"payout_id,omitempty"`
	Status   string    `json:"status,omitempty"`
}

// Statement is one page of an organization's statement of an asset.
type Statement struct {
	Org     string            `json:"org_id"`
	Asset   string            `json:"asset"`
	Columns string            `json:"columns"`
	Opening map[string]string `json:"opening"`
	Closing map[string]string `json:"closing"`
	Lines   []StatementLine   `json:"lines"`
	HasMore bool              `json:"has_more"`
	Next    *string           `json:"next_before_id"`
}

// StatementLine is one posting of a statement.
type StatementLine struct {
	EntryID        string `json:"entry_id"`
	BookedAt       string `json:"booked_at"`
	Kind           string `json:"kind"`
	ResourceID     string `json:"resource_id"`
	Available      string `json:"available_change"`
	Held           string `json:"held_change"`
	AvailableAfter string `json:"available_after"`
	HeldAfter      string `json:"held_after"`
}

// SettlementImport is an imported settlement file.
type SettlementImport struct {
	ID         string `json:"id"`
	Rail       string `json:"rail"`
	Name       string `json:"name"`
	SHA256     string `json:"sha256"`
	FileNumber *int   `json:"file_number"`
	ImportedAt string `json:"imported_at"`
	By         string `json:"by"`
	Lines      int    `json:"lines"`
	Repeated   bool   `json:"repeated"`
}

// SettlementReport is an import's reconciliation report.
type SettlementReport struct {
	Import          SettlementImport    `json:"import"`
	From            string              `json:"from"`
	To              string              `json:"to"`
	Lines           []SettlementLine    `json:"lines"`
	Missing         []SettlementMissing `json:"missing"`
	MissingNumbers  []int               `json:"missing_numbers"`
	RepeatedNumbers []int               `json:"repeated_numbers"`
}

// SettlementLine is a line of a settlement file and what it matched.
type SettlementLine struct {
	Line      int                    `json:"line"`
	Reference string                 `json:"reference"`
	Amount    string                 `json:"amount"`
	Currency  string                 `json:"currency"`
	Status    string                 `json:"status"`
	Time      string                 `json:"time"`
	Group     string                 `json:"group"`
	Items     []string               `json:"items"`
	InFlight  []string               `json:"in_flight"`
	Explained *SettlementExplanation `json:"explained"`
}

// SettlementExplanation is why a line needs no further look.
type SettlementExplanation struct {
	Reason string `json:"reason"`
	By     string `json:"by"`
	At     string `json:"at"`
}

// SettlementMissing is a payout or collection no line of the files carries.
type SettlementMissing struct {
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Status   string `json:"status"`
	At       string `json:"at"`
}

// SettlementColumns is a rail's column mapping: the header of each column.
type SettlementColumns struct {
	Columns map[string]string `json:"columns"`
}
