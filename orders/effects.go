package orders

import (
	"github.com/tambalapay/tambala/money"
)

// PostingKind names the ledger command a Posting stands for.
type PostingKind string

const (
	KindPlaceHold   PostingKind = "hold"
	KindCaptureHold PostingKind = "capture"
	KindReleaseHold PostingKind = "release"
	KindCredit      PostingKind = "credit"
)

// Desk is the system account orders trade with: ledger.Desk's name. A
// capture pays To it and a credit comes From it.
const Desk = "desk"

// Posting describes one ledger movement for the engine to post, in the
// transaction that stores the order (see the package documentation for the
// mapping onto ledger commands). The engine sets the entry's time.
type Posting struct {
	Kind    PostingKind
	EntryID string       // order:<id>:hold|capture|release|refund|credit
	HoldID  string       // order:<id>; hold, capture and release
	Org     string       // hold and credit: the organization
	Amount  money.Amount // hold, capture (the whole hold) and credit; zero on release
	System  string       // capture: To; credit: From; Desk (a trade's credit: trades.Float)
	Ref     string       // the order id
}

// Order event types. The data of each is the order's one rendering after
// the move (the engine's, internal/render).
const (
	EventProcessing     = "order.processing"
	EventCompleted      = "order.completed"
	EventFailed         = "order.failed"
	EventCancelled      = "order.cancelled"
	EventAwaitingFunds  = "order.awaiting_funds"
	EventFundsConfirmed = "order.funds_confirmed"
	EventExpired        = "order.expired"
	EventRefundReturned = "order.refund_returned"
)

// EventTypes lists every order event type.
var EventTypes = []string{EventProcessing, EventCompleted, EventFailed, EventCancelled,
	EventAwaitingFunds, EventFundsConfirmed, EventExpired, EventRefundReturned}

// Event is one outbox row to write in the move's transaction: its type.
// Its data is the order's one rendering after the move, which the engine
// renders as it writes the row.
type Event struct {
	Type string
}

// RefundCollection is the /v2 collection record the engine writes when a
// refund is returned: source order_refund, fee 0, amount and
// amount_credited = Amount, order_id = OrderID, and it records the one
// posting EntryID (the refund's Credit); it is never a second credit. The
// engine also emits collection_v2.settled with the collection's rendering.
type RefundCollection struct {
	OrderID string
	Org     string
	EntryID string
	Amount  money.Amount
}

// Effects is what a move asks of the engine besides storing the order.
type Effects struct {
	// Changed is false when the move was a repeat (or a no-op proof
	// re-upload): nothing to store, post or emit.
	Changed  bool
	Postings []Posting
	Events   []Event
	// Collection is set only by a returned refund.
	Collection *RefundCollection
}
