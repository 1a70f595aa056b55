package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
)

// TestAcceptPasswordReset: the invitation page takes a password reset's
// token too, worded as choosing a new password; after it the old session
// is over, the old password refused, and the new one signs in.
func TestAcceptPasswordReset(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	old := f.signIn(t)
	users, err := f.engine.People().Users(f.ctx, f.org.ID)
	if err != nil || len(users) != 1 {
		t.Fatalf("users %+v, %v", users, err)
	}
	reset, err := f.engine.People().ResetPassword(f.ctx, users[0].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Org: f.org.ID, Email: "bo@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	page := "/portal/invitations/accept?token="

	// The page tells a reset from an invitation.
	w := do(h, "GET", page+url.QueryEscape(reset.Token), "", nil)
	if b := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(b, "<h1>Choose a new password</h1>") ||
		!strings.Contains(b, "Choose a new password of at least") || strings.Contains(b, "finish setting up your account") {
		t.Errorf("reset page: %d %s", w.Code, b)
	}
	w = do(h, "GET", page+url.QueryEscape(inv.Token), "", nil)
	if b := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(b, "<h1>Accept your invitation</h1>") ||
		!strings.Contains(b, "finish setting up your account") {
		t.Errorf("invitation page: %d %s", w.Code, b)
	}
	// Issue #36: a token that cannot be accepted is refused on arrival.
	w = do(h, "GET", page+"inv_junk", "", nil)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "not valid") {
		t.Errorf("junk token page: %d", w.Code)
	}

	const next = "a new password after the reset"
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {reset.Token}, "password": {next}, "confirm": {"not the same"}})
	if b := w.Body.String(); w.Code != http.StatusUnprocessableEntity || !strings.Contains(b, `id="confirm-error"`) ||
		!strings.Contains(b, "<h1>Choose a new password</h1>") {
		t.Errorf("mismatch: %d %s", w.Code, b)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {reset.Token}, "password": {"ADA@example.com"}, "confirm": {"ADA@example.com"}})
	if b := w.Body.String(); w.Code != http.StatusBadRequest && w.Code != http.StatusUnprocessableEntity || !strings.Contains(b, `id="password-error"`) ||
		!strings.Contains(b, "<h1>Choose a new password</h1>") {
		t.Errorf("the email as password: %d %s", w.Code, b)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {reset.Token}, "password": {next}, "confirm": {next}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/sign-in?accepted=1" {
		t.Fatalf("reset: %d %s", w.Code, w.Body)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {reset.Token}, "password": {next}, "confirm": {next}})
	if w.Code != http.StatusUnauthorized {
		t.Errorf("reset twice: %d", w.Code)
	}

	// The old session is over: its page sends to sign in.
	if w := do(h, "GET", "/portal/", old, nil); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/portal/sign-in") {
		t.Errorf("old session after the reset: %d %s", w.Code, w.Header().Get("Location"))
	}
	w = do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {password}})
	if w.Code == http.StatusSeeOther {
		t.Errorf("the old password signed in: %s", w.Header().Get("Location"))
	}
	w = do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {next}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/" {
		t.Errorf("sign in with the new password: %d %s", w.Code, w.Header().Get("Location"))
	}
	if res, err := f.engine.Sessions().SignIn(f.ctx, f.email, next); err != nil || res.Stage != accounts.StageSignedIn {
		t.Errorf("engine sign-in with the new password: %+v %v", res, err)
	}
}
