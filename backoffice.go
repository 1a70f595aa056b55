package tambala

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
	"github.com/tambalapay/tambala/store"
)

// The back office, where the books are closed, in three parts: the
// reconciliation of the rails' settlement files (rules in package
// reconcile), the statements read from the ledger, and the dashboard's
// pictures read from counters. Every record of theirs is kept by
// internal/storage.

// MaxSettlementFile bounds a settlement file, in bytes.
const MaxSettlementFile = reconcile.MaxFile

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

// SetMapping sets the column mapping of rail's settlement files.
func (r *BackOffice) SetMapping(ctx context.Context, rail payouts.Rail, m reconcile.Mapping) (err error) {
	ctx, span := r.o.span(ctx, "tambala.BackOffice.SetMapping")
	defer span.end(&err)
	if ctx, err = r.o.act(ctx, accounts.StaffOperations); err != nil {
		return err
	}
	if err := reconcile.CheckRail(rail); err != nil {
		return err
	}
	if err := reconcile.CheckMapping(m); err != nil {
		return err
	}
	return r.o.e.store.Update(ctx, func(tx store.Tx) error {
		before, err := storage.LoadMapping(tx, rail)
		if err != nil {
			return err
		}
		if err := storage.SaveMapping(tx, rail, m); err != nil {
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
	if err := reconcile.CheckRail(rail); err != nil {
		return reconcile.Mapping{}, err
	}
	var m reconcile.Mapping
	err = r.o.e.store.View(ctx, func(tx store.Tx) error {
		m, err = storage.LoadMapping(tx, rail)
		return err
	})
	return m, err
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
	if f.Name, err = reconcile.CheckFile(f.Rail, f.Name, len(f.Content)); err != nil {
		return SettlementImport{}, err
	}
	sum := sha256.Sum256([]byte(f.Content))
	digest := hex.EncodeToString(sum[:])
	by := actorName(actorOr(ctx, automationActor))
	var out SettlementImport
	err = r.o.e.store.Update(ctx, func(tx store.Tx) error {
		out, err = r.o.e.importSettlement(ctx, tx, f, digest, by)
		return err
	})
	return out, err
}

// importSettlement is Import in tx of file f of SHA-256 digest by by: the
// first import of the same file, Repeated, or a new one, parsed with its
// rail's mapping, kept and audited.
func (e *Engine) importSettlement(ctx context.Context, tx store.Tx, f SettlementFile, digest, by string) (SettlementImport, error) {
	if id, ok, err := storage.SettlementByHash(tx, digest); err != nil || ok {
		if err != nil {
			return SettlementImport{}, err
		}
		rec, err := storage.LoadSettlement(tx, id)
		out := settlementImport(rec)
		out.Repeated = true
		return out, err
	}
	m, err := storage.LoadMapping(tx, f.Rail)
	if err != nil {
		return SettlementImport{}, err
	}
	file, err := reconcile.Parse([]byte(f.Content), m)
	if err != nil {
		return SettlementImport{}, errcode.Newf(errcode.ValidationError, "The file is refused, nothing was imported: %s.", err)
	}
	rec := storage.NewSettlementRecord(e.newID(), f.Rail, f.Name, digest, e.nowUTC(), by, file, m)
	if err := storage.AddSettlement(tx, rec); err != nil {
		return SettlementImport{}, err
	}
	num := ""
	if rec.FileNumber != 0 {
		num = fmt.Sprintf(" number %d,", rec.FileNumber)
	}
	return settlementImport(rec), e.auditAs(ctx, tx, "", AuditSettlementImported, rec.ID, fmt.Sprintf("%s file %q,%s %d lines, sha256 %s",
		rec.Rail, rec.Name, num, len(rec.Lines), digest))
}

// actorName is who an actor is, for a record.
func actorName(a AuditActor) string {
	if a.Email != "" {
		return a.Email
	}
	return string(a.Kind)
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
	if err := reconcile.CheckRail(rail); err != nil {
		return nil, nil, nil, err
	}
	var out []SettlementImport
	err = r.o.e.store.View(ctx, func(tx store.Tx) error {
		recs, err := storage.SettlementsOfRail(tx, rail)
		if err != nil {
			return err
		}
		out = out[:0]
		numbers := make([]int, 0, len(recs))
		for _, rec := range recs {
			out = append(out, settlementImport(rec))
			numbers = append(numbers, rec.FileNumber)
		}
		missing, repeated = reconcile.Gaps(numbers)
		return nil
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
	rec, err := storage.LoadSettlement(tx, id)
	if err != nil {
		return SettlementReport{}, err
	}
	items, err := storage.RailItems(tx, payouts.Rail(rec.Rail))
	if err != nil {
		return SettlementReport{}, err
	}
	res := reconcile.Match(storage.SettlementLines(rec), items)
	out := SettlementReport{Import: settlementImport(rec), From: res.From, To: res.To}
	explained := map[int]*SettlementExplanation{}
	for _, x := range rec.Explained {
		explained[x.Line] = &SettlementExplanation{Reason: x.Reason, By: x.By, At: x.At}
	}
	byID := reconcile.ByID(items)
	for _, m := range res.Lines {
		out.Lines = append(out.Lines, SettlementLine{LineMatch: m, InFlight: reconcile.PayoutsInFlight(m, byID), Explained: explained[m.Line.Number]})
	}
	for _, id := range res.Missing {
		out.Missing = append(out.Missing, byID[id])
	}
	numbers, err := storage.FileNumbers(tx, rec.Rail)
	out.MissingNumbers, out.RepeatedNumbers = reconcile.Gaps(numbers)
	return out, err
}

// ResolveMatched resolves the payouts b names, each in flight and in the
// matched group of import id, with the outcome its line reports, through
// the same use case as BackOffice.ResolvePayout: one transaction each, a
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
	if b.Reason, err = reconcile.CheckBulk(len(b.Payouts), b.Reason); err != nil {
		return BulkResolved{}, err
	}
	if b.FailureCode == "" {
		b.FailureCode = payouts.Declined
	}
	e := r.o.e
	var rep SettlementReport
	if err := e.store.View(ctx, func(tx store.Tx) error {
		rep, err = settlementReport(tx, id)
		return err
	}); err != nil {
		return BulkResolved{}, err
	}
	out := e.resolveBulk(ctx, rep, b)
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

// resolveBulk resolves each payout b names that is in the matched group
// of rep with the outcome its line reports, one transaction each; the
// others are refused.
func (e *Engine) resolveBulk(ctx context.Context, rep SettlementReport, b BulkResolution) BulkResolved {
	ms := make([]reconcile.LineMatch, len(rep.Lines))
	for i, l := range rep.Lines {
		ms[i] = l.LineMatch
	}
	lineOf := reconcile.MatchedLines(ms)
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
		s := reconcile.Settles(l, p, rep.Import.Name, b.Reason, maxResolutionReference)
		res := Resolution{Outcome: payouts.Succeeded, Reason: s.Reason, Reference: s.Reference}
		if s.Failed {
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
	return out
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
	if reason, err = reconcile.CheckExplanation(reason); err != nil {
		return err
	}
	e := r.o.e
	by := actorName(actorOr(ctx, automationActor))
	return e.store.Update(ctx, func(tx store.Tx) error {
		rec, err := storage.LoadSettlement(tx, id)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rec.Lines, func(l codec.SettlementLineRecord) bool { return l.Number == line }) {
			return errcode.Newf(errcode.NotFound, "The file has no line %d.", line)
		}
		x := codec.SettlementExplanationRecord{Line: line, Reason: reason, By: by, At: e.nowUTC()}
		rec.Explained = slices.DeleteFunc(rec.Explained, func(o codec.SettlementExplanationRecord) bool { return o.Line == line })
		rec.Explained = append(rec.Explained, x)
		if err := storage.SaveSettlement(tx, rec); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, "", AuditSettlementExplained, rec.ID, fmt.Sprintf("line %d of %q: %q", line, rec.Name, reason))
	})
}

// Statements.

// StatementKind is what a statement line is, in the domain's words.
type StatementKind string

// The kinds of statement lines (docs/decisions.md, "Issue #37: statements").
const (
	LinePayoutHeld          StatementKind = "payout_held"
	LinePayoutSettled       StatementKind = "payout_settled"
	LineFee                 StatementKind = "fee"
	LinePayoutReleased      StatementKind = "payout_released"
	LineCollection          StatementKind = "collection"
	LineConversionHeld      StatementKind = "conversion_held"
	LineConversionOut       StatementKind = "conversion_out"
	LineConversionIn        StatementKind = "conversion_in"
	LineConversionReleased  StatementKind = "conversion_released"
	LineDeskOrderHeld       StatementKind = "desk_order_held"
	LineDeskOrderCaptured   StatementKind = "desk_order_captured"
	LineDeskOrderCredited   StatementKind = "desk_order_credited"
	LineDeskOrderReleased   StatementKind = "desk_order_released"
	LineRefund              StatementKind = "refund"
	LineFunding             StatementKind = "funding"
	LineDeposit             StatementKind = "deposit"
	LineTrade               StatementKind = "trade"
	LineReversal            StatementKind = "reversal"
	LineOther               StatementKind = "other"
	statementCursorHexBytes               = 32
)

// StatementRequest asks for an organization's statement in one asset over
// a period: lines booked at or after From (zero: from the first) and before
// To (zero: up to now).
type StatementRequest struct {
	Asset    money.AssetCode
	From, To time.Time
}

// StatementLine is one ledger movement of an organization in one asset.
type StatementLine struct {
	EntryID    string
	At         time.Time
	Kind       StatementKind
	ResourceID string // the payout, order, conversion, collection or trade (a funding's ref)
	// Available and Held are the signed changes; AvailableAfter and
	// HeldAfter the balances after the line.
	Available, Held           money.Amount
	AvailableAfter, HeldAfter money.Amount
}

// Statement is one page of an organization's statement. Opening is the
// balance before the period's first line and Closing after its last, so
// Opening plus every line of every page equals Closing. Lines come in
// posting order, oldest first; NextBeforeID is the cursor of the next
// page ("" on the last).
type Statement struct {
	Org                           string
	Asset                         money.Asset
	From, To                      time.Time
	OpeningAvailable, OpeningHeld money.Amount
	ClosingAvailable, ClosingHeld money.Amount
	Lines                         Page[StatementLine]
}

// Statement reads one page of the caller's statement in an enabled asset
// (a /v2 call). A page reads its own lines and at most four more records,
// whatever the length of the history.
func (c *Client) Statement(ctx context.Context, req StatementRequest, page PageRequest) (_ Statement, err error) {
	ctx, span := c.span(ctx, "tambala.Statement")
	defer span.end(&err)
	var out Statement
	err = c.e.store.View(ctx, func(tx store.Tx) error {
		org, err := c.e.admit(tx, c.p, APIv2)
		if err != nil {
			return err
		}
		asset, err := c.e.assetOf(org, req.Asset, "")
		if err != nil {
			return err
		}
		out, err = c.e.statement(tx, org.ID, asset, req, page)
		return err
	})
	return out, err
}

// OrgStatement reads one page of any organization's statement in an asset
// the engine knows (the operator's side), as Client.Statement does. It is a
// staff read: every staff role, support included, may make it, whatever
// the organization's status.
func (b *BackOffice) OrgStatement(ctx context.Context, orgID string, req StatementRequest, page PageRequest) (_ Statement, err error) {
	o := b.o
	ctx, span := o.span(ctx, "tambala.BackOffice.OrgStatement")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return Statement{}, err
	}
	var out Statement
	err = o.e.store.View(ctx, func(tx store.Tx) error {
		var org Organization
		if err := loadOrg(tx, orgID, &org, errNotFound); err != nil {
			return err
		}
		asset, err := o.e.assetCode(req.Asset)
		if err != nil {
			return err
		}
		out, err = o.e.statement(tx, org.ID, asset, req, page)
		return err
	})
	return out, err
}

// assetCode is the configured asset code names (unsupported_asset if none).
func (e *Engine) assetCode(code money.AssetCode) (money.Asset, error) {
	a, ok := e.assets.Lookup(code)
	if !ok {
		return money.Asset{}, errcode.Newf(errcode.UnsupportedAsset, "The asset %q is not configured.", truncate(string(code), 12))
	}
	return a, nil
}

// statement reads one page of org's statement in asset in tx.
func (e *Engine) statement(tx store.Tx, org string, asset money.Asset, req StatementRequest, page PageRequest) (Statement, error) {
	page, err := page.check()
	if err != nil {
		return Statement{}, err
	}
	if !req.To.IsZero() && !req.From.IsZero() && req.To.Before(req.From) {
		return Statement{}, errcode.Newf(errcode.ValidationError, "The period must end after it starts.")
	}
	out := Statement{Org: org, Asset: asset, From: req.From, To: req.To, Lines: Page[StatementLine]{Items: []StatementLine{}}}
	rng := ledger.LineRange{Org: org, Asset: asset.Code, From: req.From, To: req.To}
	if page.BeforeID != "" {
		var cur [16]byte
		if len(page.BeforeID) != statementCursorHexBytes {
			return Statement{}, errcode.Newf(errcode.ValidationError, "The cursor is not one this statement gave.")
		}
		if _, err := hex.Decode(cur[:], []byte(page.BeforeID)); err != nil {
			return Statement{}, errcode.Newf(errcode.ValidationError, "The cursor is not one this statement gave.")
		}
		rng.After = &cur
	}
	if out.OpeningAvailable, out.OpeningHeld, err = ledger.BalanceBefore(tx, org, asset, req.From); err != nil {
		return Statement{}, err
	}
	if req.To.IsZero() {
		b, err := ledger.ReadBalance(tx, org, asset)
		if err != nil {
			return Statement{}, err
		}
		out.ClosingAvailable, out.ClosingHeld = b.Available, b.Held
	} else if out.ClosingAvailable, out.ClosingHeld, err = ledger.BalanceBefore(tx, org, asset, req.To); err != nil {
		return Statement{}, err
	}
	var last [16]byte
	err = ledger.ScanLines(tx, rng, func(l ledger.Line) (bool, error) {
		if len(out.Lines.Items) == page.Limit {
			out.Lines.HasMore = true
			return false, nil
		}
		line, err := e.statementLine(tx, org, l)
		if err != nil {
			return false, err
		}
		out.Lines.Items = append(out.Lines.Items, line)
		last = l.Cursor
		return true, nil
	})
	if err != nil {
		return Statement{}, err
	}
	if out.Lines.HasMore {
		out.Lines.NextBeforeID = hex.EncodeToString(last[:])
	}
	return out, nil
}

// statementLine names a ledger line in the domain's words.
func (e *Engine) statementLine(tx store.Tx, org string, l ledger.Line) (StatementLine, error) {
	out := StatementLine{EntryID: l.EntryID, At: l.At, ResourceID: l.Ref,
		Available: l.Available, Held: l.Held, AvailableAfter: l.AvailableAfter, HeldAfter: l.HeldAfter}
	out.Kind = lineKind(l.EntryID, l.Kind)
	if strings.HasPrefix(l.EntryID, "collection_v2:") && l.Kind == ledger.KindCredit {
		// A /v2 collection is a deposit, a returned refund or a collection.
		v, err := e.loadCollectionV2(tx, org, strings.TrimPrefix(l.EntryID, "collection_v2:"))
		if err != nil {
			return out, err
		}
		switch v.Source {
		case collections.SourceDeposit:
			out.Kind = LineDeposit
		case collections.SourceOrderRefund:
			out.Kind = LineRefund
		}
	}
	return out, nil
}

// lineKind maps an entry id (the engine's own naming of each posting) and
// the ledger's kind to a statement kind.
func lineKind(id string, k ledger.Kind) StatementKind {
	if k == ledger.KindReverse {
		return LineReversal
	}
	prefix, rest, _ := strings.Cut(id, ":")
	step := rest[strings.LastIndexByte(rest, ':')+1:]
	switch prefix {
	case "payout":
		switch step {
		case "hold":
			return LinePayoutHeld
		case "capture":
			return LinePayoutSettled
		case "fee-excess":
			return LineFee
		case "release":
			return LinePayoutReleased
		}
	case "conversion":
		switch step {
		case "hold":
			return LineConversionHeld
		case "capture":
			return LineConversionOut
		case "credit":
			return LineConversionIn
		case "release":
			return LineConversionReleased
		}
	case "order":
		switch step {
		case "hold":
			return LineDeskOrderHeld
		case "capture":
			return LineDeskOrderCaptured
		case "credit":
			return LineDeskOrderCredited
		case "release":
			return LineDeskOrderReleased
		case "refund":
			return LineRefund
		}
	case "collection", "collection_v2":
		return LineCollection
	case "fund":
		return LineFunding
	case "trade":
		return LineTrade
	}
	return LineOther
}

// The dashboard: its counters are written in the storage transaction of
// the change each counts (internal/storage), so that a picture reads a few
// keys and never the history.

// countOutcome counts a payout of org reaching outcome (succeeded or failed)
// at now.
func countOutcome(tx store.Tx, org string, outcome payouts.Status, now time.Time) error {
	return storage.CountOutcome(tx, org, dayOf(now), outcome)
}

// countAccepted counts a payout accepted on rail at now.
func countAccepted(tx store.Tx, rail payouts.Rail, now time.Time) error {
	return storage.CountAcceptedAt(tx, rail, now)
}

// countDead moves the count of dead-lettered deliveries by delta.
func countDead(tx store.Tx, delta int64) error { return storage.CountDead(tx, delta) }

// DayValue is one day's value of a chart series: its UTC day
// ("2006-01-02") and an exact decimal.
type DayValue struct {
	Day   string
	Value string
}

// AgeBuckets count open items by age: under an hour, one to 24 hours, one
// to three days, over three days.
type AgeBuckets [4]int

// AgeLabels name AgeBuckets' buckets in order.
var AgeLabels = [4]string{"< 1 h", "1–24 h", "1–3 d", "> 3 d"}

func (a *AgeBuckets) add(age time.Duration) {
	switch {
	case age < time.Hour:
		a[0]++
	case age < 24*time.Hour:
		a[1]++
	case age < 72*time.Hour:
		a[2]++
	default:
		a[3]++
	}
}

// ChartDays is how many days the dashboard's day series cover.
const ChartDays = 30

// windowDays are the ChartDays UTC days ending with now's.
func windowDays(now time.Time) []string {
	out := make([]string, ChartDays)
	d := now.UTC()
	for i := ChartDays - 1; i >= 0; i-- {
		out[i] = dayOf(d)
		d = d.AddDate(0, 0, -1)
	}
	return out
}

// OrgOverview is an organization's dashboard: per asset its available
// balance at the close of each of the last ChartDays UTC days, and its
// payouts that succeeded and failed per day.
type OrgOverview struct {
	Balances  map[money.AssetCode][]DayValue
	Succeeded []DayValue
	Failed    []DayValue
}

// orgOverview reads org's overview at now: per asset and per outcome a range
// scan of at most ChartDays keys (and one key before the window).
func (e *Engine) orgOverview(ctx context.Context, org string, assets []money.AssetCode, now time.Time) (OrgOverview, error) {
	days := windowDays(now)
	out := OrgOverview{Balances: map[money.AssetCode][]DayValue{}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		for _, a := range assets {
			series, err := e.balanceSeries(tx, org, a, days)
			if err != nil {
				return err
			}
			out.Balances[a] = series
		}
		counts, err := storage.OutcomesFrom(tx, org, days[0])
		if err != nil {
			return err
		}
		out.Succeeded, out.Failed = outcomeSeries(days, counts, payouts.Succeeded), outcomeSeries(days, counts, payouts.Failed)
		return nil
	})
	return out, err
}

// balanceSeries is org's available balance in a at the close of each of
// days: the last close before the window carries into its first day.
func (e *Engine) balanceSeries(tx store.Tx, org string, a money.AssetCode, days []string) ([]DayValue, error) {
	carry := "0"
	asset, known := e.assets[a]
	if known {
		carry = money.Zero(asset).String()
	}
	before, found, err := storage.LastCloseBefore(tx, org, string(a), days[0])
	if err != nil {
		return nil, err
	}
	if found {
		carry = before
	}
	closes, err := storage.ClosesFrom(tx, org, string(a), days[0])
	if err != nil {
		return nil, err
	}
	if known && !found && len(closes) == 0 {
		// No change since the counters began (a store older than them, or
		// an account never moved): every day closed at the balance of now.
		b, err := ledger.ReadBalance(tx, org, asset)
		if err != nil {
			return nil, err
		}
		carry = b.Available.String()
	}
	return carrySeries(days, carry, closes), nil
}

// carrySeries is the value of each of days: its close, or the previous
// day's value (carry before the first).
func carrySeries(days []string, carry string, closes map[string]string) []DayValue {
	series := make([]DayValue, len(days))
	for i, d := range days {
		if v, ok := closes[d]; ok {
			carry = v
		}
		series[i] = DayValue{Day: d, Value: carry}
	}
	return series
}

// outcomeSeries is the count of each of days' payouts that reached
// outcome, from counts by day NUL outcome.
func outcomeSeries(days []string, counts map[string]int64, outcome payouts.Status) []DayValue {
	series := make([]DayValue, len(days))
	for i, d := range days {
		series[i] = DayValue{Day: d, Value: strconv.FormatInt(counts[d+"\x00"+string(outcome)], 10)}
	}
	return series
}

// OperatorHome is the console's first page: the desk queue and the payouts
// in flight by age, the webhook deliveries dead-lettered now, and today's
// (UTC) payouts accepted per rail.
type OperatorHome struct {
	DeskQueue    AgeBuckets
	InFlight     AgeBuckets
	DeadLettered int64
	Today        string
	RailsToday   map[payouts.Rail]int64
}

// operatorHome reads the home at now. The ages come from the open items'
// indexes (the desk queue and the payout due index: open items, not the
// history); the rest from counters.
func (e *Engine) operatorHome(ctx context.Context, now time.Time) (OperatorHome, error) {
	h := OperatorHome{Today: dayOf(now), RailsToday: map[payouts.Rail]int64{}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		h.DeskQueue, h.InFlight, h.DeadLettered = AgeBuckets{}, AgeBuckets{}, 0
		clear(h.RailsToday)
		if err := openAges(tx, now, &h); err != nil {
			return err
		}
		var err error
		if h.DeadLettered, err = storage.DeadCount(tx); err != nil {
			return err
		}
		for _, r := range dashRails {
			if h.RailsToday[r], err = storage.AcceptedOn(tx, r, h.Today); err != nil {
				return err
			}
		}
		return nil
	})
	return h, err
}

// openAges counts the desk queue and the payouts in flight of h by age at
// now.
func openAges(tx store.Tx, now time.Time, h *OperatorHome) error {
	for _, st := range deskStatuses {
		err := storage.DeskQueued(tx, st, func(id string) (bool, error) {
			o, err := loadOrder(tx, id)
			if err != nil {
				return false, err
			}
			h.DeskQueue.add(now.Sub(o.CreatedAt))
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	return storage.OpenPayouts(tx, func(created time.Time) (bool, error) {
		h.InFlight.add(now.Sub(created))
		return true, nil
	})
}

// dashRails are the rails the home counts, in its order.
var dashRails = []payouts.Rail{payouts.Bank, payouts.Momo, payouts.Wallet}

// deskStatuses are the statuses of the desk's queue index that wait on the
// desk.
var deskStatuses = []orders.Status{orders.Accepted, orders.Processing, orders.AwaitingInstructions,
	orders.AwaitingFunds, orders.ProofSubmitted, orders.FundsConfirmed}

// Overview reads the caller's overview for the portal: per asset of assets
// its available balance at the close of each of the last ChartDays UTC days
// (a day without a change carries the previous close), and its payouts
// that succeeded and failed per day. It reads at most ChartDays + 1
// counters per series, never the history.
func (c *Client) Overview(ctx context.Context, assets []money.AssetCode) (_ OrgOverview, err error) {
	ctx, span := c.span(ctx, "tambala.Overview")
	defer span.end(&err)
	return c.e.orgOverview(ctx, c.p.Org.ID, assets, c.e.nowUTC())
}

// Home reads the console's first page: the desk queue and the payouts in
// flight by age (from the open items' indexes), the webhook deliveries
// dead-lettered now and today's payouts accepted per rail (from counters
// kept in the transaction of each change).
func (b *BackOffice) Home(ctx context.Context) (_ OperatorHome, err error) {
	o := b.o
	ctx, span := o.span(ctx, "tambala.BackOffice.Home")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return OperatorHome{}, err
	}
	return o.e.operatorHome(ctx, o.e.nowUTC())
}
