// Package approvals holds the rules of four-eyes: no single credential
// (the operator's admin token, or one staff member) moves money to an
// organization above a threshold. A move the operator asks for above its
// asset's threshold (a funding, a deposit or a collection recorded by
// hand, an OTC trade, a refund returned to the desk, a payout resolved
// failed or clawed back) waits as a pending Approval until a second staff
// member with the role it needs approves it; the requester never can, and
// neither can the operator's automation. A change that weakens a
// threshold (Weakens) waits the same way, and a staff member whose
// credentials someone else reset (Hold) approves nothing until another
// staff admin confirms them.
//
// It is pure: no I/O, no clock, no store. The engine keeps approvals in
// its store and moves the money in the transaction that approves one.
package approvals
