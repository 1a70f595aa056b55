// Package networks holds the pure rules of the blockchain networks that
// carry stablecoins on /v2: network ids (^[a-z0-9_]{1,32}$), which assets
// each network carries, and one address validator per network kind (TRON
// base58check, EVM hex with the EIP-55 checksum when mixed case). Deposit
// addresses, wallet payout destinations and simulated collections use it.
package networks
