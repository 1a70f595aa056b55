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
		v.Error = h.friendly(err)
		h.render(w, statusOf(err), "message", v.view)
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
func v2Denied(c *tambala.Client) string {
	if err := c.Principal().Admitted(tambala.APIv2); err != nil {
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
		h.render(w, http.StatusOK, page, v.view)
	case errcode.Of(err) == errcode.ValidationError || errcode.Of(err) == errcode.CorridorNotEnabled:
		if field == "" {
			v.Error = errcode.Message(err)
		} else {
			v.Errors[field] = errcode.Message(err)
		}
		v.Data = d
		h.render(w, http.StatusUnprocessableEntity, page, v.view)
	default:
		v.Error, v.Data = h.friendly(err), "/portal/"
		h.render(w, statusOf(err), "message", v.view)
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
		h.render(w, http.StatusOK, "message", v.view)
	default:
		v.Error, v.Data = h.friendly(err), list
		h.render(w, statusOf(err), "message", v.view)
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

// payoutFilter reads the status filter of a payouts list.
func payoutFilter(v pageView) (tambala.PayoutFilter, bool) {
	s := strings.TrimSpace(v.Form["status"])
	if s == "" {
		return tambala.PayoutFilter{}, true
	}
	st, err := payouts.ParseStatus(s)
	if err != nil {
		v.Errors["status"] = "Choose one of the statuses listed."
		return tambala.PayoutFilter{}, false
	}
	return tambala.PayoutFilter{Status: st}, true
}

func (h *Handler) payouts(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Payouts (/v1)", "payouts", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	d := listData{Statuses: payoutStatuses, V2: v2Denied(c) == ""}
	f, ok := payoutFilter(v)
	if !ok {
		v.Data = d
		h.render(w, http.StatusUnprocessableEntity, "payouts", v.view)
		return
	}
	pg, err := c.Payouts(r.Context(), tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")}, f)
	if err != nil {
		h.listFailed(w, "payouts", "", v, d, err)
		return
	}
	d.Items, d.Next = pg.Items, nextLink("/portal/payouts", r.URL.Query(), pg.HasMore, pg.NextBeforeID)
	v.Data = d
	h.render(w, http.StatusOK, "payouts", v.view)
}

func (h *Handler) payoutsV2(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Payouts (/v2)", "payouts", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	d := listData{Statuses: payoutStatuses, Denied: v2Denied(c)}
	if d.Denied != "" {
		v.Data = d
		h.render(w, http.StatusOK, "payouts_v2", v.view)
		return
	}
	f, ok := payoutFilter(v)
	if !ok {
		v.Data = d
		h.render(w, http.StatusUnprocessableEntity, "payouts_v2", v.view)
		return
	}
	pg, err := c.PayoutsV2(r.Context(), tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")}, f)
	if err != nil {
		h.listFailed(w, "payouts_v2", "", v, d, err)
		return
	}
	d.Items, d.Next = pg.Items, nextLink("/portal/v2/payouts", r.URL.Query(), pg.HasMore, pg.NextBeforeID)
	v.Data = d
	h.render(w, http.StatusOK, "payouts_v2", v.view)
}

func (h *Handler) orders(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Orders", "orders", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	d := listData{Statuses: orderStatuses, Denied: v2Denied(c)}
	if d.Denied != "" {
		v.Data = d
		h.render(w, http.StatusOK, "orders", v.view)
		return
	}
	var f tambala.OrderFilter
	if st := strings.TrimSpace(v.Form["status"]); st != "" {
		parsed, err := orders.ParseStatus(st)
		if err != nil {
			v.Errors["status"] = "Choose one of the statuses listed."
			v.Data = d
			h.render(w, http.StatusUnprocessableEntity, "orders", v.view)
			return
		}
		f.Status = parsed
	}
	pg, err := c.Orders(r.Context(), tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")}, f)
	if err != nil {
		h.listFailed(w, "orders", "", v, d, err)
		return
	}
	d.Items, d.Next = pg.Items, nextLink("/portal/orders", r.URL.Query(), pg.HasMore, pg.NextBeforeID)
	v.Data = d
	h.render(w, http.StatusOK, "orders", v.view)
}

// orderData is an order's detail page's.
type orderData struct {
	Order     orders.Order
	Expires   string
	ProofForm bool // the order awaits a funding proof
	MaxProof  string
}

func (h *Handler) orderView(v pageView, o orders.Order) pageView {
	d := orderData{Order: o, MaxProof: byteSize(h.engine.MaxProofBytes())}
	if t, ok := o.ExpiresAt(); ok {
		d.Expires = t.UTC().Format("2006-01-02 15:04 MST")
	}
	d.ProofForm = o.Direction == orders.FromBank && o.Status == orders.AwaitingFunds
	v.Data = d
	return v
}

func (h *Handler) order(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Order", "orders", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	o, err := c.Order(r.Context(), r.PathValue("id"))
	if err != nil {
		h.detailFailed(w, r, v, "/portal/orders", err)
		return
	}
	if r.URL.Query().Get("proof") == "received" && o.Proof != nil {
		v.Notice = "Your funding proof was received; the desk will check it."
	}
	h.render(w, http.StatusOK, "order", h.orderView(v, o).view)
}

// proofFailed shows the order's page again with msg beside the file field.
func (h *Handler) proofFailed(w http.ResponseWriter, r *http.Request, s session, status int, msg string) {
	v := h.newPageView(s, "Order", "orders", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	o, err := c.Order(r.Context(), r.PathValue("id"))
	if err != nil {
		h.detailFailed(w, r, v, "/portal/orders", err)
		return
	}
	v = h.orderView(v, o)
	v.Errors["proof"] = msg
	h.render(w, status, "order", v.view)
}

// uploadProof takes a funding proof's form (webui's Upload: the session
// and the CSRF token checked before the file is read) and streams the file
// to the engine, which reads at most its cap of it; nothing is written to
// disk.
func (h *Handler) uploadProof(w http.ResponseWriter, r *http.Request, s session, u *webui.Upload) {
	id := r.PathValue("id")
	tooLarge := func() {
		h.proofFailed(w, r, s, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The file is too large: at most %s.", byteSize(h.engine.MaxProofBytes())))
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
		h.message(w, http.StatusBadRequest, "Upload", "The upload could not be read: choose the file and send it again.",
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
				h.proofFailed(w, r, s, statusOf(err), v2Message(err))
				return
			}
			h.proofFailed(w, r, s, statusOf(err), h.friendly(err))
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

func (h *Handler) collections(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Collections (/v1)", "collections", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	d := listData{V2: v2Denied(c) == ""}
	pg, err := c.Collections(r.Context(), tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")})
	if err != nil {
		h.listFailed(w, "collections", "", v, d, err)
		return
	}
	d.Items, d.Next = pg.Items, nextLink("/portal/collections", r.URL.Query(), pg.HasMore, pg.NextBeforeID)
	v.Data = d
	h.render(w, http.StatusOK, "collections", v.view)
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
		h.render(w, http.StatusOK, tmpl, v.view)
	}
}

// assetList is a /v2 list page with the API's asset filter (the form's
// asset, upper-cased): list reads one page of the organization's
// resources; path is the page's own, for its "Older" link. An
// organization without /v2 gets the page with the reason, not an error.
func assetList[T any](h *Handler, title, nav, tmpl, path string,
	list func(c *tambala.Client, ctx context.Context, page tambala.PageRequest, asset money.AssetCode) (tambala.Page[T], error)) func(http.ResponseWriter, *http.Request, session) {
	return func(w http.ResponseWriter, r *http.Request, s session) {
		v := h.newPageView(s, title, nav, r)
		c, ok := h.client(w, r, v)
		if !ok {
			return
		}
		d := listData{Denied: v2Denied(c)}
		if d.Denied != "" {
			v.Data = d
			h.render(w, http.StatusOK, tmpl, v.view)
			return
		}
		asset := money.AssetCode(strings.ToUpper(strings.TrimSpace(v.Form["asset"])))
		pg, err := list(c, r.Context(), tambala.PageRequest{Limit: activityPageSize, BeforeID: r.URL.Query().Get("before")}, asset)
		if err != nil {
			h.listFailed(w, tmpl, "asset", v, d, err)
			return
		}
		d.Items, d.Next = pg.Items, nextLink(path, r.URL.Query(), pg.HasMore, pg.NextBeforeID)
		v.Data = d
		h.render(w, http.StatusOK, tmpl, v.view)
	}
}
