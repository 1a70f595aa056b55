//go:build !race

package httpapi_test

// raceEnabled is whether the race detector is on: it changes allocation
// counts (sync.Pool drops what it is given at random, among others), so
// the allocation guard checks only builds without it.
const raceEnabled = false
