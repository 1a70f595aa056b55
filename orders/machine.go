package orders

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// Command is one move of an order: a desk or operator move, a proof upload
// or the expiry sweep. The implementations are StartProcessing, CoinsSent,
// Complete, Fail, Cancel, ReturnRefund, Instructions, ProofUploaded,
// RejectProof, ConfirmFunds and Expire.
type Command interface {
	// Name is the move's name as the admin API spells it.
	Name() string
	apply(t *transition) error
}

// StartProcessing is the desk starting to pay a to-bank order's beneficiary:
// accepted -> processing, event order.processing.
type StartProcessing struct{}

// CoinsSent is the desk recording that the stablecoin left: in
// processing it captures the hold to the desk (entry order:<id>:capture)
// and sets the internal CoinsLeftAt. The status, updated_at and the
// rendering do not change, so it emits no event.
type CoinsSent struct{}

// Complete ends an order successfully. To-bank: processing -> completed,
// capturing the hold to the desk unless CoinsSent already did. From-bank:
// funds_confirmed -> completed, crediting to_amount from the desk (entry
// order:<id>:credit). Event order.completed.
type Complete struct{}

// Fail ends an order with a failure code (failCodes). A code outside
// the direction's list is validation_error; a code the direction knows
// but the state does not allow is conflict. A to-bank order whose
// coins had not left releases its hold (entry order:<id>:release); one
// whose coins had left gets refund pending and no posting (the hold was
// captured). From-bank failures post nothing. Event order.failed.
type Fail struct {
	Code FailureCode
}

// Cancel is the operator cancelling an order on request. To-bank: from
// accepted, or from processing before the coins left, releasing the hold;
// after the coins left it is conflict (use Fail, which starts the
// refund). From-bank: from any non-terminal state, posting nothing. Event
// order.cancelled.
type Cancel struct{}

// ReturnRefund is the desk recording that the stablecoin of a to-bank
// order that failed after the coins left came back: refund pending ->
// returned, a credit of from_amount from the desk (entry
// order:<id>:refund), the RefundCollection record, and event
// order.refund_returned.
type ReturnRefund struct{}

// Instructions issues a from-bank order's funding instructions:
// awaiting_instructions -> awaiting_funds, Funding set once, event
// order.awaiting_funds. BankName, AccountName and AccountNumber are 1 to
// 200 characters. Reference, when given, must match ^[A-Z0-9]{6,18}$;
// empty means one is generated from Random (GenerateReference). Deadline,
// when given, must be more than MinDeadlineLead after now; nil means now
// plus Window (DefaultFundingWindow when Window is not positive).
//
// A repeat matches when the order is awaiting_funds with the same three
// account fields, and the same reference and deadline where the repeat
// gives them.
type Instructions struct {
	BankName      string
	AccountName   string
	AccountNumber string
	Reference     string
	Deadline      *time.Time
	// Window is the engine's funding window (Options.FundingWindow).
	Window time.Duration
	// Random is filled by the engine from a random source; it is read only
	// when Reference is empty.
	Random [ReferenceRandomBytes]byte
}

// ProofUploaded records a funding proof the caller uploaded:
// awaiting_funds -> proof_submitted with Proof set (clearing any
// rejected_reason). No event: it is the caller's own action. Anything else
// is proof_not_expected, including an order that never had a proof and
// whose deadline passed (before the sweep has expired it), except a
// re-upload of the newest proof's SHA-256 while proof_submitted, which is
// the order unchanged.
type ProofUploaded struct {
	ID          string // the proof record's id
	SHA256      string // lowercase hex
	ContentType string // application/pdf, image/png or image/jpeg
	Size        int64
	// Deadline is the effective deadline when later than expires_at (a
	// deadline that fell inside a /v2 pause); zero means expires_at.
	Deadline time.Time
}

// RejectProof is the desk rejecting the newest proof, named by ProofID:
// proof_submitted -> awaiting_funds with rejected_reason set (1 to 500
// characters), expires_at unchanged, event order.awaiting_funds (the
// order reaches that state again). A
// ProofID that is not the newest proof is conflict.
type RejectProof struct {
	ProofID string
	Reason  string
}

// ConfirmFunds is the desk confirming the funds the newest proof, named by
// ProofID, shows: proof_submitted -> funds_confirmed, event
// order.funds_confirmed. A ProofID that is not the newest proof is
// conflict.
type ConfirmFunds struct {
	ProofID string
}

// Expire is the sweep ending a from-bank order that never had a proof past
// its deadline: awaiting_funds -> expired, event order.expired, only when
// ExpiryDue; otherwise conflict (the sweeper skips the order).
type Expire struct {
	// Deadline is the effective deadline when later than expires_at (a
	// deadline that fell inside a /v2 pause); zero means expires_at.
	Deadline time.Time
}

// The desk's moves are named in moves.go; these two are the engine's own.
func (ProofUploaded) Name() string { return "proof upload" }
func (Expire) Name() string        { return "expire" }

// transition is a move in progress: the order being changed and what the
// move asks of the engine.
type transition struct {
	o          Order
	now        time.Time
	changed    bool
	postings   []Posting
	events     []string
	collection *RefundCollection
}

// touch records a status, proof or refund change: updated_at moves to now,
// and never backwards.
func (t *transition) touch() {
	t.changed = true
	if t.now.After(t.o.UpdatedAt) {
		t.o.UpdatedAt = t.now
	}
}

func (t *transition) move(to Status, event string) {
	t.o.Status = to
	t.touch()
	if event != "" {
		t.events = append(t.events, event)
	}
}

func (t *transition) capture() {
	t.postings = append(t.postings, Posting{Kind: KindCaptureHold, EntryID: EntryID(t.o.ID, "capture"),
		HoldID: HoldID(t.o.ID), Amount: t.o.From, System: Desk, Ref: t.o.ID})
}

func (t *transition) release() {
	t.postings = append(t.postings, Posting{Kind: KindReleaseHold, EntryID: EntryID(t.o.ID, "release"),
		HoldID: HoldID(t.o.ID), Ref: t.o.ID})
}

func (t *transition) credit(step string) Posting {
	amt := t.o.To // from-bank: the stablecoin bought
	if step == "refund" {
		amt = t.o.From // to-bank: the stablecoin that came back
	}
	p := Posting{Kind: KindCredit, EntryID: EntryID(t.o.ID, step), Org: t.o.Org, Amount: amt, System: Desk, Ref: t.o.ID}
	t.postings = append(t.postings, p)
	return p
}

// Apply makes one move of o at now (a state machine's move). It returns
// the moved order and its Effects; on a repeat, the order unchanged and
// Effects.Changed false; on error, an *errcode.Error (or an uncoded error
// for a command the engine should never build), o unchanged and no
// effects. Each event's data is the returned order's one rendering, which
// the engine renders as it writes the event.
func Apply(o Order, cmd Command, now time.Time) (Order, Effects, error) {
	if cmd == nil {
		return o, Effects{}, errors.New("orders: nil command")
	}
	t := transition{o: o.clone(), now: clock(now)}
	if err := cmd.apply(&t); err != nil {
		return o, Effects{}, err
	}
	if !t.changed {
		return o, Effects{}, nil
	}
	eff := Effects{Changed: true, Postings: t.postings, Collection: t.collection}
	for _, typ := range t.events {
		eff.Events = append(eff.Events, Event{Type: typ})
	}
	return t.o, eff, nil
}

func wrongState(o Order, cmd Command) error {
	return errcode.Newf(errcode.Conflict, "A %s order in status %s cannot take %s.", directionName(o.Direction), o.Status, cmd.Name())
}

func directionName(d Direction) string {
	if d == FromBank {
		return "from-bank"
	}
	return "to-bank"
}

func (StartProcessing) apply(t *transition) error {
	switch t.o.Status {
	case Processing:
		return nil // repeat
	case Accepted:
		t.move(Processing, EventProcessing)
		return nil
	}
	return wrongState(t.o, StartProcessing{})
}

func (CoinsSent) apply(t *transition) error {
	if t.o.Status != Processing {
		return wrongState(t.o, CoinsSent{})
	}
	if t.o.CoinsLeftAt != nil {
		return nil // repeat
	}
	at := t.now
	t.o.CoinsLeftAt = &at
	t.changed = true // internal only: no updated_at change, no event
	t.capture()
	return nil
}

func (Complete) apply(t *transition) error {
	switch {
	case t.o.Status == Completed:
		return nil // repeat
	case t.o.Direction == ToBank && t.o.Status == Processing:
		if t.o.CoinsLeftAt == nil {
			t.capture()
		}
		t.move(Completed, EventCompleted)
		return nil
	case t.o.Direction == FromBank && t.o.Status == FundsConfirmed:
		t.credit("credit")
		t.move(Completed, EventCompleted)
		return nil
	}
	return wrongState(t.o, Complete{})
}

// failCodes is which failure codes each state allows.
var failCodes = map[Direction]map[Status][]FailureCode{
	ToBank: {
		Accepted:   {UnableToFill, Other},
		Processing: {UnableToFill, BeneficiaryRejected, NotDelivered, Other},
	},
	FromBank: {
		AwaitingInstructions: {UnableToFill, Other},
		AwaitingFunds:        {FundsNotReceived, Other},
		ProofSubmitted:       {FundsNotReceived, Other},
		FundsConfirmed:       {UnableToFill, Other},
	},
}

func codeList(codes []FailureCode) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func (c Fail) apply(t *transition) error {
	if allowed := FailureCodes(t.o.Direction); !slices.Contains(allowed, c.Code) {
		return errcode.Newf(errcode.ValidationError, "code must be one of %s on a %s order.",
			codeList(allowed), directionName(t.o.Direction))
	}
	if t.o.Status == Failed {
		if t.o.Failure != nil && t.o.Failure.Code == c.Code {
			return nil // repeat
		}
		return errcode.Newf(errcode.Conflict, "The order already failed with another code.")
	}
	codes, ok := failCodes[t.o.Direction][t.o.Status]
	if !ok {
		return wrongState(t.o, c)
	}
	if !slices.Contains(codes, c.Code) {
		return errcode.Newf(errcode.Conflict, "A %s order in status %s can fail only with %s.",
			directionName(t.o.Direction), t.o.Status, codeList(codes))
	}
	t.o.Failure = &Failure{Code: c.Code, Message: failureMessages[c.Code]}
	if t.o.Direction == ToBank {
		if t.o.CoinsLeftAt == nil {
			t.release()
		} else {
			t.o.Refund = &Refund{Status: RefundPending}
		}
	}
	t.move(Failed, EventFailed)
	return nil
}

func (c Cancel) apply(t *transition) error {
	switch {
	case t.o.Status == Cancelled:
		return nil // repeat
	case t.o.Direction == ToBank && t.o.Status == Processing && t.o.CoinsLeftAt != nil:
		return errcode.Newf(errcode.Conflict, "The coins have left; a to-bank order can no longer be cancelled. Use fail, which starts the refund.")
	case t.o.Direction == ToBank && (t.o.Status == Accepted || t.o.Status == Processing):
		t.release()
	case t.o.Direction == FromBank && !t.o.Status.Terminal():
	default:
		return wrongState(t.o, c)
	}
	t.move(Cancelled, EventCancelled)
	return nil
}

func (c ReturnRefund) apply(t *transition) error {
	if t.o.Direction != ToBank || t.o.Status != Failed || t.o.Refund == nil {
		return errcode.Newf(errcode.Conflict, "The order has no refund: only a to-bank order that failed after its coins left has one.")
	}
	if t.o.Refund.Status == RefundReturned {
		return nil // repeat
	}
	t.o.Refund.Status = RefundReturned
	t.touch()
	p := t.credit("refund")
	t.collection = &RefundCollection{OrderID: t.o.ID, Org: t.o.Org, EntryID: p.EntryID, Amount: p.Amount}
	t.events = append(t.events, EventRefundReturned)
	return nil
}

func (c Instructions) apply(t *transition) error {
	for _, f := range []struct{ name, v string }{
		{"bank_name", c.BankName}, {"account_name", c.AccountName}, {"account_number", c.AccountNumber},
	} {
		if err := checkText(f.name, f.v, MaxTextLength); err != nil {
			return err
		}
	}
	if c.Reference != "" && !ValidReference(c.Reference) {
		return errcode.Newf(errcode.ValidationError, "reference must match ^[A-Z0-9]{6,18}$.")
	}
	var deadline time.Time
	if c.Deadline != nil {
		deadline = clock(*c.Deadline)
	}
	if f := t.o.Funding; f != nil && t.o.Status == AwaitingFunds &&
		f.BankName == c.BankName && f.AccountName == c.AccountName && f.AccountNumber == c.AccountNumber &&
		(c.Reference == "" || c.Reference == f.Reference) && (c.Deadline == nil || deadline.Equal(f.Deadline)) {
		return nil // repeat
	}
	if t.o.Status != AwaitingInstructions {
		if t.o.Funding != nil {
			return errcode.Newf(errcode.Conflict, "The order's funding instructions were already issued and never change.")
		}
		return wrongState(t.o, c)
	}
	if c.Deadline == nil {
		w := c.Window
		if w <= 0 {
			w = DefaultFundingWindow
		}
		deadline = clock(t.now.Add(w))
	} else if !deadline.After(t.now.Add(MinDeadlineLead)) {
		return errcode.Newf(errcode.ValidationError, "deadline must be more than 1 hour ahead.")
	}
	ref := c.Reference
	if ref == "" {
		ref = GenerateReference(c.Random)
	}
	t.o.Funding = &Funding{BankName: c.BankName, AccountName: c.AccountName, AccountNumber: c.AccountNumber,
		Reference: ref, Amount: t.o.From, Deadline: deadline}
	t.move(AwaitingFunds, EventAwaitingFunds)
	return nil
}

// ProofContentTypes are the media types a funding proof may have.
var ProofContentTypes = []string{"application/pdf", "image/png", "image/jpeg"}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// effectiveDeadline is the later of expires_at and the engine's deadline.
func effectiveDeadline(o Order, d time.Time) time.Time {
	exp, _ := o.ExpiresAt()
	if d = clock(d); d.After(exp) {
		return d
	}
	return exp
}

func (c ProofUploaded) apply(t *transition) error {
	if c.ID == "" || !isSHA256Hex(c.SHA256) {
		return fmt.Errorf("orders: a proof needs an id and a lowercase hex SHA-256")
	}
	if !slices.Contains(ProofContentTypes, c.ContentType) {
		return errcode.Newf(errcode.UnsupportedMediaType, "A funding proof must be application/pdf, image/png or image/jpeg.")
	}
	o := t.o
	if o.Status == ProofSubmitted && o.Proof != nil && o.Proof.SHA256 == c.SHA256 {
		return nil // the same file again: safe retry
	}
	if o.Direction != FromBank {
		return errcode.Newf(errcode.ProofNotExpected, "A to-bank order takes no funding proof.")
	}
	if o.Status != AwaitingFunds {
		return errcode.Newf(errcode.ProofNotExpected, "The order is %s, not awaiting_funds.", o.Status)
	}
	if o.Proof == nil && t.now.After(effectiveDeadline(o, c.Deadline)) {
		return errcode.Newf(errcode.ProofNotExpected, "The funding deadline passed with no proof uploaded.")
	}
	if c.Size <= 0 {
		return errcode.Newf(errcode.ValidationError, "The proof is empty.")
	}
	t.o.Proof = &Proof{ID: c.ID, SHA256: c.SHA256, ContentType: c.ContentType, Size: c.Size, UploadedAt: t.now}
	t.move(ProofSubmitted, "")
	return nil
}

// newestProof checks that id names the order's newest proof.
func newestProof(o Order, id string) error {
	if o.Proof == nil {
		return errcode.Newf(errcode.Conflict, "The order has no funding proof.")
	}
	if o.Proof.ID != id {
		return errcode.Newf(errcode.Conflict, "proof_id %s is not the order's newest proof; review the newest one.", id)
	}
	return nil
}

func (c RejectProof) apply(t *transition) error {
	if c.ProofID == "" {
		return errcode.Newf(errcode.ValidationError, "proof_id is required.")
	}
	if err := checkText("reason", c.Reason, MaxReasonLength); err != nil {
		return err
	}
	if t.o.Direction != FromBank {
		return wrongState(t.o, c)
	}
	if err := newestProof(t.o, c.ProofID); err != nil {
		return err
	}
	if r := t.o.Proof.RejectedReason; r != nil && t.o.Status == AwaitingFunds {
		if *r == c.Reason {
			return nil // repeat
		}
		return errcode.Newf(errcode.Conflict, "The proof was already rejected with another reason.")
	}
	if t.o.Status != ProofSubmitted {
		return wrongState(t.o, c)
	}
	reason := c.Reason
	t.o.Proof.RejectedReason = &reason
	t.move(AwaitingFunds, EventAwaitingFunds)
	return nil
}

func (c ConfirmFunds) apply(t *transition) error {
	if c.ProofID == "" {
		return errcode.Newf(errcode.ValidationError, "proof_id is required.")
	}
	if t.o.Direction != FromBank {
		return wrongState(t.o, c)
	}
	if err := newestProof(t.o, c.ProofID); err != nil {
		return err
	}
	switch t.o.Status {
	case FundsConfirmed:
		return nil // repeat
	case ProofSubmitted:
		t.move(FundsConfirmed, EventFundsConfirmed)
		return nil
	}
	return wrongState(t.o, c)
}

// ExpiryDue reports whether the sweep may expire o at now: a
// from-bank order awaiting_funds that never had a proof, with now after its
// deadline, the later of expires_at and effective (zero for none),
// compared at millisecond precision.
func ExpiryDue(o Order, now, effective time.Time) bool {
	return o.Direction == FromBank && o.Status == AwaitingFunds && o.Proof == nil && o.Funding != nil &&
		clock(now).After(effectiveDeadline(o, effective))
}

func (c Expire) apply(t *transition) error {
	if t.o.Status == Expired {
		return nil // repeat
	}
	if !ExpiryDue(t.o, t.now, c.Deadline) {
		if t.o.Status == AwaitingFunds && t.o.Proof != nil {
			return errcode.Newf(errcode.Conflict, "The order had a funding proof; it never expires, the desk ends it.")
		}
		if t.o.Status == AwaitingFunds {
			return errcode.Newf(errcode.Conflict, "The order's funding deadline has not passed.")
		}
		return wrongState(t.o, c)
	}
	t.move(Expired, EventExpired)
	return nil
}
