// Package sandbox is the sandbox's simulation of every port the engine
// calls out to, for the sandbox and for tests: a bank, mobile-money and
// wallet payout provider (Provider, a tambala.PayoutProvider), a
// conversion provider (Converter) and a deposit address issuer (Issuer).
//
// NewPorts gives all three at once over the engine's store, and Set puts
// them in tambala.Options, so that a sandbox engine has every flow and
// its ports' state survives a restart:
//
//	ports := sandbox.NewPorts(st, nil)
//	e, err := tambala.New(st, ports.Set(&tambala.Options{Events: h}))
//
// /v2 also needs the operator's state: Organization is a new
// organization with /v2 access and every asset and operation, Corridor
// the sandbox's open MWK corridor. The sandbox's reference data and test
// destinations are constants: the institutions (AirtelMoney, ...), the
// networks (Tron, Ethereum), and one payable destination of each kind
// (TestBankAccount, TestWallet, TestTronAddress, TestEthereumAddress).
//
// The Provider pays only the sandbox test destinations of docs/decisions.md (bank
// accounts 3333888800..09, the listed test wallets); any other destination
// fails with recipient_account_invalid. A payout succeeds after a
// configurable delay and reports the fee of the schedule. Tests script any
// outcome per destination or per payout: success with a given fee, each
// failure code, a timeout (the submission is accepted but the call fails,
// the worst case for double submission), or a clawback after success.
// Submissions are idempotent per reference, and the provider counts how
// many times each reference was actually paid.
//
// The first accepted submission of a reference decides its fate: the
// outcome (failure code, or success with its fee, and a clawback) and the
// time it is due (the delay after that submission). With Options.Store,
// the engine's store, the provider keeps each accepted submission with
// that decision in its own bucket, Bucket ("sandbox.submissions"), one
// small transaction per new reference, so a Provider built over the same
// store after a restart answers Status for every payout submitted before
// it, with the same outcome at the same time, and a submission repeated
// after the restart is the same payout, never a second payment. Without a
// Store, submissions live in the Provider's memory and end with it.
//
// Scripts (ScriptDestination, ScriptPayout) and scripted timeouts still to
// come are test hooks and live in memory only: a restarted Provider has
// none, but what a script decided at a submission is in the stored record.
// Payments counts stored submissions; SubmitCalls counts this Provider's
// calls.
package sandbox
