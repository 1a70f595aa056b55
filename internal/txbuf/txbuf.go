package txbuf

import (
	"bytes"
	"slices"

	"github.com/tambalapay/tambala/store"
)

// Reader is the read side of a transaction the buffer sits on.
type Reader interface {
	Get(bucket, key []byte) ([]byte, error)
	Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error
}

// Writer receives the buffered writes when they are applied.
type Writer interface {
	Put(bucket, key, value []byte) error
	Delete(bucket, key []byte) error
}

type write struct {
	value   []byte
	deleted bool
}

// Tx is a store.Tx whose writes are buffered over a base Reader.
type Tx struct {
	base    Reader
	buckets map[string]map[string]write
	order   []string // bucket names in first-write order, for a stable Apply
}

// New returns a buffer over base.
func New(base Reader) *Tx { return &Tx{base: base} }

// Reset empties the buffer and sets a new base, so a Tx can be reused.
func (t *Tx) Reset(base Reader) {
	t.base = base
	clear(t.buckets)
	t.order = t.order[:0]
}

// Len reports how many keys are buffered.
func (t *Tx) Len() int {
	n := 0
	for _, b := range t.buckets {
		n += len(b)
	}
	return n
}

func (t *Tx) Get(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	if w, ok := t.buckets[string(bucket)][string(key)]; ok {
		if w.deleted {
			return nil, store.ErrNotFound
		}
		return bytes.Clone(w.value), nil
	}
	return t.base.Get(bucket, key)
}

func (t *Tx) set(bucket, key []byte, w write) {
	if t.buckets == nil {
		t.buckets = make(map[string]map[string]write)
	}
	b, ok := t.buckets[string(bucket)]
	if !ok {
		b = make(map[string]write)
		t.buckets[string(bucket)] = b
		t.order = append(t.order, string(bucket))
	}
	b[string(key)] = w
}

func (t *Tx) Put(bucket, key, value []byte) error {
	if err := store.CheckPut(bucket, key, value); err != nil {
		return err
	}
	v := make([]byte, len(value))
	copy(v, value)
	t.set(bucket, key, write{value: v})
	return nil
}

func (t *Tx) Delete(bucket, key []byte) error {
	if err := store.CheckKey(bucket, key); err != nil {
		return err
	}
	t.set(bucket, key, write{deleted: true})
	return nil
}

// Scan merges the buffered writes of bucket with the base's keys.
func (t *Tx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	buf := t.buckets[string(bucket)]
	if len(buf) == 0 {
		return t.base.Scan(bucket, opt, fn)
	}
	keys := make([]string, 0, len(buf))
	for k := range buf {
		if opt.InRange([]byte(k)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if opt.Reverse {
		slices.Reverse(keys)
	}
	before := func(a, b string) bool { // a comes before b in scan order
		if opt.Reverse {
			return a > b
		}
		return a < b
	}
	i := 0
	stopped := false
	emitBuffered := func(limit *string) (bool, error) {
		for i < len(keys) && (limit == nil || before(keys[i], *limit)) {
			k := keys[i]
			i++
			w := buf[k]
			if w.deleted {
				continue
			}
			more, err := fn([]byte(k), bytes.Clone(w.value))
			if err != nil || !more {
				return false, err
			}
		}
		return true, nil
	}
	err := t.base.Scan(bucket, opt, func(key, value []byte) (bool, error) {
		ks := string(key)
		more, err := emitBuffered(&ks)
		if err != nil || !more {
			stopped = true
			return false, err
		}
		if i < len(keys) && keys[i] == ks {
			i++ // the buffer shadows this key
			w := buf[ks]
			if w.deleted {
				return true, nil
			}
			value = bytes.Clone(w.value)
		}
		more, err = fn(key, value)
		if !more || err != nil {
			stopped = true
		}
		return more, err
	})
	if err != nil || stopped {
		return err
	}
	_, err = emitBuffered(nil)
	return err
}

// Apply writes the buffered changes to w, bucket by bucket in first-write
// order and keys in ascending order.
func (t *Tx) Apply(w Writer) error {
	for _, name := range t.order {
		b := t.buckets[name]
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			wr := b[k]
			var err error
			if wr.deleted {
				err = w.Delete([]byte(name), []byte(k))
			} else {
				err = w.Put([]byte(name), []byte(k), wr.value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
