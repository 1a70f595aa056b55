package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// Builder accumulates the fields of one fingerprint.
type Builder struct {
	h hash.Hash
	n [binary.MaxVarintLen64]byte
}

// New starts the fingerprint of a request type: tag names it and its
// encoding's version ("payouts.Request/v1").
func New(tag string) *Builder {
	b := &Builder{h: sha256.New()}
	b.Field(tag)
	return b
}

// Field adds s.
func (b *Builder) Field(s string) {
	b.h.Write(b.n[:binary.PutUvarint(b.n[:], uint64(len(s)))])
	b.h.Write([]byte(s))
}

// Sum returns the fingerprint of the fields added so far.
func (b *Builder) Sum() [32]byte {
	var sum [32]byte
	b.h.Sum(sum[:0])
	return sum
}

// Of is the fingerprint of tag and fields.
func Of(tag string, fields ...string) [32]byte {
	b := New(tag)
	for _, f := range fields {
		b.Field(f)
	}
	return b.Sum()
}
