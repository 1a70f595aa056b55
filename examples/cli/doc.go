// Command cli is a host that uses the engine as a library only, with no
// HTTP and no JSON: the /v2 flows end to end, in one process, each
// followed to its outcome through the in-process events
// (Options.Events) rather than by sleeping or polling.
//
// It makes an engine over the in-memory store with the sandbox's payout
// provider and converter (their delays set to 10ms) and runs Engine.Run in
// the background. The operator (Engine.Operator) creates an organization
// with /v2 access and MWK and USDT enabled, funds it with MWK, records a
// USDT deposit on tron and opens the MWK corridor. Then, as the
// organization (Engine.Act, Engine.Client):
//
//  1. a desk order: 100 USDT quoted to MWK (Client.QuoteOrder) and ordered
//     to a bank beneficiary (Client.CreateOrder), which the operator's desk
//     moves to processing and completed (Operator.MoveOrder);
//  2. a conversion: 200 USDT quoted to MWK (Client.QuoteConversion) and
//     converted (Client.CreateConversion), completed by the sandbox
//     converter;
//  3. a /v2 payout of 50 USDT to a sandbox test wallet on tron
//     (Client.CreatePayoutV2), paid by the sandbox provider with a 1 USDT
//     wallet fee;
//
// and it prints one line per step, with its final status and amounts,
// then the organization's balances:
//
//	go run ./examples/cli
//
//	order       completed: 100.000000 USDT -> 175050.00 MWK at 1750.5
//	conversion  completed: 200.000000 USDT -> 350100.00 MWK at 1750.5
//	payout      succeeded: 50.000000 USDT to tron wallet, fee 1.000000 USDT, debited 51.000000 USDT
//	balance     MWK  available 450100.00, held 0.00
//	balance     USDT available 649.000000, held 0.000000
//
// main_test.go runs the program and checks these lines, so the example
// keeps working as the engine changes.
package main
