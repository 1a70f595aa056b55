package pebblestore

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/tambalapay/tambala/store"
)

// latestValues is the committer's memory of the latest value of keys it has
// read or written: the database's latest state with the open batch's
// writes, which is what an update function reads. Only the committer
// touches it (no lock), and only the committer writes the database, so an
// entry can go stale only through a write the committer makes itself, and
// every such write updates it:
//
//   - a Get that misses reads through the open indexed batch (the batch's
//     writes over the database's latest state) and remembers what it found,
//     present or absent;
//   - every write an update adds to the open batch is remembered as it is
//     added;
//   - when a batch cannot be built, its writes never reach the database:
//     everything is forgotten (forget).
//
// A failed commit fails the store (no update runs again), so the memory of
// its writes is never read.
//
// Why: most of what a payout accept reads is the same few keys every time
// (the organization, its balances, settings that are absent), and a pebble
// Get of one walks the batch, the memtables and a filter block per level
// of sstables, each a skiplist or block search: about a microsecond each,
// and an absent key the most. Served from here, those reads cost a map
// lookup; keys read once (a new idempotency key, a new payout id) still
// go to pebble. docs/performance.md has the measurement.
//
// The memory is bounded by two generations: entries are added to the
// young one, a hit in the old one moves the entry to the young one, and
// when, between two batches, the young one holds generationBytes of keys
// and values, the old one is dropped and the young one becomes old (turn).
// Keys read every batch stay; keys read once leave after two generations.
// Only between batches: the entries of a batch not yet applied to the
// database must stay until it is, and such a batch is at most the one
// before, whose entries are all in the young generation or one turn old.
type latestValues struct {
	young, old           map[string]knownValue
	youngBytes, maxBytes int
}

// knownValue is what a cache knows of a key: its value, or that it is
// absent.
type knownValue struct {
	value   []byte // never written after it is stored; Get hands out copies
	present bool
}

// answer is Get's answer from v: a copy of the value, or ErrNotFound.
func (v knownValue) answer() ([]byte, error) {
	if !v.present {
		return nil, store.ErrNotFound
	}
	return clone(v.value), nil
}

// generationBytes bounds one generation's keys and values: the memory is at
// most about twice this, plus the maps' own overhead.
const generationBytes = 4 << 20

func newLatestValues(maxBytes int) *latestValues {
	return &latestValues{young: map[string]knownValue{}, old: map[string]knownValue{}, maxBytes: maxBytes}
}

// get returns the remembered value of the pebble key k.
func (l *latestValues) get(k []byte) (knownValue, bool) {
	if v, ok := l.young[string(k)]; ok {
		return v, true
	}
	v, ok := l.old[string(k)]
	if ok {
		delete(l.old, string(k))
		l.put(string(k), v)
	}
	return v, ok
}

// remember records the latest value of the pebble key k; value must not be
// written afterwards.
func (l *latestValues) remember(k []byte, value []byte, present bool) {
	// An older entry of k in the old generation stays: get finds the young
	// one first, and when the young generation becomes old the old one,
	// with that entry, is dropped.
	l.put(string(k), knownValue{value: value, present: present})
}

func (l *latestValues) put(key string, v knownValue) {
	if was, ok := l.young[key]; ok {
		l.youngBytes += len(v.value) - len(was.value)
	} else {
		l.youngBytes += len(key) + len(v.value)
	}
	l.young[key] = v
}

// turn drops the old generation and makes the young one old, if the young
// one is full. The committer calls it between batches only.
func (l *latestValues) turn() {
	if l.youngBytes >= l.maxBytes {
		l.old, l.young, l.youngBytes = l.young, make(map[string]knownValue, len(l.young)), 0
	}
}

// forget drops every entry.
func (l *latestValues) forget() {
	clear(l.young)
	clear(l.old)
	l.youngBytes = 0
}

// updateReader is what update functions read in the committer: the latest
// values it remembers, else the open indexed batch (whose reads it then
// remembers).
type updateReader struct {
	reader // over the open indexed batch
	latest *latestValues
	pb     *pebble.Batch    // the open indexed batch
	point  *pebble.Iterator // point lookups over pb; nil until the first
	seen   uint64           // pb.Len() when point last looked at it
	prev   *batch           // the batch before, until it is known applied
}

// waitPrev waits until the batch before is applied to the database (or
// given up on).
func (r *updateReader) waitPrev() {
	if r.prev != nil {
		<-r.prev.applyDone
		r.prev = nil
	}
}

// Scan reads a range through the open batch once the batch before is in
// the database: the remembered values cannot serve a range.
func (r *updateReader) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	r.waitPrev()
	return r.reader.Scan(bucket, opt, fn)
}

// pointLookups reads sstable filter blocks on every level. pebble's Get
// skips them on the last level, where most data lives, and reads a data
// block for every absent key instead: the most common read of a create
// (a new idempotency key, a new id) is of an absent key.
var pointLookups = pebble.IterOptions{UseL6Filters: true}

// lookupPoint reads the pebble key k through the open batch.
func (r *updateReader) lookupPoint(k []byte) (value []byte, found bool, err error) {
	if r.point == nil {
		if r.point, err = r.pb.NewIter(&pointLookups); err != nil {
			r.point = nil
			return nil, false, fmt.Errorf("pebblestore: get: %w", err)
		}
	} else if n := uint64(r.pb.Len()); n != r.seen {
		r.point.SetOptions(&pointLookups) // sees the batch's later writes
	}
	r.seen = uint64(r.pb.Len())
	// The default comparer's prefix of a key is the whole key: the
	// iterator finds k or nothing.
	if !r.point.SeekPrefixGE(k) {
		if err := r.point.Error(); err != nil {
			return nil, false, fmt.Errorf("pebblestore: get: %w", err)
		}
		return nil, false, nil
	}
	v, err := r.point.ValueAndErr()
	if err != nil {
		return nil, false, fmt.Errorf("pebblestore: get: %w", err)
	}
	return clone(v), true, nil
}

// close closes the point iterator, before the batch is.
func (r *updateReader) close() error {
	if r.point == nil {
		return nil
	}
	err := r.point.Close()
	r.point = nil
	return err
}

func (r *updateReader) Get(bucket, key []byte) ([]byte, error) {
	k, err := r.keyOf(bucket, key)
	if err != nil {
		return nil, err
	}
	if v, ok := r.latest.get(k); ok {
		return v.answer()
	}
	v, found, err := r.lookupPoint(k)
	if err != nil {
		return nil, err
	}
	if !found {
		r.latest.remember(k, nil, false)
		return nil, store.ErrNotFound
	}
	r.latest.remember(k, clone(v), true) // v is the caller's to change
	return v, nil
}
