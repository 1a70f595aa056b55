// Package httpapi is the net/http binding of the engine: the public API of
// the reference (/v1, /v2, GET /openapi.json) and, on its own handler for its
// own listener, the operator's admin API. It maps HTTP to engine calls and
// engine errors to the {"error":{"code","message"}} envelope with the
// statuses of errcode.Table; it never touches the store.
//
// Each authenticated request runs, in order: authentication (401
// unauthorized; 403 forbidden for a suspended organization or an address
// off the allowlist), the organization's rate limit (429 rate_limited with
// Retry-After), the pause switch of its API version (503
// service_maintenance or service_incident; GET /v2/ping is never paused),
// and for /v2 the organization's access state (403 onboarding_incomplete or
// access_suspended).
package httpapi
