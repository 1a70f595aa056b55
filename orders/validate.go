package orders

import (
	"encoding/binary"
	"time"

	"github.com/tambalapay/tambala/internal/textrule"
)

// Bounds of the text an order carries, in Unicode code points.
const (
	MaxClientRefLength = 64  // client_ref
	MaxTextLength      = 200 // beneficiary and funding instruction fields
	MaxReasonLength    = 500 // a proof's rejected_reason
)

// DefaultFundingWindow is how long after the instructions a from-bank
// order's funding deadline falls when the desk gives none (the engine's
// Options.FundingWindow overrides it through Instructions.Window).
const DefaultFundingWindow = 72 * time.Hour

// MinDeadlineLead is how far ahead a deadline the desk gives must be: more
// than this after now.
const MinDeadlineLead = time.Hour

// checkText is the one rule for text a person reads (textrule.Check): 1
// to max code points of valid UTF-8, no control character (C0, DEL and C1)
// and no invisible format character (Unicode category Cf: bidirectional
// controls, zero-width characters, the soft hyphen and the like). The text
// is never trimmed or normalised.
func checkText(field, v string, max int) error { return textrule.Check(field, v, max) }

// ValidateClientRef checks a client_ref: 1 to 64 code points of valid
// UTF-8 with no control or invisible format characters (checkText). It is
// neither trimmed nor case-folded; two refs are the same only when their
// bytes are. Failure is validation_error.
func ValidateClientRef(ref string) error {
	return checkText("client_ref", ref, MaxClientRefLength)
}

// Validate checks a to-bank beneficiary's fields: name, bank_name and
// account_number 1 to 200 code points each; branch nil (absent or null) or
// 1 to 200; each under checkText's rule. The account number is free text:
// bank_name names no institution of the reference data, so no institution's
// account number format applies. Failure is validation_error naming the
// field. Unknown fields are refused by the transport, which alone sees
// them.
func (b Beneficiary) Validate() error {
	if err := checkText("beneficiary.name", b.Name, MaxTextLength); err != nil {
		return err
	}
	if err := checkText("beneficiary.bank_name", b.BankName, MaxTextLength); err != nil {
		return err
	}
	if err := checkText("beneficiary.account_number", b.AccountNumber, MaxTextLength); err != nil {
		return err
	}
	if b.Branch != nil {
		return checkText("beneficiary.branch", *b.Branch, MaxTextLength)
	}
	return nil
}

// ValidReference reports whether s may be a funding reference:
// ^[A-Z0-9]{6,18}$.
func ValidReference(s string) bool {
	if len(s) < 6 || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ReferenceRandomBytes is how many random bytes GenerateReference reads.
const ReferenceRandomBytes = 8

// GenerateReference renders a funding reference from random bytes: TMB and
// ten Crockford base32 characters, 50 bits taken from the first bytes of
// random. It always satisfies ValidReference. Uniqueness across
// organizations is the engine's index: on a clash it draws new bytes.
func GenerateReference(random [ReferenceRandomBytes]byte) string {
	v := binary.BigEndian.Uint64(random[:]) >> (64 - 50)
	var b [13]byte
	copy(b[:], "TMB")
	for i := 12; i >= 3; i-- {
		b[i] = crockford[v&31]
		v >>= 5
	}
	return string(b[:])
}
