package binrec

import (
	"encoding/binary"
	"errors"
)

// ErrTruncated is the error of a read past the end of the record.
var ErrTruncated = errors.New("truncated record")

// Reader reads B front to back. After the first error (Err) every read
// returns a zero value and B is empty.
type Reader struct {
	B   []byte
	Err error
}

// FailWith records err unless an error is already recorded, and empties
// the rest of the record.
func (r *Reader) FailWith(err error) {
	if r.Err == nil {
		r.Err = err
	}
	r.B = nil
}

// Fail records ErrTruncated.
func (r *Reader) Fail() { r.FailWith(ErrTruncated) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.B) < 1 {
		r.Fail()
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Bytes reads a uvarint length and that many bytes, which share the
// record's memory.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.Fail()
		return nil
	}
	s := r.B[:n]
	r.B = r.B[n:]
	return s
}
