// Package httpapi is the net/http binding of the engine: the public API of
// the reference (/v1, /v2, GET /openapi.json) and, on its own handler for its
// own listener, the operator's admin API. It maps HTTP to engine calls and
// engine errors to the {"error":{"code","message"}} envelope with the
// statuses of errcode.Table; it never touches the store. It decodes every
// request body itself (decode_*.go: the strict decoding of
// internal/strictjson, then the pure checks of the domain packages, such
// as payouts.CheckAmount and quotes.Request.CheckShape) and answers reads
// with the renderings of internal/render, the bytes the engine's events
// carry.
//
// Each authenticated request runs, in order: authentication (401
// unauthorized; 403 forbidden for a suspended organization or an address
// off the allowlist), the organization's rate limit (429 rate_limited with
// Retry-After), the pause switch of its API version (503
// service_maintenance or service_incident; GET /v2/ping is never paused),
// for /v2 the organization's access state (403 onboarding_incomplete or
// access_suspended), and for a route that takes a JSON body its media type
// (415 unsupported_media_type), before the body is read and before the
// Idempotency-Key is looked at, so a refused request creates and records
// nothing.
//
// The media type rule of a JSON body, on both handlers: a request that
// carries a body must declare it with a Content-Type of application/json
// (matched without regard to case; parameters are allowed, a charset only
// as utf-8); a body without a Content-Type is 415 like a wrong one. A
// request with no body (Content-Length 0) needs none. The funding proof upload (PUT
// /v2/orders/{id}/proofs/funding) takes the file itself, with its own
// media types (application/pdf, image/png, image/jpeg).
//
// Links the handler hands out (a funding proof's download) are absolute
// on Options.PublicBaseURL when it is set, else relative to the API's root
// (/files/proofs/...). They are never built from the request's Host, which
// the client chooses. Served proof files carry X-Content-Type-Options:
// nosniff.
package httpapi
