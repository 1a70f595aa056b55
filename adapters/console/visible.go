package console

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tambalapay/tambala/internal/textrule"
)

// Segment is a piece of text as the console shows it: the text itself; one
// character that shows nothing (or shows as something it is not) replaced
// by its marker ⟨U+XXXX⟩ (Marker); or one character outside printable
// ASCII shown as itself and flagged with its code point (Code).
type Segment struct {
	Text   string
	Marker bool
	// Code is "U+XXXX" for a flagged character (Typed only), "" otherwise.
	Code string
}

// Visible splits s into segments: each rune textrule refuses (a control
// character, a format character such as U+200B, U+202E or U+FEFF, or any
// other default-ignorable code point such as U+034F or U+3164) becomes a
// marker segment ⟨U+XXXX⟩, the runs between them text segments. The
// template escapes each segment; nothing of s is dropped or reordered.
func Visible(s string) []Segment {
	return segments(s, func(r rune) (Segment, bool) {
		if textrule.Refused(r) {
			return Segment{Text: Marker(r), Marker: true}, true
		}
		return Segment{}, false
	})
}

// segments splits s into the runs of runes mark leaves alone and the
// segments it makes of the others, in order.
func segments(s string, mark func(rune) (Segment, bool)) []Segment {
	var out []Segment
	var run strings.Builder
	for _, r := range s {
		seg, marked := mark(r)
		if !marked {
			run.WriteRune(r)
			continue
		}
		if run.Len() > 0 {
			out = append(out, Segment{Text: run.String()})
			run.Reset()
		}
		out = append(out, seg)
	}
	if run.Len() > 0 {
		out = append(out, Segment{Text: run.String()})
	}
	return out
}

// Typed splits s as the desk reads text it types into a bank's system by
// hand (a beneficiary, funding instructions, references), so that what
// the clerk types is what was sent: printable ASCII (U+0020 to U+007E) is
// shown as it is; every other rune is marked.
//
//   - A rune that shows nothing or shows as something it is not becomes
//     its marker ⟨U+XXXX⟩ in its place: what Visible marks, every space
//     but U+0020 (U+00A0 no-break space, U+2009 thin space, U+3000 ...,
//     which look like a space and are not one), and every combining mark
//     (categories Mn, Mc, Me: U+0301 makes "é" of an "e", U+0338 strikes
//     through the letter before it).
//   - Any other rune (a letter, digit, punctuation or symbol outside
//     ASCII: "Ł", Cyrillic "а" that looks like Latin "a", fullwidth "Ａ",
//     "’") is shown as itself, flagged with its code point (Code), so a
//     lookalike is never typed as the letter it resembles.
func Typed(s string) []Segment {
	return segments(s, func(r rune) (Segment, bool) {
		switch {
		case r >= 0x20 && r <= 0x7E:
			return Segment{}, false
		case textrule.Refused(r) || unicode.IsSpace(r) || unicode.Is(unicode.M, r):
			return Segment{Text: Marker(r), Marker: true}, true
		default:
			return Segment{Text: string(r), Code: fmt.Sprintf("U+%04X", r)}, true
		}
	})
}

// Flagged reports whether segs (of Typed) hold any rune outside printable
// ASCII: the desk's page then says so next to the field.
func Flagged(segs []Segment) bool {
	for _, s := range segs {
		if s.Marker || s.Code != "" {
			return true
		}
	}
	return false
}

// Marker is the visible marker of r: ⟨U+200B⟩.
func Marker(r rune) string { return fmt.Sprintf("⟨U+%04X⟩", r) }
