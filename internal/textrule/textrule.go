// Package textrule is the one rule for text a person reads: the names,
// bank details, references and reasons that the engine stores and that
// desk staff, operators and customers read (and, at the desk, pay by hand
// from). Such text must be valid UTF-8 and hold no character that changes
// what a reader sees without being seen itself: no control character, no
// format character and no other default-ignorable code point (Unicode's
// Default_Ignorable_Code_Point: fillers, variation selectors, the
// combining grapheme joiner and the like, which render as nothing). The text is never trimmed, normalised or
// repaired; it is refused with validation_error (an *errcode.Error) that
// names the field and the code point, never the value.
//
// The package is pure: no I/O, no state.
package textrule

import (
	"unicode"
	"unicode/utf8"

	"github.com/tambalapay/tambala/errcode"
)

// Refused reports whether r may not appear in text a person reads:
//
//   - a control character (category Cc): C0, U+0000 to U+001F, DEL,
//     U+007F, and C1, U+0080 to U+009F;
//   - a format character (category Cf), which is invisible or reorders
//     what is around it: among them the bidirectional embeddings and
//     overrides U+202A to U+202E, the isolates U+2066 to U+2069 and the
//     marks U+200E, U+200F and U+061C; the zero-width space, non-joiner
//     and joiner U+200B to U+200D; the word joiner and invisible operators
//     U+2060 to U+2064; the byte order mark U+FEFF; the soft hyphen
//     U+00AD; and the tag characters U+E0001 and U+E0020 to U+E007F;
//   - any other default-ignorable code point (DefaultIgnorable), which a
//     renderer shows as nothing: the combining grapheme joiner U+034F, the
//     Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the Khmer inherent
//     vowels U+17B4 and U+17B5, the variation selectors U+180B to U+180F,
//     U+FE00 to U+FE0F and U+E0100 to U+E01EF, and the code points Unicode
//     reserves as default-ignorable (U+2065, U+FFF0 to U+FFF8, U+E0000 to
//     U+E0FFF).
//
// The format characters that Default_Ignorable_Code_Point leaves out (the
// interlinear annotations U+FFF9 to U+FFFB, Egyptian hieroglyph format
// controls, prepended concatenation marks such as U+0600) stay refused:
// they are category Cf, and no name, reference or bank detail needs one.
//
// Letters, marks, digits, punctuation, symbols and spaces of every script
// pass: "Chikondi Banda", "Łukasz", "محمد".
func Refused(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || DefaultIgnorable(r)
}

// DefaultIgnorable reports whether r has Unicode's derived property
// Default_Ignorable_Code_Point (DerivedCoreProperties.txt):
// Other_Default_Ignorable_Code_Point, category Cf and Variation_Selector,
// less White_Space, U+FFF9 to U+FFFB, U+13430 to U+1343F and
// Prepended_Concatenation_Mark. It is built from the unicode package's
// tables, so it follows the Unicode version of the Go release.
func DefaultIgnorable(r rune) bool {
	switch {
	case r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1343F:
		return false
	case unicode.Is(unicode.White_Space, r), unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// CheckChars checks v's characters only: valid UTF-8 and no Refused
// character. Emptiness and length are the caller's (each field has its
// own bounds); Check does both for the fields bounded in code points.
func CheckChars(field, v string) error {
	if printableASCII(v) {
		return nil // most fields: ids, references, names in Latin letters
	}
	if !utf8.ValidString(v) {
		return errcode.Newf(errcode.ValidationError, "%s must be valid UTF-8.", field)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return errcode.Newf(errcode.ValidationError, "%s may not contain control characters.", field)
		}
		if Refused(r) {
			return errcode.Newf(errcode.ValidationError,
				"%s may not contain invisible formatting characters (it holds U+%04X): bidirectional controls, zero-width characters, fillers, variation selectors and the like are refused.",
				field, r)
		}
	}
	return nil
}

// printableASCII reports whether every byte of v is printable ASCII, U+0020
// to U+007E: valid UTF-8, and no control or Refused character among them
// (TestPrintableASCII checks each), so CheckChars need not look further.
func printableASCII(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Check is CheckChars for a required field of 1 to max code points.
func Check(field, v string, max int) error {
	if v == "" {
		return errcode.Newf(errcode.ValidationError, "%s is required and may not be empty.", field)
	}
	if err := CheckChars(field, v); err != nil {
		return err
	}
	if utf8.RuneCountInString(v) > max {
		return errcode.Newf(errcode.ValidationError, "%s must be at most %d characters.", field, max)
	}
	return nil
}
