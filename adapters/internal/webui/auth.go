package webui

import (
	"errors"
	"net/http"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

// Session is a signed-in request: its token, user and CSRF token.
type Session struct {
	Token string
	User  tambala.User
	CSRF  string
}

// View is a page's View for the signed-in user.
func (s Session) View(title, nav string) View {
	roles := make([]string, len(s.User.StaffRoles))
	for i, r := range s.User.StaffRoles {
		roles[i] = string(r)
	}
	return View{Title: title, Nav: nav, Email: s.User.Email, Roles: strings.Join(roles, ", "), CSRF: s.CSRF}
}

// RedirectFor sends a request whose session failed where it can go on:
// the second-factor or enrolment page of a session half signed in, or
// else the sign-in page.
func (s *Site) RedirectFor(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, accounts.ErrSecondFactorRequired):
		http.Redirect(w, r, s.Prefix+"/second-factor", http.StatusSeeOther)
	case errors.Is(err, accounts.ErrTOTPRequired):
		http.Redirect(w, r, s.Prefix+"/enrol", http.StatusSeeOther)
	case errcode.Of(err) == errcode.Unauthorized:
		s.ClearSession(w, r)
		http.Redirect(w, r, s.Prefix+"/sign-in", http.StatusSeeOther)
	default:
		s.Message(w, StatusOf(err), "Not available", s.Friendly(err), s.Prefix+"/sign-in")
	}
}

// refuse ends the session of a user Admit refuses and shows why.
func (s *Site) refuse(w http.ResponseWriter, r *http.Request, token string, why error) {
	_ = s.Portal.SignOut(r.Context(), token)
	s.ClearSession(w, r)
	s.Message(w, http.StatusForbidden, "Not allowed", s.Friendly(why), s.Prefix+"/sign-in")
}

// admitted reports whether the signed-in session of token is of a user
// Admit allows; it ends any other and shows why.
func (s *Site) admitted(w http.ResponseWriter, r *http.Request, token string) bool {
	if s.Admit == nil {
		return true
	}
	si, err := s.Portal.Session(r.Context(), token)
	if err == nil {
		err = s.admit(si.User)
	}
	if err != nil {
		s.refuse(w, r, token, err)
		return false
	}
	return true
}

// admit is Admit's verdict on u; nil without Admit.
func (s *Site) admit(u tambala.User) error {
	if s.Admit == nil {
		return nil
	}
	return s.Admit(u)
}

// SignedIn wraps a page that needs a signed-in session (of a user Admit
// allows).
func (s *Site) SignedIn(page func(http.ResponseWriter, *http.Request, Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := s.SessionToken(w, r)
		if !ok {
			return
		}
		si, err := s.Portal.Session(r.Context(), token)
		if err != nil {
			s.RedirectFor(w, r, err)
			return
		}
		if err := s.admit(si.User); err != nil {
			s.refuse(w, r, token, err)
			return
		}
		page(w, r, Session{Token: token, User: si.User, CSRF: accounts.CSRFToken(token)})
	}
}

// CheckCSRF answers a form without the session's CSRF token with a
// forbidden page, and reports whether the form may go on.
func (s *Site) CheckCSRF(w http.ResponseWriter, r *http.Request, token string) bool {
	if err := s.Portal.CheckCSRF(token, r.PostFormValue("csrf")); err != nil {
		s.Message(w, http.StatusForbidden, "Form expired",
			"This form could not be checked and nothing was changed: reload the page and try again.", s.Home)
		return false
	}
	return true
}

// Changing wraps a state-changing form of a signed-in session: the CSRF
// token is checked before the session, so a forged form changes nothing.
// The session is checked as SignedIn checks it, but extended by the
// change itself, inside its own transaction (Sessions.Changing): the
// action is given the request with the context that carries it.
func (s *Site) Changing(action func(http.ResponseWriter, *http.Request, Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := s.SessionToken(w, r)
		if !ok {
			return
		}
		if !s.CheckCSRF(w, r, token) {
			return
		}
		ctx, si, end, err := s.Portal.Changing(r.Context(), token)
		if err != nil {
			s.RedirectFor(w, r, err)
			return
		}
		defer end()
		if err := s.admit(si.User); err != nil {
			end()
			s.refuse(w, r, token, err)
			return
		}
		action(w, r.WithContext(ctx), Session{Token: token, User: si.User, CSRF: accounts.CSRFToken(token)})
	}
}

// SessionToken is the request's session token; without one it sends the
// browser to sign in and reports false.
func (s *Site) SessionToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	token := s.Token(r)
	if token == "" {
		http.Redirect(w, r, s.Prefix+"/sign-in", http.StatusSeeOther)
	}
	return token, token != ""
}

// SignInPage serves the sign-in form.
func (s *Site) SignInPage(w http.ResponseWriter, r *http.Request) {
	v := View{Title: "Sign in"}
	if r.URL.Query().Get("accepted") == "1" {
		v.Notice = "Your password is set: sign in with it."
	}
	if r.URL.Query().Get("signed-out") == "1" {
		v.Notice = "You are signed out."
	}
	s.Render(w, http.StatusOK, "signin", v)
}

// SignIn checks the email and password of the sign-in form.
func (s *Site) SignIn(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	password := r.PostFormValue("password")
	v := View{Title: "Sign in", Form: map[string]string{"email": email}, Errors: map[string]string{}}
	if email == "" {
		v.Errors["email"] = "Enter your email address."
	}
	if password == "" {
		v.Errors["password"] = "Enter your password."
	}
	if len(v.Errors) > 0 {
		s.Render(w, http.StatusUnprocessableEntity, "signin", v)
		return
	}
	res, err := s.Portal.SignIn(r.Context(), email, password)
	if err != nil {
		// The engine's own message: one for every wrong email or
		// password, and the wait of a throttled attempt.
		if errcode.Of(err) == errcode.Unauthorized || errcode.Of(err) == errcode.ValidationError {
			v.Errors["password"] = errcode.Message(err)
		} else {
			v.Error = s.Friendly(err)
		}
		s.Render(w, StatusOf(err), "signin", v)
		return
	}
	s.SetSession(w, r, res.Token)
	s.afterStage(w, r, res.Token, res.Stage)
}

// afterStage sends a browser on from a session at stage; a signed-in
// session of a user Admit refuses is ended.
func (s *Site) afterStage(w http.ResponseWriter, r *http.Request, token string, stage accounts.Stage) {
	switch stage {
	case accounts.StageSecondFactor:
		http.Redirect(w, r, s.Prefix+"/second-factor", http.StatusSeeOther)
	case accounts.StageEnrolTOTP:
		http.Redirect(w, r, s.Prefix+"/enrol", http.StatusSeeOther)
	default:
		if !s.admitted(w, r, token) {
			return
		}
		http.Redirect(w, r, s.Home, http.StatusSeeOther)
	}
}

// SecondFactorPage serves the second-factor form.
func (s *Site) SecondFactorPage(w http.ResponseWriter, r *http.Request) {
	token, ok := s.SessionToken(w, r)
	if !ok {
		return
	}
	s.Render(w, http.StatusOK, "second", View{Title: "Second factor", CSRF: accounts.CSRFToken(token)})
}

// SecondFactor checks a TOTP or recovery code.
func (s *Site) SecondFactor(w http.ResponseWriter, r *http.Request) {
	token, ok := s.SessionToken(w, r)
	if !ok {
		return
	}
	if !s.CheckCSRF(w, r, token) {
		return
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	v := View{Title: "Second factor", CSRF: accounts.CSRFToken(token), Errors: map[string]string{}}
	if code == "" {
		v.Errors["code"] = "Enter a code."
		s.Render(w, http.StatusUnprocessableEntity, "second", v)
		return
	}
	res, err := s.Portal.SecondFactor(r.Context(), token, code)
	if err != nil {
		if errors.Is(err, accounts.ErrSessionExpired) || errors.Is(err, accounts.ErrSessionEnded) || errors.Is(err, accounts.ErrSessionUnknown) {
			s.RedirectFor(w, r, err)
			return
		}
		v.Errors["code"] = s.Friendly(err)
		s.Render(w, StatusOf(err), "second", v)
		return
	}
	s.SetSession(w, r, res.Token)
	s.afterStage(w, r, res.Token, res.Stage)
}

// EnrolPage begins a TOTP enrolment and shows its secret.
func (s *Site) EnrolPage(w http.ResponseWriter, r *http.Request) {
	token, ok := s.SessionToken(w, r)
	if !ok {
		return
	}
	en, err := s.Portal.BeginTOTP(r.Context(), token)
	if err != nil {
		s.RedirectFor(w, r, err)
		return
	}
	s.Render(w, http.StatusOK, "enrol", View{Title: "Set up two-factor sign-in", CSRF: accounts.CSRFToken(token), Data: en})
}

// Enrol confirms a TOTP enrolment and shows the recovery codes once.
func (s *Site) Enrol(w http.ResponseWriter, r *http.Request) {
	token, ok := s.SessionToken(w, r)
	if !ok {
		return
	}
	if !s.CheckCSRF(w, r, token) {
		return
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	res, err := s.Portal.ConfirmTOTP(r.Context(), token, code)
	if err != nil {
		if errcode.Of(err) == errcode.Unauthorized && !errors.Is(err, accounts.ErrInvalidCode) {
			s.RedirectFor(w, r, err)
			return
		}
		// A wrong code: the secret is shown once, so the enrolment begins
		// again with a new one for the app.
		en, berr := s.Portal.BeginTOTP(r.Context(), token)
		if berr != nil {
			s.RedirectFor(w, r, berr)
			return
		}
		s.Render(w, StatusOf(err), "enrol", View{Title: "Set up two-factor sign-in", CSRF: accounts.CSRFToken(token), Data: en,
			Errors: map[string]string{"code": s.Friendly(err) + " Add this new secret to your app and try again."}})
		return
	}
	t := res.Session.Token
	s.SetSession(w, r, t)
	if !s.admitted(w, r, t) {
		return
	}
	s.Render(w, http.StatusOK, "recovery", View{Title: "Recovery codes", CSRF: accounts.CSRFToken(t), Data: res.RecoveryCodes})
}

// SignOut ends the session (a CSRF-checked form).
func (s *Site) SignOut(w http.ResponseWriter, r *http.Request) {
	token, ok := s.SessionToken(w, r)
	if !ok {
		return
	}
	if !s.CheckCSRF(w, r, token) {
		return
	}
	if err := s.Portal.SignOut(r.Context(), token); err != nil {
		s.Message(w, StatusOf(err), "Sign out", s.Friendly(err), s.Home)
		return
	}
	s.ClearSession(w, r)
	http.Redirect(w, r, s.Prefix+"/sign-in?signed-out=1", http.StatusSeeOther)
}
