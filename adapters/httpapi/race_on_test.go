//go:build race

package httpapi_test

// raceEnabled: see race_off_test.go.
const raceEnabled = true
