//go:build race

package tambala_test

// raceEnabled: see race_off_test.go.
const raceEnabled = true
