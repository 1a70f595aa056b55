package tambala

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
)

// toPauseRecord is the stored form of s.
func toPauseRecord(s PauseState) codec.PauseRecord {
	r := codec.PauseRecord{V1: string(s.V1), V2: string(s.V2)}
	if s.V2Pauses != nil {
		r.V2Pauses = make([]codec.PauseWindowRecord, len(s.V2Pauses))
		for i, w := range s.V2Pauses {
			r.V2Pauses[i] = codec.PauseWindowRecord{From: w.From, To: w.To}
		}
	}
	return r
}

// fromPauseRecord reads stored switches back.
func fromPauseRecord(r codec.PauseRecord) PauseState {
	s := PauseState{V1: PauseMode(r.V1), V2: PauseMode(r.V2)}
	if r.V2Pauses != nil {
		s.V2Pauses = make([]PauseWindow, len(r.V2Pauses))
		for i, w := range r.V2Pauses {
			s.V2Pauses[i] = PauseWindow{From: w.From, To: w.To}
		}
	}
	return s
}

// decodePause decodes the stored switches.
func decodePause(raw []byte) (PauseState, error) {
	r, err := cache.DecodeJSON[codec.PauseRecord](raw)
	return fromPauseRecord(r), err
}
