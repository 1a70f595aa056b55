package networks

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/tambalapay/tambala/money"

	"golang.org/x/crypto/sha3"

	"github.com/tambalapay/tambala/errcode"
)

// Kind is an address format.
type Kind string

const (
	// TRON addresses: base58check of 0x41 and a 20-byte account, 34
	// characters starting with T.
	TRON Kind = "tron"
	// EVM addresses: 0x and 40 hex digits; mixed case must carry the
	// EIP-55 checksum.
	EVM Kind = "evm"
)

// Network is a network the engine accepts: its id, its address format and
// the assets it carries.
type Network struct {
	ID     string
	Kind   Kind
	Assets []money.AssetCode
}

// Carries reports whether the network carries asset.
func (n Network) Carries(asset money.AssetCode) bool { return slices.Contains(n.Assets, asset) }

// CheckAddress checks a wallet address for asset on n:
// invalid_wallet_address naming the network when the shape is wrong for the
// network or the asset is not on it.
func (n Network) CheckAddress(asset money.AssetCode, addr string) error {
	if !n.Carries(asset) {
		return errcode.Newf(errcode.InvalidWalletAddress, "%s is not carried on the %s network.", asset, n.ID)
	}
	var ok bool
	switch n.Kind {
	case TRON:
		ok = validTRON(addr)
	case EVM:
		ok = validEVM(addr)
	}
	if !ok {
		return errcode.Newf(errcode.InvalidWalletAddress, "The address is not a valid %s address.", n.ID)
	}
	return nil
}

// Table is the networks an engine accepts, by id.
type Table map[string]Network

// Default is the sandbox's table: USDT on TRON and on Ethereum.
func Default() Table {
	return Table{
		"tron":     {ID: "tron", Kind: TRON, Assets: []money.AssetCode{"USDT"}},
		"ethereum": {ID: "ethereum", Kind: EVM, Assets: []money.AssetCode{"USDT"}},
	}
}

var idPattern = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// Lookup returns the network id names: unsupported_network for an id that
// is malformed or not in the table.
func (t Table) Lookup(id string) (Network, error) {
	n, ok := t[id]
	if !ok || !idPattern.MatchString(id) {
		shown := id
		if len(shown) > 32 {
			shown = shown[:32]
		}
		return Network{}, errcode.Newf(errcode.UnsupportedNetwork, "The network %q is not supported.", shown)
	}
	return n, nil
}

// Validate checks a table for the operator: ids, kinds, at least one
// asset each.
func (t Table) Validate() error {
	for id, n := range t {
		if !idPattern.MatchString(id) || n.ID != id {
			return fmt.Errorf("networks: bad network id %q", id)
		}
		if n.Kind != TRON && n.Kind != EVM {
			return fmt.Errorf("networks: network %s has no known address format", id)
		}
		if len(n.Assets) == 0 {
			return fmt.Errorf("networks: network %s carries no asset", id)
		}
	}
	return nil
}

// Sorted returns the networks by id.
func (t Table) Sorted() []Network {
	out := make([]Network, 0, len(t))
	for _, n := range t {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Network) int { return strings.Compare(a.ID, b.ID) })
	return out
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func decodeBase58(s string) ([]byte, bool) {
	n := new(big.Int)
	radix := big.NewInt(58)
	for _, c := range []byte(s) {
		i := strings.IndexByte(base58Alphabet, c)
		if i < 0 {
			return nil, false
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(i)))
	}
	b := n.Bytes()
	for _, c := range []byte(s) { // leading '1's are zero bytes
		if c != '1' {
			break
		}
		b = append([]byte{0}, b...)
	}
	return b, true
}

func validTRON(addr string) bool {
	if len(addr) != 34 || addr[0] != 'T' {
		return false
	}
	b, ok := decodeBase58(addr)
	if !ok || len(b) != 25 || b[0] != 0x41 {
		return false
	}
	h1 := sha256.Sum256(b[:21])
	h2 := sha256.Sum256(h1[:])
	return string(h2[:4]) == string(b[21:])
}

var evmPattern = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

func validEVM(addr string) bool {
	if !evmPattern.MatchString(addr) {
		return false
	}
	hexPart := addr[2:]
	if hexPart == strings.ToLower(hexPart) || hexPart == strings.ToUpper(hexPart) {
		return true
	}
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(strings.ToLower(hexPart)))
	sum := h.Sum(nil)
	for i, c := range hexPart { // EIP-55: a letter is upper case where the hash's nibble is >= 8
		if c >= '0' && c <= '9' {
			continue
		}
		nibble := sum[i/2]
		if i%2 == 0 {
			nibble >>= 4
		}
		if (nibble&0xf >= 8) != (c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
