package payouts

// BankListing is an item of the earlier API's bank list: a bank
// institution (rail Bank) under a stable UUID derived from its id.
type BankListing struct {
	BankUUID string
	Name     string
}

// MobileOperator is an item of the mobile operators' list: a mobile-money
// institution, its id as text.
type MobileOperator struct {
	RefID string
	Name  string
}
