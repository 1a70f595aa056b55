// Package reconcile reads a payment rail's settlement file and matches its
// lines against the engine's payouts and collections. It is pure: it
// parses bytes it is given, compares values it is given, and keeps
// nothing.
//
// Parse reads a CSV file whose header names the columns; a Mapping says
// which header means the reference, the amount, the currency, the status,
// the time and, optionally, the file's number (a line may leave it empty;
// those that give it must agree). A file with any malformed
// line is refused whole, with the number of every such line.
//
// Match puts every line in exactly one of four groups (matched, amount
// differs, status differs, in the file only) and every terminal item in
// the file's window that no line names in the fifth (in tambala only). A
// line names the items whose references include its reference: one item
// (one to one) or several (a batch, whose amounts add up to the line's).
//
// Gaps finds the missing and repeated numbers of a rail's numbered files.
package reconcile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Mapping names the header of each column of a rail's settlement file.
// Names compare without regard to case or surrounding space. FileNumber
// is optional: "" when the rail does not number its files.
type Mapping struct {
	Reference  string
	Amount     string
	Currency   string
	Status     string
	Time       string
	FileNumber string
}

// DefaultMapping is the mapping of a rail with none configured.
func DefaultMapping() Mapping {
	return Mapping{Reference: "reference", Amount: "amount", Currency: "currency", Status: "status", Time: "time",
		FileNumber: "file_number"}
}

// Check refuses a mapping without one of its required columns, or naming
// one header twice.
func (m Mapping) Check() error {
	seen := map[string]string{}
	for _, c := range []struct{ what, name string }{{"reference", m.Reference}, {"amount", m.Amount},
		{"currency", m.Currency}, {"status", m.Status}, {"time", m.Time}, {"file_number", m.FileNumber}} {
		n := norm(c.name)
		if n == "" {
			if c.what == "file_number" {
				continue
			}
			return fmt.Errorf("the %s column is not named", c.what)
		}
		if len(c.name) > 100 {
			return fmt.Errorf("the %s column's name is longer than 100 bytes", c.what)
		}
		if other, ok := seen[n]; ok {
			return fmt.Errorf("the %s and %s columns have one name", other, c.what)
		}
		seen[n] = c.what
	}
	return nil
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Status is a line's outcome as the rail reports it.
type Status string

// The outcomes a line reports.
const (
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
)

// statuses are the words rails use, and the outcome each means.
var statuses = map[string]Status{
	"succeeded": Succeeded, "success": Succeeded, "successful": Succeeded, "settled": Succeeded, "paid": Succeeded,
	"completed": Succeeded, "complete": Succeeded,
	"failed": Failed, "failure": Failed, "rejected": Failed, "declined": Failed, "returned": Failed, "reversed": Failed,
}

// Line is one line of a settlement file. Number is its line number in
// the file (the header is line 1).
type Line struct {
	Number    int
	Reference string
	Amount    string // a non-negative decimal, as written
	Currency  string // upper case
	Status    Status
	Time      time.Time
}

// File is a parsed settlement file. Number is the file's number, 0 when
// the rail does not number its files.
type File struct {
	Number int
	Lines  []Line
}

// Limits of one file.
const (
	MaxLines    = 50_000
	maxField    = 200
	maxProblems = 100
)

// LineError is one malformed line of a file.
type LineError struct {
	Line   int
	Reason string
}

// MalformedError refuses a file: the header or some lines are malformed.
// Lines lists the first malformed lines, at most 100, in order.
type MalformedError struct {
	Header string // why the header is refused; "" when it is not
	Lines  []LineError
}

func (e *MalformedError) Error() string {
	if e.Header != "" {
		return "malformed header: " + e.Header
	}
	var b strings.Builder
	for i, l := range e.Lines {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "line %d: %s", l.Line, l.Reason)
	}
	return "malformed lines: " + b.String()
}

// timeLayouts are the times a line may carry.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

// Parse reads data with m. A time without a zone is UTC.
func Parse(data []byte, m Mapping) (File, error) {
	if err := m.Check(); err != nil {
		return File{}, &MalformedError{Header: err.Error()}
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return File{}, &MalformedError{Header: "the file is empty"}
		}
		return File{}, &MalformedError{Header: err.Error()}
	}
	col := map[string]int{}
	for i, h := range header {
		col[norm(h)] = i
	}
	idx := func(name string) int {
		if i, ok := col[norm(name)]; ok && norm(name) != "" {
			return i
		}
		return -1
	}
	ref, amt, cur, st, tm, num := idx(m.Reference), idx(m.Amount), idx(m.Currency), idx(m.Status), idx(m.Time), idx(m.FileNumber)
	for _, c := range []struct {
		i    int
		name string
	}{{ref, m.Reference}, {amt, m.Amount}, {cur, m.Currency}, {st, m.Status}, {tm, m.Time}} {
		if c.i < 0 {
			return File{}, &MalformedError{Header: fmt.Sprintf("no column %q", strings.TrimSpace(c.name))}
		}
	}
	var f File
	bad := &MalformedError{}
	refuse := func(line int, format string, args ...any) {
		if len(bad.Lines) < maxProblems {
			bad.Lines = append(bad.Lines, LineError{Line: line, Reason: fmt.Sprintf(format, args...)})
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				refuse(pe.StartLine, "%v", pe.Err)
				if pe.Err == csv.ErrQuote || pe.Err == csv.ErrBareQuote {
					return File{}, bad // the reader cannot go on
				}
				continue
			}
			return File{}, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(f.Lines)+len(bad.Lines) >= MaxLines {
			return File{}, &MalformedError{Header: fmt.Sprintf("more than %d lines", MaxLines)}
		}
		if len(rec) != len(header) {
			refuse(line, "%d fields, the header has %d", len(rec), len(header))
			continue
		}
		l, why := parseLine(rec, ref, amt, cur, st, tm)
		if why != "" {
			refuse(line, "%s", why)
			continue
		}
		l.Number = line
		if num >= 0 && strings.TrimSpace(rec[num]) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(rec[num]))
			switch {
			case err != nil || n <= 0:
				refuse(line, "file number %q is not a positive integer", clip(rec[num]))
				continue
			case f.Number != 0 && n != f.Number:
				refuse(line, "file number %d, an earlier line says %d", n, f.Number)
				continue
			}
			f.Number = n
		}
		f.Lines = append(f.Lines, l)
	}
	if len(bad.Lines) > 0 {
		return File{}, bad
	}
	if len(f.Lines) == 0 {
		return File{}, &MalformedError{Header: "the file has no lines"}
	}
	return f, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// parseLine reads one record; why says what is wrong with it.
func parseLine(rec []string, ref, amt, cur, st, tm int) (Line, string) {
	for _, v := range rec {
		if len(v) > maxField {
			return Line{}, fmt.Sprintf("a field is longer than %d bytes", maxField)
		}
		for _, r := range v {
			if r < 0x20 || r == 0x7f {
				return Line{}, "a field holds a control character"
			}
		}
	}
	l := Line{Reference: strings.TrimSpace(rec[ref]), Amount: strings.TrimSpace(rec[amt]),
		Currency: strings.ToUpper(strings.TrimSpace(rec[cur]))}
	if l.Reference == "" {
		return Line{}, "no reference"
	}
	d, _, err := apd.NewFromString(l.Amount)
	if err != nil || d.Form != apd.Finite || d.Negative || strings.ContainsAny(l.Amount, "eE") {
		return Line{}, fmt.Sprintf("amount %q is not a non-negative decimal", clip(l.Amount))
	}
	if len(l.Currency) < 3 || len(l.Currency) > 10 {
		return Line{}, fmt.Sprintf("currency %q is not a currency code", clip(l.Currency))
	}
	s, ok := statuses[norm(rec[st])]
	if !ok {
		return Line{}, fmt.Sprintf("status %q is neither succeeded nor failed", clip(rec[st]))
	}
	l.Status = s
	raw := strings.TrimSpace(rec[tm])
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, raw); err == nil {
			l.Time = t.UTC()
			break
		}
	}
	if l.Time.IsZero() {
		return Line{}, fmt.Sprintf("time %q is not a date or an RFC 3339 time", clip(raw))
	}
	return l, ""
}

// ItemKind is what an item is.
type ItemKind string

// The kinds of items.
const (
	Payout     ItemKind = "payout"
	Collection ItemKind = "collection"
)

// ItemStatus is an item's state in tambala.
type ItemStatus string

// An item is in flight, succeeded or failed.
const (
	InFlight      ItemStatus = "in_flight"
	ItemSucceeded ItemStatus = "succeeded"
	ItemFailed    ItemStatus = "failed"
)

// Item is a payout or a collection as tambala knows it. References are
// every reference a line may name it by (its id, the provider's
// reference); At is when it became terminal (zero in flight).
type Item struct {
	Kind       ItemKind
	ID         string
	References []string
	Amount     string
	Currency   string
	Status     ItemStatus
	At         time.Time
}

// Group is one of the five groups of a reconciliation.
type Group string

// The five groups.
const (
	Matched       Group = "matched"
	AmountDiffers Group = "amount_differs"
	StatusDiffers Group = "status_differs"
	FileOnly      Group = "file_only"
	TambalaOnly   Group = "tambala_only"
)

// Groups lists the five groups in the order they are shown.
var Groups = []Group{Matched, AmountDiffers, StatusDiffers, FileOnly, TambalaOnly}

// LineMatch is a line with its group and the ids of the items it names
// (none in FileOnly).
type LineMatch struct {
	Line  Line
	Group Group
	Items []string
}

// Result is a reconciliation. Lines holds every line once, in the file's
// order; Missing the terminal items of the window no line names, by id.
type Result struct {
	Lines   []LineMatch
	Missing []string
	// From and To bound the window: the earliest and latest line times.
	From, To time.Time
}

// Match matches lines against items. A line names the items one of
// whose references equals its reference. A line naming one or several
// items, whose currency is theirs and whose amount is their sum, is
// matched when its status agrees with every one of them (an item in
// flight agrees with both outcomes: the line settles it), status differs
// otherwise; amount differs when the currency or the sum differs. An item
// is named by at most one line: a later line naming an item already
// named is in the file only.
func Match(lines []Line, items []Item) Result {
	byRef := map[string][]int{}
	for i, it := range items {
		seen := map[string]bool{}
		for _, r := range it.References {
			if r == "" || seen[r] {
				continue
			}
			seen[r] = true
			byRef[r] = append(byRef[r], i)
		}
	}
	var res Result
	named := make([]bool, len(items))
	for n, l := range lines {
		if n == 0 || l.Time.Before(res.From) {
			res.From = l.Time
		}
		if n == 0 || l.Time.After(res.To) {
			res.To = l.Time
		}
		m := LineMatch{Line: l, Group: FileOnly}
		idx := byRef[l.Reference]
		free := len(idx) > 0
		for _, i := range idx {
			free = free && !named[i]
		}
		if !free {
			res.Lines = append(res.Lines, m)
			continue
		}
		sum := apd.New(0, 0)
		sameCurrency := true
		agree := true
		for _, i := range idx {
			named[i] = true
			it := items[i]
			m.Items = append(m.Items, it.ID)
			d, _, err := apd.NewFromString(it.Amount)
			if err != nil {
				sameCurrency = false
				continue
			}
			if _, err := apd.BaseContext.WithPrecision(60).Add(sum, sum, d); err != nil {
				sameCurrency = false
			}
			sameCurrency = sameCurrency && strings.EqualFold(it.Currency, l.Currency)
			switch it.Status {
			case ItemSucceeded:
				agree = agree && l.Status == Succeeded
			case ItemFailed:
				agree = agree && l.Status == Failed
			}
		}
		la, _, _ := apd.NewFromString(l.Amount)
		switch {
		case !sameCurrency || la.Cmp(sum) != 0:
			m.Group = AmountDiffers
		case !agree:
			m.Group = StatusDiffers
		default:
			m.Group = Matched
		}
		res.Lines = append(res.Lines, m)
	}
	for i, it := range items {
		if named[i] || it.Status == InFlight || len(lines) == 0 {
			continue
		}
		if !it.At.Before(res.From) && !it.At.After(res.To) {
			res.Missing = append(res.Missing, it.ID)
		}
	}
	slices.Sort(res.Missing)
	return res
}

// maxMissing bounds the missing numbers Gaps lists.
const maxMissing = 1000

// Gaps returns the numbers missing between the smallest and the largest
// of numbers (at most 1,000 of them), and those present more than once,
// each ascending. Zero (a file without a number) is ignored. When the
// largest is more than 10,000 above the smallest, missing is just [-1]:
// too many to list.
func Gaps(numbers []int) (missing, repeated []int) {
	count := map[int]int{}
	lo, hi := 0, 0
	for _, n := range numbers {
		if n <= 0 {
			continue
		}
		if len(count) == 0 || n < lo {
			lo = n
		}
		if len(count) == 0 || n > hi {
			hi = n
		}
		count[n]++
	}
	if len(count) == 0 {
		return nil, nil
	}
	if hi-lo > 10*maxMissing { // a number far off: list the repeats only
		for n, c := range count {
			if c > 1 {
				repeated = append(repeated, n)
			}
		}
		slices.Sort(repeated)
		return []int{-1}, repeated
	}
	for n := lo; n <= hi; n++ {
		switch c := count[n]; {
		case c == 0 && len(missing) < maxMissing:
			missing = append(missing, n)
		case c > 1:
			repeated = append(repeated, n)
		}
	}
	return missing, repeated
}
