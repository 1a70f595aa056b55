package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/tambalapay/tambala/money"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

func (a *Admin) orderRoutes() {
	a.handle("GET /admin/corridors", a.listCorridors)
	a.handleJSON("PUT /admin/corridors/{asset}", a.setCorridor)
	a.handle("GET /admin/orders", a.deskOrders)
	a.handle("GET /admin/orders/{id}", a.deskOrder)
	a.handle("GET /admin/orders/{id}/proofs/funding", a.deskProof)
	a.handle("POST /admin/orders/{id}/{move}", a.moveOrder)
}

func (a *Admin) listCorridors(w http.ResponseWriter, r *http.Request) {
	cs, err := a.engine.Operator().Desk().Corridors(r.Context())
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.AdminCorridors(cs))
}

// setCorridor is PUT /admin/corridors/{asset} with
// {"rate_off_ramp":"1750.5"|null,"rate_on_ramp":"1800"|null,"min":"1000.00","open":true,"max":"...."?}.
func (a *Admin) setCorridor(w http.ResponseWriter, r *http.Request) {
	asset, err := a.engine.Settings().Asset(money.AssetCode(r.PathValue("asset")))
	if err != nil {
		writeError(w, r, a.log, money.NotConfigured(truncateField(r.PathValue("asset"))))
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	c, err := decodeCorridorUpdate(asset, body)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if _, err := a.engine.Operator().Desk().SetCorridor(r.Context(), c); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.AdminCorridors([]quotes.Corridor{c}))
}

// deskOrderJSON is an order as the desk sees it: the organization's
// rendering under "order", and what the desk needs beside it (the owner,
// the newest proof's id for reject-proof and confirm-funds, when the coins
// left).
type deskOrderJSON struct {
	Org         string          `json:"org"`
	Order       json.RawMessage `json:"order"`
	Proof       *deskProofJSON  `json:"proof"`
	CoinsLeftAt *string         `json:"coins_left_at"`
}

type deskProofJSON struct {
	ID          string `json:"id"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

func toDeskJSON(o orders.Order) deskOrderJSON {
	d := deskOrderJSON{Org: o.Org, Order: render.Order(o)}
	if o.Proof != nil {
		d.Proof = &deskProofJSON{ID: o.Proof.ID, SHA256: o.Proof.SHA256, ContentType: o.Proof.ContentType, Size: o.Proof.Size}
	}
	if o.CoinsLeftAt != nil {
		s := render.Time(*o.CoinsLeftAt)
		d.CoinsLeftAt = &s
	}
	return d
}

// deskOrders is GET /admin/orders?status=&org=&limit=&before_id=: the desk's
// queue, newest first.
func (a *Admin) deskOrders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.engine.Operator().Desk().Orders(r.Context(), tambala.DeskQueue{Status: orders.Status(q.Get("status")), OrgID: q.Get("org")}, page)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	items := make([]deskOrderJSON, len(res.Items))
	for i, o := range res.Items {
		items[i] = toDeskJSON(o)
	}
	writeJSON(w, http.StatusOK, pageJSON("orders", items, res.HasMore, res.NextBeforeID))
}

func (a *Admin) deskOrder(w http.ResponseWriter, r *http.Request) {
	o, err := a.engine.Operator().Desk().Order(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, toDeskJSON(o), err)
}

// proofExt is the file name extension of each media type a proof may
// have, for the name of the file a download saves.
var proofExt = map[string]string{"application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg"}

// deskProof is GET /admin/orders/{id}/proofs/funding: the newest funding
// proof's bytes as a file to save (Content-Disposition: attachment, named
// proof-ID.pdf/.png/.jpg), with its media type, through the staff face the
// console's proof pages use (Desk.Proof). Only bytes that are what
// their media type says go out: the engine checked them on upload and they
// are checked again here (a host's ProofStore may hand back anything),
// else 500 internal_error and nothing of the file.
func (a *Admin) deskProof(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, err := a.engine.Operator().Desk().Proof(r.Context(), id)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	defer f.Content.Close()
	content := bufio.NewReader(f.Content)
	mt, err := orders.ProofMediaType(f.ContentType)
	if err == nil {
		if head, _ := content.Peek(8); !orders.ProofIs(mt, head) {
			err = fmt.Errorf("the stored proof of order %s is not %s", id, mt)
		}
	}
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("serving a funding proof: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", mt)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "proof-" + id + proofExt[mt]}))
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, content)
}

// moveOrder is POST /admin/orders/{id}/{move}: move one of orders.MoveNames,
// with the fields it takes (orders.MoveTakes) in an optional JSON body
// (code; bank_name, account_name, account_number, reference?, deadline?;
// proof_id, reason). A move that is no desk move is 404 not_found.
func (a *Admin) moveOrder(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code          orders.FailureCode `json:"code"`
		BankName      string             `json:"bank_name"`
		AccountName   string             `json:"account_name"`
		AccountNumber string             `json:"account_number"`
		Reference     string             `json:"reference"`
		Deadline      *string            `json:"deadline"`
		ProofID       string             `json:"proof_id"`
		Reason        string             `json:"reason"`
	}
	if r.ContentLength != 0 { // the body is optional: only a move with fields needs one
		if err := checkJSONBody(r); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if err := bind(r, &in); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	cmd, err := orders.ParseMove(r.PathValue("move"), orders.MoveFields{Code: in.Code, BankName: in.BankName,
		AccountName: in.AccountName, AccountNumber: in.AccountNumber, Reference: in.Reference,
		ProofID: in.ProofID, Reason: in.Reason})
	if err != nil {
		var unknown *orders.UnknownMoveError
		if errors.As(err, &unknown) {
			err = errcode.Newf(errcode.NotFound, "No such order move.")
		}
		writeError(w, r, a.log, err)
		return
	}
	if ins, ok := cmd.(orders.Instructions); ok && in.Deadline != nil {
		t, err := time.Parse(time.RFC3339Nano, *in.Deadline)
		if err != nil {
			writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "deadline must be an ISO 8601 date-time."))
			return
		}
		ins.Deadline = &t
		cmd = ins
	}
	o, err := a.engine.Operator().Desk().MoveOrder(r.Context(), r.PathValue("id"), cmd)
	a.reply(w, r, http.StatusOK, toDeskJSON(o), err)
}
