package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/sha3"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/store"
)

// Issuer is the sandbox's tambala.DepositAddressIssuer: each (org,
// network) gets a deterministic address, valid for the network's format
// (TRON base58check, EVM with the EIP-55 checksum), derived from a hash
// of the pair, so the same pair gets the same first address in every
// process and no storage is needed. Each later Issue of a pair in one
// process (an operator's rotation) hashes a generation too, so it gives
// another address. Nothing is ever sent to one. An Issuer of NewPorts
// keeps those generations in its store (IssuerBucket), so that a rotation
// after a restart gives a new address too, never an earlier one again.
type Issuer struct {
	table networks.Table
	store store.Store // nil: generations in memory

	mu   sync.Mutex
	fail map[string]error // network -> scripted failure
	gen  map[string]int   // org \x00 network -> addresses issued so far
}

var _ tambala.DepositAddressIssuer = (*Issuer)(nil)

// NewIssuer returns an issuer for the networks of t (nil:
// networks.Default), the same table as the engine's Options.Networks.
func NewIssuer(t networks.Table) *Issuer {
	if t == nil {
		t = networks.Default()
	}
	return &Issuer{table: t, fail: map[string]error{}, gen: map[string]int{}}
}

// Fail scripts the issuer to fail on network with err (nil clears it), a
// test hook for the service_unavailable of an issuer that fails.
func (i *Issuer) Fail(network string, err error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if err == nil {
		delete(i.fail, network)
		return
	}
	i.fail[network] = err
}

// Issue implements tambala.DepositAddressIssuer.
func (i *Issuer) Issue(ctx context.Context, org, network string) (string, error) {
	n, err := i.table.Lookup(network)
	if err != nil {
		return "", err
	}
	i.mu.Lock()
	err = i.fail[network]
	pair := org + "\x00" + network
	gen := i.gen[pair]
	if err == nil && i.store == nil {
		i.gen[pair]++
	}
	i.mu.Unlock()
	if err != nil {
		return "", err
	}
	if i.store != nil {
		if gen, err = i.nextGeneration(ctx, pair); err != nil {
			return "", err
		}
	}
	label := "tambala sandbox deposit address\x00" + pair
	if gen > 0 {
		label += fmt.Sprintf("\x00%d", gen)
	}
	sum := sha256.Sum256([]byte(label))
	account := sum[:20]
	switch n.Kind {
	case networks.TRON:
		return tronAddress(account), nil
	case networks.EVM:
		return evmAddress(account), nil
	}
	return "", fmt.Errorf("sandbox: network %s has no known address format", network)
}

// IssuerBucket is the store bucket where an Issuer of NewPorts counts the
// addresses issued per organization and network.
const IssuerBucket = "sandbox.deposit_addresses"

var issuerBucket = []byte(IssuerBucket)

// nextGeneration counts one more address of pair in the store and returns
// how many were issued before it, in one small transaction.
func (i *Issuer) nextGeneration(ctx context.Context, pair string) (int, error) {
	var gen int
	err := i.store.Update(ctx, func(tx store.Tx) error {
		v, err := tx.Get(issuerBucket, []byte(pair))
		switch {
		case errors.Is(err, store.ErrNotFound):
			gen = 0
		case err != nil:
			return err
		default:
			if gen, err = strconv.Atoi(string(v)); err != nil {
				return fmt.Errorf("sandbox: issued addresses of %q: %w", pair, err)
			}
		}
		return tx.Put(issuerBucket, []byte(pair), []byte(strconv.Itoa(gen+1)))
	})
	return gen, err
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// tronAddress is the base58check of 0x41 and account.
func tronAddress(account []byte) string {
	payload := append([]byte{0x41}, account...)
	h1 := sha256.Sum256(payload)
	h2 := sha256.Sum256(h1[:])
	payload = append(payload, h2[:4]...)
	n := new(big.Int).SetBytes(payload)
	radix, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, b := range payload { // leading zero bytes are '1's (never: 0x41 leads)
		if b != 0 {
			break
		}
		out = append(out, '1')
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return string(out)
}

// evmAddress is account with the EIP-55 checksum.
func evmAddress(account []byte) string {
	lower := hex.EncodeToString(account)
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := h.Sum(nil)
	var b strings.Builder
	b.WriteString("0x")
	for i, c := range lower {
		nibble := sum[i/2]
		if i%2 == 0 {
			nibble >>= 4
		}
		if c >= 'a' && nibble&0xf >= 8 {
			c -= 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}
