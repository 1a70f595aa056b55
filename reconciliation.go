package tambala

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
	"github.com/tambalapay/tambala/store"
)

// The buckets of reconciliation.
var (
	bucketSettlements       = []byte("settlements")         // import id -> record
	bucketSettlementsByHash = []byte("settlements.by_hash") // sha256 hex -> import id
	bucketSettlementsByRail = []byte("settlements.by_rail") // rail NUL import id -> file number
)

// settingMappingPrefix starts the settings key of a rail's mapping.
const settingMappingPrefix = "settlement.mapping."

// MaxSettlementFile bounds a settlement file, in bytes.
const MaxSettlementFile = 4 << 20

// BackOffice is the face of the operator's back office, where the books
// are closed: an organization's statement (OrgStatement), the console's
// first page of what waits and what went wrong (Home), and the
// reconciliation of the rails' settlement files with the engine's
// payouts and collections: the column mapping of each rail, the import
// of a file, its five groups, resolving in bulk the payouts in flight the
// file settles, and marking lines explained. Changes need the operations
// role and are audited; reads need any staff role. Operator.BackOffice
// returns it.
type BackOffice struct{ o *Operator }

// BackOffice returns the back-office face of o, for its caller.
func (o *Operator) BackOffice() *BackOffice { return &BackOffice{o: o} }

// SettlementFile is a settlement file to import: the rail it is from
// (bank, momo or wallet), a name for people (at most 200 bytes) and its
// content, CSV text.
type SettlementFile struct {
	Rail    payouts.Rail
	Name    string
	Content string
}

// SettlementImport is an imported settlement file. Repeated is set on
// the answer of an import of a file already imported (same SHA-256): the
// first import, unchanged.
type SettlementImport struct {
	ID         string
	Rail       payouts.Rail
	Name       string
	SHA256     string
	FileNumber int // 0 when the rail does not number its files
	ImportedAt time.Time
	By         string
	Lines      int
	Repeated   bool
}

// SettlementLine is one line of an import with its group: the items it
// names, and the staff's explanation when one was given.
type SettlementLine struct {
	reconcile.LineMatch
	// InFlight are those of its items that are payouts in flight: in the
	// matched group, the payouts ResolveMatched may resolve.
	InFlight  []string
	Explained *SettlementExplanation
}

// SettlementExplanation is why the staff consider a line explained.
type SettlementExplanation struct {
	Reason string
	By     string
	At     time.Time
}

// SettlementReport is an import matched against the engine's state now:
// every line with its group, the terminal payouts and collections of the
// rail in the file's window no line names, and the gaps in the rail's
// file numbers.
type SettlementReport struct {
	Import  SettlementImport
	Lines   []SettlementLine
	Missing []reconcile.Item
	From    time.Time
	To      time.Time
	// MissingNumbers and RepeatedNumbers are the rail's file numbers
	// missing between its lowest and highest, and those imported twice.
	MissingNumbers, RepeatedNumbers []int
}

// BulkResolution resolves payouts in flight from an import's matched
// group: Payouts names each one the staff confirmed (at most 500), Reason
// (optional, at most 250 bytes) is kept with every resolution, followed by
// the file's name and line, FailureCode is the code of those the
// file says failed (declined when unset).
type BulkResolution struct {
	Payouts     []string
	Reason      string
	FailureCode payouts.FailureCode
}

// BulkResolved says what became of each payout of a BulkResolution:
// resolved, waiting for a second staff member's approval, or refused (by
// id, the error).
type BulkResolved struct {
	Resolved []string
	Pending  []Approval
	Refused  map[string]error
}

// maxBulk bounds one BulkResolution.
const maxBulk = 500

// checkRail refuses a rail the engine does not pay on.
func checkRail(rail payouts.Rail) error {
	switch rail {
	case payouts.Bank, payouts.Momo, payouts.Wallet:
		return nil
	}
	return errcode.Newf(errcode.ValidationError, "rail must be bank, momo or wallet.")
}

// SetMapping sets the column mapping of rail's settlement files.
func (r *BackOffice) SetMapping(ctx context.Context, rail payouts.Rail, m reconcile.Mapping) (err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.SetMapping")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, accounts.StaffOperations); err != nil {
		return err
	}
	if err := checkRail(rail); err != nil {
		return err
	}
	if err := m.Check(); err != nil {
		return errcode.Newf(errcode.ValidationError, "%s.", err)
	}
	for _, n := range []string{m.Reference, m.Amount, m.Currency, m.Status, m.Time, m.FileNumber} {
		if err := textrule.CheckChars("column name", n); err != nil {
			return err
		}
	}
	return r.o.e.store.Update(ctx, func(tx store.Tx) error {
		before, err := readMapping(tx, rail)
		if err != nil {
			return err
		}
		if err := storage.PutJSON(tx, bucketSettings, settingMappingPrefix+string(rail), codec.SettlementMappingRecord(m)); err != nil {
			return err
		}
		return r.o.e.auditAs(ctx, tx, "", AuditSettlementMappingSet, string(rail), mappingText(before)+" -> "+mappingText(m))
	})
}

func mappingText(m reconcile.Mapping) string {
	return fmt.Sprintf("reference %q, amount %q, currency %q, status %q, time %q, file number %q",
		m.Reference, m.Amount, m.Currency, m.Status, m.Time, m.FileNumber)
}

// Mapping returns the column mapping of rail's settlement files: the one
// set, or reconcile.DefaultMapping.
func (r *BackOffice) Mapping(ctx context.Context, rail payouts.Rail) (_ reconcile.Mapping, err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.Mapping")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, ""); err != nil {
		return reconcile.Mapping{}, err
	}
	if err := checkRail(rail); err != nil {
		return reconcile.Mapping{}, err
	}
	var m reconcile.Mapping
	err = r.o.e.store.View(ctx, func(tx store.Tx) error {
		m, err = readMapping(tx, rail)
		return err
	})
	return m, err
}

func readMapping(tx store.Tx, rail payouts.Rail) (reconcile.Mapping, error) {
	var rec codec.SettlementMappingRecord
	err := storage.GetJSON(tx, bucketSettings, settingMappingPrefix+string(rail), &rec, errNotFound)
	if errors.Is(err, errNotFound) {
		return reconcile.DefaultMapping(), nil
	}
	return reconcile.Mapping(rec), err
}

// Import imports a settlement file: parsed with its rail's mapping, kept
// with every line in one transaction, and audited. A file with a
// malformed line is refused whole (validation_error naming every
// malformed line number) and nothing is kept. A file already imported
// (same SHA-256) changes nothing: the answer is the first import, with
// Repeated set.
func (r *BackOffice) Import(ctx context.Context, f SettlementFile) (_ SettlementImport, err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.Import")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, accounts.StaffOperations); err != nil {
		return SettlementImport{}, err
	}
	if err := checkRail(f.Rail); err != nil {
		return SettlementImport{}, err
	}
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" || len(f.Name) > 200 {
		return SettlementImport{}, errcode.Newf(errcode.ValidationError, "name must be 1 to 200 characters.")
	}
	if err := textrule.CheckChars("name", f.Name); err != nil {
		return SettlementImport{}, err
	}
	if len(f.Content) > MaxSettlementFile {
		return SettlementImport{}, errcode.Newf(errcode.ValidationError, "the file must be at most %d bytes.", MaxSettlementFile)
	}
	sum := sha256.Sum256([]byte(f.Content))
	digest := hex.EncodeToString(sum[:])
	e := r.o.e
	by := actorName(actorOr(ctx, automationActor))
	var out SettlementImport
	err = e.store.Update(ctx, func(tx store.Tx) error {
		id, err := tx.Get(bucketSettlementsByHash, []byte(digest))
		if err == nil {
			rec, err := loadSettlement(tx, string(id))
			out = settlementImport(rec)
			out.Repeated = true
			return err
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		m, err := readMapping(tx, f.Rail)
		if err != nil {
			return err
		}
		file, err := reconcile.Parse([]byte(f.Content), m)
		if err != nil {
			return errcode.Newf(errcode.ValidationError, "The file is refused, nothing was imported: %s.", err)
		}
		rec := codec.SettlementImportRecord{ID: e.newID(), Rail: string(f.Rail), Name: f.Name, SHA256: digest,
			FileNumber: file.Number, ImportedAt: e.nowUTC(), By: by, Mapping: codec.SettlementMappingRecord(m)}
		for _, l := range file.Lines {
			rec.Lines = append(rec.Lines, codec.SettlementLineRecord{Number: l.Number, Reference: l.Reference, Amount: l.Amount,
				Currency: l.Currency, Status: string(l.Status), Time: l.Time})
		}
		if err := storage.PutJSON(tx, bucketSettlements, rec.ID, rec); err != nil {
			return err
		}
		if err := tx.Put(bucketSettlementsByHash, []byte(digest), []byte(rec.ID)); err != nil {
			return err
		}
		if err := tx.Put(bucketSettlementsByRail, storage.IndexKey(rec.Rail, rec.ID), fmt.Append(nil, rec.FileNumber)); err != nil {
			return err
		}
		out = settlementImport(rec)
		num := ""
		if rec.FileNumber != 0 {
			num = fmt.Sprintf(" number %d,", rec.FileNumber)
		}
		return e.auditAs(ctx, tx, "", AuditSettlementImported, rec.ID, fmt.Sprintf("%s file %q,%s %d lines, sha256 %s",
			rec.Rail, rec.Name, num, len(rec.Lines), digest))
	})
	return out, err
}

// actorName is who an actor is, for a record.
func actorName(a AuditActor) string {
	if a.Email != "" {
		return a.Email
	}
	return string(a.Kind)
}

func loadSettlement(tx store.Tx, id string) (codec.SettlementImportRecord, error) {
	var rec codec.SettlementImportRecord
	err := storage.GetJSON(tx, bucketSettlements, id, &rec, errNotFound)
	return rec, err
}

func settlementImport(rec codec.SettlementImportRecord) SettlementImport {
	return SettlementImport{ID: rec.ID, Rail: payouts.Rail(rec.Rail), Name: rec.Name, SHA256: rec.SHA256, FileNumber: rec.FileNumber,
		ImportedAt: rec.ImportedAt, By: rec.By, Lines: len(rec.Lines)}
}

// Imports lists rail's imports, newest first, with the gaps in its file
// numbers.
func (r *BackOffice) Imports(ctx context.Context, rail payouts.Rail) (_ []SettlementImport, missing, repeated []int, err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.Imports")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, ""); err != nil {
		return nil, nil, nil, err
	}
	if err := checkRail(rail); err != nil {
		return nil, nil, nil, err
	}
	var out []SettlementImport
	err = r.o.e.store.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		var numbers []int
		err := tx.Scan(bucketSettlementsByRail, store.ScanOptions{Prefix: storage.IndexKey(string(rail), ""), Reverse: true},
			func(k, _ []byte) (bool, error) {
				rec, err := loadSettlement(tx, string(k[len(rail)+1:]))
				if err != nil {
					return false, err
				}
				out = append(out, settlementImport(rec))
				numbers = append(numbers, rec.FileNumber)
				return true, nil
			})
		missing, repeated = reconcile.Gaps(numbers)
		return err
	})
	return out, missing, repeated, err
}

// Report matches import id against the payouts and collections of its
// rail as they are now.
func (r *BackOffice) Report(ctx context.Context, id string) (_ SettlementReport, err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.Report")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, ""); err != nil {
		return SettlementReport{}, err
	}
	var out SettlementReport
	err = r.o.e.store.View(ctx, func(tx store.Tx) error {
		out, err = settlementReport(tx, id)
		return err
	})
	return out, err
}

// settlementReport is Report in tx.
func settlementReport(tx store.Tx, id string) (SettlementReport, error) {
	rec, err := loadSettlement(tx, id)
	if err != nil {
		return SettlementReport{}, err
	}
	items, err := railItems(tx, payouts.Rail(rec.Rail))
	if err != nil {
		return SettlementReport{}, err
	}
	lines := make([]reconcile.Line, len(rec.Lines))
	for i, l := range rec.Lines {
		lines[i] = reconcile.Line{Number: l.Number, Reference: l.Reference, Amount: l.Amount, Currency: l.Currency,
			Status: reconcile.Status(l.Status), Time: l.Time}
	}
	res := reconcile.Match(lines, items)
	out := SettlementReport{Import: settlementImport(rec), From: res.From, To: res.To}
	explained := map[int]*SettlementExplanation{}
	for _, x := range rec.Explained {
		explained[x.Line] = &SettlementExplanation{Reason: x.Reason, By: x.By, At: x.At}
	}
	byID := map[string]reconcile.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, m := range res.Lines {
		l := SettlementLine{LineMatch: m, Explained: explained[m.Line.Number]}
		for _, id := range m.Items {
			if it := byID[id]; it.Kind == reconcile.Payout && it.Status == reconcile.InFlight {
				l.InFlight = append(l.InFlight, id)
			}
		}
		out.Lines = append(out.Lines, l)
	}
	for _, id := range res.Missing {
		out.Missing = append(out.Missing, byID[id])
	}
	var numbers []int
	err = tx.Scan(bucketSettlementsByRail, store.ScanOptions{Prefix: storage.IndexKey(rec.Rail, "")}, func(_, v []byte) (bool, error) {
		var n int
		_, err := fmt.Sscan(string(v), &n)
		numbers = append(numbers, n)
		return true, err
	})
	out.MissingNumbers, out.RepeatedNumbers = reconcile.Gaps(numbers)
	return out, err
}

// railItems reads every payout and /v1 collection of rail as items to
// match: a payout by its id (the reference the engine gives the
// provider) and the provider's reference of its resolution, a collection
// by its id and its RTP reference.
func railItems(tx store.Tx, rail payouts.Rail) ([]reconcile.Item, error) {
	var items []reconcile.Item
	err := storage.ScanPayouts(tx, func(rec payoutRecord) (bool, error) {
		if rec.Rail != rail {
			return true, nil
		}
		it := reconcile.Item{Kind: reconcile.Payout, ID: rec.ID, References: []string{rec.ID}, Amount: rec.Amount,
			Currency: "MWK", Status: reconcile.InFlight}
		if rec.V2 != nil {
			it.Amount, it.Currency = rec.V2.Amount, rec.V2.Asset
		}
		if rec.Resolution != nil && rec.Resolution.Reference != "" {
			it.References = append(it.References, rec.Resolution.Reference)
		}
		if rec.TerminalAt != nil {
			it.At = *rec.TerminalAt
			it.Status = reconcile.ItemFailed
			if rec.Status == payouts.Succeeded {
				it.Status = reconcile.ItemSucceeded
			}
		}
		items = append(items, it)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	err = tx.Scan(bucketCollections, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		var rec collectionRecord
		if err := storage.Decode(v, &rec); err != nil {
			return false, err
		}
		if payouts.Rail(rec.Rail) != rail {
			return true, nil
		}
		c, err := fromCollectionRecord(rec)
		if err != nil {
			return false, err
		}
		it := reconcile.Item{Kind: reconcile.Collection, ID: c.ID, References: []string{c.ID, c.RTPReferenceNumber},
			Amount: rec.Amount, Currency: "MWK", Status: reconcile.ItemSucceeded, At: c.CreatedAt}
		if c.Status != "settled" {
			it.Status = reconcile.ItemFailed
		}
		items = append(items, it)
		return true, nil
	})
	return items, err
}

// ResolveMatched resolves the payouts b names, each in flight and in the
// matched group of import id, with the outcome its line reports, through
// the same use case as Operator.ResolvePayout: one transaction each, a
// failed one above the threshold waiting for a second staff member's
// approval (in Pending). Nothing is resolved that b does not name. A
// payout that is not in flight in the matched group is refused (in
// Refused), the others go on. One audit entry records the bulk, after
// the resolutions' own.
func (r *BackOffice) ResolveMatched(ctx context.Context, id string, b BulkResolution) (_ BulkResolved, err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.ResolveMatched")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, accounts.StaffOperations); err != nil {
		return BulkResolved{}, err
	}
	if len(b.Payouts) == 0 || len(b.Payouts) > maxBulk {
		return BulkResolved{}, errcode.Newf(errcode.ValidationError, "name 1 to %d payouts to resolve.", maxBulk)
	}
	if b.FailureCode == "" {
		b.FailureCode = payouts.Declined
	}
	b.Reason = strings.TrimSpace(b.Reason)
	if len(b.Reason) > 250 { // with the file's name and line, within a resolution's 500
		return BulkResolved{}, errcode.Newf(errcode.ValidationError, "reason must be at most 250 characters.")
	}
	e := r.o.e
	var rep SettlementReport
	if err := e.store.View(ctx, func(tx store.Tx) error {
		rep, err = settlementReport(tx, id)
		return err
	}); err != nil {
		return BulkResolved{}, err
	}
	// The line of each payout in flight of the matched group.
	lineOf := map[string]reconcile.Line{}
	for _, l := range rep.Lines {
		if l.Group != reconcile.Matched {
			continue
		}
		for _, p := range l.Items {
			lineOf[p] = l.Line
		}
	}
	out := BulkResolved{Refused: map[string]error{}}
	seen := map[string]bool{}
	for _, p := range b.Payouts {
		if seen[p] {
			continue
		}
		seen[p] = true
		l, ok := lineOf[p]
		if !ok {
			out.Refused[p] = errcode.Newf(errcode.Conflict, "%s is not in the matched group of this file.", p)
			continue
		}
		res := Resolution{Outcome: payouts.Succeeded, Reason: fmt.Sprintf("%s (settlement file %q line %d)", b.Reason, rep.Import.Name, l.Number)}
		if b.Reason == "" {
			res.Reason = fmt.Sprintf("settled per settlement file %q line %d", rep.Import.Name, l.Number)
		}
		if l.Reference != p && len(l.Reference) <= maxResolutionReference {
			res.Reference = l.Reference
		}
		if l.Status == reconcile.Failed {
			res.Outcome, res.FailureCode = payouts.Failed, b.FailureCode
		}
		_, err := e.resolvePayout(ctx, p, res)
		var pending *ApprovalPendingError
		switch {
		case err == nil:
			out.Resolved = append(out.Resolved, p)
		case errors.As(err, &pending):
			out.Pending = append(out.Pending, pending.Approval)
		default:
			out.Refused[p] = err
		}
	}
	slices.Sort(out.Resolved)
	if len(out.Resolved)+len(out.Pending) == 0 {
		return out, nil
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		waiting := make([]string, len(out.Pending))
		for i, a := range out.Pending {
			waiting[i] = a.ID
		}
		return e.auditAs(ctx, tx, "", AuditSettlementResolved, id, fmt.Sprintf("from %q: resolved %s; waiting for approval %s",
			rep.Import.Name, orNone(strings.Join(out.Resolved, ", ")), orNone(strings.Join(waiting, ", "))))
	})
	return out, err
}

// Explain marks line (its line number in the file) of import id
// explained, with reason (1 to 500 characters); a line explained again
// keeps the latest reason.
func (r *BackOffice) Explain(ctx context.Context, id string, line int, reason string) (err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.Explain")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, accounts.StaffOperations); err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 500 {
		return errcode.Newf(errcode.ValidationError, "reason must be 1 to 500 characters.")
	}
	if err := textrule.CheckChars("reason", reason); err != nil {
		return err
	}
	e := r.o.e
	by := actorName(actorOr(ctx, automationActor))
	return e.store.Update(ctx, func(tx store.Tx) error {
		rec, err := loadSettlement(tx, id)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rec.Lines, func(l codec.SettlementLineRecord) bool { return l.Number == line }) {
			return errcode.Newf(errcode.NotFound, "The file has no line %d.", line)
		}
		x := codec.SettlementExplanationRecord{Line: line, Reason: reason, By: by, At: e.nowUTC()}
		rec.Explained = slices.DeleteFunc(rec.Explained, func(o codec.SettlementExplanationRecord) bool { return o.Line == line })
		rec.Explained = append(rec.Explained, x)
		if err := storage.PutJSON(tx, bucketSettlements, rec.ID, rec); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, "", AuditSettlementExplained, rec.ID, fmt.Sprintf("line %d of %q: %q", line, rec.Name, reason))
	})
}
