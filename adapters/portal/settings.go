package portal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// The settings pages: the webhook endpoint, its deliveries, the balance
// floor, and the admin's own account (password and TOTP).

// deliveriesPageSize is how many deliveries a page shows.
const deliveriesPageSize = 10

// settingsPages are the templates of the settings pages.
var settingsPages = []string{"webhook", "webhook_set", "deliveries", "floor", "account", "account_totp"}

// admin is the signed-in admin of s, or a page saying why not.
func (h *Handler) admin(w http.ResponseWriter, r *http.Request, v view) (*tambala.OrgAdmin, bool) {
	a, err := h.portal.Admin(r.Context(), h.site.Token(r))
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return nil, false
	}
	return a, true
}

// webhookData is the webhook page's.
type webhookData struct {
	Endpoint tambala.Endpoint
	Set      bool
}

// adminPage is a settings page of the signed-in admin: its view, the
// admin and what read loads (the setting as it is), or false after a page
// saying why not.
func adminPage[T any](h *Handler, w http.ResponseWriter, r *http.Request, s session, title, nav string,
	read func(context.Context, *tambala.OrgAdmin) (T, error)) (view, *tambala.OrgAdmin, T, bool) {
	var zero T
	v := s.View(title, nav)
	a, ok := h.admin(w, r, v)
	if !ok {
		return v, nil, zero, false
	}
	x, err := read(r.Context(), a)
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return v, nil, zero, false
	}
	return v, a, x, true
}

// saveFailed renders a settings form's engine error: a validation error
// beside field, anything else as the page's error.
func (h *Handler) saveFailed(w http.ResponseWriter, v view, tmpl, field string, err error) {
	if errcode.Of(err) == errcode.ValidationError {
		v.Errors = map[string]string{field: errcode.Message(err)}
	} else {
		v.Error = h.site.Friendly(err)
	}
	h.site.Render(w, webui.StatusOf(err), tmpl, v)
}

func webhookOf(ctx context.Context, a *tambala.OrgAdmin) (webhookData, error) {
	ep, set, err := a.WebhookEndpoint(ctx)
	return webhookData{Endpoint: ep, Set: set}, err
}

func (h *Handler) webhookPage(w http.ResponseWriter, r *http.Request, s session) {
	v, _, d, ok := adminPage(h, w, r, s, "Webhook endpoint", "webhook", webhookOf)
	if !ok {
		return
	}
	v.Data = d
	v.Form = map[string]string{"url": d.Endpoint.URL}
	h.site.Render(w, http.StatusOK, "webhook", v)
}

func (h *Handler) setWebhook(w http.ResponseWriter, r *http.Request, s session) {
	raw := strings.TrimSpace(r.PostFormValue("url"))
	v, a, d, ok := adminPage(h, w, r, s, "Webhook endpoint", "webhook", webhookOf)
	if !ok {
		return
	}
	set := d.Set
	v.Data = d
	v.Form = map[string]string{"url": raw}
	if raw == "" {
		v.Errors = map[string]string{"url": "Enter the URL of your endpoint."}
		h.site.Render(w, http.StatusUnprocessableEntity, "webhook", v)
		return
	}
	ep, secret, err := a.SetWebhookEndpoint(r.Context(), raw)
	if err != nil {
		h.saveFailed(w, v, "webhook", "url", err)
		return
	}
	v = s.View("Your webhook signing secret", "webhook")
	v.Script = true
	v.Data = struct {
		Endpoint tambala.Endpoint
		Secret   string
		Replaced bool
	}{ep, secret, set}
	h.site.Render(w, http.StatusOK, "webhook_set", v)
}

func (h *Handler) deliveries(w http.ResponseWriter, r *http.Request, s session) {
	v := s.View("Webhook deliveries", "deliveries")
	a, ok := h.admin(w, r, v)
	if !ok {
		return
	}
	page, err := a.Deliveries(r.Context(), tambala.PageRequest{Limit: deliveriesPageSize, BeforeID: r.URL.Query().Get("before")})
	if err != nil {
		v.Error, v.Data = h.site.Friendly(err), "/portal/deliveries"
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	v.Data = page
	h.site.Render(w, http.StatusOK, "deliveries", v)
}

// floorData is the floor page's: the current floor, "" when none.
type floorData struct{ Current string }

func floorOf(o tambala.Organization) floorData {
	if !o.BalanceFloorMWK.IsSet() {
		return floorData{}
	}
	return floorData{Current: o.BalanceFloorMWK.String()}
}

func organizationOf(ctx context.Context, a *tambala.OrgAdmin) (tambala.Organization, error) {
	return a.Organization(ctx)
}

func (h *Handler) floorPage(w http.ResponseWriter, r *http.Request, s session) {
	v, _, org, ok := adminPage(h, w, r, s, "Balance floor", "floor", organizationOf)
	if !ok {
		return
	}
	d := floorOf(org)
	v.Data, v.Form = d, map[string]string{"amount": d.Current}
	h.site.Render(w, http.StatusOK, "floor", v)
}

func (h *Handler) setFloor(w http.ResponseWriter, r *http.Request, s session) {
	text := strings.TrimSpace(r.PostFormValue("amount"))
	v, a, org, ok := adminPage(h, w, r, s, "Balance floor", "floor", organizationOf)
	if !ok {
		return
	}
	v.Data, v.Form = floorOf(org), map[string]string{"amount": text}
	var floor money.Amount // the zero Amount removes the floor
	var err error
	if text != "" {
		if floor, err = money.Parse(money.MWK, text); err != nil {
			v.Errors = map[string]string{"amount": fmt.Sprintf(
				"Enter an amount in MWK: digits, optionally a point and at most %d decimals, such as 5000 or 5000.50.", money.MWK.Decimals)}
			h.site.Render(w, http.StatusUnprocessableEntity, "floor", v)
			return
		}
	}
	if org, err = a.SetBalanceFloor(r.Context(), floor); err != nil {
		h.saveFailed(w, v, "floor", "amount", err)
		return
	}
	d := floorOf(org)
	v.Data, v.Form = d, map[string]string{"amount": d.Current}
	if d.Current == "" {
		v.Notice = "Saved: your organization has no balance floor."
	} else {
		v.Notice = "Saved: the balance floor is MWK " + d.Current + "."
	}
	h.site.Render(w, http.StatusOK, "floor", v)
}

// accountData is the account page's.
type accountData struct {
	User    tambala.User
	MinPass int
}

func (h *Handler) accountView(s session) view {
	v := s.View("Account", "account")
	v.Data = accountData{User: s.User, MinPass: h.minPass}
	return v
}

func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, s session) {
	h.site.Render(w, http.StatusOK, "account", h.accountView(s))
}

// sessionEnded reports an error that ends the request's session.
func sessionEnded(err error) bool {
	return errors.Is(err, accounts.ErrSessionExpired) || errors.Is(err, accounts.ErrSessionEnded) ||
		errors.Is(err, accounts.ErrSessionUnknown)
}

func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, s session) {
	current, next, repeat := r.PostFormValue("current"), r.PostFormValue("new"), r.PostFormValue("repeat")
	v := h.accountView(s)
	v.Errors = map[string]string{}
	switch {
	case current == "":
		v.Errors["current"] = "Enter your current password."
	case len([]rune(next)) < h.minPass:
		v.Errors["new"] = fmt.Sprintf("Use at least %d characters.", h.minPass)
	case next != repeat:
		v.Errors["repeat"] = "The two new passwords differ."
	}
	if len(v.Errors) > 0 {
		h.site.Render(w, http.StatusUnprocessableEntity, "account", v)
		return
	}
	err := h.portal.ChangePassword(r.Context(), s.Token, current, next)
	switch {
	case err == nil:
		v.Notice = "Your password is changed. Your other sessions are signed out; this one goes on."
		h.site.Render(w, http.StatusOK, "account", v)
		return
	case sessionEnded(err):
		h.site.RedirectFor(w, r, err)
		return
	case errors.Is(err, accounts.ErrWrongPassword), errcode.Of(err) == errcode.RateLimited:
		v.Errors["current"] = errcode.Message(err)
	case errcode.Of(err) == errcode.ValidationError:
		v.Errors["new"] = errcode.Message(err)
	default:
		v.Error = h.site.Friendly(err)
	}
	h.site.Render(w, webui.StatusOf(err), "account", v)
}

// beginTOTP starts a voluntary TOTP enrolment: a new secret for the app.
func (h *Handler) beginTOTP(w http.ResponseWriter, r *http.Request, s session) {
	if s.User.TOTPEnrolled {
		v := h.accountView(s)
		v.Notice = "Two-factor sign-in is already on."
		h.site.Render(w, http.StatusConflict, "account", v)
		return
	}
	h.newTOTPSecret(w, r, s, nil)
}

// newTOTPSecret begins a TOTP enrolment and shows its new secret, after
// a wrong code (nil: none) with the reason beside the code field and the
// code's status; the account page with the error when it cannot begin.
func (h *Handler) newTOTPSecret(w http.ResponseWriter, r *http.Request, s session, wrong error) {
	en, err := h.portal.BeginTOTP(r.Context(), s.Token)
	if err != nil {
		v := h.accountView(s)
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "account", v)
		return
	}
	v := s.View("Set up two-factor sign-in", "account")
	v.Data = en
	if wrong == nil {
		h.site.Render(w, http.StatusOK, "account_totp", v)
		return
	}
	v.Errors = map[string]string{"code": h.site.Friendly(wrong) + " Add this new secret to your app and try again."}
	h.site.Render(w, webui.StatusOf(wrong), "account_totp", v)
}

func (h *Handler) confirmTOTP(w http.ResponseWriter, r *http.Request, s session) {
	code := strings.TrimSpace(r.PostFormValue("code"))
	res, err := h.portal.ConfirmTOTP(r.Context(), s.Token, code)
	if err != nil {
		if sessionEnded(err) {
			h.site.RedirectFor(w, r, err)
			return
		}
		// The secret is shown once, so a wrong code begins again with a
		// new one.
		h.newTOTPSecret(w, r, s, err)
		return
	}
	t := res.Session.Token
	h.site.SetSession(w, r, t)
	v := view{Title: "Recovery codes", Nav: "account", Email: s.User.Email, CSRF: accounts.CSRFToken(t), Data: res.RecoveryCodes}
	h.site.Render(w, http.StatusOK, "recovery", v)
}
