package webui

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

// AcceptData is the accept page's: the shortest password, the form's
// action, and whether the token is a password reset of an existing user
// (Choose a new password) rather than an invitation that makes one.
type AcceptData struct {
	MinPass int
	Action  string
	Reset   bool
}

// minPassword is the shortest password the accept page asks for.
func (s *Site) minPassword() int {
	if s.MinPassword > 0 {
		return s.MinPassword
	}
	return accounts.MinPasswordLength
}

// acceptView is the accept page for token, or the engine's reason the
// token cannot be accepted at this face (unknown, of the other face's
// audience, used, revoked or expired).
func (s *Site) acceptView(r *http.Request, token string) (View, error) {
	d := AcceptData{MinPass: s.minPassword(), Action: s.Prefix + "/invitations/accept"}
	v := View{Title: "Accept your invitation", Form: map[string]string{"token": token}, Errors: map[string]string{}}
	inv, err := s.Portal.Invitation(r.Context(), token)
	if err != nil {
		return v, err
	}
	if inv.ResetOf != "" {
		v.Title, d.Reset = "Choose a new password", true
	}
	v.Data = d
	return v, nil
}

// refuseInvitation shows why a token cannot be accepted, on arrival or
// after a submit: a used invitation links to the sign-in page.
func (s *Site) refuseInvitation(w http.ResponseWriter, err error) {
	next := ""
	if errors.Is(err, accounts.ErrInvitationUsed) {
		next = s.Prefix + "/sign-in"
	}
	s.Message(w, StatusOf(err), "Invitation", s.Friendly(err), next)
}

// AcceptPage serves the page of an invitation's (or a password reset's)
// link: the password form for a usable token, and at once the reason for
// any other (already accepted, expired, withdrawn, not valid here).
func (s *Site) AcceptPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" {
		s.Message(w, http.StatusBadRequest, "Invitation", "This invitation link is incomplete: open the link from your invitation email.", "")
		return
	}
	v, err := s.acceptView(r, token)
	if err != nil {
		s.refuseInvitation(w, err)
		return
	}
	s.Render(w, http.StatusOK, "accept", v)
}

// Accept takes the accept page's form: the password is set and the
// browser goes to the face's sign-in page.
func (s *Site) Accept(w http.ResponseWriter, r *http.Request) {
	token := r.PostFormValue("token")
	password, confirm := r.PostFormValue("password"), r.PostFormValue("confirm")
	v, err := s.acceptView(r, token)
	if err != nil {
		s.refuseInvitation(w, err)
		return
	}
	minPass := s.minPassword()
	switch {
	case len([]rune(password)) < minPass:
		v.Errors["password"] = fmt.Sprintf("Use at least %d characters.", minPass)
	case password != confirm:
		v.Errors["confirm"] = "The two passwords differ."
	}
	if len(v.Errors) > 0 {
		s.Render(w, http.StatusUnprocessableEntity, "accept", v)
		return
	}
	if _, err := s.Portal.AcceptInvitation(r.Context(), token, password); err != nil {
		switch errcode.Of(err) {
		case errcode.ValidationError:
			v.Errors["password"] = errcode.Message(err)
		case errcode.Unauthorized:
			s.refuseInvitation(w, err) // used or withdrawn meanwhile
			return
		default:
			v.Error = s.Friendly(err)
		}
		s.Render(w, StatusOf(err), "accept", v)
		return
	}
	http.Redirect(w, r, s.Prefix+"/sign-in?accepted=1", http.StatusSeeOther)
}
