// Command embed-v2 is a host that embeds the engine as a library, with no
// HTTP and no JSON, for the /v2 flows: the complete sandbox over a bbolt
// file, the /v2 tour end to end in one process (each step followed to its
// outcome through the in-process events, Options.Events, rather than by
// sleeping or polling), then a restart over the same file that finds all
// of it again.
//
// It opens a bbolt store (adapters/boltstore) and makes every port the
// sandbox simulates over that same store (sandbox.NewPorts: the payout
// provider, the converter and the deposit address issuer, their delays
// set to 10ms), puts them in the engine's options (Ports.Set) and runs
// Engine.Run in the background. The operator (Engine.Operator)
// bootstraps, once per store, an organization with /v2 access and every
// asset and operation (sandbox.Organization), funded with MWK, and the
// sandbox's MWK corridor (sandbox.Corridor); then records a USDT deposit
// on tron. As the organization (Engine.Act, Engine.Client):
//
//  1. a desk order: 100 USDT quoted to MWK (Client.QuoteOrder) and ordered
//     to a bank beneficiary (Client.CreateOrder), which the operator's desk
//     moves to processing and completed (Desk.MoveOrder);
//  2. a conversion: 200 USDT quoted to MWK (Client.QuoteConversion) and
//     converted (Client.CreateConversion), completed by the sandbox
//     converter;
//  3. a /v2 payout of 50 USDT to the sandbox's test wallet on tron
//     (Client.CreatePayout, sandbox.TestTronAddress), paid by the
//     sandbox provider with a 1 USDT wallet fee.
//
// Then it stops (Run returns, the store closes) and starts again over the
// same file: the bootstrap finds the organization instead of making
// another; the payout reads back succeeded and the provider, whose record
// is in the store, paid it once; the same create is a replay, not a
// second payout; a quote under the corridor's minimum is refused with a
// typed error (errors.Is(err, errcode.ErrAmountBelowMinimum)); and the
// balances are those of before. It prints one line per step:
//
//	go run ./examples/embed-v2
//
//	order       completed: 100.000000 USDT -> 175050.00 MWK at 1750.5
//	conversion  completed: 200.000000 USDT -> 350100.00 MWK at 1750.5
//	payout      succeeded: 50.000000 USDT to tron wallet, fee 1.000000 USDT, debited 51.000000 USDT
//	balance     MWK  available 450100.00, held 0.00
//	balance     USDT available 649.000000, held 0.000000
//	restart     the same organization: Acme Ltd
//	payout      succeeded, payments 1; created again: replayed true, same payout true
//	refused     The amount is below the minimum of 1000.00 MWK.
//	balance     MWK  available 450100.00, held 0.00
//	balance     USDT available 649.000000, held 0.000000
//
// The file is made in a temporary directory and removed at the end.
// main_test.go runs the program and checks these lines, so the example
// keeps working as the engine changes.
package main
