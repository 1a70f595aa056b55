package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/orders"
)

// groupSize is how many orders a group of the desk queue shows.
const groupSize = 25

// historyPages bounds the audit pages read for an order's history or a
// corridor's last change (each of tambala.MaxPageSize entries).
const historyPages = 20

// queue is one group of the desk queue: the orders in one status, and
// for failed ones only the to-bank orders whose refund is pending.
// FromBank groups show the funding deadline where to-bank ones show the
// beneficiary.
type queue struct {
	Key, Title string
	Status     orders.Status
	Refunds    bool
	FromBank   bool
}

var queues = []queue{
	{"accepted", "To bank, accepted: start processing", orders.Accepted, false, false},
	{"processing", "To bank, processing: pay the beneficiary, then complete", orders.Processing, false, false},
	{"awaiting_instructions", "From bank, awaiting instructions: issue the funding instructions", orders.AwaitingInstructions, false, true},
	{"awaiting_funds", "From bank, awaiting funds: the client transfers by the deadline", orders.AwaitingFunds, false, true},
	{"proof_submitted", "From bank, proof submitted: review the proof", orders.ProofSubmitted, false, true},
	{"funds_confirmed", "From bank, funds confirmed: complete", orders.FundsConfirmed, false, true},
	{"refund_pending", "To bank, failed with the refund pending: record the coins returned", orders.Failed, true, false},
}

// row is an order of the desk queue.
type row struct {
	Order    orders.Order
	OrgName  string
	Age      string
	Deadline string
}

type group struct {
	queue
	Rows []row
	More string // the next page's link, "" for none
}

type deskData struct {
	Groups []group
	Single bool // one group paged by ?queue=&before=
}

// orgNames maps organization ids to names for the rows.
func orgNames(r *http.Request, op *tambala.Operator) map[string]string {
	names := map[string]string{}
	if orgs, err := op.Organizations(r.Context()); err == nil {
		for _, o := range orgs {
			names[o.ID] = o.Name
		}
	}
	return names
}

func (h *Handler) rowOf(o orders.Order, names map[string]string, now time.Time) row {
	rw := row{Order: o, OrgName: names[o.Org], Age: age(now.Sub(o.CreatedAt))}
	if rw.OrgName == "" {
		rw.OrgName = o.Org
	}
	if d, ok := o.ExpiresAt(); ok {
		rw.Deadline = d.UTC().Format("2006-01-02 15:04 UTC")
	} else if o.Direction == orders.FromBank {
		rw.Deadline = "not set yet"
	}
	return rw
}

func (h *Handler) desk(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v := s.View("Desk", "desk")
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return
	}
	names := orgNames(r, op)
	now := h.opts.Now()
	var d deskData
	only, before := r.URL.Query().Get("queue"), r.URL.Query().Get("before")
	for _, q := range queues {
		if only != "" && q.Key != only {
			continue
		}
		page, err := op.Desk().Orders(r.Context(), tambala.DeskQueue{Status: q.Status},
			tambala.PageRequest{Limit: groupSize, BeforeID: before})
		if err != nil {
			h.fail(w, v, err)
			return
		}
		g := group{queue: q}
		for _, o := range page.Items {
			if q.Refunds && (o.Direction != orders.ToBank || o.Refund == nil || o.Refund.Status != orders.RefundPending) {
				continue
			}
			g.Rows = append(g.Rows, h.rowOf(o, names, now))
		}
		if page.HasMore {
			g.More = "/console/desk?queue=" + url.QueryEscape(q.Key) + "&before=" + url.QueryEscape(page.NextBeforeID)
		}
		d.Groups = append(d.Groups, g)
	}
	if only != "" && len(d.Groups) == 0 {
		h.site.NotFound(w, r)
		return
	}
	d.Single = only != ""
	v.Data = d
	h.site.Render(w, http.StatusOK, "desk", v)
}

// moves are the moves an order's state allows, each decided by
// orders.Apply on the order (a move that errs or changes nothing is not
// offered).
type moves struct {
	Processing, CoinsSent, Complete, Cancel, ReturnRefund bool
	Instructions, RejectProof, ConfirmFunds               bool
	FailCodes                                             []orders.FailureCode
}

func (m moves) Any() bool {
	return m.Processing || m.CoinsSent || m.Complete || m.Cancel || m.ReturnRefund ||
		m.Instructions || m.RejectProof || m.ConfirmFunds || len(m.FailCodes) > 0
}

// legal reports whether cmd is a move of o at now.
func legal(o orders.Order, cmd orders.Command, now time.Time) bool {
	_, eff, err := orders.Apply(o, cmd, now)
	return err == nil && eff.Changed
}

// legalMoves asks the orders package which moves o allows at now.
func legalMoves(o orders.Order, now time.Time) moves {
	m := moves{
		Processing:   legal(o, orders.StartProcessing{}, now),
		CoinsSent:    legal(o, orders.CoinsSent{}, now),
		Complete:     legal(o, orders.Complete{}, now),
		Cancel:       legal(o, orders.Cancel{}, now),
		ReturnRefund: legal(o, orders.ReturnRefund{}, now),
		Instructions: legal(o, orders.Instructions{BankName: "b", AccountName: "a", AccountNumber: "1"}, now),
	}
	if o.Proof != nil {
		m.RejectProof = legal(o, orders.RejectProof{ProofID: o.Proof.ID, Reason: "r"}, now)
		m.ConfirmFunds = legal(o, orders.ConfirmFunds{ProofID: o.Proof.ID}, now)
	}
	for _, c := range orders.FailureCodes(o.Direction) {
		if legal(o, orders.Fail{Code: c}, now) {
			m.FailCodes = append(m.FailCodes, c)
		}
	}
	return m
}

// beneficiary is a to-bank order's beneficiary as the desk types it
// (Typed): every character outside printable ASCII marked.
type beneficiary struct {
	Name, BankName, AccountNumber, Branch []Segment
	HasBranch                             bool
}

type orderData struct {
	Order       orders.Order
	OrgName     string
	Age         string
	Deadline    string
	Beneficiary *beneficiary
	History     []tambala.AuditEntry
	HistoryErr  string
	Desk        bool
	Moves       moves
	// Moved names the move just made, for the page's notice.
	Moved string
}

// history is the audit trail of order id of org, oldest first.
func (h *Handler) history(r *http.Request, s webui.Session, org, id string) ([]tambala.AuditEntry, error) {
	acc, err := h.portal.People(r.Context(), s.Token)
	if err != nil {
		return nil, err
	}
	var out []tambala.AuditEntry
	pg := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for range historyPages {
		page, err := acc.AuditTrail(r.Context(), pg, tambala.AuditFilter{Org: org})
		if err != nil {
			return nil, err
		}
		for _, e := range page.Items {
			if e.Target == id {
				out = append(out, e)
			}
		}
		if !page.HasMore {
			break
		}
		pg.BeforeID = page.NextBeforeID
	}
	slices.Reverse(out)
	return out, nil
}

// orderView is the order page of id for s, with status; on an engine
// error, the message page's view.
func (h *Handler) orderView(r *http.Request, s webui.Session, id string) (webui.View, string, int) {
	v := s.View("Order "+id, "desk")
	op, err := h.portal.Operator(r.Context(), s.Token)
	var o orders.Order
	if err == nil {
		o, err = op.Desk().Order(r.Context(), id)
	}
	if err != nil {
		v.Error, v.Data = h.site.Friendly(err), "/console/desk"
		return v, "message", webui.StatusOf(err)
	}
	now := h.opts.Now()
	rw := h.rowOf(o, orgNames(r, op), now)
	d := orderData{Order: o, OrgName: rw.OrgName, Age: rw.Age, Deadline: rw.Deadline, Desk: may(s, accounts.StaffDesk)}
	if b := o.Beneficiary; b != nil {
		d.Beneficiary = &beneficiary{Name: Typed(b.Name), BankName: Typed(b.BankName), AccountNumber: Typed(b.AccountNumber)}
		if b.Branch != nil {
			d.Beneficiary.Branch, d.Beneficiary.HasBranch = Typed(*b.Branch), true
		}
	}
	if d.History, err = h.history(r, s, o.Org, o.ID); err != nil {
		d.HistoryErr = h.site.Friendly(err)
	}
	if d.Desk {
		d.Moves = legalMoves(o, now)
	}
	v.Data = d
	return v, "order", http.StatusOK
}

func (h *Handler) order(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, page, status := h.orderView(r, s, r.PathValue("id"))
	if d, ok := v.Data.(orderData); ok {
		d.Moved = r.URL.Query().Get("moved")
		v.Data = d
	}
	if id := r.URL.Query().Get("pending"); id != "" && page == "order" {
		v.Notice = h.pendingNotice(r, s, id)
	}
	h.site.Render(w, status, page, v)
}

// proofExt is the file name extension of each media type a proof may
// have.
var proofExt = map[string]string{"application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg"}

// proof serves the newest funding proof to view: in the order page's
// frame (a PDF's unsandboxed by the attribute, which stops Chromium's PDF
// viewer, but by this response's policy) or opened on its own.
func (h *Handler) proof(w http.ResponseWriter, r *http.Request, s webui.Session) {
	h.serveProof(w, r, s, false)
}

// proofDownload serves the newest funding proof as a file to save, named
// after the order.
func (h *Handler) proofDownload(w http.ResponseWriter, r *http.Request, s webui.Session) {
	h.serveProof(w, r, s, true)
}

// serveProof serves the newest funding proof of the path's order: only
// bytes that are what their media type says (the engine checked them on
// upload; they are checked again here, before a byte goes out) and with
// that type, nosniff, and ProofSecurityPolicy, whose sandbox (no script,
// an opaque origin) holds wherever the proof is shown: framed by the
// order page, opened on its own, or saved (download).
func (h *Handler) serveProof(w http.ResponseWriter, r *http.Request, s webui.Session, download bool) {
	v := s.View("Funding proof", "desk")
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return
	}
	id := r.PathValue("id")
	pf, err := op.Desk().Proof(r.Context(), id)
	if err != nil {
		h.fail(w, v, err)
		return
	}
	defer pf.Content.Close()
	content := bufio.NewReader(pf.Content)
	mt, err := orders.ProofMediaType(pf.ContentType)
	if err == nil {
		if head, _ := content.Peek(8); !orders.ProofIs(mt, head) {
			err = fmt.Errorf("the stored proof of order %s is not %s", id, mt)
		}
	}
	if err != nil {
		h.site.LogError("serving a proof", err)
		v.Error, v.Data = "This proof cannot be shown: it is not the file it claims to be.", "/console/orders/"+url.PathEscape(id)
		h.site.Render(w, http.StatusInternalServerError, "message", v)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", mt)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", ProofSecurityPolicy)
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	if download {
		hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "proof-" + id + proofExt[mt]}))
	} else {
		hd.Set("Content-Disposition", "inline")
	}
	hd.Set("Content-Length", strconv.FormatInt(pf.Size, 10))
	_, _ = io.Copy(w, content)
}

// formFields are the fields the console's move forms carry (no deadline:
// the server's funding window sets it).
var formFields = []string{"code", "bank_name", "account_name", "account_number", "reference", "proof_id", "reason"}

// formProblems are the console's words for a field a move needs and its
// form left empty. A field not here (proof_id, a hidden field of the form)
// is left to the engine.
var formProblems = map[string]string{
	"code":           "Choose a failure code.",
	"bank_name":      "Enter this field.",
	"account_name":   "Enter this field.",
	"account_number": "Enter this field.",
	"reason":         "Give the organization the reason.",
}

// command builds the move named name from the form (orders.ParseMove),
// with the fields it read (by field name) for the form sent back; problems
// by field. A name that is no desk move gives no command.
func command(name string, r *http.Request) (orders.Command, map[string]string, map[string]string) {
	form, problems := map[string]string{}, map[string]string{}
	takes, required, ok := orders.MoveTakes(name)
	if !ok {
		return nil, form, problems
	}
	for _, f := range takes {
		if slices.Contains(formFields, f) {
			form[f] = strings.TrimSpace(r.PostFormValue(f))
		}
	}
	for _, f := range required {
		if p, ok := formProblems[f]; ok && form[f] == "" {
			problems[f] = p
		}
	}
	cmd, err := orders.ParseMove(name, orders.MoveFields{Code: orders.FailureCode(form["code"]),
		BankName: form["bank_name"], AccountName: form["account_name"], AccountNumber: form["account_number"],
		Reference: strings.ToUpper(form["reference"]), ProofID: form["proof_id"], Reason: form["reason"]})
	if err != nil {
		return nil, form, problems
	}
	if r.PostFormValue("confirm") != "yes" {
		problems["confirm"] = "Tick “I confirm” to make this move."
	}
	return cmd, form, problems
}

// fieldOf is the field of a move an engine validation message is about.
func fieldOf(cmd orders.Command, msg string) string {
	for _, f := range []string{"bank_name", "account_name", "account_number", "reference", "reason", "code"} {
		if strings.Contains(msg, f) {
			return f
		}
	}
	switch cmd.(type) {
	case orders.Fail:
		return "code"
	case orders.RejectProof:
		return "reason"
	}
	return "confirm"
}

func (h *Handler) move(w http.ResponseWriter, r *http.Request, s webui.Session) {
	id, name := r.PathValue("id"), r.PathValue("move")
	cmd, form, problems := command(name, r)
	if cmd == nil {
		h.site.NotFound(w, r)
		return
	}
	status := http.StatusUnprocessableEntity
	if len(problems) == 0 {
		op, err := h.portal.Operator(r.Context(), s.Token)
		if err == nil {
			_, err = op.Desk().MoveOrder(r.Context(), id, cmd)
		}
		if err == nil {
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(id)+"?moved="+url.QueryEscape(name), http.StatusSeeOther)
			return
		}
		var pending *tambala.ApprovalPendingError
		if errors.As(err, &pending) { // a refund returned above the threshold: four-eyes
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(id)+"?pending="+url.QueryEscape(pending.Approval.ID), http.StatusSeeOther)
			return
		}
		status = webui.StatusOf(err)
		msg := h.site.Friendly(err)
		if errcode.Of(err) == errcode.ValidationError {
			problems[fieldOf(cmd, msg)] = msg
		} else {
			problems["form"] = msg
		}
		if c := errcode.Of(err); c == errcode.Forbidden || c == errcode.NotFound {
			v := s.View("Order "+id, "desk")
			v.Error, v.Data = msg, "/console/orders/"+id
			h.site.Render(w, status, "message", v)
			return
		}
	}
	v, page, st := h.orderView(r, s, id)
	if page != "order" {
		h.site.Render(w, st, page, v)
		return
	}
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	for f, p := range problems {
		v.Errors[name+"."+f] = p
	}
	for f, val := range form {
		v.Form[name+"."+f] = val
	}
	// A move the order no longer allows has no form to show its error
	// beside: the page says it.
	if msg, ok := problems["form"]; ok {
		if d, _ := v.Data.(orderData); !d.Desk || !offered(d.Moves, cmd) {
			v.Error = msg
		}
	}
	h.site.Render(w, status, "order", v)
}

// offered reports whether m shows the form of the move cmd.
func offered(m moves, cmd orders.Command) bool {
	switch cmd.(type) {
	case orders.StartProcessing:
		return m.Processing
	case orders.CoinsSent:
		return m.CoinsSent
	case orders.Complete:
		return m.Complete
	case orders.Cancel:
		return m.Cancel
	case orders.ReturnRefund:
		return m.ReturnRefund
	case orders.Fail:
		return len(m.FailCodes) > 0
	case orders.Instructions:
		return m.Instructions
	case orders.RejectProof:
		return m.RejectProof
	case orders.ConfirmFunds:
		return m.ConfirmFunds
	}
	return false
}
