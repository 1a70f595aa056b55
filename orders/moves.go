package orders

import (
	"fmt"
	"slices"
	"time"
)

// The desk's moves by name, as the admin API, the console and the command
// spell them. This block and deskMoves below are the one place the names
// are written: every transport reads them from here (ParseMove,
// MoveNames, MoveTakes).
func (StartProcessing) Name() string { return "processing" }
func (CoinsSent) Name() string       { return "coins-sent" }
func (Complete) Name() string        { return "complete" }
func (Fail) Name() string            { return "fail" }
func (Cancel) Name() string          { return "cancel" }
func (ReturnRefund) Name() string    { return "refund-returned" }
func (Instructions) Name() string    { return "instructions" }
func (RejectProof) Name() string     { return "reject-proof" }
func (ConfirmFunds) Name() string    { return "confirm-funds" }

// MoveFields are the fields a desk move may carry. A move reads only the
// ones it takes (MoveTakes); the rest are ignored. Each transport fills
// them from what it reads (a JSON body, a form, flags); the rules on
// their values are Apply's.
type MoveFields struct {
	Code          FailureCode // fail
	BankName      string      // instructions
	AccountName   string      // instructions
	AccountNumber string      // instructions
	Reference     string      // instructions
	Deadline      *time.Time  // instructions
	ProofID       string      // reject-proof, confirm-funds
	Reason        string      // reject-proof
}

// deskMove is one desk move: the fields it takes by their wire names, the
// ones among them it cannot be made without, and how it is built from
// them. Its name is its command's Name.
type deskMove struct {
	fields, required []string
	build            func(MoveFields) Command
}

func (m deskMove) name() string { return m.build(MoveFields{}).Name() }

// deskMoves are the desk's moves in the order they are listed.
var deskMoves = []deskMove{
	{build: func(MoveFields) Command { return StartProcessing{} }},
	{build: func(MoveFields) Command { return CoinsSent{} }},
	{build: func(MoveFields) Command { return Complete{} }},
	{fields: []string{"code"}, required: []string{"code"},
		build: func(f MoveFields) Command { return Fail{Code: f.Code} }},
	{build: func(MoveFields) Command { return Cancel{} }},
	{build: func(MoveFields) Command { return ReturnRefund{} }},
	{fields: []string{"bank_name", "account_name", "account_number", "reference", "deadline"},
		required: []string{"bank_name", "account_name", "account_number"},
		build: func(f MoveFields) Command {
			return Instructions{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
				Reference: f.Reference, Deadline: f.Deadline}
		}},
	{fields: []string{"proof_id", "reason"}, required: []string{"proof_id", "reason"},
		build: func(f MoveFields) Command { return RejectProof{ProofID: f.ProofID, Reason: f.Reason} }},
	{fields: []string{"proof_id"}, required: []string{"proof_id"},
		build: func(f MoveFields) Command { return ConfirmFunds{ProofID: f.ProofID} }},
}

func lookupMove(name string) (deskMove, bool) {
	i := slices.IndexFunc(deskMoves, func(m deskMove) bool { return m.name() == name })
	if i < 0 {
		return deskMove{}, false
	}
	return deskMoves[i], true
}

// UnknownMoveError is ParseMove's answer to a name that is no desk move.
// Each transport words it its own way.
type UnknownMoveError struct {
	Name string
}

func (e *UnknownMoveError) Error() string {
	return fmt.Sprintf("orders: %q is not a desk move", e.Name)
}

// ParseMove builds the desk move named name (one of MoveNames) from
// fields, reading only the fields the move takes. It checks nothing else:
// Apply judges the values (a required field left empty included). A name
// that is no desk move is an *UnknownMoveError. The engine fills an
// Instructions' Window and Random itself (Desk.MoveOrder).
func ParseMove(name string, fields MoveFields) (Command, error) {
	m, ok := lookupMove(name)
	if !ok {
		return nil, &UnknownMoveError{Name: name}
	}
	return m.build(fields), nil
}

// MoveNames are the desk's moves by name, in the order they are listed.
func MoveNames() []string {
	names := make([]string, len(deskMoves))
	for i, m := range deskMoves {
		names[i] = m.name()
	}
	return names
}

// MoveTakes is what the desk move named name takes: its fields by their
// wire names (code, bank_name, account_name, account_number, reference,
// deadline, proof_id, reason), and the ones among them it cannot be made
// without, in the order they are listed. ok is false when name is no desk
// move. The slices are the caller's.
func MoveTakes(name string) (fields, required []string, ok bool) {
	m, ok := lookupMove(name)
	if !ok {
		return nil, nil, false
	}
	return slices.Clone(m.fields), slices.Clone(m.required), true
}
