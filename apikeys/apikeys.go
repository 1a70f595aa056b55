package apikeys

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math/big"
	"strings"
)

// LivePrefix starts every issued key, in the sandbox and in production
// alike: the environment is chosen by the base address, not by the key.
const LivePrefix = "tmb_live_"

// RandomBytes is how many random bytes a key's body encodes.
const RandomBytes = 32

// DisplayLength is how many leading characters of a key are ever shown
// again (the key's "prefix" in listings, logs and support).
const DisplayLength = 16

// bodyLength is the base62 length of RandomBytes: ceil(256 / log2(62)) = 43.
const bodyLength = 43

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ErrMalformed is a string that cannot be a key.
var ErrMalformed = errors.New("apikeys: malformed key")

// Format renders random bytes as a key. len(random) must be RandomBytes.
func Format(random []byte) (string, error) {
	if len(random) != RandomBytes {
		return "", errors.New("apikeys: need 32 random bytes")
	}
	n := new(big.Int).SetBytes(random)
	body := make([]byte, bodyLength)
	base := big.NewInt(62)
	rem := new(big.Int)
	for i := bodyLength - 1; i >= 0; i-- {
		n.QuoRem(n, base, rem)
		body[i] = alphabet[rem.Int64()]
	}
	return LivePrefix + string(body), nil
}

// Parse checks that s has a key's shape.
func Parse(s string) error {
	if !strings.HasPrefix(s, LivePrefix) || len(s) != len(LivePrefix)+bodyLength {
		return ErrMalformed
	}
	for i := len(LivePrefix); i < len(s); i++ {
		if strings.IndexByte(alphabet, s[i]) < 0 {
			return ErrMalformed
		}
	}
	return nil
}

// Display returns the part of a key that may be shown again.
func Display(key string) string {
	if len(key) <= DisplayLength {
		return key
	}
	return key[:DisplayLength]
}

// Hash is what a key is stored as. Keys carry 256 random bits, so a plain
// SHA-256 cannot be brute-forced; no salt is needed, and the hash can index
// the lookup.
func Hash(key string) [32]byte {
	// A key of the usual length is copied to the stack, not converted:
	// a conversion of more than 32 bytes allocates.
	var buf [128]byte
	return sha256.Sum256(append(buf[:0], key...))
}

// Equal compares two hashes in constant time.
func Equal(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
