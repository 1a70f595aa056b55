package webui

import (
	"testing"
	"time"
)

// TestDuration: a duration reads as people read it, never as Go prints
// one ("2.520611ms").
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{-time.Second, "0 ms"},
		{1, "1 ns"},
		{850, "850 ns"},
		{999, "999 ns"},
		{time.Microsecond, "1 µs"},
		{1500 * time.Nanosecond, "1.5 µs"},
		{144446 * time.Nanosecond, "144 µs"},
		{999700 * time.Nanosecond, "1 ms"},
		{2520611 * time.Nanosecond, "2.5 ms"},
		{9960 * time.Microsecond, "10 ms"},
		{12340 * time.Microsecond, "12 ms"},
		{999 * time.Millisecond, "999 ms"},
		{time.Second, "1 s"},
		{1234 * time.Millisecond, "1.2 s"},
		{30 * time.Second, "30 s"},
		{59999 * time.Millisecond, "60 s"},
		{time.Minute, "1 min"},
		{125 * time.Second, "2 min 5 s"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}
