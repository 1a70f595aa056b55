package orders

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Params is what New needs: the new order's ids, the accepted quote's
// frozen terms and the caller's fields.
type Params struct {
	ID        string // the new order's id (UUIDv7)
	Org       string
	QuoteID   string
	Direction Direction
	// From, To and Rate are the quote's frozen amounts and rate.
	From, To  money.Amount
	Rate      money.Rate
	ClientRef string
	// Beneficiary is nil when the body had none (absent or null).
	Beneficiary *Beneficiary
}

// New creates an order from an accepted quote at now. It checks, in the
// order of creation's checks as far as they are its own: client_ref
// (validation_error), the beneficiary's presence (beneficiary_required on a
// to-bank order without one, beneficiary_not_allowed on a from-bank order
// with one), then its fields (validation_error). The engine has already
// checked idempotency, the quote (found, unused, unexpired), enablement and
// the desk, and checks client_ref uniqueness and the funds afterwards.
//
// A to-bank order starts accepted and comes with one posting, the PlaceHold
// of from_amount (entry order:<id>:hold, hold order:<id>); a from-bank
// order starts awaiting_instructions and holds nothing. Creation emits no
// event. The beneficiary is copied, never trimmed.
func New(p Params, now time.Time) (Order, []Posting, error) {
	if err := p.check(); err != nil {
		return Order{}, nil, err
	}
	if err := ValidateClientRef(p.ClientRef); err != nil {
		return Order{}, nil, err
	}
	switch {
	case p.Direction == ToBank && p.Beneficiary == nil:
		return Order{}, nil, errcode.Newf(errcode.BeneficiaryRequired, "A to-bank order needs a beneficiary.")
	case p.Direction == FromBank && p.Beneficiary != nil:
		return Order{}, nil, errcode.Newf(errcode.BeneficiaryNotAllowed, "A from-bank order must not have a beneficiary.")
	}
	now = clock(now)
	o := Order{
		ID: p.ID, Org: p.Org, QuoteID: p.QuoteID, ClientRef: p.ClientRef, Direction: p.Direction,
		From: p.From, To: p.To, Rate: p.Rate,
		CreatedAt: now, UpdatedAt: now,
	}
	if p.Direction == FromBank {
		o.Status = AwaitingInstructions
		return o, nil, nil
	}
	if err := p.Beneficiary.Validate(); err != nil {
		return Order{}, nil, err
	}
	b := *p.Beneficiary
	b.Branch = cloneString(b.Branch)
	o.Beneficiary = &b
	o.Status = Accepted
	return o, []Posting{{
		Kind: KindPlaceHold, EntryID: EntryID(o.ID, "hold"), HoldID: HoldID(o.ID),
		Org: o.Org, Amount: o.From, Ref: o.ID,
	}}, nil
}

// errBadParams marks a Params the engine should never build: a bug, not a
// caller's mistake, so it carries no code (internal_error).
var errBadParams = errors.New("orders: bad parameters")

func (p Params) check() error {
	switch {
	case p.ID == "" || p.Org == "" || p.QuoteID == "":
		return fmt.Errorf("%w: id, org and quote id are required", errBadParams)
	case p.Direction != ToBank && p.Direction != FromBank:
		return fmt.Errorf("%w: direction %q", errBadParams, p.Direction)
	case p.From.Sign() <= 0 || p.To.Sign() <= 0:
		return fmt.Errorf("%w: amounts must be positive", errBadParams)
	case p.From.Asset() == p.To.Asset():
		return fmt.Errorf("%w: from and to are the same asset", errBadParams)
	case p.Rate.IsZero():
		return fmt.Errorf("%w: no rate", errBadParams)
	}
	return nil
}
