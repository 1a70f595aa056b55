package storage

import "sync"

// A scratch is a buffer to build a key or a value in for one store call.
// A key built for a call through the store.Tx interface escapes, and so
// costs an allocation of its own; but Put keeps its own copy of key and
// value (the port's contract) and Get and Delete read their key only
// while they run (every adapter copies what it keeps), so one buffer can
// serve call after call once each has returned.
type scratch struct{ b []byte }

// scratchMax bounds the buffers kept for reuse, so that one outsized
// record does not pin its buffer.
const scratchMax = 4 << 10

var scratches = sync.Pool{New: func() any { return &scratch{b: make([]byte, 0, 256)} }}

// takeScratch returns an empty scratch; give it back with release once
// the store call that reads it has returned.
func takeScratch() *scratch {
	s := scratches.Get().(*scratch)
	s.b = s.b[:0]
	return s
}

// release gives s back for reuse; nothing may read its bytes afterwards.
func (s *scratch) release() {
	if cap(s.b) <= scratchMax {
		scratches.Put(s)
	}
}
