package cache_test

import (
	"testing"

	"github.com/tambalapay/tambala/internal/cache"
)

func TestHintsKeepTheLastAndStayBounded(t *testing.T) {
	h := cache.Hints[int, string]{Max: 3}
	if _, ok := h.Get(1); ok {
		t.Fatal("an empty Hints has a hint")
	}
	h.Put(1, "a")
	h.Put(1, "b")
	if v, ok := h.Get(1); !ok || v != "b" {
		t.Fatalf("Get(1) = %q, %v; want the last hint put, b", v, ok)
	}
	h.Put(2, "c")
	h.Put(3, "d")
	h.Put(3, "d") // unchanged: kept, no start over
	if v, ok := h.Get(2); !ok || v != "c" {
		t.Fatalf("Get(2) = %q, %v; want c", v, ok)
	}
	h.Put(4, "e") // full: starts over
	if _, ok := h.Get(1); ok {
		t.Fatal("a full Hints kept its old entries")
	}
	if v, ok := h.Get(4); !ok || v != "e" {
		t.Fatalf("Get(4) = %q, %v; want e", v, ok)
	}
}
