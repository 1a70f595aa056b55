package money_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Seeds shared by the fuzz targets: every shape the grammar accepts or
// names a reason for.
var fuzzSeeds = []string{
	"", "0", "00", "0.0", "0.00", "0.000", "5000", "0.5", "007.10", "1.23", "1.234",
	"1", "1.", ".5", ".", "1.2.3", "1..2", "1,000", "1_000", "abc", "0x10", "0b1", "0o7",
	"١٢", "１２", "+1", "-1", "-0", "--1", "1e5", "1E5", "1e-5", "1.5e3", "e", "E",
	" 1", "1 ", "1\n", "\t1", "1\u00a0", "1\x00", "NaN", "Inf", "Infinity", "-Infinity",
	"\"5\"", "'5'", "5x", "\xff", "1\xff", "\u0031",
	nines30, nines30 + ".99", nines30 + ".999", digits30, digits31, "0" + digits30,
	strings.Repeat("0", 100) + nines30 + ".5", strings.Repeat("9", 200),
	"0." + strings.Repeat("0", 18) + "1", "1800.000", "0.008", "1750.50",
}

var mwkString = regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`)

// checkAmountAccepted holds for every amount Parse or ParseJSON accepts.
func checkAmountAccepted(t *testing.T, input string, a money.Amount) {
	t.Helper()
	if a.Asset() != money.MWK {
		t.Fatalf("%q: asset %v", input, a.Asset())
	}
	if a.Sign() < 0 {
		t.Fatalf("%q: negative amount %s", input, a)
	}
	s := a.String()
	if !mwkString.MatchString(s) {
		t.Fatalf("%q: String() = %q, want digits and exactly 2 decimals", input, s)
	}
	back, err := money.Parse(money.MWK, s)
	if err != nil {
		t.Fatalf("%q: String() %q does not re-parse: %v", input, s, err)
	}
	if !back.Equal(a) || back.String() != s {
		t.Fatalf("%q: re-parsed %q as %s", input, s, back)
	}
	b, err := json.Marshal(a)
	if err != nil || string(b) != `"`+s+`"` {
		t.Fatalf("%q: MarshalJSON = %s, %v", input, b, err)
	}
}

// checkRejected holds for every rejection of Parse, ParseJSON or ParseRate.
func checkRejected(t *testing.T, input string, err error) {
	t.Helper()
	var pe *money.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%q: error %v (%T) is not a *ParseError", input, err, err)
	}
	if errcode.Of(err) != errcode.ValidationError {
		t.Fatalf("%q: code %s", input, errcode.Of(err))
	}
	known := false
	for _, r := range []error{
		money.ErrEmpty, money.ErrNotANumber, money.ErrFractionalNumber, money.ErrExponent,
		money.ErrSign, money.ErrWhitespace, money.ErrMalformed, money.ErrTooManyDecimals, money.ErrTooLarge,
	} {
		if errors.Is(err, r) {
			known = true
		}
	}
	if !known {
		t.Fatalf("%q: unknown reason %v", input, err)
	}
	if len(pe.Input) > 40 {
		t.Fatalf("%q: ParseError keeps %d bytes of input", input, len(pe.Input))
	}
	_ = err.Error()
	if errcode.Message(err) == "" {
		t.Fatalf("%q: empty public message", input)
	}
}

func sameOutcome(t *testing.T, what, input string, a money.Amount, err error, b money.Amount, errB error) {
	t.Helper()
	switch {
	case (err == nil) != (errB == nil):
		t.Fatalf("%s %q: Parse gave (%s, %v), ParseJSON (%s, %v)", what, input, a, err, b, errB)
	case err == nil:
		if !a.Equal(b) || a.String() != b.String() {
			t.Fatalf("%s %q: Parse %s, ParseJSON %s", what, input, a, b)
		}
	default:
		var pa, pb *money.ParseError
		errors.As(err, &pa)
		errors.As(errB, &pb)
		if pa == nil || pb == nil || pa.Reason != pb.Reason {
			t.Fatalf("%s %q: Parse rejects with %v, ParseJSON with %v", what, input, err, errB)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := money.Parse(money.MWK, s)
		if err != nil {
			checkRejected(t, s, err)
		} else {
			checkAmountAccepted(t, s, a)
			// Only the grammar's characters get through.
			if strings.Trim(s, "0123456789.") != "" {
				t.Fatalf("%q accepted", s)
			}
		}

		// The same text as a JSON string gives the same outcome. Invalid
		// UTF-8 cannot be carried by a JSON string unchanged.
		if utf8.ValidString(s) {
			raw, mErr := json.Marshal(s)
			if mErr != nil {
				t.Fatal(mErr)
			}
			b, errB := money.ParseJSON(money.MWK, raw)
			sameOutcome(t, "JSON string", s, a, err, b, errB)
		}

		// ParseSigned agrees with Parse on unsigned text, and with its
		// negation on "-" + text, except that it reads whole parts of up to
		// MaxStoredIntegerDigits digits that Parse refuses as too large.
		sa, sErr := money.ParseSigned(money.MWK, s)
		na, nErr := money.ParseSigned(money.MWK, "-"+s)
		if errors.Is(err, money.ErrTooLarge) {
			for _, e := range []error{sErr, nErr} {
				if e != nil && !errors.Is(e, money.ErrTooLarge) {
					t.Fatalf("ParseSigned %q: %v where Parse found it only too large", s, e)
				}
			}
			if sErr == nil && (sa.Sign() <= 0 || !sa.Exceeds(money.MaxIntegerDigits) || sa.Exceeds(money.MaxStoredIntegerDigits)) {
				t.Fatalf("ParseSigned %q = %s: outside the stored bound", s, sa)
			}
			return
		}
		if !strings.HasPrefix(s, "-") || len(s) == 1 {
			sameOutcome(t, "ParseSigned", s, a, err, sa, sErr)
		}
		if s != "" {
			sameOutcome(t, "ParseSigned negated", s, a, err, na.Neg(), nErr)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
		if raw, err := json.Marshal(s); err == nil {
			f.Add(raw)
		}
	}
	for _, s := range []string{
		`5000`, `0`, `5000.5`, `5000.00`, `1e3`, `1E3`, `1.5e3`, `-5`, `-0`, `null`, `true`,
		`false`, `{}`, `[]`, `["5"]`, `"5`, `"5\x"`, `"5" "6"`, `"\u0031"`, `"\ud800"`,
		`"1\n"`, "\"1\n\"", `" 1"`, `007`, ` 5`, `5 `, `""`, `"`, `nul`, `0.`, `.5`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := money.ParseJSON(money.MWK, raw)
		if err != nil {
			checkRejected(t, string(raw), err)
		} else {
			checkAmountAccepted(t, string(raw), a)
		}

		trimmed := strings.TrimSpace(string(raw))
		if !json.Valid(raw) || trimmed != string(raw) {
			return
		}
		switch {
		case strings.HasPrefix(trimmed, `"`):
			// A JSON string: the same outcome as Parse of its content.
			var s string
			if uErr := json.Unmarshal(raw, &s); uErr != nil {
				t.Fatal(uErr)
			}
			p, pErr := money.Parse(money.MWK, s)
			sameOutcome(t, "JSON string", string(raw), p, pErr, a, err)
		case trimmed == "null":
			if !errors.Is(err, money.ErrEmpty) {
				t.Fatalf("null: %v", err)
			}
		case strings.HasPrefix(trimmed, "-"):
			if !errors.Is(err, money.ErrSign) {
				t.Fatalf("%s: %v", raw, err)
			}
		case trimmed[0] >= '0' && trimmed[0] <= '9':
			// A JSON number: only an integer is accepted, as whole units.
			switch {
			case strings.Contains(trimmed, "."):
				if !errors.Is(err, money.ErrFractionalNumber) {
					t.Fatalf("%s: %v", raw, err)
				}
			case strings.ContainsAny(trimmed, "eE"):
				if !errors.Is(err, money.ErrExponent) {
					t.Fatalf("%s: %v", raw, err)
				}
			default:
				p, pErr := money.Parse(money.MWK, trimmed)
				sameOutcome(t, "JSON integer", trimmed, p, pErr, a, err)
			}
		default:
			// true, false, objects and arrays.
			if !errors.Is(err, money.ErrNotANumber) {
				t.Fatalf("%s: %v", raw, err)
			}
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := money.ParseRate(s)
		if err != nil {
			checkRejected(t, s, err)
			if !r.IsZero() {
				t.Fatalf("%q: rejected rate is set", s)
			}
			return
		}
		if r.IsZero() || r.Decimal().Sign() <= 0 {
			t.Fatalf("%q: rate %s is not positive", s, r)
		}
		str := r.String()
		if strings.Trim(str, "0123456789.") != "" {
			t.Fatalf("%q: String() = %q", s, str)
		}
		if strings.Contains(str, ".") && (strings.HasSuffix(str, "0") || strings.HasSuffix(str, ".")) {
			t.Fatalf("%q: String() = %q is not trimmed", s, str)
		}
		if len(str) > 1 && str[0] == '0' && str[1] != '.' {
			t.Fatalf("%q: String() = %q has a leading zero", s, str)
		}
		back, err := money.ParseRate(str)
		if err != nil {
			t.Fatalf("%q: String() %q does not re-parse: %v", s, str, err)
		}
		if back.Cmp(r) != 0 || back.String() != str {
			t.Fatalf("%q: re-parsed %q as %s", s, str, back)
		}
		b, err := json.Marshal(r)
		if err != nil || string(b) != `"`+str+`"` {
			t.Fatalf("%q: MarshalJSON = %s, %v", s, b, err)
		}
		// A rate is an amount-shaped decimal: where it fits MWK it parses
		// to the same value.
		if a, err := money.Parse(money.MWK, s); err == nil && a.Decimal().Cmp(r.Decimal()) != 0 {
			t.Fatalf("%q: rate %s, amount %s", s, r, a)
		}
	})
}
