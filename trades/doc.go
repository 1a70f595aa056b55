// Package trades holds the pure rules of an OTC funding trade: the
// operator sold an organization a stablecoin amount at a client rate, and
// the organization's MWK balance is credited once with what it is worth.
// It validates what the operator records (Check), makes the trade (New),
// says which ledger movement and event it asks for, and decides a repeat
// of a recorded ref (Replay). It does no I/O and keeps no clock: the
// engine passes ids and times, looks the ref up, posts the postings and
// writes the event in the transaction that stores the trade, with the
// trade's one rendering (internal/render) as its data.
//
// A trade is recorded settled: New credits MWKAmount whole kwacha (the
// USDT amount at the client rate, rounded down) to the organization from
// the operator's float (entry trade:<id>), with event trade.settled.
// Recording the same ref again is Replay: the first trade when the figures
// are the same, conflict when they differ.
package trades
