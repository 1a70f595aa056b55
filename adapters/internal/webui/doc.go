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
// Content-Security-Policy, its Wording and its parsed templates. The
// layout (the head, the brand, the title, notice and error), the pages of
// the flow (signin, second, enrol, recovery, accept) and the message page
// are webui's, each given a View and parametrised by the prefix and the
// Wording; a face adds its header's "nav" and its own pages (Site.Layout,
// Site.AddPages). The style sheet a face serves is webui's base followed
// by the face's own (Site.Static); Options configure every face alike.
package webui
