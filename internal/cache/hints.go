package cache

import "sync"

// Hints remembers, by K, what a read found last time, so that the next
// read of K can start from it: an API key's hash, its key id, organization
// and what Authenticate made of them. What a read does with a hint is its
// own affair: Authenticate names the records to a store that reads them
// ahead (store.Prefetch), and uses what it found only while the
// authentication epoch it read then is unchanged (keys.go). It keeps at
// most Max entries and starts over when full, so its memory is bounded.
type Hints[K comparable, V any] struct {
	Max int // the most entries kept; 0 means 4096
	mu  sync.Mutex
	m   map[K]V
}

// Get returns the hint kept for k.
func (h *Hints[K, V]) Get(k K) (V, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[k]
	return v, ok
}

// Put keeps v as the hint for k.
func (h *Hints[K, V]) Put(k K, v V) {
	h.mu.Lock()
	defer h.mu.Unlock()
	limit := h.Max
	if limit <= 0 {
		limit = 4096
	}
	if _, ok := h.m[k]; !ok && (h.m == nil || len(h.m) >= limit) {
		h.m = make(map[K]V)
	}
	h.m[k] = v
}
