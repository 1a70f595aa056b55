package pgstore

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"sync"
)

// Contention. Two transactions that read and write one row (an
// organization's balance) at once cannot both commit: the one that
// commits second fails to serialize, after running all its functions,
// and runs them again, racing the next writer. So, while contention
// lasts, the transactions that may write such a key take a lock for it
// first, and those of every process take turns, each waiting for the one
// before instead of failing after it; and an update that failed to
// serialize runs again holding locks on every key it wrote, so it does
// not fail again for the same reason.
//
// The lock of a hot key is a row of its own, in the reserved bucket ""
// (no caller's bucket has an empty name), keyed by a hash of the bucket
// and key: a transaction writes the lock rows of the hot keys as its
// first statement, so that another waiting for one reads after it ends
// (it fails to serialize when the holder commits, and takes the lock in a
// new transaction). Data rows locked first instead would deadlock:
// processes learn different hot keys, and a transaction holding a hot
// key's row writes the other rows at commit, in key order, which may
// come before it. Lock rows are written by lock statements only, each
// taking all of its transaction's lock rows at once, in order.

// hotSet is the keys a store's transactions lock up front: those that
// updates read, found and wrote in transactions that failed to
// serialize. A key stays hot until hotKeep transactions in a row that
// wrote something have not written it, and no key is after calmTxs
// transactions without a serialization failure (a commit's or a
// lock's).
type hotSet struct {
	mu        sync.Mutex
	keys      map[string]*hotKey // by cache key
	txs       uint64             // transactions counted (that wrote)
	contended uint64             // txs at the last serialization failure
}

type hotKey struct {
	lockRow []byte // its key in the bucket ""
	written uint64 // txs when a transaction last wrote it
}

const (
	hotKeep = 64
	calmTxs = 1024
)

// lockRow is the key of the lock row of the key whose cache key is ck.
func lockRow(ck string) []byte {
	h := sha256.Sum256([]byte(ck))
	return h[:16]
}

// lockRows returns the lock rows of the hot keys, sorted.
func (h *hotSet) lockRows() [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.keys) == 0 {
		return nil
	}
	rows := make([][]byte, 0, len(h.keys))
	for _, k := range h.keys {
		rows = append(rows, k.lockRow)
	}
	slices.SortFunc(rows, bytes.Compare)
	return rows
}

// empty reports whether no key is hot.
func (h *hotSet) empty() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.keys) == 0
}

// contention records a serialization failure of a lock statement.
func (h *hotSet) contention() {
	h.mu.Lock()
	h.contended = h.txs
	h.mu.Unlock()
}

// failed records a transaction that failed to serialize after writing
// written: the keys of it that t read and found become hot. (The keys
// of new records were missing when read; they concern one update.)
func (h *hotSet) failed(written *writtenSet, t *tx) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.contended = h.txs
	for ck := range written.keys {
		if c, ok := t.cache[ck]; !ok || !c.found {
			continue
		}
		if k := h.keys[ck]; k != nil {
			k.written = h.txs
			continue
		}
		if h.keys == nil {
			h.keys = make(map[string]*hotKey)
		}
		h.keys[ck] = &hotKey{lockRow: lockRow(ck), written: h.txs}
	}
}

// wrote records a transaction that wrote written (committed or not), and
// forgets the keys that are hot no more.
func (h *hotSet) wrote(written *writtenSet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.txs++
	if h.txs-h.contended > calmTxs {
		clear(h.keys)
		return
	}
	for ck, k := range h.keys {
		if _, ok := written.keys[ck]; ok {
			k.written = h.txs
		} else if h.txs-k.written > hotKeep {
			delete(h.keys, ck)
		}
	}
}

// lockFirst begins t with the lock rows of the hot keys and the rows of
// relock (see tx.lock), if any. While that fails to serialize (it waited
// for a holder that wrote a row), it is sent again at once in a new
// transaction on the same connection, until it holds or wait says nobody
// waits for the outcome any more. It returns the transaction that holds
// the locks. Taking the locks runs no function: it counts as no attempt.
func (s *Store) lockFirst(t *tx, relock []write, wait func() bool) (*tx, error) {
	rows := s.hot.lockRows()
	if len(rows) == 0 && len(relock) == 0 {
		return t, nil
	}
	slices.SortFunc(relock, compareWrites)
	relock = slices.CompactFunc(relock, func(a, b write) bool { return compareWrites(a, b) == 0 })
	for {
		err := t.lock(rows, relock)
		if err == nil || !isRetryable(err) || !wait() {
			return t, err
		}
		s.stats.relocks.Add(1)
		s.hot.contention()
		t.end()
		lazy := t.lazy
		t = newTx(s, t.conn, t.ctx, false)
		t.lazy = lazy
	}
}
