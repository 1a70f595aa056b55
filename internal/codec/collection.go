package codec

// CollectionRecord is the stored form of a /v1 collection (the engine's
// Collection) and its owner: amounts as decimal text in MWK, created_at
// as rendered.
type CollectionRecord struct {
	Org                 string `json:"org"`
	ID                  string `json:"id"`
	Status              string `json:"status"`
	Amount              string `json:"amount_mwk"`
	Fee                 string `json:"fee"`
	Credited            string `json:"amount_credited"`
	Rail                string `json:"rail"`
	SourceCustomerName  string `json:"source_customer_name"`
	SourceAccountNumber string `json:"source_account_number"`
	SourceInstitution   string `json:"source_institution"`
	RTPReferenceNumber  string `json:"rtp_reference_number"`
	CreatedAt           string `json:"created_at"`
}
