// Package collections holds the pure rules of money received for an
// organization: /v1 collections, /v2 collections and the deposits and
// deposit addresses behind them. It validates what a host records or
// simulates, prices the collection fee, moves a collection between its
// statuses, and describes the ledger postings and the event each move asks
// for. It does no I/O and keeps no clock: the engine passes ids, times,
// its fee schedule and its network, asset and class tables, posts the
// postings and writes the collection and its event in one transaction,
// with the collection's one rendering (internal/render) as the event's
// data.
//
// The package does not import the ledger (a pure package may not reach
// storage); it describes ledger movements as Postings that the engine maps
// one to one onto ledger commands:
//
//	KindCredit  -> ledger.Credit{EntryID, Org, Amount, Fee, From: ledger.External, Ref}
//	KindReverse -> ledger.Reverse{EntryID, Of, Ref}
//
// # /v1 collections
//
// A /v1 collection is MWK received on a rail (momo by default, or bank),
// credited net of the fee schedule's collection fee: AmountMWK - Fee =
// AmountCredited, always. Received.Check checks what the operator records
// (validation_error); a simulated collection checks its amount first
// (Simulated.Check). Settle makes the collection settled with one credit
// from external (entry collection:<id>) and event collection.settled.
// Reverse takes a settled collection back once: reversed, the credit
// reversed (entry collection:<id>:reverse) and event collection.reversed;
// reversing it again is conflict (ErrNotSettled).
//
// # /v2 collections
//
// A /v2 collection is money received in any configured asset: a deposit,
// a returned order refund or a simulated collection. FeeV2 is its fee:
// MWK pays the /v1 collection fee on the momo schedule, every other asset
// nothing. SettleV2 makes it settled with one credit from external (entry
// collection_v2:<id>) and event collection_v2.settled. An order refund's
// collection (Refunded) records the refund's one posting and is never a
// second credit. A /v2 collection is never reversed.
//
// # Deposits and deposit addresses
//
// A deposit is money received on a network, identified by (network,
// tx_ref): Deposit.Check checks it against the engine's networks and
// assets, and Deposit.Replay answers the same deposit recorded again (the
// first collection) or under other figures (conflict). An organization has
// one deposit address per network carrying an asset of its list with
// collection (DepositNetworks); an issuer's address must be valid for its
// network (CheckIssued), and a rotation must give a new one
// (CheckRotation).
package collections
