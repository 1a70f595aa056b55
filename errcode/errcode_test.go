package errcode_test

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
)

func TestTableWellFormed(t *testing.T) {
	codeShape := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[errcode.Code]bool{}
	messages := map[string]errcode.Code{}
	for _, s := range errcode.Table {
		assert.False(t, seen[s.Code], "duplicate code %s", s.Code)
		seen[s.Code] = true
		assert.Regexp(t, codeShape, string(s.Code))
		assert.Equal(t, s, errcode.Lookup(s.Code))
		assert.True(t, errcode.Known(s.Code))
		assert.NotEmpty(t, s.Message, s.Code)
		if other, dup := messages[s.Message]; dup {
			t.Errorf("codes %s and %s share the message %q", other, s.Code, s.Message)
		}
		messages[s.Message] = s.Code
	}
	// Every constant is in the table.
	for _, c := range []errcode.Code{
		errcode.ValidationError, errcode.Unauthorized, errcode.InsufficientFunds, errcode.Forbidden,
		errcode.OnboardingIncomplete, errcode.AccessSuspended, errcode.CorridorNotEnabled, errcode.SandboxOnly,
		errcode.NotFound, errcode.MethodNotAllowed, errcode.Conflict, errcode.QuoteUsed, errcode.ClientRefUsed,
		errcode.ProofNotExpected, errcode.PayloadTooLarge, errcode.UnsupportedMediaType, errcode.UnsupportedPair,
		errcode.UnsupportedAsset, errcode.UnsupportedNetwork, errcode.InvalidWalletAddress,
		errcode.AmountBelowMinimum, errcode.LimitExceeded, errcode.QuoteExpired, errcode.BeneficiaryRequired,
		errcode.BeneficiaryNotAllowed, errcode.UnknownBank, errcode.UnknownOperator, errcode.UnknownInstitution,
		errcode.InvalidMobileNumber, errcode.MobileNumberInstitutionMismatch, errcode.InvalidAccountNumber,
		errcode.AmountLimitExceeded, errcode.RateLimited, errcode.OrgLimitExceeded, errcode.InternalError,
		errcode.RailDisabled, errcode.RateUnavailable, errcode.ServiceUnavailable, errcode.ServiceIncident,
		errcode.ServiceMaintenance,
	} {
		assert.True(t, seen[c], "constant %s missing from Table", c)
	}
	assert.Len(t, seen, len(errcode.Table))
}

func TestLookupUnknown(t *testing.T) {
	for _, c := range []errcode.Code{"", "no_such_code", "VALIDATION_ERROR", "validation_error "} {
		assert.False(t, errcode.Known(c), c)
		s := errcode.Lookup(c)
		assert.Equal(t, errcode.InternalError, s.Code)
	}
}

func TestError(t *testing.T) {
	def := errcode.Lookup(errcode.NotFound).Message

	e := errcode.New(errcode.NotFound)
	assert.Equal(t, errcode.NotFound, e.Code)
	assert.ErrorIs(t, e, errcode.New(errcode.NotFound))
	assert.Equal(t, def, e.PublicMessage())
	assert.Equal(t, "not_found: "+def, e.Error())
	assert.Nil(t, e.Unwrap())

	f := errcode.Newf(errcode.CorridorNotEnabled, "asset %s is not enabled for %s", "USDT", "payouts")
	assert.Equal(t, "asset USDT is not enabled for payouts", f.PublicMessage())
	assert.Equal(t, "corridor_not_enabled: asset USDT is not enabled for payouts", f.Error())

	cause := errors.New("bolt: tx closed at /var/lib/tambala/db")
	w := errcode.Wrap(errcode.InternalError, cause)
	assert.Equal(t, errcode.Lookup(errcode.InternalError).Message, w.PublicMessage())
	assert.NotContains(t, w.PublicMessage(), "bolt")
	assert.Contains(t, w.Error(), "bolt: tx closed", "the cause is kept for logs")
	assert.Same(t, cause, w.Unwrap())
	assert.ErrorIs(t, w, cause)
}

func TestOfAndMessage(t *testing.T) {
	uncoded := errors.New("pq: password authentication failed for user \"tambala\"")
	tests := []struct {
		name string
		err  error
		code errcode.Code
		msg  string
	}{
		{"nil", nil, "", errcode.Lookup(errcode.InternalError).Message},
		{"*Error", errcode.New(errcode.QuoteUsed), errcode.QuoteUsed, errcode.Lookup(errcode.QuoteUsed).Message},
		{"*Error with message", errcode.Newf(errcode.UnknownInstitution, "institution 7 is a momo institution"),
			errcode.UnknownInstitution, "institution 7 is a momo institution"},
		{"wrapped *Error", fmt.Errorf("create payout: %w", errcode.New(errcode.InsufficientFunds)),
			errcode.InsufficientFunds, errcode.Lookup(errcode.InsufficientFunds).Message},
		{"twice wrapped *Error with message", fmt.Errorf("a: %w", fmt.Errorf("b: %w", errcode.Newf(errcode.ValidationError, "limit must be 1 to 200"))),
			errcode.ValidationError, "limit must be 1 to 200"},
		{"joined", errors.Join(uncoded, errcode.New(errcode.RateLimited)), errcode.RateLimited, errcode.Lookup(errcode.RateLimited).Message},
		{"Wrap keeps its cause out of the message", errcode.Wrap(errcode.ServiceUnavailable, uncoded),
			errcode.ServiceUnavailable, errcode.Lookup(errcode.ServiceUnavailable).Message},
		{"uncoded", uncoded, errcode.InternalError, errcode.Lookup(errcode.InternalError).Message},
		{"wrapped uncoded", fmt.Errorf("store: %w", uncoded), errcode.InternalError, errcode.Lookup(errcode.InternalError).Message},
		// The outermost coded error decides the code, and the message must
		// be that error's, never a message of another code deeper down.
		{"*Error wrapping *Error", &errcode.Error{Code: errcode.Conflict, Err: errcode.Newf(errcode.NotFound, "no order 123")},
			errcode.Conflict, errcode.Lookup(errcode.Conflict).Message},
		// A code missing from the table never leaks its message.
		{"unknown code", errcode.Newf("made_up", "secret detail"), "made_up", errcode.Lookup(errcode.InternalError).Message},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.code, errcode.Of(tt.err))
			msg := errcode.Message(tt.err)
			assert.Equal(t, tt.msg, msg)
			assert.NotContains(t, msg, "pq:")
			assert.NotContains(t, msg, "password")
			assert.NotContains(t, msg, "secret")
			assert.NotContains(t, msg, "org 42")
			assert.NotContains(t, msg, "internal detail")
		})
	}
}

func TestIs(t *testing.T) {
	e := errcode.Newf(errcode.QuoteExpired, "expired at %s", "12:00")
	wrapped := fmt.Errorf("execute quote: %w", e)

	assert.ErrorIs(t, e, errcode.New(errcode.QuoteExpired))
	assert.ErrorIs(t, wrapped, errcode.New(errcode.QuoteExpired))
	assert.ErrorIs(t, errcode.Wrap(errcode.InternalError, errors.New("x")), errcode.New(errcode.InternalError))
	assert.NotErrorIs(t, wrapped, errcode.New(errcode.QuoteUsed))
	assert.NotErrorIs(t, errors.New("quote_expired"), errcode.New(errcode.QuoteExpired))
	assert.NotErrorIs(t, nil, errcode.New(errcode.QuoteExpired))

	// A target with a message or a cause is a specific error, matched only
	// by identity.
	assert.NotErrorIs(t, wrapped, errcode.Newf(errcode.QuoteExpired, "expired at %s", "12:00"))
	assert.NotErrorIs(t, errcode.New(errcode.QuoteExpired), errcode.Wrap(errcode.QuoteExpired, errors.New("x")))
	assert.ErrorIs(t, wrapped, e)

	// A sentinel declared once matches fresh errors of its code.
	var errNotFound = errcode.New(errcode.NotFound)
	assert.ErrorIs(t, fmt.Errorf("get order: %w", errcode.Newf(errcode.NotFound, "order %d", 9)), errNotFound)

	// errors.As reaches the *Error through wrapping.
	var ce *errcode.Error
	require.ErrorAs(t, wrapped, &ce)
	assert.Same(t, e, ce)
}

// TestCatalogAgreement walks the whole catalog: for every code, however an
// error of that code is made (New, Newf, Wrap, with a domain cause) and
// however it is wrapped (fmt.Errorf, errors.Join), errors.Is against
// New(code), errors.As to *Error and Of agree, and no other code matches.
func TestCatalogAgreement(t *testing.T) {
	cause := errors.New("detail kept for logs")
	for _, spec := range errcode.Table {
		c := spec.Code
		made := map[string]error{
			"New":               errcode.New(c),
			"Newf":              errcode.Newf(c, "specific %d", 1),
			"Wrap":              errcode.Wrap(c, cause),
			"with domain cause": &errcode.Error{Code: c, Message: "m", Err: cause},
		}
		for how, base := range made {
			for wrapHow, err := range map[string]error{
				"bare":   base,
				"fmt":    fmt.Errorf("use case: %w", base),
				"twice":  fmt.Errorf("a: %w", fmt.Errorf("b: %w", base)),
				"joined": errors.Join(errors.New("uncoded"), base),
			} {
				name := string(c) + "/" + how + "/" + wrapHow
				assert.True(t, errors.Is(err, errcode.New(c)), name+": errors.Is")
				var ce *errcode.Error
				if assert.True(t, errors.As(err, &ce), name+": errors.As") {
					assert.Equal(t, c, ce.Code, name)
				}
				assert.Equal(t, c, errcode.Of(err), name+": Of")
				for _, other := range errcode.Table {
					if other.Code != c {
						assert.False(t, errors.Is(err, errcode.New(other.Code)), name+" matches "+string(other.Code))
					}
				}
			}
		}
	}
}
