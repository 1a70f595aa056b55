package console

import (
	"fmt"
	"strings"

	"github.com/tambalapay/tambala/internal/textrule"
)

// Segment is a piece of text as the console shows it: the text itself, or
// one control or invisible format character made visible as a marker.
type Segment struct {
	Text   string
	Marker bool
}

// Visible splits s into segments: each rune that is a control character
// (Cc) or a Unicode format character (Cf: U+200B, U+202E, U+FEFF ...),
// the characters textrule refuses, becomes a marker segment ⟨U+XXXX⟩, the runs between them text
// segments. The template escapes each segment; nothing of s is dropped
// or reordered.
func Visible(s string) []Segment {
	var out []Segment
	var run strings.Builder
	for _, r := range s {
		if textrule.Refused(r) {
			if run.Len() > 0 {
				out = append(out, Segment{Text: run.String()})
				run.Reset()
			}
			out = append(out, Segment{Text: Marker(r), Marker: true})
			continue
		}
		run.WriteRune(r)
	}
	if run.Len() > 0 {
		out = append(out, Segment{Text: run.String()})
	}
	return out
}

// Marker is the visible marker of r: ⟨U+200B⟩.
func Marker(r rune) string { return fmt.Sprintf("⟨U+%04X⟩", r) }
