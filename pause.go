package tambala

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// API names a versioned half of the API, paused separately.
type API string

const (
	APIv1 API = "v1"
	APIv2 API = "v2"
)

// PauseMode is why an API is paused; "" means live.
type PauseMode string

const (
	Live        PauseMode = ""
	Maintenance PauseMode = "maintenance"
	Incident    PauseMode = "incident"
)

// PauseState holds both switches, and the recent /v2 pauses (the order
// expiry sweep and proof uploads honour funding deadlines that fell inside
// one).
type PauseState struct {
	V1       PauseMode
	V2       PauseMode
	V2Pauses []PauseWindow
}

// PauseWindow is one /v2 pause: From when it started, To when /v2 was live
// again (nil while it lasts).
type PauseWindow struct {
	From time.Time
	To   *time.Time
}

// maxPauseWindows is how many /v2 pauses are remembered: enough for every
// funding window (72 h by default) to meet each pause that touched it.
const maxPauseWindows = 64

// Of returns the mode of api.
func (s PauseState) Of(api API) PauseMode {
	if api == APIv2 {
		return s.V2
	}
	return s.V1
}

// Err returns the error a request to api gets while paused, or nil.
func (s PauseState) Err(api API) error {
	switch s.Of(api) {
	case Maintenance:
		return errcode.New(errcode.ServiceMaintenance)
	case Incident:
		return errcode.New(errcode.ServiceIncident)
	}
	return nil
}

// PingStatus is the state of /v2 under s, as a /v2 ping reports it: live,
// maintenance or outage.
func (s PauseState) PingStatus() string {
	switch s.V2 {
	case Maintenance:
		return "maintenance"
	case Incident:
		return "outage"
	}
	return "live"
}

var pauseKey = []byte("pause")

// readPause reads the switches in tx; the decoding is cached while the
// stored bytes are unchanged, since every use case reads them.
func (e *Engine) readPause(tx store.Tx) (PauseState, error) {
	raw, err := tx.Get(bucketSettings, pauseKey)
	if errors.Is(err, store.ErrNotFound) {
		return PauseState{}, nil
	}
	if err != nil {
		return PauseState{}, err
	}
	return e.cachedPause.Decode(raw, decodePause)
}

// pause is Operator.Pause.
func (e *Engine) pause(ctx context.Context) (PauseState, error) {
	var s PauseState
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		s, err = e.readPause(tx)
		return err
	})
	return s, err
}

// setPause is Operator.SetPause.
func (e *Engine) setPause(ctx context.Context, api API, mode PauseMode) (PauseState, error) {
	if api != APIv1 && api != APIv2 {
		return PauseState{}, errcode.Newf(errcode.ValidationError, "api must be v1 or v2")
	}
	if mode != Live && mode != Maintenance && mode != Incident {
		return PauseState{}, errcode.Newf(errcode.ValidationError, "mode must be live, maintenance or incident")
	}
	var s PauseState
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		if s, err = e.readPause(tx); err != nil {
			return err
		}
		was := s.V1
		if api == APIv2 {
			was = s.V2
		}
		if err := e.auditAs(ctx, tx, "", AuditPauseChanged, string(api), fmt.Sprintf("%s %s -> %s", api, modeText(was), modeText(mode))); err != nil {
			return err
		}
		if api == APIv1 {
			s.V1 = mode
		} else {
			now := e.nowUTC()
			switch {
			case s.V2 == Live && mode != Live:
				s.V2Pauses = append(s.V2Pauses, PauseWindow{From: now})
				if len(s.V2Pauses) > maxPauseWindows {
					s.V2Pauses = s.V2Pauses[len(s.V2Pauses)-maxPauseWindows:]
				}
			case s.V2 != Live && mode == Live && len(s.V2Pauses) > 0:
				s.V2Pauses[len(s.V2Pauses)-1].To = &now
			}
			s.V2 = mode
		}
		return storage.PutJSON(tx, bucketSettings, string(pauseKey), toPauseRecord(s))
	})
	return s, err
}

// modeText is a pause mode for the audit trail: "live" for Live.
func modeText(m PauseMode) string {
	if m == Live {
		return "live"
	}
	return string(m)
}
