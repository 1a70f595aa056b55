// Package webui is the machinery the engine's server-rendered web faces
// share (adapters/portal for an organization's admins, adapters/console
// for the operator's staff): the session cookie, the CSRF check of every
// state-changing form, the security headers, the rendering of a page in
// its layout with errors beside their fields, the engine's errors turned
// into a status and a message, and the sign-in flow (email and password,
// the second factor, TOTP enrolment with its recovery codes shown once,
// signing out), and the bounds of a request's body: a form's capped and
// never multipart, a file's form (Site.Upload) read as a stream after its
// session and CSRF token are checked, so nothing is spooled to disk.
//
// A Site is one such face: its path prefix, its cookie names, its
// Content-Security-Policy and its parsed templates. The templates are the
// face's own; the flow needs a "layout" template and the pages signin,
// second, enrol, recovery and message, which are given a View.
package webui
