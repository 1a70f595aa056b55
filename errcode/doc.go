// Package errcode holds the stable error codes of the API (reference section
// 7.2 and docs/decisions.md) in one table, each with its HTTP status and a
// fixed default message, and the typed error that carries a code through the
// engine.
//
// Domain packages return errors that carry a Code (an *Error, or any error
// with a Code() method); the HTTP binding renders them as
// {"error":{"code","message"}} with the table's status. Codes are never
// renamed or removed, only added.
package errcode
