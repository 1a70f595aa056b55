package httpapi

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/orders"
)

func (h *Handler) orderRoutes() {
	h.handle("GET /v2/orders/corridors", tambala.APIv2, h.corridors)
	h.handleJSON("POST /v2/orders/quotes", tambala.APIv2, servePost(h, false, decodeQuoteRequest, (*tambala.Client).QuoteOrder, render.Quote))
	h.handleJSON("POST /v2/orders", tambala.APIv2, serveCreate(h, createRoute[tambala.NewOrder, orders.Order]{
		op: tambala.CreateOrder, decode: decodeNewOrder, create: (*tambala.Client).CreateOrder,
		status: http.StatusCreated, render: render.Order}))
	h.handle("GET /v2/orders", tambala.APIv2, serveList(h, listRoute[orders.Order, tambala.OrderFilter]{
		name: "orders", filter: orderFilter, list: (*tambala.Client).Orders, render: render.Order}))
	h.handle("GET /v2/orders/{id}", tambala.APIv2, serveGet(h, (*tambala.Client).Order, render.Order))
	h.handle("PUT /v2/orders/{id}/proofs/funding", tambala.APIv2, h.uploadProof)
	h.handle("GET /v2/orders/{id}/proofs/funding", tambala.APIv2, h.proofLink)
	// The link carries no API key (the token is the credential), so it
	// lives outside /v1 and /v2, whose every request needs one.
	h.mux.HandleFunc("GET /files/proofs/{token}", h.proofFile)
}

// isProofUpload reports the one route whose body may exceed the global
// cap: the engine reads a proof up to its own cap, and the media type is
// checked before the size.
func isProofUpload(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v2/orders/") && strings.HasSuffix(r.URL.Path, "/proofs/funding")
}

// maxBody is the body cap of r.
func (h *Handler) maxBody(r *http.Request) int64 {
	if isProofUpload(r) {
		return math.MaxInt64
	}
	return h.engine.Settings().Limits().MaxBodyBytes
}

func (h *Handler) corridors(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	cs, err := h.engine.Client(p).Corridors(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Corridors(cs))
}

// beneficiaryFields are the only fields a beneficiary may have: an
// unknown one is refused, so a caller never believes an iban is used
// (see docs/decisions.md, "/v2 desk (orders, quotes, corridors)").
var beneficiaryFields = map[string]bool{"name": true, "bank_name": true, "account_number": true, "branch": true}

// decodeNewOrder reads POST /v2/orders: quote_id and client_ref strings,
// beneficiary an object of the four known string fields, or null.
func decodeNewOrder(body []byte) (tambala.NewOrder, error) {
	var in struct {
		QuoteID     *string         `json:"quote_id"`
		ClientRef   *string         `json:"client_ref"`
		Beneficiary json.RawMessage `json:"beneficiary"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return tambala.NewOrder{}, err
	}
	if in.QuoteID == nil {
		return tambala.NewOrder{}, errcode.Newf(errcode.ValidationError, "quote_id is required.")
	}
	if in.ClientRef == nil {
		return tambala.NewOrder{}, errcode.Newf(errcode.ValidationError, "client_ref is required.")
	}
	n := tambala.NewOrder{QuoteID: *in.QuoteID, ClientRef: *in.ClientRef}
	if len(in.Beneficiary) == 0 || string(in.Beneficiary) == "null" {
		return n, nil
	}
	// A beneficiary that does not read is the engine's to answer, at the
	// step where it checks the beneficiary (after the quote, to-bank only).
	b, err := decodeBeneficiary(in.Beneficiary)
	if err != nil {
		n.BeneficiaryInvalid = err
		return n, nil
	}
	n.Beneficiary = b
	return n, nil
}

// decodeBeneficiary reads a beneficiary object: the four known fields,
// strings (branch may be null).
func decodeBeneficiary(raw json.RawMessage) (*orders.Beneficiary, error) {
	var fields map[string]json.RawMessage
	if err := decodeJSON(raw, &fields); err != nil {
		return nil, errcode.Newf(errcode.ValidationError, "beneficiary must be an object of name, bank_name, account_number and branch.")
	}
	var b orders.Beneficiary
	for k, v := range fields {
		if !beneficiaryFields[k] {
			return nil, errcode.Newf(errcode.ValidationError, "beneficiary.%s is not a field of a beneficiary (name, bank_name, account_number, branch).", truncateField(k))
		}
		if string(v) == "null" {
			if k == "branch" {
				continue
			}
			return nil, errcode.Newf(errcode.ValidationError, "beneficiary.%s is required.", k)
		}
		var s string
		if err := decodeJSON(v, &s); err != nil {
			return nil, errcode.Newf(errcode.ValidationError, "beneficiary.%s must be a string.", k)
		}
		switch k {
		case "name":
			b.Name = s
		case "bank_name":
			b.BankName = s
		case "account_number":
			b.AccountNumber = s
		case "branch":
			b.Branch = &s
		}
	}
	return &b, nil
}

func truncateField(k string) string {
	if len(k) > 40 {
		return k[:40]
	}
	return k
}

// orderFilter reads ?status= and ?client_ref= of GET /v2/orders: a
// client_ref present and empty is validation_error.
func orderFilter(r *http.Request) (tambala.OrderFilter, error) {
	q := r.URL.Query()
	f := tambala.OrderFilter{Status: orders.Status(q.Get("status")), ClientRef: q.Get("client_ref")}
	if q.Has("client_ref") && f.ClientRef == "" {
		return f, errcode.Newf(errcode.ValidationError, "client_ref must not be empty.")
	}
	return f, nil
}

// uploadProof is PUT /v2/orders/{id}/proofs/funding: the media type (415)
// and a declared length over the cap (413) are the transport's to see
// first, so a large body is never read for nothing; the engine does the
// rest, in the order UploadProof gives.
func (h *Handler) uploadProof(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	if _, err := orders.ProofMediaType(r.Header.Get("Content-Type")); err != nil {
		writeError(w, r, h.log, err)
		return
	}
	if r.ContentLength > tambala.GateOf(h.engine).MaxProofBytes() {
		writeError(w, r, h.log, errcode.Newf(errcode.PayloadTooLarge, "A funding proof may be at most %d bytes.", tambala.GateOf(h.engine).MaxProofBytes()))
		return
	}
	o, err := h.engine.Client(p).UploadProof(r.Context(), r.PathValue("id"), tambala.ProofUpload{
		ContentType: r.Header.Get("Content-Type"), Content: r.Body})
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Order(o))
}

func (h *Handler) proofLink(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	link, err := h.engine.Client(p).ProofLink(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{
		"url":        h.publicBase + "/files/proofs/" + link.Token,
		"expires_at": render.Time(link.ExpiresAt),
	})
}

// proofFile is GET /files/proofs/{token}: no bearer, the token is the
// credential.
func (h *Handler) proofFile(w http.ResponseWriter, r *http.Request) {
	f, err := tambala.GateOf(h.engine).OpenProofLink(r.Context(), r.PathValue("token"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	defer f.Content.Close()
	hd := w.Header()
	hd.Set("Content-Type", f.ContentType)
	hd.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	hd.Set("Content-Disposition", `attachment; filename="funding-proof"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff") // the declared type, never a guess from the bytes
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, f.Content)
}
