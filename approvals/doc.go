// Package approvals holds the rules of four-eyes: a money move the
// operator asks for above a threshold (a funding, a deposit recorded by
// hand, a refund returned to the desk) waits as a pending Approval until a
// second staff member with the role it needs approves it; the requester
// never can, and neither can the operator's automation.
//
// It is pure: no I/O, no clock, no store. The engine keeps approvals in
// its store and moves the money in the transaction that approves one.
package approvals
