package codec

import "time"

// PauseRecord is the stored form of the pause switches (the engine's
// PauseState): {"v1","v2","v2_pauses"?}, a mode "" being live.
type PauseRecord struct {
	V1       string              `json:"v1"`
	V2       string              `json:"v2"`
	V2Pauses []PauseWindowRecord `json:"v2_pauses,omitempty"`
}

// PauseWindowRecord is one /v2 pause: {"from","to"?}, to absent while it
// lasts.
type PauseWindowRecord struct {
	From time.Time  `json:"from"`
	To   *time.Time `json:"to,omitempty"`
}
