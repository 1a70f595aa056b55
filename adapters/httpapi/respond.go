package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
)

type errorBody struct {
	Error struct {
		Code    errcode.Code `json:"code"`
		Message string       `json:"message"`
	} `json:"error"`
}

// writeJSON writes v as JSON with status; Content-Type is set before the
// header is written.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, mustErrorBody(errcode.InternalError, errcode.Lookup(errcode.InternalError).Message)
	}
	writeRaw(w, status, b)
}

// writeRaw writes bytes already rendered as JSON.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	setHeader(w, "Content-Type", "application/json")
	setHeader(w, "Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func mustErrorBody(code errcode.Code, msg string) []byte {
	var e errorBody
	e.Error.Code, e.Error.Message = code, msg
	b, _ := json.Marshal(e)
	return b
}

// writeError renders err in the envelope with its code's status. Errors
// without a code are internal_error; their details go only to the log.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var pending *tambala.ApprovalPendingError
	if errors.As(err, &pending) {
		// An operator's move above its approval threshold: nothing moved,
		// and it waits for a staff member's approval.
		writeJSON(w, http.StatusAccepted, map[string]any{"approval": approvalJSON(pending.Approval)})
		return
	}
	err = headerWords(err)
	code := errcode.Of(err)
	spec := errcode.Lookup(code)
	if li := logInfoFrom(r.Context()); li != nil {
		li.code = spec.Code
	}
	if code == errcode.InternalError {
		attrs := appendTrace([]slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("request_id", requestID(r))}, r)
		log.LogAttrs(r.Context(), slog.LevelError, "internal error", append(attrs, slog.Any("error", err))...)
	}
	writeRaw(w, Status(spec.Code), mustErrorBody(spec.Code, errcode.Message(err)))
}

var errTooLarge = errcode.New(errcode.PayloadTooLarge)

// headerWords words the engine's idempotency-key refusals for HTTP, where
// the key is the Idempotency-Key header.
func headerWords(err error) error {
	switch {
	case errors.Is(err, tambala.ErrNoIdempotencyKey):
		return errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is required.")
	case errors.Is(err, tambala.ErrIdempotencyKeyTooLong):
		return errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is longer than %d characters.", tambala.MaxIdempotencyKeyLength)
	}
	return err
}

// checkJSONBody is the media type rule of every route that reads a JSON
// body: a request that carries a body must declare it with a Content-Type
// of application/json (the type in any case), with no charset but utf-8;
// other parameters are ignored. A request with no body (Content-Length 0)
// needs no Content-Type: there is nothing to declare, and the route
// answers for the missing fields. Anything else, a body without a
// Content-Type and a malformed or repeated header included, is 415
// unsupported_media_type.
func checkJSONBody(r *http.Request) error {
	values := r.Header.Values("Content-Type")
	if len(values) == 0 {
		if r.ContentLength == 0 {
			return nil
		}
		return errNotJSON
	}
	if len(values) == 1 {
		if strings.EqualFold(values[0], "application/json") {
			return nil // what ParseMediaType would read as the type alone
		}
		mt, params, err := mime.ParseMediaType(values[0])
		if err == nil && mt == "application/json" {
			if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
				return nil
			}
		}
	}
	return errNotJSON
}

var errNotJSON = errcode.Newf(errcode.UnsupportedMediaType, "The request body must be JSON, sent with Content-Type: application/json.")

// readBody reads the whole (capped) request body.
func readBody(r *http.Request) ([]byte, error) {
	b, err := readAll(r.Body, r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		return nil, errcode.Wrap(errcode.ValidationError, err)
	}
	return b, nil
}

// maxPresized bounds the buffer readAll sizes from a declared length.
const maxPresized = 64 << 10

// readAll is io.ReadAll with a first buffer of the declared length (and a
// byte for the read that meets the end) when there is one, rather than
// 512 bytes grown as needed.
func readAll(rd io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared > maxPresized {
		return io.ReadAll(rd)
	}
	b := make([]byte, 0, declared+1)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // more than declared: grow as io.ReadAll does
		}
	}
}

// decodeJSON parses body into v with the one strict decoding of every
// request body (internal/strictjson): one JSON value, exact field names,
// no duplicates, valid UTF-8, no control characters, unknown fields
// ignored; anything else is validation_error.
func decodeJSON(body []byte, v any) error {
	return strictjson.Unmarshal(body, v)
}

// parsePage reads the limit and before_id query parameters: a limit that
// is not an integer from 1 to tambala.MaxPageSize is validation_error (the
// engine checks the range of every PageRequest too).
func parsePage(limit, beforeID string) (tambala.PageRequest, error) {
	p := tambala.PageRequest{Limit: tambala.DefaultPageSize, BeforeID: beforeID}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > tambala.MaxPageSize {
			return tambala.PageRequest{}, errcode.Newf(errcode.ValidationError, "limit must be an integer from 1 to %d", tambala.MaxPageSize)
		}
		p.Limit = n
	}
	return p, nil
}

// createRoute is one create endpoint (POST /v1/payouts/{rail}, /v2/payouts,
// /v2/orders, /v2/conversions).
type createRoute[Req, Res any] struct {
	op     tambala.Operation
	decode func(body []byte) (Req, error)
	create func(*tambala.Client, context.Context, Req, tambala.Idempotency) (tambala.Created[Res], error)
	status int // of a creation and of its replays
	render func(Res) []byte
}

// serveCreate answers a create route: the body read and fingerprinted,
// decoded strictly (an undecodable body goes through RefuseCreate, so a key
// already decided still answers as decided), the engine's create, and the
// resource's one rendering, a replay marked Idempotent-Replayed.
func serveCreate[Req, Res any](h *Handler, c createRoute[Req, Res]) authed {
	return func(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
		body, err := readBody(r)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		idem := tambala.Idempotency{Key: r.Header.Get("Idempotency-Key"), Fingerprint: bodyFingerprint(body)}
		req, err := c.decode(body)
		if err != nil {
			writeError(w, r, h.log, tambala.GateOf(h.engine).RefuseCreate(r.Context(), h.engine.Client(p), c.op, idem, err))
			return
		}
		created, err := c.create(h.engine.Client(p), r.Context(), req, idem)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		markReplayed(w, created.Replayed)
		writeRaw(w, c.status, c.render(created.Resource))
	}
}

// markReplayed marks an answer that is a replay (the same creation, or
// crediting, answered again: nothing more was done) Idempotent-Replayed:
// true, before the header is written.
func markReplayed(w http.ResponseWriter, replayed bool) {
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
}

// bodyFingerprint is the fingerprint of a create's request body: its
// SHA-256 over the raw bytes, so a body that differs even in spacing is a
// different request under the same Idempotency-Key.
func bodyFingerprint(body []byte) tambala.Fingerprint { return sha256.Sum256(body) }
