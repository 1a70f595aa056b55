//go:build !race

package tambala_test

// raceEnabled is whether the race detector is on: it changes allocation
// counts (sync.Pool drops what it is given at random, among others), so
// the allocation guards check only builds without it.
const raceEnabled = false
