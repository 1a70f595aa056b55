// Package conversions holds the pure rules of a conversion between two of
// an organization's assets: its states, the moves between them, and the
// ledger postings and the event each move asks for. It does no I/O and
// keeps no clock: the engine passes ids and times, posts the postings and
// writes the events in the transaction that stores the conversion, with
// the conversion's one rendering (internal/render) as their data.
//
// A conversion is made processing, with its From amount held
// (conversion:<id>:hold). It ends once: completed (the hold captured to
// the desk, To credited from the desk, event conversion.completed) or
// failed (the hold released, event conversion.failed).
package conversions
