package tambala

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/tambalapay/tambala/store"
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

// decodedRecords is decodedRecord for many records of one kind, by id
// (API keys, organizations), so that authenticating a request decodes
// nothing while its key and organization are unchanged. It keeps at most
// max ids and starts over when full, so its memory is bounded.
type decodedRecords[T any] struct {
	max int
	mu  sync.Mutex
	m   map[string]*decodedRecord[T]
}

func (c *decodedRecords[T]) decode(id string, raw []byte, decode func([]byte) (T, error)) (T, error) {
	c.mu.Lock()
	r := c.m[id]
	if r == nil {
		if c.m == nil || len(c.m) >= c.max {
			c.m = make(map[string]*decodedRecord[T])
		}
		r = &decodedRecord[T]{}
		c.m[id] = r
	}
	c.mu.Unlock()
	return r.decode(raw, decode)
}

// decodeJSON returns a decoder of JSON records of type T.
func decodeJSON[T any](raw []byte) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// getCached reads the record at key and decodes it through cache.
func getCached[T any](tx store.Tx, bucket []byte, key string, cache *decodedRecords[T], notFound error) (T, error) {
	b, err := tx.Get(bucket, []byte(key))
	if errors.Is(err, store.ErrNotFound) {
		var zero T
		return zero, notFound
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return cache.decode(key, b, decodeJSON[T])
}
