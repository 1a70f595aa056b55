package render

import "testing"

func TestPauseBytes(t *testing.T) {
	pin(t, Pause("", "maintenance"), `{"v1":"live","v2":"maintenance"}`)
	pin(t, Pause("incident", ""), `{"v1":"incident","v2":"live"}`)
}
