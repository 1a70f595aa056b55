// Package cache keeps the last decoding of stored records that are read on
// every request and rarely change, keyed by their exact stored bytes, so a
// read still sees exactly what is committed but decodes nothing while the
// bytes are unchanged.
package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/store"
)

// Record caches the decoding of one stored record that every
// payout reads and the operator rarely changes (the rails, the
// institutions): a read still fetches the stored bytes in its own
// transaction, so it sees exactly what is committed, but reuses the last
// decoded value when those bytes are unchanged. Values are shared: callers
// treat them as read-only.
type Record[T any] struct {
	mu  sync.Mutex
	raw []byte
	val T
	ok  bool
}

func (c *Record[T]) Decode(raw []byte, decode func([]byte) (T, error)) (T, error) {
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

// Records is Record for many records of one kind, by id
// (API keys, organizations), so that authenticating a request decodes
// nothing while its key and organization are unchanged. It keeps at most
// max ids and starts over when full, so its memory is bounded.
type Records[T any] struct {
	Max int // the most ids kept; 0 means 4096
	mu  sync.Mutex
	m   map[string]*Record[T]
}

func (c *Records[T]) Decode(id string, raw []byte, decode func([]byte) (T, error)) (T, error) {
	c.mu.Lock()
	r := c.m[id]
	if r == nil {
		if c.m == nil || len(c.m) >= c.limit() {
			c.m = make(map[string]*Record[T])
		}
		r = &Record[T]{}
		c.m[id] = r
	}
	c.mu.Unlock()
	return r.Decode(raw, decode)
}

// keys are the buffers Get builds its key in: a store reads a Get's key
// only while the call runs, and a conversion for the interface call
// would allocate.
var keys = sync.Pool{New: func() any { b := make([]byte, 0, 64); return &b }}

// DecodeJSON decodes a JSON record of type T.
func DecodeJSON[T any](raw []byte) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// Get reads the record at key in tx and decodes it with decode through c;
// a missing record is notFound. The record is borrowed (lend.Get): the
// cache compares it and keeps a copy, and decode must not keep or modify
// it.
func Get[T any](tx store.Tx, bucket []byte, key string, c *Records[T], notFound error, decode func([]byte) (T, error)) (T, error) {
	kb := keys.Get().(*[]byte)
	*kb = append((*kb)[:0], key...)
	b, err := lend.Get(tx, bucket, *kb)
	keys.Put(kb)
	if errors.Is(err, store.ErrNotFound) {
		var zero T
		return zero, notFound
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return c.Decode(key, b, decode)
}

func (c *Records[T]) limit() int {
	if c.Max <= 0 {
		return 4096
	}
	return c.Max
}
