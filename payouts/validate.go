package payouts

import (
	"regexp"
	"strconv"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/fingerprint"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
)

// MaxAmount is the largest amount_mwk the API parses at all; anything above
// is validation_error (per-organization maxima are lower and answered with
// amount_limit_exceeded).
var MaxAmount = money.Max(money.MWK)

// MaxTextLength bounds account numbers, beneficiary names and institution
// names, in code points.
const MaxTextLength = 200

// The account number digits of a bank institution that gives none
// (DefaultAccountNumberMinDigits to DefaultAccountNumberMaxDigits), and the
// most any institution may allow.
const (
	DefaultAccountNumberMinDigits = 6
	DefaultAccountNumberMaxDigits = 16
	MaxAccountNumberDigits        = 34
)

// Institution is a payable bank or mobile-money operator.
type Institution struct {
	ID   int
	Name string
	Rail Rail
	// Network is the digit after 265 that the operator's numbers carry
	// ("9" Airtel Money, "8" TNM Mpamba); momo only.
	Network string
	// AccountNumberMinDigits and AccountNumberMaxDigits bound a bank's
	// account numbers, which are digits only (CheckAccountNumber); zero
	// means the default bound (DefaultAccountNumberMinDigits,
	// DefaultAccountNumberMaxDigits). Bank only; not rendered.
	AccountNumberMinDigits int
	AccountNumberMaxDigits int
}

// DefaultInstitutions is the sandbox's reference data. Each bank carries
// the account number lengths it is known to issue, wide enough for every
// format seen; the sandbox's test accounts (10 digits) fit every bank.
func DefaultInstitutions() []Institution {
	return []Institution{
		{ID: 1, Name: "National Bank of Malawi", Rail: Bank, AccountNumberMinDigits: 6, AccountNumberMaxDigits: 13},
		{ID: 2, Name: "Standard Bank Malawi", Rail: Bank, AccountNumberMinDigits: 10, AccountNumberMaxDigits: 13},
		{ID: 3, Name: "FDH Bank", Rail: Bank, AccountNumberMinDigits: 10, AccountNumberMaxDigits: 13},
		{ID: 4, Name: "NBS Bank", Rail: Bank, AccountNumberMinDigits: 6, AccountNumberMaxDigits: 12},
		{ID: 5, Name: "First Capital Bank", Rail: Bank, AccountNumberMinDigits: 8, AccountNumberMaxDigits: 14},
		{ID: 101, Name: "Airtel Money", Rail: Momo, Network: "9"},
		{ID: 102, Name: "TNM Mpamba", Rail: Momo, Network: "8"},
	}
}

// AccountNumberDigits is the range of account number lengths a bank
// takes: its own bounds, each zero one the default.
func (in Institution) AccountNumberDigits() (min, max int) {
	min, max = in.AccountNumberMinDigits, in.AccountNumberMaxDigits
	if min == 0 {
		min = DefaultAccountNumberMinDigits
	}
	if max == 0 {
		max = DefaultAccountNumberMaxDigits
	}
	return min, max
}

// CheckAccountNumber is the one account number rule of a bank payout (/v1
// and /v2): ASCII digits only, no spaces, dashes or letters, and as many as
// the institution's AccountNumberDigits. Failure is invalid_account_number
// naming the institution and its range, never the number. The number is
// never corrected.
func (in Institution) CheckAccountNumber(n string) error {
	min, max := in.AccountNumberDigits()
	ok := len(n) >= min && len(n) <= max
	for i := 0; ok && i < len(n); i++ {
		ok = n[i] >= '0' && n[i] <= '9'
	}
	if !ok {
		return errcode.Newf(errcode.InvalidAccountNumber,
			"account_number must be %d to %d digits for %s (institution_id %d): digits only, no spaces, dashes or letters. It is never corrected.",
			min, max, in.Name, in.ID)
	}
	return nil
}

// CheckInstitutions checks reference data before it replaces the current
// list: each institution has a positive id, a name under the text rule (1
// to MaxTextLength code points, no control or invisible format character),
// rail bank or momo; a momo institution its network, 8 or 9, and no account
// number bounds; a bank one account number bounds (where given) with 1 <=
// min <= max <= MaxAccountNumberDigits once the defaults fill the zero
// ones. Failure is validation_error naming the institution's index.
func CheckInstitutions(list []Institution) error {
	for i, in := range list {
		bad := func(format string, args ...any) error {
			return errcode.Newf(errcode.ValidationError, "institutions[%d]: "+format, append([]any{i}, args...)...)
		}
		if in.ID <= 0 {
			return bad("institution_id must be a positive integer.")
		}
		if err := textrule.Check("name", in.Name, MaxTextLength); err != nil {
			return bad("%s", errcode.Message(err))
		}
		switch in.Rail {
		case Momo:
			if in.Network != "8" && in.Network != "9" {
				return bad("a momo institution needs network 8 or 9.")
			}
			if in.AccountNumberMinDigits != 0 || in.AccountNumberMaxDigits != 0 {
				return bad("a momo institution has no account number digits.")
			}
		case Bank:
			min, max := in.AccountNumberDigits()
			if in.AccountNumberMinDigits < 0 || in.AccountNumberMaxDigits < 0 || min < 1 || min > max || max > MaxAccountNumberDigits {
				return bad("account number digits must be 1 <= min <= max <= %d (min defaults to %d, max to %d).",
					MaxAccountNumberDigits, DefaultAccountNumberMinDigits, DefaultAccountNumberMaxDigits)
			}
		default:
			return bad("rail must be bank or momo.")
		}
	}
	return nil
}

// Request asks for a payout of Amount on Rail to Destination. A transport
// decodes one from a body (with the checks CheckAmount,
// CheckInstitutionID, CheckText and CheckRail, in its own order); a Go
// host builds it.
type Request struct {
	Rail        Rail
	Amount      money.Amount
	Destination Destination
}

var mobilePattern = regexp.MustCompile(`^265[89][0-9]{8}$`)

// Validate checks a Request against the rules of both create endpoints:
// the rail, the amount (positive, at most MaxAmount, MWK at 2 places), a
// positive institution id, the destination's text fields (1 to
// MaxTextLength characters of valid UTF-8 with no control or invisible
// format character: the text rule of every field a person reads) and, on
// momo, the mobile-number pattern. sandboxWallets are wallet numbers exempt
// from the pattern (the sandbox's test wallets; nil in production).
// Institution checks, the account number's format among them, need
// reference data and happen in CheckInstitution.
func (r Request) Validate(sandboxWallets map[string]bool) error {
	if err := CheckRail(r.Rail); err != nil {
		return err
	}
	if err := CheckAmount(r.Amount); err != nil {
		return err
	}
	if err := CheckInstitutionID(r.Destination.InstitutionID); err != nil {
		return err
	}
	d := r.Destination
	if err := CheckText("beneficiary_name", d.BeneficiaryName); err != nil {
		return err
	}
	switch r.Rail {
	case Bank:
		if d.MobileNumber != "" {
			return errcode.Newf(errcode.ValidationError, "A bank payout has no mobile_number.")
		}
		return CheckText("account_number", d.AccountNumber)
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
	return fingerprint.Of("payouts.Request/v1", string(r.Rail), string(r.Amount.Asset().Code), r.Amount.String(),
		strconv.Itoa(r.Destination.InstitutionID), r.Destination.AccountNumber, r.Destination.MobileNumber,
		r.Destination.BeneficiaryName)
}

// CheckAmount is the range rule of amount_mwk: an MWK amount greater than
// zero and at most MaxAmount. A transport parses a body's amount_mwk (a
// JSON integer or a decimal string with at most 2 places, money.ParseJSON)
// and then checks it with CheckAmount.
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

// CheckRail is the rule of a request's rail: bank or momo.
func CheckRail(rail Rail) error {
	if rail != Bank && rail != Momo {
		return errcode.Newf(errcode.ValidationError, "rail must be bank or momo.")
	}
	return nil
}

// CheckInstitutionID is the rule of a request's institution_id: a
// positive integer (a transport refuses a body's value that is not a JSON
// integer with the same error, as it would a zero).
func CheckInstitutionID(id int) error {
	if id <= 0 {
		return errcode.Newf(errcode.ValidationError, "institution_id must be a positive JSON integer.")
	}
	return nil
}

// CheckText is the rule of a destination's text field (beneficiary_name,
// account_number): present (not empty), then the text rule of every field
// a person reads (textrule.Check), at most MaxTextLength code points.
func CheckText(field, v string) error {
	if v == "" {
		return missing(field)
	}
	return textrule.Check(field, v, MaxTextLength)
}

// CheckInstitution checks the request's institution against reference data:
// it must exist and be payable on the request's rail, a bank account number
// must fit the institution (CheckAccountNumber: invalid_account_number),
// and a mobile number must be on the institution's network. sandboxWallets
// (sandbox test wallets) skip the network check.
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
	if r.Rail == Bank {
		if err := found.CheckAccountNumber(r.Destination.AccountNumber); err != nil {
			return Institution{}, err
		}
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
