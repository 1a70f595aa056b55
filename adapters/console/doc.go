// Package console is the operator's console: server-rendered pages
// (html/template, embedded with one style sheet, no script) over the
// engine's Sessions (StaffSessions) and the Operator face of a signed-in staff user
// (Sessions.Operator). The host mounts New's handler under "/console/" on
// its admin listener, never on the public one.
//
// The pages: sign in (email and password, then a TOTP or recovery code,
// or TOTP enrolment, which every staff user needs, with the recovery
// codes shown once) and sign out; Home, the first page after sign-in,
// with pictures (inline SVG, each named for screen readers and with a
// table of its values) of the desk queue and the payouts in flight by age
// and of today's payouts per rail, and the count of dead-lettered webhook
// deliveries; the desk queue, the orders grouped by
// what the desk must do next (to-bank accepted and processing; from-bank
// awaiting instructions, proof submitted and funds confirmed; failed
// to-bank orders whose refund is pending); an order's page with its
// amounts and rate, the beneficiary, client reference and funding
// instructions exactly as sent (Typed: every control, invisible or
// combining character and every space but U+0020 shown as a marker
// ⟨U+200B⟩, any other character outside printable ASCII highlighted with
// its code point), the
// history of its moves and their actors from the audit trail, the newest
// funding proof framed, with links to open it on its own and to download
// it, and a form for each move the order's
// state allows (decided by orders.Apply on the order, never by a table of
// its own); the corridors with the desk's form for each and who set it
// last, beside the /v2 asset limits of every configured asset; the
// organizations (settings, balances, users, funding); the approvals and
// their thresholds; the operations (pause switches, rails, the payouts in
// flight to resolve by hand, dead-lettered deliveries); the audit trail
// with its filters; and the staff (invitations, roles, sessions,
// disabling).
//
// Only the operator's staff sign in: an organization's user is refused and
// the session ended. The forms that change something are rendered only for
// a user whose staff roles allow them (a support user reads every page and
// sees no form); the engine checks the roles again on every call.
//
// # Security
//
// The cookie, the CSRF token of every state-changing form, the refusal of
// cross-origin forms and the headers are adapters/internal/webui's, as in the
// portal, under another cookie name (__Host-tambala_console, or
// tambala_console with Path /console over plain HTTP when
// Options.InsecureCookies is set for a loopback sandbox) so one browser
// holds both sessions. Every page carries a strict Content-Security-Policy
// with frame-ancestors 'none'; the proof alone is served with its own
// content type (its first bytes checked against it), nosniff,
// Content-Disposition inline (attachment to download) and the policy
// "sandbox" with frame-ancestors 'self', so only the console's order page
// frames it and the file runs nothing, framed or opened on its own. An
// image is framed with the sandbox attribute too; a PDF is not, because
// Chromium refuses its PDF viewer in such a frame, and the response's
// policy sets the same sandbox. Form bodies are bounded as in the portal
// (adapters/internal/webui): none is ever spooled to a temporary file.
package console
