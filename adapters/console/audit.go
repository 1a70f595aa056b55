package console

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/webui"
)

// auditPage is how many entries a page of the audit trail shows.
const auditPage = 50

// localTime is the layout of a datetime-local input, read as UTC.
const localTime = "2006-01-02T15:04"

type auditData struct {
	Entries    []tambala.AuditEntry
	Orgs       []tambala.Organization
	OrgNames   map[string]string
	ActorKinds []tambala.AuditActorKind
	Older      string
}

func (h *Handler) audit(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v := s.View("Audit trail", "audit")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return
	}
	q := r.URL.Query()
	f := tambala.AuditFilter{Org: q.Get("org"), ActorKind: tambala.AuditActorKind(q.Get("actor_kind")),
		Actor: strings.TrimSpace(q.Get("actor")), Action: tambala.AuditAction(strings.TrimSpace(q.Get("action"))),
		Target: strings.TrimSpace(q.Get("target"))}
	for _, k := range []string{"org", "actor_kind", "actor", "action", "target", "since", "until"} {
		v.Form["audit."+k] = strings.TrimSpace(q.Get(k))
	}
	for _, t := range []struct {
		name string
		to   *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if s := strings.TrimSpace(q.Get(t.name)); s != "" {
			at, err := time.ParseInLocation(localTime, s, time.UTC)
			if err != nil {
				v.Errors["audit."+t.name] = "Enter a date and time (UTC) as 2026-11-25T14:30."
				continue
			}
			*t.to = at
		}
	}
	d := auditData{OrgNames: map[string]string{},
		ActorKinds: []tambala.AuditActorKind{tambala.ActorStaff, tambala.ActorUser, tambala.ActorAutomation, tambala.ActorSystem}}
	var err error
	if d.Orgs, err = op.Organizations(r.Context()); err != nil {
		h.fail(w, v, err)
		return
	}
	for _, o := range d.Orgs {
		d.OrgNames[o.ID] = o.Name
	}
	status := http.StatusOK
	if len(v.Errors) == 0 {
		acc, err := h.portal.People(r.Context(), s.Token)
		var page tambala.Page[tambala.AuditEntry]
		if err == nil {
			page, err = acc.AuditTrail(r.Context(), tambala.PageRequest{Limit: auditPage, BeforeID: q.Get("before")}, f)
		}
		if err != nil {
			status = webui.StatusOf(err)
			v.Errors["audit.form"] = h.site.Friendly(err)
		}
		d.Entries = page.Items
		if page.HasMore {
			next := url.Values{}
			for _, k := range []string{"org", "actor_kind", "actor", "action", "target", "since", "until"} {
				if val := v.Form["audit."+k]; val != "" {
					next.Set(k, val)
				}
			}
			next.Set("before", page.NextBeforeID)
			d.Older = "/console/audit?" + next.Encode()
		}
	} else {
		status = http.StatusUnprocessableEntity
	}
	v.Data = d
	h.site.Render(w, status, "audit", v)
}
