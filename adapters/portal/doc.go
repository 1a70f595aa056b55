// Package portal is the web portal of an organization's admins: server
// rendered pages (html/template, embedded with the one style sheet and a
// small copy-to-clipboard script) over the engine's Portal and OrgAdmin
// faces. The host mounts the Handler under "/portal/" on its public
// listener, beside the API.
//
// The pages: sign in (email and password, then a TOTP or recovery code,
// or TOTP enrolment when the organization requires it, whose recovery
// codes are shown once), accepting an invitation with a new password, the
// overview of the organization's balances (with pictures: each asset's
// available balance over the last 30 days and the payouts per day by
// outcome, as inline SVG with a table of the values), its API keys (created with the
// full key shown once, revoked after a confirmation page), its IP
// allowlist, its webhook endpoint (the secret shown once; replacing it
// rotates the secret) and every delivery attempt (the bytes sent, the
// signature, the answer's status and duration), its balance floor, its
// audit trail, the account's password and optional TOTP, the read-only
// lists and details of payouts (/v1 and /v2), desk orders, conversions
// and collections (/v1 and /v2) with the API's filters, the upload of a
// from-bank order's funding proof, and signing out. Every page works
// without JavaScript.
//
// # Security
//
// A page is opened by the session cookie alone, never by an API key, and
// the session never authenticates the API. The cookie is HttpOnly,
// SameSite=Strict, without Max-Age (it ends with the browser, and the
// engine ends the session at its own limits), named __Host-tambala_session
// and Secure unless Options.InsecureCookies is set for a plain-HTTP
// loopback sandbox, when it is tambala_session with Path /portal. Every
// state-changing form of a session carries the session's CSRF token
// (Sessions.CheckCSRF): a form sent without it, or with a wrong one, is
// forbidden and changes nothing. Forms sent from another origin are
// refused before that (http.CrossOriginProtection), which also guards the
// forms that come before a session (sign in, accepting an invitation).
// Every response carries a strict Content-Security-Policy (no inline
// script or style), nosniff and no-referrer; pages are never cached. A
// form's body is capped (webui.MaxFormBytes) and may not be multipart;
// the funding proof's form is read as a stream (webui's Upload): its
// session is checked before a byte of the body is read and its CSRF
// token, its first field, before the file, which goes to the engine
// without ever being written to disk.
// Every engine call carries the client's address and the request's id
// (tambala.WithRequestInfo), for sign-in throttling and the audit trail.
// This machinery is adapters/internal/webui's, shared with the operator's console.
package portal
