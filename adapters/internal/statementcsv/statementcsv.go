// Package statementcsv writes an organization's statement as CSV (RFC
// 4180): a header row of versioned column names, then one row per
// statement line, read page by page so that a download of any length runs
// in constant memory. The portal, the console and the admin API share it.
package statementcsv

import (
	"bufio"
	"context"
	"io"
	"strings"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
)

// Version names the column set below. Columns are only ever added under a
// new version; a version's names and order never change.
const Version = "v1"

// Columns are the v1 column names, in order.
var Columns = []string{
	"entry_id", "booked_at", "kind", "resource_id", "asset",
	"available_change", "held_change", "available_after", "held_after",
}

// ContentType is the media type of a download.
const ContentType = "text/csv; charset=utf-8"

// Neutral returns a text cell safe to open in a spreadsheet: one that
// begins with =, +, -, @, a tab or a carriage return gets a leading
// apostrophe, so it is not read as a formula. Amounts are never passed
// through it: a negative amount stays a number.
func Neutral(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// Amount is an amount cell: the exact decimal at the asset's places, a
// leading minus when negative, never neutralised.
func Amount(a money.Amount) string { return a.String() }

// Reader reads one page of a statement (Client.Statement or
// Operator.BackOffice().OrgStatement with the request bound).
type Reader func(ctx context.Context, page tambala.PageRequest) (tambala.Statement, error)

// Write writes the header and every line read through read, a page of
// tambala.MaxPageSize lines at a time, flushing after each page. It holds
// one page at a time. An error after the first page leaves a partial body:
// the caller has already sent its status.
func Write(ctx context.Context, w io.Writer, read Reader) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	buf := appendRecord(nil, Columns)
	row := make([]string, len(Columns))
	var at []byte
	page := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for {
		st, err := read(ctx, page)
		if err != nil {
			return err
		}
		code := string(st.Asset.Code)
		for _, l := range st.Lines.Items {
			at = l.At.UTC().AppendFormat(at[:0], time.RFC3339Nano)
			row[0], row[1], row[2], row[3], row[4] = Neutral(l.EntryID), string(at), Neutral(string(l.Kind)), Neutral(l.ResourceID), Neutral(code)
			row[5], row[6], row[7], row[8] = Amount(l.Available), Amount(l.Held), Amount(l.AvailableAfter), Amount(l.HeldAfter)
			buf = appendRecord(buf, row)
			if len(buf) >= 16<<10 {
				if _, err := bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		if err := bw.Flush(); err != nil {
			return err
		}
		if f, ok := w.(interface{ Flush() }); ok {
			f.Flush()
		}
		if !st.Lines.HasMore {
			return nil
		}
		page.BeforeID = st.Lines.NextBeforeID
	}
}

// appendRecord appends one RFC 4180 record: fields separated by commas,
// a field holding a comma, a double quote, a carriage return or a line
// feed (or starting with a space) enclosed in double quotes with each
// double quote doubled, and the record ended by CRLF. Every byte of a
// field is kept (encoding/csv's CRLF mode drops a lone carriage return).
func appendRecord(b []byte, fields []string) []byte {
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		if f == "" || !(strings.ContainsAny(f, ",\"\r\n") || f[0] == ' ') {
			b = append(b, f...)
			continue
		}
		b = append(b, '"')
		for j := 0; j < len(f); j++ {
			if f[j] == '"' {
				b = append(b, '"')
			}
			b = append(b, f[j])
		}
		b = append(b, '"')
	}
	return append(b, '\r', '\n')
}

// ParsePeriod reads a statement period from its two texts, each empty (no
// bound), a date (2006-01-02, a day in UTC) or an RFC 3339 time. A date as
// from starts at its midnight; a date as to includes that whole day. The
// error is the field's message.
func ParsePeriod(from, to string) (f, t time.Time, field, msg string) {
	var ok bool
	if f, ok = parseBound(from, false); !ok {
		return f, t, "from", "Give the start as a date (2026-03-01) or an RFC 3339 time."
	}
	if t, ok = parseBound(to, true); !ok {
		return f, t, "to", "Give the end as a date (2026-03-31) or an RFC 3339 time."
	}
	if !f.IsZero() && !t.IsZero() && t.Before(f) {
		return f, t, "to", "The end must not be before the start."
	}
	return f, t, "", ""
}

func parseBound(s string, end bool) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err == nil
}

// FileName is a download's file name: statement-<org>-<asset>-<version>.csv.
func FileName(org, asset string) string {
	return "statement-" + safeName(org) + "-" + safeName(asset) + "-" + Version + ".csv"
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}
