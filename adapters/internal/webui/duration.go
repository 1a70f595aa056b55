package webui

import (
	"math"
	"strconv"
	"time"
)

// Duration is d as people read it: the largest unit of ns, µs, ms and s
// it has at least one of, with one decimal below ten ("2.5 ms", "1.2 s")
// and none from ten up ("144 µs", "12 ms"); from a minute up, minutes
// and whole seconds ("2 min 5 s"). A negative d reads as zero.
func Duration(d time.Duration) string {
	if d <= 0 {
		return "0 ms"
	}
	if d >= time.Minute {
		d = d.Round(time.Second)
		m, s := int64(d/time.Minute), int64(d%time.Minute/time.Second)
		if s == 0 {
			return strconv.FormatInt(m, 10) + " min"
		}
		return strconv.FormatInt(m, 10) + " min " + strconv.FormatInt(s, 10) + " s"
	}
	units := []struct {
		size time.Duration
		name string
	}{{time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "µs"}, {time.Nanosecond, "ns"}}
	for i, u := range units {
		if d < u.size && i < len(units)-1 {
			continue
		}
		v := float64(d) / float64(u.size)
		if r := math.Round(v*10) / 10; r < 10 {
			return strconv.FormatFloat(r, 'f', -1, 64) + " " + u.name
		}
		r := math.Round(v)
		if r >= 1000 && i > 0 {
			// 999.7 µs rounds to 1,000 µs: it reads as 1 ms.
			return "1 " + units[i-1].name
		}
		return strconv.FormatFloat(r, 'f', 0, 64) + " " + u.name
	}
	return "0 ms" // not reached: every d ≥ 1 ns has a unit
}
