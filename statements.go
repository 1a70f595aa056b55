package tambala

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

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
