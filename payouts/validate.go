package payouts

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
	"github.com/tambalapay/tambala/money"
)

// MaxAmount is the largest amount_mwk the API parses at all; anything above
// is validation_error (per-organization maxima are lower and answered with
// amount_limit_exceeded).
var MaxAmount = money.Max(money.MWK)

// MaxTextLength bounds account numbers and beneficiary names.
const MaxTextLength = 200

// Institution is a payable bank or mobile-money operator.
type Institution struct {
	ID   int    `json:"institution_id"`
	Name string `json:"name"`
	Rail Rail   `json:"rail"`
	// Network is the digit after 265 that the operator's numbers carry
	// ("9" Airtel Money, "8" TNM Mpamba); momo only.
	Network string `json:"-"`
}

// DefaultInstitutions is the sandbox's reference data.
func DefaultInstitutions() []Institution {
	return []Institution{
		{ID: 1, Name: "National Bank of Malawi", Rail: Bank},
		{ID: 2, Name: "Standard Bank Malawi", Rail: Bank},
		{ID: 3, Name: "FDH Bank", Rail: Bank},
		{ID: 4, Name: "NBS Bank", Rail: Bank},
		{ID: 5, Name: "First Capital Bank", Rail: Bank},
		{ID: 101, Name: "Airtel Money", Rail: Momo, Network: "9"},
		{ID: 102, Name: "TNM Mpamba", Rail: Momo, Network: "8"},
	}
}

// Request asks for a payout of Amount on Rail to Destination. A transport
// decodes one from a body (DecodeRequest); a Go host builds it.
type Request struct {
	Rail        Rail
	Amount      money.Amount
	Destination Destination
}

// wireRequest is the JSON body of both create endpoints.
type wireRequest struct {
	AmountMWK       json.RawMessage `json:"amount_mwk"`
	InstitutionID   json.RawMessage `json:"institution_id"`
	AccountNumber   *string         `json:"account_number"`
	MobileNumber    *string         `json:"mobile_number"`
	BeneficiaryName *string         `json:"beneficiary_name"`
}

var mobilePattern = regexp.MustCompile(`^265[89][0-9]{8}$`)

// DecodeRequest reads a create-payout body for rail into a Request with the
// strict decoding of every request body (exact field names, no duplicate
// names, valid UTF-8, no control characters): one JSON object with amount_mwk (a JSON integer or a decimal string with at
// most 2 places, positive, at most MaxAmount), institution_id (a JSON
// integer) and the destination's text fields. It is what a transport uses;
// the engine validates the Request it is given again (Validate), so a Go
// host that builds a Request gets the same rules.
func DecodeRequest(rail Rail, body []byte) (Request, error) {
	var w wireRequest
	if err := strictjson.Unmarshal(body, &w); err != nil {
		return Request{}, err
	}
	amt, err := ParseAmount(w.AmountMWK)
	if err != nil {
		return Request{}, err
	}
	if len(w.InstitutionID) == 0 || string(w.InstitutionID) == "null" {
		return Request{}, missing("institution_id")
	}
	var inst int
	if err := json.Unmarshal(w.InstitutionID, &inst); err != nil || inst <= 0 {
		return Request{}, errcode.Newf(errcode.ValidationError, "institution_id must be a positive JSON integer.")
	}
	r := Request{Rail: rail, Amount: amt, Destination: Destination{InstitutionID: inst}}
	if r.Destination.BeneficiaryName, err = text("beneficiary_name", w.BeneficiaryName); err != nil {
		return Request{}, err
	}
	switch rail {
	case Bank:
		if r.Destination.AccountNumber, err = text("account_number", w.AccountNumber); err != nil {
			return Request{}, err
		}
	case Momo:
		if w.MobileNumber == nil || *w.MobileNumber == "" {
			return Request{}, missing("mobile_number")
		}
		r.Destination.MobileNumber = *w.MobileNumber
	default:
		return Request{}, errcode.Newf(errcode.ValidationError, "rail must be bank or momo.")
	}
	return r, nil
}

// Validate checks a Request against the rules of both create endpoints:
// the rail, the amount (positive, at most MaxAmount, MWK at 2 places), a
// positive institution id, the destination's text fields (1 to
// MaxTextLength characters of valid UTF-8) and, on momo, the mobile-number
// pattern. sandboxWallets are wallet numbers exempt from the pattern (the
// sandbox's test wallets; nil in production). Institution checks need
// reference data and happen in CheckInstitution.
func (r Request) Validate(sandboxWallets map[string]bool) error {
	if r.Rail != Bank && r.Rail != Momo {
		return errcode.Newf(errcode.ValidationError, "rail must be bank or momo.")
	}
	if err := CheckAmount(r.Amount); err != nil {
		return err
	}
	if r.Destination.InstitutionID <= 0 {
		return errcode.Newf(errcode.ValidationError, "institution_id must be a positive JSON integer.")
	}
	d := r.Destination
	if _, err := text("beneficiary_name", &d.BeneficiaryName); err != nil {
		return err
	}
	switch r.Rail {
	case Bank:
		if d.MobileNumber != "" {
			return errcode.Newf(errcode.ValidationError, "A bank payout has no mobile_number.")
		}
		_, err := text("account_number", &d.AccountNumber)
		return err
	default:
		if d.AccountNumber != "" {
			return errcode.Newf(errcode.ValidationError, "A momo payout has no account_number.")
		}
		if d.MobileNumber == "" {
			return missing("mobile_number")
		}
		if !mobilePattern.MatchString(d.MobileNumber) && !sandboxWallets[d.MobileNumber] {
			return errcode.Newf(errcode.InvalidMobileNumber,
				"mobile_number must match ^265[89][0-9]{8}$: 265, then 9 (Airtel Money) or 8 (TNM Mpamba), then 8 digits. It is never corrected.")
		}
		return nil
	}
}

// Fingerprint is the default idempotency fingerprint of a request: the
// SHA-256 of a length-prefixed encoding of the rail, the amount at its
// decimals and every destination field, so two requests have one
// fingerprint exactly when they ask for the same payout.
func (r Request) Fingerprint() [32]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	field := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	field("payouts.Request/v1")
	field(string(r.Rail))
	field(r.Amount.Asset().Code)
	field(r.Amount.String())
	field(strconv.Itoa(r.Destination.InstitutionID))
	field(r.Destination.AccountNumber)
	field(r.Destination.MobileNumber)
	field(r.Destination.BeneficiaryName)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// ParseAmount is the one rule for amount_mwk in a request body: a JSON
// integer or a decimal string with at most 2 places, greater than zero and
// at most MaxAmount; anything else is validation_error.
func ParseAmount(raw json.RawMessage) (money.Amount, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return money.Amount{}, missing("amount_mwk")
	}
	amt, err := money.ParseJSON(money.MWK, raw)
	if err != nil {
		return money.Amount{}, fieldErr("amount_mwk", err)
	}
	if err := CheckAmount(amt); err != nil {
		return money.Amount{}, err
	}
	return amt, nil
}

// CheckAmount is the range rule of amount_mwk: an MWK amount greater than
// zero and at most MaxAmount.
func CheckAmount(amt money.Amount) error {
	if amt.Asset() != money.MWK {
		return errcode.Newf(errcode.ValidationError, "amount_mwk must be an MWK amount.")
	}
	if amt.Sign() <= 0 {
		return errcode.Newf(errcode.ValidationError, "amount_mwk must be greater than zero.")
	}
	if amt.Cmp(MaxAmount) > 0 {
		return errcode.Newf(errcode.ValidationError, "amount_mwk must be at most %s.", MaxAmount)
	}
	return nil
}

func missing(field string) error {
	return errcode.Newf(errcode.ValidationError, "%s is required.", field)
}

func fieldErr(field string, err error) error {
	return errcode.Newf(errcode.ValidationError, "%s: %s", field, errcode.Message(err))
}

func text(field string, v *string) (string, error) {
	if v == nil || *v == "" {
		return "", missing(field)
	}
	if !utf8.ValidString(*v) || utf8.RuneCountInString(*v) > MaxTextLength {
		return "", errcode.Newf(errcode.ValidationError, "%s must be valid text of at most %d characters.", field, MaxTextLength)
	}
	return *v, nil
}

// CheckInstitution checks the request's institution against reference
// data: it must exist and be payable on the request's rail, and a mobile
// number must be on the institution's network. sandboxWallets (sandbox
// test wallets) skip the network check.
func CheckInstitution(r Request, institutions []Institution, sandboxWallets map[string]bool) (Institution, error) {
	var found *Institution
	for i := range institutions {
		if institutions[i].ID == r.Destination.InstitutionID {
			found = &institutions[i]
		}
	}
	if found == nil {
		return Institution{}, errcode.Newf(errcode.UnknownInstitution, "institution_id %d is not a known institution.", r.Destination.InstitutionID)
	}
	if found.Rail != r.Rail {
		return Institution{}, errcode.Newf(errcode.UnknownInstitution,
			"institution_id %d (%s) is a %s institution; use POST /v1/payouts/%s.", found.ID, found.Name, found.Rail, found.Rail)
	}
	if r.Rail == Momo && !sandboxWallets[r.Destination.MobileNumber] {
		network := r.Destination.MobileNumber[3:4]
		if found.Network != network {
			for _, other := range institutions {
				if other.Rail == Momo && other.Network == network {
					return Institution{}, errcode.Newf(errcode.MobileNumberInstitutionMismatch,
						"mobile_number belongs to %s (institution_id %d), not %s.", other.Name, other.ID, found.Name)
				}
			}
			return Institution{}, errcode.Newf(errcode.MobileNumberInstitutionMismatch,
				"mobile_number is not on %s's network.", found.Name)
		}
	}
	return *found, nil
}
