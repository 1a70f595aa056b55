package codec

// RailsRecord is the stored form of the rail pause switches (the engine's
// Rails): {"bank_disabled","momo_disabled"}.
type RailsRecord struct {
	BankDisabled bool `json:"bank_disabled"`
	MomoDisabled bool `json:"momo_disabled"`
}
