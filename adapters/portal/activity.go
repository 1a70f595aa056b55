package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
)

// The activity pages: read-only lists and detail pages of the
// organization's payouts (/v1 and /v2), desk orders, conversions and
// collections (/v1 and /v2), read through the organization's Client under
// every rule an API key is under, and the funding-proof upload of a
// from-bank order awaiting funds.

// activityPageSize is how many items a list page shows.
const activityPageSize = 25

// proofFormSlack is what a proof upload's body may carry beyond the
// engine's cap on the file: the CSRF field and the multipart framing.
const proofFormSlack = 64 << 10

func init() {
	pageNames = append(pageNames, "payouts", "payout", "payouts_v2", "payout_v2", "orders", "order",
		"conversions", "conversion", "collections", "collection", "collections_v2", "collection_v2")
}

// listData is a list page's: its items, the filter in force and the link
// to the next (older) page.
type listData struct {
	Items    any
	V2       bool   // the organization may read /v2
	Denied   string // why a /v2 list is not shown, "" when it is
	Statuses []string
	Next     string // the older page's URL, "" for none
}

// client is the session's organization's Client, or false after an error
// page was rendered.
func (h *Handler) client(w http.ResponseWriter, r *http.Request, v pageView) (*tambala.Client, bool) {
	p, err := h.portal.Principal(r.Context(), v.token)
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v.view)
		return nil, false
	}
	return h.engine.Client(p), true
}

// pageView carries the session's token beside the view.
type pageView struct {
	view
	token string
}

func pageOf(s session, title, nav string) pageView {
	return pageView{view: s.View(title, nav), token: s.Token}
}

// v2Denied is the short message shown instead of a /v2 page, "" when the
// organization may read /v2.
func (h *Handler) v2Denied(c *tambala.Client) string {
	if err := tambala.GateOf(h.engine).Admitted(c.Principal(), tambala.APIv2); err != nil {
		return v2Message(err)
	}
	return ""
}

func v2Message(err error) string {
	if errcode.Of(err) == errcode.OnboardingIncomplete {
		return "Your organization does not have /v2 access yet: these pages open once it is set up."
	}
	return errcode.Message(err)
}

// deniedByRules reports whether err is a /v2 rule of the organization (not
// onboarded, the API paused, the organization suspended) rather than a
// failure.
func deniedByRules(err error) bool {
	switch errcode.Of(err) {
	case errcode.OnboardingIncomplete, errcode.Forbidden:
		return true
	}
	return false
}

// nextLink is the URL of the page older than p's: path with the query q
// and before set.
func nextLink(path string, q url.Values, hasMore bool, before string) string {
	if !hasMore || before == "" {
		return ""
	}
	n := url.Values{}
	for k, vs := range q {
		if k != "before" && len(vs) > 0 && vs[0] != "" {
			n.Set(k, vs[0])
		}
	}
	n.Set("before", before)
	return path + "?" + n.Encode()
}

// listFailed renders a list page's engine error: the /v2 rules as a short
// message on the page, a wrong filter beside its field, anything else as
// the page's error.
func (h *Handler) listFailed(w http.ResponseWriter, page, field string, v pageView, d listData, err error) {
	switch {
	case deniedByRules(err):
		d.Denied = v2Message(err)
		v.Data = d
		h.site.Render(w, http.StatusOK, page, v.view)
	case errcode.Of(err) == errcode.ValidationError || errcode.Of(err) == errcode.CorridorNotEnabled:
		if field == "" {
			v.Error = errcode.Message(err)
		} else {
			v.Errors[field] = errcode.Message(err)
		}
		v.Data = d
		h.site.Render(w, http.StatusUnprocessableEntity, page, v.view)
	default:
		v.Error, v.Data = h.site.Friendly(err), "/portal/"
		h.site.Render(w, webui.StatusOf(err), "message", v.view)
	}
}

// detailFailed renders a detail page's engine error: not found (another
// organization's id among them) as the not-found page.
func (h *Handler) detailFailed(w http.ResponseWriter, r *http.Request, v pageView, list string, err error) {
	switch {
	case errcode.Of(err) == errcode.NotFound:
		h.site.NotFound(w, r)
	case deniedByRules(err):
		v.Error, v.Data = v2Message(err), "/portal/"
		h.site.Render(w, http.StatusOK, "message", v.view)
	default:
		v.Error, v.Data = h.site.Friendly(err), list
		h.site.Render(w, webui.StatusOf(err), "message", v.view)
	}
}

func (h *Handler) newPageView(s session, title, nav string, r *http.Request) pageView {
	v := pageOf(s, title, nav)
	v.Errors = map[string]string{}
	v.Form = map[string]string{}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			v.Form[k] = vs[0]
		}
	}
	return v
}

var payoutStatuses = []string{string(payouts.Received), string(payouts.Validated), string(payouts.Held), string(payouts.Submitted),
	string(payouts.Pending), string(payouts.Succeeded), string(payouts.Failed), string(payouts.Reversed)}

var orderStatuses = []string{string(orders.Accepted), string(orders.Processing), string(orders.AwaitingInstructions),
	string(orders.AwaitingFunds), string(orders.ProofSubmitted), string(orders.FundsConfirmed), string(orders.Expired),
	string(orders.Completed), string(orders.Failed), string(orders.Cancelled)}

// statusFilter reads the status filter of a list by parse: none when the
// form has none, false (the reason beside the field) when it is not one
// of the statuses listed.
func statusFilter[S any](v pageView, parse func(string) (S, error)) (S, bool) {
	var st S
	s := strings.TrimSpace(v.Form["status"])
	if s == "" {
		return st, true
	}
	st, err := parse(s)
	if err != nil {
		v.Errors["status"] = "Choose one of the statuses listed."
		return st, false
	}
	return st, true
}

// payoutFilter reads the status filter of a payouts list.
func payoutFilter(v pageView) (tambala.PayoutFilter, bool) {
	st, ok := statusFilter(v, payouts.ParseStatus)
	return tambala.PayoutFilter{Status: st}, ok
}

// orderFilter reads the status filter of the orders list.
func orderFilter(v pageView) (tambala.OrderFilter, bool) {
	st, ok := statusFilter(v, orders.ParseStatus)
	return tambala.OrderFilter{Status: st}, ok
}

// assetFilter reads the /v2 lists' asset filter: the form's asset,
// upper-cased, as the API's.
func assetFilter(v pageView) (money.AssetCode, bool) {
	return money.AssetCode(strings.ToUpper(strings.TrimSpace(v.Form["asset"]))), true
}

// noFilter is the filter of a list the form does not narrow.
func noFilter(pageView) (struct{}, bool) { return struct{}{}, true }

// pageRequest is the page a list shows: activityPageSize items older than
// the query's before.
func pageRequest(r *http.Request) tambala.PageRequest {
	return tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")}
}

// listPage is a read-only list page: tmpl renders it, path is its own (for
// its "Older" link), statuses the filter's choices. A /v2 page (v2) is
// shown to an organization without /v2 with the reason, not an error; a
// /v1 page says whether the organization may read /v2. filter reads the
// form's filter (false: a wrong value, the page shown again); list reads
// one page of the organization's resources; field is where an engine's
// validation error is shown ("" the page's error).
type listPage[T, F any] struct {
	title, nav, tmpl, path, field string
	v2                            bool
	statuses                      []string
	filter                        func(pageView) (F, bool)
	list                          func(*tambala.Client, context.Context, tambala.PageRequest, F) (tambala.Page[T], error)
}

// serveList answers a listPage.
func serveList[T, F any](h *Handler, l listPage[T, F]) func(http.ResponseWriter, *http.Request, session) {
	return func(w http.ResponseWriter, r *http.Request, s session) {
		v := h.newPageView(s, l.title, l.nav, r)
		c, ok := h.client(w, r, v)
		if !ok {
			return
		}
		d := listData{Statuses: l.statuses}
		if !l.v2 {
			d.V2 = h.v2Denied(c) == ""
		} else if d.Denied = h.v2Denied(c); d.Denied != "" {
			v.Data = d
			h.site.Render(w, http.StatusOK, l.tmpl, v.view)
			return
		}
		f, ok := l.filter(v)
		if !ok {
			v.Data = d
			h.site.Render(w, http.StatusUnprocessableEntity, l.tmpl, v.view)
			return
		}
		pg, err := l.list(c, r.Context(), pageRequest(r), f)
		if err != nil {
			h.listFailed(w, l.tmpl, l.field, v, d, err)
			return
		}
		d.Items, d.Next = pg.Items, nextLink(l.path, r.URL.Query(), pg.HasMore, pg.NextBeforeID)
		v.Data = d
		h.site.Render(w, http.StatusOK, l.tmpl, v.view)
	}
}

// orderData is an order's detail page's.
type orderData struct {
	Order     orders.Order
	Expires   string
	ProofForm bool // the order awaits a funding proof
	MaxProof  string
}

func (h *Handler) orderView(v pageView, o orders.Order) pageView {
	d := orderData{Order: o, MaxProof: byteSize(tambala.GateOf(h.engine).MaxProofBytes())}
	if t, ok := o.ExpiresAt(); ok {
		d.Expires = webui.When(t)
	}
	d.ProofForm = o.Direction == orders.FromBank && o.Status == orders.AwaitingFunds
	v.Data = d
	return v
}

// orderPage is the order's page of the path's id, or false after a page
// saying why not.
func (h *Handler) orderPage(w http.ResponseWriter, r *http.Request, s session) (pageView, orders.Order, bool) {
	v := h.newPageView(s, "Order", "orders", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return v, orders.Order{}, false
	}
	o, err := c.Order(r.Context(), r.PathValue("id"))
	if err != nil {
		h.detailFailed(w, r, v, "/portal/orders", err)
		return v, orders.Order{}, false
	}
	return h.orderView(v, o), o, true
}

func (h *Handler) order(w http.ResponseWriter, r *http.Request, s session) {
	v, o, ok := h.orderPage(w, r, s)
	if !ok {
		return
	}
	if r.URL.Query().Get("proof") == "received" && o.Proof != nil {
		v.Notice = "Your funding proof was received; the desk will check it."
	}
	h.site.Render(w, http.StatusOK, "order", v.view)
}

// proofFailed shows the order's page again with msg beside the file field.
func (h *Handler) proofFailed(w http.ResponseWriter, r *http.Request, s session, status int, msg string) {
	v, _, ok := h.orderPage(w, r, s)
	if !ok {
		return
	}
	v.Errors["proof"] = msg
	h.site.Render(w, status, "order", v.view)
}

// uploadProof takes a funding proof's form (webui's Upload: the session
// and the CSRF token checked before the file is read) and streams the file
// to the engine, which reads at most its cap of it; nothing is written to
// disk.
func (h *Handler) uploadProof(w http.ResponseWriter, r *http.Request, s session, u *webui.Upload) {
	id := r.PathValue("id")
	tooLarge := func() {
		h.proofFailed(w, r, s, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The file is too large: at most %s.", byteSize(tambala.GateOf(h.engine).MaxProofBytes())))
	}
	if u.TooLarge {
		tooLarge()
		return
	}
	if u.File == nil || u.File.FormName() != "proof" {
		h.proofFailed(w, r, s, http.StatusUnprocessableEntity, "Choose the file of your bank's proof of payment.")
		return
	}
	v := h.newPageView(s, "Order", "orders", r)
	a, ok := h.admin(w, r, v.view)
	if !ok {
		return
	}
	_, err := a.UploadProof(r.Context(), id, tambala.ProofUpload{ContentType: u.File.Header.Get("Content-Type"), Content: u})
	if failed := u.Failed(); failed != nil {
		if webui.TooLong(failed) {
			tooLarge()
			return
		}
		h.site.Message(w, http.StatusBadRequest, "Upload", "The upload could not be read: choose the file and send it again.",
			"/portal/orders/"+url.PathEscape(id))
		return
	}
	if err != nil {
		code := errcode.Of(err)
		switch code {
		case errcode.NotFound:
			h.site.NotFound(w, r)
		case errcode.UnsupportedMediaType:
			h.proofFailed(w, r, s, http.StatusUnsupportedMediaType, "Upload a PDF, PNG or JPEG file.")
		case errcode.PayloadTooLarge:
			tooLarge()
		case errcode.ProofNotExpected:
			h.proofFailed(w, r, s, http.StatusConflict, errcode.Message(err))
		case errcode.ValidationError:
			h.proofFailed(w, r, s, http.StatusUnprocessableEntity, "The file is empty: choose your proof of payment.")
		default:
			if deniedByRules(err) {
				h.proofFailed(w, r, s, webui.StatusOf(err), v2Message(err))
				return
			}
			h.proofFailed(w, r, s, webui.StatusOf(err), h.site.Friendly(err))
		}
		return
	}
	http.Redirect(w, r, "/portal/orders/"+url.PathEscape(id)+"?proof=received", http.StatusSeeOther)
}

// byteSize is n bytes for people: "10 MB", "512 KB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// detail is a read-only detail page: read fetches the organization's
// resource by the path's id (another organization's id is not found),
// rendered with tmpl; back is the list a not-found page links to.
func detail[T any](h *Handler, title, nav, tmpl, back string, read func(*tambala.Client, context.Context, string) (T, error)) func(http.ResponseWriter, *http.Request, session) {
	return func(w http.ResponseWriter, r *http.Request, s session) {
		v := h.newPageView(s, title, nav, r)
		c, ok := h.client(w, r, v)
		if !ok {
			return
		}
		x, err := read(c, r.Context(), r.PathValue("id"))
		if err != nil {
			h.detailFailed(w, r, v, back, err)
			return
		}
		v.Data = x
		h.site.Render(w, http.StatusOK, tmpl, v.view)
	}
}
