package webui

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// The bounds of a request body. No face ever parses a multipart form
// into a temporary file: an ordinary form's body is capped by
// MaxFormBytes and may not be multipart at all; the one kind of form
// that carries a file (Site.Upload) is read as a stream, its file handed
// to the engine without passing through the disk.

// MaxFormBytes is the default cap on the body of a request to a face
// (Site.MaxFormBytes): a form of fields, never a file.
const MaxFormBytes = 64 << 10

// Caps on the fields an Upload's form may send before its file.
const (
	maxUploadFields     = 8
	maxUploadFieldBytes = 1 << 10
)

// uploadHandler is a route of Site.Upload: its body is read as a
// multipart stream under its own cap rather than a form's.
type uploadHandler struct {
	limit int64
	serve http.Handler
}

func (u *uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { u.serve.ServeHTTP(w, r) }

// maxForm is the cap on an ordinary form's body.
func (s *Site) maxForm() int64 {
	if s.MaxFormBytes > 0 {
		return s.MaxFormBytes
	}
	return MaxFormBytes
}

// bodyLimit is the cap on r's body, and whether r goes to an Upload
// route (found through Routes).
func (s *Site) bodyLimit(r *http.Request) (int64, bool) {
	if s.Routes != nil {
		if h, _ := s.Routes.Handler(r); h != nil {
			if u, ok := h.(*uploadHandler); ok {
				return u.limit, true
			}
		}
	}
	return s.maxForm(), false
}

// isMultipart reports whether r's body is declared a multipart form.
func isMultipart(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return strings.HasPrefix(mt, "multipart/")
}

// boundBody caps r's body before any handler reads it: a body declared
// longer than its route's cap is refused unread (request entity too
// large); a multipart body is refused (unsupported media type) except on
// an Upload route, so net/http never spools
// one to a temporary file; any other body reads at most the cap. It
// reports whether r may be served.
func (s *Site) boundBody(w http.ResponseWriter, r *http.Request) bool {
	limit, upload := s.bodyLimit(r)
	if !upload {
		if r.ContentLength > limit {
			s.Message(w, http.StatusRequestEntityTooLarge, "Too large",
				"This form is too large to be read, and nothing was changed.", s.Home)
			return false
		}
		if isMultipart(r) {
			s.Message(w, http.StatusUnsupportedMediaType, "Form not accepted",
				"This form cannot be read, and nothing was changed: reload the page and try again.", s.Home)
			return false
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	return true
}

// removeForm deletes the temporary files of a multipart form parsed on
// r, if any: none is ever written (boundBody), so this only guards a
// handler that would parse one anyway, on every way out of Serve.
func removeForm(r *http.Request) {
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// Upload is a multipart form of a signed-in session read as a stream
// (Site.Upload): the fields sent before its file, then the file.
type Upload struct {
	// Fields are the form's fields before its file (the CSRF token
	// among them), each at most 1 KiB.
	Fields map[string]string
	// File is the form's first part with a file name, unread; nil when
	// the form has none (a file input left empty sends no file name).
	File *multipart.Part
	// TooLarge is set when the body is declared longer than the route's
	// cap: File is nil and nothing after the fields was read.
	TooLarge bool
	failed   error
}

// Read reads File's content, remembering a failure to read the body
// (Failed).
func (u *Upload) Read(p []byte) (int, error) {
	if u.File == nil {
		return 0, io.EOF
	}
	n, err := u.File.Read(p)
	if err != nil && err != io.EOF && u.failed == nil {
		u.failed = err
	}
	return n, err
}

// Failed is the error that cut File's content short: a
// *http.MaxBytesError when the body went over the route's cap, another
// error for a body that broke off or was malformed; nil otherwise.
func (u *Upload) Failed() error { return u.failed }

// TooLong reports whether err (Failed's) is the body going over the
// route's cap.
func TooLong(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

// Upload is the route of a state-changing multipart form that carries a
// file, for a signed-in session; the body may be up to limit bytes. The
// session is checked from its cookie before a byte of the body is read
// (none: sent to sign in, the body unread); then the fields before the
// file, which must include the session's CSRF token (a form sends its
// parts in document order, so its hidden csrf input goes before its
// file input); only then is action given the file, unread, to stream.
// Nothing is written to disk. Register it with ServeMux.Handle on
// Routes, which is how Serve finds its cap.
func (s *Site) Upload(limit int64, action func(http.ResponseWriter, *http.Request, Session, *Upload)) http.Handler {
	return &uploadHandler{limit: limit, serve: s.SignedIn(func(w http.ResponseWriter, r *http.Request, sess Session) {
		u, ok := readUploadFields(r)
		if !ok {
			s.Message(w, http.StatusBadRequest, "Upload",
				"The upload could not be read: choose the file and send it again.", s.Home)
			return
		}
		if err := s.Portal.CheckCSRF(sess.Token, u.Fields["csrf"]); err != nil {
			s.Message(w, http.StatusForbidden, "Form expired",
				"This form could not be checked and nothing was changed: reload the page and try again.", s.Home)
			return
		}
		if r.ContentLength > limit {
			u.File, u.TooLarge = nil, true
		}
		action(w, r, sess, u)
	})}
}

// readUploadFields reads the parts of r's multipart form up to its first
// file, each field bounded; false for a body that is not such a form.
func readUploadFields(r *http.Request) (*Upload, bool) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, false
	}
	u := &Upload{Fields: map[string]string{}}
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			return u, true
		}
		if err != nil {
			return nil, false
		}
		if p.FileName() != "" {
			u.File = p
			return u, true
		}
		if n == maxUploadFields { // more fields than any face's upload form has
			return nil, false
		}
		b, err := io.ReadAll(io.LimitReader(p, maxUploadFieldBytes+1))
		if err != nil || len(b) > maxUploadFieldBytes {
			return nil, false
		}
		if _, seen := u.Fields[p.FormName()]; !seen {
			u.Fields[p.FormName()] = string(b)
		}
	}
}
