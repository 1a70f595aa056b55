package tambala

import (
	"bytes"
	"sync"
)

// decodedRecord caches the decoding of one stored record that every
// payout reads and the operator rarely changes (the rails, the
// institutions): a read still fetches the stored bytes in its own
// transaction, so it sees exactly what is committed, but reuses the last
// decoded value when those bytes are unchanged. Values are shared: callers
// treat them as read-only.
type decodedRecord[T any] struct {
	mu  sync.Mutex
	raw []byte
	val T
	ok  bool
}

func (c *decodedRecord[T]) decode(raw []byte, decode func([]byte) (T, error)) (T, error) {
	c.mu.Lock()
	if c.ok && bytes.Equal(c.raw, raw) {
		v := c.val
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := decode(raw)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	c.raw, c.val, c.ok = bytes.Clone(raw), v, true
	c.mu.Unlock()
	return v, nil
}
