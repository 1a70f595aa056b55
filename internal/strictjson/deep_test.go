package strictjson_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/internal/strictjson"
)

// A deeply nested value (within a member the target keeps raw, so that
// every level is checked) costs memory in proportion to the body, not to
// its square: field paths are built for messages, which show no more than
// their first bytes, so a path stops growing past that.
func TestDeepNestingCostsLinearMemory(t *testing.T) {
	for _, n := range []int{1000, 9000} {
		body := `{"a":` + strings.Repeat(`[`, n) + strings.Repeat(`]`, n) + `}`
		var v struct {
			A json.RawMessage `json:"a"`
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := strictjson.Unmarshal([]byte(body), &v)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("depth %d (%d bytes): %v, %d bytes allocated", n, len(body), err, allocated)
		if limit := uint64(1000 * len(body)); allocated > limit {
			t.Errorf("depth %d: %d bytes allocated for a body of %d, more than %d", n, allocated, len(body), limit)
		}
	}
}
