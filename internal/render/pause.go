package render

import "encoding/json"

// Pause is the rendering of the pause switches (the engine's PauseState)
// for the operator: {"v1","v2"}, each live, maintenance or incident. The
// engine's live mode is "", rendered as live.
func Pause(v1, v2 string) []byte {
	mode := func(m string) string {
		if m == "" {
			return "live"
		}
		return m
	}
	b, _ := json.Marshal(struct {
		V1 string `json:"v1"`
		V2 string `json:"v2"`
	}{mode(v1), mode(v2)})
	return b
}
