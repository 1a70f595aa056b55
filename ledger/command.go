package ledger

import (
	"strconv"
	"time"

	"github.com/tambalapay/tambala/money"
)

// Command is an operation on the ledger. The implementations are Credit,
// PlaceHold, ReleaseHold, CaptureHold, Reverse and Convert.
type Command interface {
	// entryID is the id of the entry the command posts.
	entryID() string
	// appendDigest appends a canonical rendering of the command, excluding
	// At, to b.
	appendDigest(b []byte) []byte
	// plan computes the entry and holds; eb backs their slices.
	plan(st State, eb *effectBuf) (Effect, error)
}

// Credit adds money to an organization's available balance from a system
// account (External for a collection, Float for an OTC trade, Desk for a
// filled order). With a Fee, the organization receives Amount less Fee and
// the fee goes to Fees.
type Credit struct {
	EntryID string
	Org     string
	Amount  money.Amount // gross, > 0
	Fee     money.Amount // optional, >= 0 and <= Amount
	From    Bucket       // a system bucket; default External
	Ref     string
	At      time.Time
}

// PlaceHold moves Amount from the organization's available to its held
// account and opens hold HoldID. It fails with ErrInsufficientFunds when
// available is below Amount.
type PlaceHold struct {
	EntryID string
	HoldID  string
	Org     string
	Amount  money.Amount // > 0
	Ref     string
	At      time.Time
}

// ReleaseHold closes an open hold and returns its amount to available.
type ReleaseHold struct {
	EntryID string
	HoldID  string
	Ref     string
	At      time.Time
}

// CaptureHold closes an open hold by paying Amount to a system account (To:
// Provider by default, or Desk) and Fee to Fees; the rest of the hold
// returns to available. Amount plus Fee may not exceed the hold.
type CaptureHold struct {
	EntryID string
	HoldID  string
	Amount  money.Amount // >= 0
	Fee     money.Amount // >= 0; zero value means no fee
	To      Bucket
	Ref     string
	At      time.Time
}

// Reverse undoes an earlier entry once:
//   - a credit or a convert is negated whole (the organization must still
//     have the money available);
//   - a capture's payout leg comes back from its system account to the
//     organization's available balance (a clawback); the fee stays charged.
//
// Holds, releases and reversals cannot be reversed.
type Reverse struct {
	EntryID string
	Of      string
	Ref     string
	At      time.Time
}

// Charge takes a fee from the organization's available balance; what
// available does not cover becomes a shortfall, which the next credit
// covers first. It never fails for lack of funds: it records a fee already
// incurred (a provider charging more than was held).
type Charge struct {
	EntryID string
	Org     string
	Amount  money.Amount // > 0
	Ref     string
	At      time.Time
}

// Convert moves From out of the organization's available balance to the
// desk, and To from the desk into its available balance in another asset,
// in one entry.
type Convert struct {
	EntryID string
	Org     string
	From    money.Amount // > 0, debited
	To      money.Amount // > 0, credited, another asset
	Ref     string
	At      time.Time
}

func (c Credit) entryID() string      { return c.EntryID }
func (c PlaceHold) entryID() string   { return c.EntryID }
func (c ReleaseHold) entryID() string { return c.EntryID }
func (c CaptureHold) entryID() string { return c.EntryID }
func (c Reverse) entryID() string     { return c.EntryID }
func (c Convert) entryID() string     { return c.EntryID }
func (c Charge) entryID() string      { return c.EntryID }

// A digest is a sequence of parts, each length-prefixed ("5:hello"), so no
// choice of ids or refs can make two different commands render alike.
func part(b []byte, p string) []byte {
	b = strconv.AppendInt(b, int64(len(p)), 10)
	b = append(b, ':')
	return append(b, p...)
}

// amtPart appends an amount part; every zero reads alike ("0"), so an
// unset optional fee and an explicit zero fee are the same command.
// Otherwise the part is code:value.
func amtPart(b []byte, a money.Amount) []byte {
	if a.IsZero() {
		return part(b, "0")
	}
	var tmp [64]byte
	v, _ := a.AppendText(tmp[:0])
	code := a.Asset().Code
	b = strconv.AppendInt(b, int64(len(code)+1+len(v)), 10)
	b = append(b, ':')
	b = append(b, code...)
	b = append(b, ':')
	return append(b, v...)
}

func (c Credit) appendDigest(b []byte) []byte {
	b = part(part(b, string(KindCredit)), c.Org)
	b = amtPart(amtPart(b, c.Amount), c.Fee)
	return part(part(b, string(c.from())), c.Ref)
}
func (c PlaceHold) appendDigest(b []byte) []byte {
	b = part(part(part(b, string(KindHold)), c.HoldID), c.Org)
	return part(amtPart(b, c.Amount), c.Ref)
}
func (c ReleaseHold) appendDigest(b []byte) []byte {
	return part(part(part(b, string(KindRelease)), c.HoldID), c.Ref)
}
func (c CaptureHold) appendDigest(b []byte) []byte {
	b = part(part(b, string(KindCapture)), c.HoldID)
	b = amtPart(amtPart(b, c.Amount), c.Fee)
	return part(part(b, string(c.to())), c.Ref)
}
func (c Reverse) appendDigest(b []byte) []byte {
	return part(part(part(b, string(KindReverse)), c.Of), c.Ref)
}
func (c Charge) appendDigest(b []byte) []byte {
	b = part(part(b, string(KindCharge)), c.Org)
	return part(amtPart(b, c.Amount), c.Ref)
}
func (c Convert) appendDigest(b []byte) []byte {
	b = part(part(b, string(KindConvert)), c.Org)
	b = amtPart(amtPart(b, c.From), c.To)
	return part(b, c.Ref)
}

func (c Credit) from() Bucket {
	if c.From == "" {
		return External
	}
	return c.From
}

func (c CaptureHold) to() Bucket {
	if c.To == "" {
		return Provider
	}
	return c.To
}
