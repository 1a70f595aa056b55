package cache

import "sync"

// Hints remembers, by K, what a read found last time (an API key's hash:
// its key id and organization), so that the next read of K can name the
// keys it will read to a store that reads them ahead (store.Prefetch)
// before it has found them. A hint is never trusted: the read still
// follows what it finds, and a stale hint costs a read ahead, no more.
// It keeps at most Max entries and starts over when full, so its memory
// is bounded.
type Hints[K comparable, V comparable] struct {
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
	if old, ok := h.m[k]; ok && old == v {
		return
	}
	limit := h.Max
	if limit <= 0 {
		limit = 4096
	}
	if h.m == nil || len(h.m) >= limit {
		h.m = make(map[K]V)
	}
	h.m[k] = v
}
