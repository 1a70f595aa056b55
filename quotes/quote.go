package quotes

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/wiretime"
	"github.com/tambalapay/tambala/money"
)

// DefaultTTL is a quote's lifetime unless the engine is configured
// otherwise.
const DefaultTTL = 60 * time.Second

// Retention is how long a quote is kept after it expires, so that a late
// use answers quote_expired rather than not_found; then it may be
// pruned (Quote.Prunable).
const Retention = 24 * time.Hour

// TimeFormat is the wire's timestamp format, UTC with millisecond
// precision, in which Use's quote_expired message names the expiry: the
// one layout of internal/wiretime, which renderings use too.
const TimeFormat = wiretime.Layout

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return wiretime.Format(t) }

// Kind is what a quote may be used for.
type Kind string

const (
	// KindOrder is a desk order quote (the engine's Client.QuoteOrder), for
	// an order (Client.CreateOrder).
	KindOrder Kind = "order"
	// KindConversion is a conversion quote (Client.QuoteConversion), for a
	// conversion (Client.CreateConversion).
	KindConversion Kind = "conversion"
)

// Valid reports whether k is KindOrder or KindConversion.
func (k Kind) Valid() bool { return k == KindOrder || k == KindConversion }

// Quote is a priced, frozen offer: its amounts
// and rate never change, whatever happens to the corridor afterwards. It
// moves no money. UsedBy is the id of the order or conversion that
// consumed it, empty while it is unused.
type Quote struct {
	ID        string
	Org       string
	Kind      Kind
	Direction Direction
	From, To  money.Amount
	Rate      money.Rate
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedBy    string
}

// Corridor returns the corridor currency's code: the asset of the fiat
// side.
func (q Quote) Corridor() money.AssetCode {
	if q.Direction == ToBank {
		return q.To.Asset().Code
	}
	return q.From.Asset().Code
}

// Expired reports whether now is after ExpiresAt, at millisecond
// precision: a quote is still good at exactly ExpiresAt.
func (q Quote) Expired(now time.Time) bool {
	return now.Truncate(time.Millisecond).After(q.ExpiresAt.Truncate(time.Millisecond))
}

// Prunable reports whether the quote may be deleted: Retention has passed
// since it expired.
func (q Quote) Prunable(now time.Time) bool {
	return q.Expired(now.Add(-Retention))
}

// NotFound is the one error for a quote that cannot be used because it
// does not exist for the caller: unknown, foreign, malformed id, or the
// wrong kind. The engine answers exactly this for the first
// three so that the four look identical.
func NotFound() error { return errcode.New(errcode.NotFound) }

// Use consumes the quote for the order or conversion id, of kind kind, at
// now, in the order of order creation's checks: a quote of another kind is
// not_found (NotFound), an already used one quote_used (the first use
// stands), an expired one quote_expired. It returns the quote with UsedBy
// set; the engine writes it in the transaction that creates id. Loading the
// quote by (organization, id) is the engine's.
func (q Quote) Use(id string, kind Kind, now time.Time) (Quote, error) {
	if id == "" {
		return Quote{}, errors.New("quotes: using a quote needs the id of what uses it")
	}
	if q.Kind != kind {
		return Quote{}, NotFound()
	}
	if q.UsedBy != "" {
		return Quote{}, errcode.New(errcode.QuoteUsed)
	}
	if q.Expired(now) {
		return Quote{}, errcode.Newf(errcode.QuoteExpired, "The quote expired at %s; take a new quote.", FormatTime(q.ExpiresAt))
	}
	q.UsedBy = id
	return q, nil
}

// Request is what both quote calls take (the engine's Client.QuoteOrder
// and Client.QuoteConversion): two asset codes and exactly one amount, as
// decimal text. A transport decodes one from a body; a Go host builds it.
type Request struct {
	FromAsset, ToAsset   money.AssetCode
	FromAmount, ToAmount money.Decimal // exactly one is set
}

// CheckShape is step 1 of the package's checks (validation_error): both
// asset codes non-empty, exactly one of FromAmount and ToAmount set, in
// the grammar of money.Parse. Codes, decimals and the sign are checked
// later (Check, NewOrder). A transport that decodes a body checks its
// JSON types (an amount is a JSON string), then CheckShape.
func (r Request) CheckShape() error {
	if r.FromAsset == "" {
		return missing("from_asset")
	}
	if r.ToAsset == "" {
		return missing("to_asset")
	}
	if r.FromAmount.IsSet() == r.ToAmount.IsSet() {
		return errExactlyOneAmount()
	}
	field, d := r.fixed()
	// The grammar only: decimals and sign need the asset (step 6).
	if err := d.Check(); err != nil {
		return fieldErr(field, err)
	}
	return nil
}

// fixed returns the name and amount of the side the caller fixed.
func (r Request) fixed() (field string, d money.Decimal) {
	if r.FromAmount.IsSet() {
		return "from_amount", r.FromAmount
	}
	return "to_amount", r.ToAmount
}

// Check is steps 1 and 2 of the package's checks: the shape
// (validation_error), then both codes well-formed (unsupported_asset,
// from_asset first).
func (r Request) Check() error {
	if err := r.CheckShape(); err != nil {
		return err
	}
	if err := CheckCode(r.FromAsset); err != nil {
		return err
	}
	return CheckCode(r.ToAsset)
}

// Issue is what every new quote needs besides its terms: the
// organization, the issue time (truncated to milliseconds: the quote's
// CreatedAt), the lifetime (ExpiresAt = CreatedAt + TTL, also at
// milliseconds) and a new UUIDv7 id.
type Issue struct {
	Org string
	Now time.Time
	TTL time.Duration
	ID  string
}

func (in Issue) check() error {
	switch {
	case in.Org == "":
		return errors.New("quotes: a quote needs an organization")
	case in.ID == "":
		return errors.New("quotes: a quote needs an id")
	case in.TTL < time.Millisecond:
		return fmt.Errorf("quotes: a quote's TTL must be at least 1ms, got %s", in.TTL)
	}
	return nil
}

// checkPair checks that pair is the request's, classified.
func (r Request) checkPair(pair Pair) error {
	if !pair.Direction.Valid() || pair.From.Code != r.FromAsset || pair.To.Code != r.ToAsset {
		return fmt.Errorf("quotes: pair %s %s→%s is not the request's %s→%s", pair.Direction, pair.From.Code, pair.To.Code, r.FromAsset, r.ToAsset)
	}
	return nil
}

// parseFixed is step 6: the fixed amount at its asset's decimals, above 0.
func (r Request) parseFixed(pair Pair) (fixedFrom, fixedTo money.Amount, err error) {
	field, d := r.fixed()
	asset := pair.From
	if !r.FromAmount.IsSet() {
		asset = pair.To
	}
	a, err := money.AmountField{Name: field}.BindDecimal(asset, d)
	if err != nil {
		return money.Amount{}, money.Amount{}, err
	}
	if r.FromAmount.IsSet() {
		return a, money.Amount{}, nil
	}
	return money.Amount{}, a, nil
}

// NewOrder issues an order quote (kind KindOrder) for req, whose assets
// the engine has classified into pair (PairOf) and found in the
// organization's list (step 3) with the operation of the direction
// enabled (step 5). visible are the corridors the organization sees
// (Visible). In order:
//
//   - steps 1, 2 and the corridor part of 4 again (Request.Check,
//     FindCorridor): validation_error, unsupported_asset,
//     unsupported_pair;
//   - step 6, the fixed amount (ParseAmount): validation_error;
//   - step 7, the desk closed (DeskClosed): service_maintenance; this
//     corridor closed or the direction's rate null (Corridor.Rate):
//     rate_unavailable;
//   - step 8, Price (a derived zero: amount_below_minimum), then the
//     corridor's limits on the corridor-currency side (Corridor.Limits):
//     amount_below_minimum or limit_exceeded.
func NewOrder(req Request, pair Pair, visible []Corridor, in Issue) (Quote, error) {
	if err := req.Check(); err != nil {
		return Quote{}, err
	}
	if err := req.checkPair(pair); err != nil {
		return Quote{}, err
	}
	if err := in.check(); err != nil {
		return Quote{}, err
	}
	corridor, err := FindCorridor(pair.Fiat().Code, visible)
	if err != nil {
		return Quote{}, err
	}
	fixedFrom, fixedTo, err := req.parseFixed(pair)
	if err != nil {
		return Quote{}, err
	}
	if DeskClosed(visible) {
		return Quote{}, errDeskClosed()
	}
	rate, err := corridor.Rate(pair.Direction)
	if err != nil {
		return Quote{}, err
	}
	from, to, err := Price(pair.Direction, rate, pair.From, pair.To, fixedFrom, fixedTo)
	if err != nil {
		return Quote{}, err
	}
	fiatSide := to
	if pair.Direction == FromBank {
		fiatSide = from
	}
	if err := corridor.Limits().Check(fiatSide); err != nil {
		return Quote{}, err
	}
	return newQuote(KindOrder, pair.Direction, from, to, rate, in), nil
}

// NewConversion issues a conversion quote (kind KindConversion) for req,
// whose assets the engine has classified into pair (PairOf; the
// one-fiat-one-stablecoin rule applies) and found in the
// organization's list with `convert` on both. rate is what the engine's
// pricer gave for the direction (default: the corridor's Corridor.Rate),
// the zero Rate for none. limits are those of (from asset, convert). In order:
// steps 1 and 2 again (validation_error, unsupported_asset), the fixed
// amount (validation_error), no rate (rate_unavailable), Price
// (amount_below_minimum on a derived zero), then limits on the from side
// (amount_below_minimum or limit_exceeded).
func NewConversion(req Request, pair Pair, rate money.Rate, limits Limits, in Issue) (Quote, error) {
	if err := req.Check(); err != nil {
		return Quote{}, err
	}
	if err := req.checkPair(pair); err != nil {
		return Quote{}, err
	}
	if err := in.check(); err != nil {
		return Quote{}, err
	}
	fixedFrom, fixedTo, err := req.parseFixed(pair)
	if err != nil {
		return Quote{}, err
	}
	if rate.IsZero() {
		return Quote{}, errcode.Newf(errcode.RateUnavailable, "No rate is available for %s to %s.", pair.From.Code, pair.To.Code)
	}
	from, to, err := Price(pair.Direction, rate, pair.From, pair.To, fixedFrom, fixedTo)
	if err != nil {
		return Quote{}, err
	}
	if err := limits.Check(from); err != nil {
		return Quote{}, err
	}
	return newQuote(KindConversion, pair.Direction, from, to, rate, in), nil
}

func newQuote(kind Kind, dir Direction, from, to money.Amount, rate money.Rate, in Issue) Quote {
	created := in.Now.UTC().Truncate(time.Millisecond)
	return Quote{
		ID: in.ID, Org: in.Org, Kind: kind, Direction: dir,
		From: from, To: to, Rate: rate,
		CreatedAt: created,
		ExpiresAt: created.Add(in.TTL).Truncate(time.Millisecond),
	}
}
