package sandbox

// The institutions of the sandbox's reference data
// (payouts.DefaultInstitutions), by id: the banks take bank payouts, the
// mobile money operators momo payouts.
const (
	NationalBankOfMalawi = 1
	StandardBankMalawi   = 2
	FDHBank              = 3
	NBSBank              = 4
	FirstCapitalBank     = 5
	AirtelMoney          = 101
	TNMMpamba            = 102
)

// The networks of the default table (networks.Default), by id: where
// USDT is deposited and paid out to wallets.
const (
	Tron     = "tron"
	Ethereum = "ethereum"
)

// Test destinations the sandbox Provider pays (any other destination
// fails with recipient_account_invalid), one of each kind: a bank
// account for a bank payout (at any bank, NationalBankOfMalawi say), a
// mobile wallet for a momo payout (at AirtelMoney), and a wallet
// address on each network for a /v2 wallet payout. The full lists are
// tambala.SandboxBankAccounts, tambala.SandboxWallets and
// TestWalletAddresses.
const (
	TestBankAccount     = "3333888800"
	TestWallet          = "111100000112"
	TestTronAddress     = "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"
	TestEthereumAddress = "0x1111111111111111111111111111111111111111"
)
