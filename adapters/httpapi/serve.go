package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
)

// renderAll renders each item with the resource's one rendering, for a
// JSON list.
func renderAll[T any, B ~[]byte](items []T, render func(T) B) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = json.RawMessage(render(it))
	}
	return out
}

// serveGet answers a GET of one resource by the {id} of its path: the
// engine's read, then the resource's one rendering.
func serveGet[T any](h *Handler, get func(*tambala.Client, context.Context, string) (T, error), render func(T) []byte) authed {
	return func(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
		v, err := get(h.engine.Client(p), r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		writeRaw(w, http.StatusOK, render(v))
	}
}

// listRoute is a GET list of a client's resources: the envelope's name,
// the filter read from the query (after the page), the engine's list and
// each item's rendering.
type listRoute[T, F any] struct {
	name   string
	filter func(*http.Request) (F, error)
	list   func(*tambala.Client, context.Context, tambala.PageRequest, F) (tambala.Page[T], error)
	render func(T) []byte
}

// serveList answers a list route: the page (limit, before_id), then the
// filter, then the engine's list in the page envelope (pageJSON).
func serveList[T, F any](h *Handler, l listRoute[T, F]) authed {
	return func(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
		page, ok := h.page(w, r)
		if !ok {
			return
		}
		f, err := l.filter(r)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		res, err := l.list(h.engine.Client(p), r.Context(), page, f)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		writeJSON(w, http.StatusOK, pageJSON(l.name, renderAll(res.Items, l.render), res.HasMore, res.NextBeforeID))
	}
}

// noFilter is the filter of a list the query does not narrow.
func noFilter(*http.Request) (struct{}, error) { return struct{}{}, nil }

// unfiltered adapts a list without a filter to a listRoute's list.
func unfiltered[T any](list func(*tambala.Client, context.Context, tambala.PageRequest) (tambala.Page[T], error)) func(*tambala.Client, context.Context, tambala.PageRequest, struct{}) (tambala.Page[T], error) {
	return func(c *tambala.Client, ctx context.Context, page tambala.PageRequest, _ struct{}) (tambala.Page[T], error) {
		return list(c, ctx, page)
	}
}

// payoutFilter reads the optional ?status= of a payouts list: absent or
// empty is every status.
func payoutFilter(r *http.Request) (tambala.PayoutFilter, error) {
	var f tambala.PayoutFilter
	if s := r.URL.Query().Get("status"); s != "" {
		var err error
		if f.Status, err = payouts.ParseStatus(s); err != nil {
			return f, err
		}
	}
	return f, nil
}

// servePost answers a POST that creates without an idempotency key (a
// quote, a sandbox simulation): the body read and decoded strictly, the
// engine's call, 201 with the result's one rendering. A sandboxOnly route
// answers sandbox_only before the body is decoded (the engine refuses it
// too), so an invalid body outside the sandbox is sandbox_only as well;
// then the body's shape (400), and the engine checks the rest in its
// order (see docs/decisions.md, "/v2 deposits and collections").
func servePost[Req, Res any](h *Handler, sandboxOnly bool, decode func([]byte) (Req, error),
	call func(*tambala.Client, context.Context, Req) (Res, error), render func(Res) []byte) authed {
	return func(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
		body, err := readBody(r)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		if sandboxOnly && h.engine.Settings().Environment() != tambala.Sandbox {
			writeError(w, r, h.log, errcode.New(errcode.SandboxOnly))
			return
		}
		req, err := decode(body)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		res, err := call(h.engine.Client(p), r.Context(), req)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		writeRaw(w, http.StatusCreated, render(res))
	}
}
