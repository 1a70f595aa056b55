package codec

import "time"

// SettlementMappingRecord is the stored column mapping of one rail's
// settlement files: the header name of each column.
type SettlementMappingRecord struct {
	Reference  string `json:"reference"`
	Amount     string `json:"amount"`
	Currency   string `json:"currency"`
	Status     string `json:"status"`
	Time       string `json:"time"`
	FileNumber string `json:"file_number,omitempty"`
}

// SettlementImportRecord is one imported settlement file, with every one
// of its lines and the explanations the staff gave for some of them.
// SHA256 is the file's digest in hex; FileNumber is 0 when the rail does
// not number its files; By is who imported it (an email, or the actor
// kind).
type SettlementImportRecord struct {
	ID         string                        `json:"id"`
	Rail       string                        `json:"rail"`
	Name       string                        `json:"name"`
	SHA256     string                        `json:"sha256"`
	FileNumber int                           `json:"file_number,omitempty"`
	ImportedAt time.Time                     `json:"imported_at"`
	By         string                        `json:"by"`
	Mapping    SettlementMappingRecord       `json:"mapping"`
	Lines      []SettlementLineRecord        `json:"lines"`
	Explained  []SettlementExplanationRecord `json:"explained,omitempty"`
}

// SettlementLineRecord is one line of a settlement file: its line number
// in the file and its values as read.
type SettlementLineRecord struct {
	Number    int       `json:"n"`
	Reference string    `json:"reference"`
	Amount    string    `json:"amount"`
	Currency  string    `json:"currency"`
	Status    string    `json:"status"`
	Time      time.Time `json:"time"`
}

// SettlementExplanationRecord marks line Line of an import explained,
// with the staff's reason.
type SettlementExplanationRecord struct {
	Line   int       `json:"line"`
	Reason string    `json:"reason"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}
