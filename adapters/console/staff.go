package console

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
)

// staffRow is a staff user with their roles as the form's checkboxes.
type staffRow struct {
	U     tambala.User
	Roles map[string]bool
	Self  bool
}

type staffData struct {
	Users       []staffRow
	Invitations []tambala.Invitation
	Roles       []accounts.StaffRole
	Admin       bool
	// Link is a new invitation's accept link, shown once.
	Link, Invited string
}

func (h *Handler) staffView(w http.ResponseWriter, r *http.Request, s webui.Session) (webui.View, bool) {
	v := s.View("Staff", "staff")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	acc, err := h.portal.People(r.Context(), s.Token)
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	users, err := acc.Users(r.Context(), "")
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	d := staffData{Roles: accounts.StaffRoles(), Admin: may(s, accounts.StaffAdmin)}
	for _, u := range users {
		row := staffRow{U: u, Roles: map[string]bool{}, Self: u.ID == s.User.ID}
		for _, role := range u.StaffRoles {
			row.Roles[string(role)] = true
		}
		d.Users = append(d.Users, row)
	}
	if d.Invitations, err = acc.Invitations(r.Context(), ""); err != nil {
		h.fail(w, v, err)
		return v, false
	}
	v.Data = d
	return v, true
}

// rolesOf reads the role checkboxes of a form into form (role names
// "yes") and returns the roles.
func rolesOf(r *http.Request, form map[string]string) []accounts.StaffRole {
	var roles []accounts.StaffRole
	for _, role := range accounts.StaffRoles() {
		if slices.Contains(r.PostForm["role"], string(role)) {
			roles = append(roles, role)
			form["role-"+string(role)] = "yes"
		}
	}
	return roles
}

// invite invites a staff user and shows the accept link once.
func (h *Handler) invite(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.staffView(w, r, s)
	if !ok {
		return
	}
	form, problems := map[string]string{}, map[string]string{}
	email := strings.TrimSpace(r.PostFormValue("email"))
	form["email"] = email
	if email == "" {
		problems["email"] = "Enter the email address to invite."
	}
	roles := rolesOf(r, form)
	if len(roles) == 0 {
		problems["roles"] = "Choose at least one role."
	}
	if len(problems) > 0 {
		h.again(w, v, "staff", "invite", form, problems, nil)
		return
	}
	acc, err := h.portal.People(r.Context(), s.Token)
	var inv tambala.Invited
	if err == nil {
		inv, err = acc.InviteUser(r.Context(), tambala.InviteUser{Email: email, StaffRoles: roles})
	}
	if err != nil {
		h.again(w, v, "staff", "invite", form, problems, err)
		return
	}
	// The page again with the new invitation, its link shown here once:
	// the token is never stored and never shown again.
	v, ok = h.staffView(w, r, s)
	if !ok {
		return
	}
	d := v.Data.(staffData)
	d.Link = "/console/invitations/accept?token=" + url.QueryEscape(inv.Token)
	d.Invited = inv.Invitation.Email
	v.Data = d
	v.Notice = "The invitation is made: send its link to " + inv.Invitation.Email + ". It is shown once."
	h.site.Render(w, http.StatusOK, "staff", v)
}

// staffChange sets a staff user's roles, ends their sessions, disables or
// enables them, or confirms them (their approvals suspended since someone
// else reset their credentials or invited them).
func (h *Handler) staffChange(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.staffView(w, r, s)
	if !ok {
		return
	}
	id, change := r.PathValue("id"), r.PathValue("change")
	form := map[string]string{}
	acc, err := h.portal.People(r.Context(), s.Token)
	if err == nil {
		var known bool
		switch known, err = userChange(r.Context(), acc, id, change); {
		case known:
		case change == "roles":
			err = discard(acc.SetStaffRoles(r.Context(), id, rolesOf(r, form)))
		case change == "confirm":
			err = discard(acc.ConfirmStaff(r.Context(), id))
		default:
			h.site.NotFound(w, r)
			return
		}
	}
	if err != nil {
		h.again(w, v, "staff", id, form, nil, err)
		return
	}
	http.Redirect(w, r, "/console/staff?done="+change, http.StatusSeeOther)
}

// userChange makes one of the changes of every user, an organization's or
// staff: end-sessions, disable or enable; false for another change.
func userChange(ctx context.Context, acc *tambala.People, id, change string) (bool, error) {
	switch change {
	case "end-sessions":
		return true, discard(acc.EndSessions(ctx, id))
	case "disable":
		return true, discard(acc.DisableUser(ctx, id))
	case "enable":
		return true, discard(acc.EnableUser(ctx, id))
	}
	return false, nil
}
