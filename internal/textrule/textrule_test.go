package textrule_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
)

// TestRefused pins each refused range at its boundaries, and the
// neighbours that stay accepted.
func TestRefused(t *testing.T) {
	cases := []struct {
		r       rune
		refused bool
		what    string
	}{
		// C0, DEL and C1 controls (refused already before the text rule).
		{0x0000, true, "NUL"},
		{0x001F, true, "last C0"},
		{0x0020, false, "space"},
		{0x007E, false, "tilde"},
		{0x007F, true, "DEL"},
		{0x0080, true, "first C1"},
		{0x009F, true, "last C1"},
		{0x00A0, false, "no-break space"},
		// The soft hyphen and its neighbours.
		{0x00AC, false, "not sign"},
		{0x00AD, true, "soft hyphen"},
		{0x00AE, false, "registered sign"},
		// The Arabic letter mark and its neighbours.
		{0x061B, false, "Arabic semicolon"},
		{0x061C, true, "Arabic letter mark"},
		{0x061D, false, "Arabic end of text mark"},
		// Zero-width characters and directional marks U+200B..U+200F.
		{0x200A, false, "hair space"},
		{0x200B, true, "zero width space"},
		{0x200C, true, "zero width non-joiner"},
		{0x200D, true, "zero width joiner"},
		{0x200E, true, "left-to-right mark"},
		{0x200F, true, "right-to-left mark"},
		{0x2010, false, "hyphen"},
		// Bidirectional embeddings and overrides U+202A..U+202E.
		{0x202A, true, "left-to-right embedding"},
		{0x202B, true, "right-to-left embedding"},
		{0x202C, true, "pop directional formatting"},
		{0x202D, true, "left-to-right override"},
		{0x202E, true, "right-to-left override"},
		{0x202F, false, "narrow no-break space"},
		// Line and paragraph separators are spaces on a page, not format
		// characters: accepted (the webhook tests carry one through).
		{0x2028, false, "line separator"},
		{0x2029, false, "paragraph separator"},
		// Word joiner and invisible operators U+2060..U+2064.
		{0x205F, false, "medium mathematical space"},
		{0x2060, true, "word joiner"},
		{0x2062, true, "invisible times"},
		{0x2064, true, "invisible plus"},
		// Bidirectional isolates U+2066..U+2069.
		{0x2066, true, "left-to-right isolate"},
		{0x2067, true, "right-to-left isolate"},
		{0x2068, true, "first strong isolate"},
		{0x2069, true, "pop directional isolate"},
		// The byte order mark and its neighbour.
		{0xFEFC, false, "Arabic ligature lam with alef"},
		{0xFEFF, true, "zero width no-break space (BOM)"},
		// Tag characters, interlinear annotations: category Cf too.
		{0xE0001, true, "language tag"},
		{0xE0041, true, "tag latin capital A"},
		{0xFFF9, true, "interlinear annotation anchor"},
		// Default-ignorable code points that are not Cf (issue #33): they
		// render as nothing.
		{0x034E, false, "combining upward arrow below"},
		{0x034F, true, "combining grapheme joiner"},
		{0x0350, false, "combining right arrowhead above"},
		{0x115E, false, "Hangul choseong tikeut-rieul"},
		{0x115F, true, "Hangul choseong filler"},
		{0x1160, true, "Hangul jungseong filler"},
		{0x1161, false, "Hangul jungseong a"},
		{0x17B4, true, "Khmer vowel inherent aq"},
		{0x17B5, true, "Khmer vowel inherent aa"},
		{0x180A, false, "Mongolian nirugu"},
		{0x180B, true, "Mongolian free variation selector one"},
		{0x180D, true, "Mongolian free variation selector three"},
		{0x180E, true, "Mongolian vowel separator"},
		{0x180F, true, "Mongolian free variation selector four"},
		{0x1810, false, "Mongolian digit zero"},
		{0x2065, true, "reserved default-ignorable"},
		{0x3163, false, "Hangul letter i"},
		{0x3164, true, "Hangul filler"},
		{0x3165, false, "Hangul letter ssangnieun"},
		{0xFDFF, false, "Arabic ligature (last before the selectors)"},
		{0xFE00, true, "variation selector 1"},
		{0xFE0F, true, "variation selector 16 (emoji presentation)"},
		{0xFE10, false, "presentation form for vertical comma"},
		{0xFF9F, false, "halfwidth katakana semi-voiced sound mark"},
		{0xFFA0, true, "halfwidth Hangul filler"},
		{0xFFA1, false, "halfwidth Hangul letter kiyeok"},
		{0xFFF0, true, "reserved default-ignorable"},
		{0xFFF8, true, "reserved default-ignorable"},
		{0xE0000, true, "reserved tag range"},
		{0xE0100, true, "variation selector 17"},
		{0xE01EF, true, "variation selector 256"},
		{0xE0FFF, true, "reserved default-ignorable, last"},
		{0xE1000, false, "unassigned past the range"},
		// Letters of other scripts.
		{'Ł', false, "L with stroke"},
		{'م', false, "Arabic meem"},
		{'ŵ', false, "w with circumflex (Chichewa)"},
		{'中', false, "CJK"},
	}
	for _, c := range cases {
		if got := textrule.Refused(c.r); got != c.refused {
			t.Errorf("Refused(U+%04X %s) = %v, want %v", c.r, c.what, got, c.refused)
		}
		err := textrule.Check("name", "Chikondi"+string(c.r)+"Banda", 200)
		if c.refused != (err != nil) {
			t.Errorf("Check with U+%04X %s: %v, want refused %v", c.r, c.what, err, c.refused)
		}
		if err != nil {
			if errcode.Of(err) != errcode.ValidationError {
				t.Errorf("U+%04X: code %s, want validation_error", c.r, errcode.Of(err))
			}
			if !strings.Contains(errcode.Message(err), "name") {
				t.Errorf("U+%04X: message %q names no field", c.r, errcode.Message(err))
			}
		}
	}
}

// TestDefaultIgnorable pins the derived property
// Default_Ignorable_Code_Point against the characters the issue names and
// the exceptions DerivedCoreProperties.txt makes from its parts.
func TestDefaultIgnorable(t *testing.T) {
	for _, r := range []rune{0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F,
		0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202E, 0x2060, 0x2064, 0x2065, 0x2066, 0x206F, 0x3164,
		0xFE00, 0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0, 0xFFF8, 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A, 0xE0000, 0xE0001, 0xE0020,
		0xE007F, 0xE0100, 0xE01EF, 0xE0FFF} {
		if !textrule.DefaultIgnorable(r) {
			t.Errorf("U+%04X is Default_Ignorable_Code_Point", r)
		}
		if !textrule.Refused(r) {
			t.Errorf("U+%04X is refused", r)
		}
	}
	// Not default-ignorable: spaces (White_Space), the interlinear
	// annotations, the Egyptian format controls and the prepended
	// concatenation marks, though category Cf (Refused keeps refusing
	// those), and ordinary characters.
	for _, r := range []rune{' ', 0x00A0, 0x1680, 0x2000, 0x200A, 0x2028, 0x202F, 0x205F, 0x3000, 0xFFF9, 0xFFFB,
		0x13430, 0x1343F, 0x0600, 0x0605, 0x06DD, 0x070F, 0x08E2, 0x110BD, 'a', 'Ł', 0x0301, 0x3163} {
		if textrule.DefaultIgnorable(r) {
			t.Errorf("U+%04X is not Default_Ignorable_Code_Point", r)
		}
	}
	for _, r := range []rune{0xFFF9, 0x13430, 0x0600} {
		if !textrule.Refused(r) {
			t.Errorf("U+%04X (category Cf) stays refused", r)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, ok := range []string{
		"Chikondi Banda", "Łukasz Żółkiewski", "Ŵongani Mhango", "محمد بن علي", "Chisomo & Sons Ltd.",
		"N'gona", "Zoë", "  spaced  ", "a",
	} {
		if err := textrule.Check("beneficiary_name", ok, 200); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	cases := []struct {
		name, v string
		want    string // a part of the message
	}{
		{"empty", "", "required"},
		{"invalid UTF-8", "Banda\xff", "valid UTF-8"},
		{"newline", "Banda\nX", "control"},
		{"C1", "Banda\u0085", "control"},
		{"RLO", "Banda \u202Ekcin\u202C", "U+202E"},
		{"isolate", "\u2066Banda\u2069", "U+2066"},
		{"zero width space", "Chikondi\u200BBanda", "U+200B"},
		{"BOM", "\uFEFFBanda", "U+FEFF"},
		{"soft hyphen", "Chi\u00ADkondi", "U+00AD"},
		{"Arabic letter mark", "\u061Cمحمد", "U+061C"},
		{"combining grapheme joiner", "Grace\u034F Phiri", "U+034F"},
		{"Hangul filler", "Grace Phiri\u3164", "U+3164"},
		{"variation selector", "Grace\uFE0F", "U+FE0F"},
		{"too long", strings.Repeat("ŵ", 201), "at most 200"},
	}
	for _, c := range cases {
		err := textrule.Check("beneficiary_name", c.v, 200)
		if errcode.Of(err) != errcode.ValidationError || !strings.Contains(errcode.Message(err), c.want) {
			t.Errorf("%s: %v, want validation_error mentioning %q", c.name, err, c.want)
		}
		if err != nil && c.v != "" && strings.Contains(errcode.Message(err), c.v) {
			t.Errorf("%s: the message quotes the value", c.name)
		}
	}
	// 200 code points of a two-byte letter are within bounds.
	if err := textrule.Check("f", strings.Repeat("ŵ", 200), 200); err != nil {
		t.Error(err)
	}
	// CheckChars leaves emptiness and length to the caller.
	if err := textrule.CheckChars("f", ""); err != nil {
		t.Error(err)
	}
	if err := textrule.CheckChars("f", strings.Repeat("a", 1000)); err != nil {
		t.Error(err)
	}
	if err := textrule.CheckChars("ref", "TRD-1\u2067"); errcode.Of(err) != errcode.ValidationError {
		t.Errorf("CheckChars with an isolate: %v", err)
	}
}

// FuzzCheck: whatever Check accepts is valid UTF-8 with no refused rune,
// and no more than max code points.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"Chikondi Banda", "a\u202Eb", "\xff", "Łukasz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if textrule.Check("f", s, 50) != nil {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 %q", s)
		}
		n := 0
		for _, r := range s {
			if textrule.Refused(r) {
				t.Fatalf("accepted %q with %U", s, r)
			}
			n++
		}
		if n == 0 || n > 50 {
			t.Fatalf("accepted %d code points", n)
		}
	})
}

// TestPrintableASCII checks CheckChars on every ASCII character, alone and
// among printable ones (where it takes its shortcut): refused exactly
// when the character is a control or Refused, and a refused character
// after printable ASCII is found.
func TestPrintableASCII(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		want := unicode.IsControl(r) || textrule.Refused(r)
		if (r >= 0x20 && r <= 0x7e) == want {
			t.Errorf("U+%04X: refused %v, printable ASCII %v", r, want, !want)
		}
		for _, v := range []string{string(r), "ref-" + string(r) + "-01"} {
			if err := textrule.CheckChars("f", v); (err != nil) != want {
				t.Errorf("CheckChars(%q) = %v, want refused %v", v, err, want)
			}
		}
	}
	for _, v := range []string{"order-42\u200b", "order-42\u00ad", "order-42\xff", "order-42\u0085"} {
		if textrule.CheckChars("f", v) == nil {
			t.Errorf("CheckChars(%q) accepted it", v)
		}
	}
}
