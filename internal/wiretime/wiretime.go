package wiretime

import "time"

// Layout is the wire's one timestamp layout: RFC 3339, UTC, millisecond
// precision.
const Layout = "2006-01-02T15:04:05.000Z"

// Format renders t in Layout (in UTC).
func Format(t time.Time) string { return t.UTC().Format(Layout) }
