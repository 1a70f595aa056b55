package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

// Every authenticated route may also answer these (500 is never
// acceptable here).
var commonCodes = []errcode.Code{
	errcode.Unauthorized, errcode.Forbidden, errcode.OnboardingIncomplete, errcode.AccessSuspended,
	errcode.RateLimited, errcode.ServiceMaintenance, errcode.ServiceIncident, errcode.PayloadTooLarge,
}

// deskCodes are the codes each desk route may answer besides
// commonCodes.
var deskCodes = map[string][]errcode.Code{
	"quote": {errcode.ValidationError, errcode.CorridorNotEnabled, errcode.UnsupportedAsset, errcode.UnsupportedPair,
		errcode.AmountBelowMinimum, errcode.LimitExceeded, errcode.RateUnavailable},
	"order": {errcode.ValidationError, errcode.InsufficientFunds, errcode.CorridorNotEnabled, errcode.NotFound,
		errcode.QuoteUsed, errcode.ClientRefUsed, errcode.Conflict, errcode.QuoteExpired,
		errcode.BeneficiaryRequired, errcode.BeneficiaryNotAllowed},
	"proof": {errcode.ValidationError, errcode.NotFound, errcode.ProofNotExpected, errcode.PayloadTooLarge,
		errcode.UnsupportedMediaType},
}

// deskFuzzRoutes are what FuzzOrderBodies drives. kind names the route's
// codes; body builds the request body from the fuzzed bytes and string
// (and, for orders, a fresh quote id).
var deskFuzzRoutes = []struct {
	name, kind string
	body       func(raw []byte, s, quoteID string) []byte
}{
	{"quote raw", "quote", func(raw []byte, _, _ string) []byte { return raw }},
	{"quote amount raw", "quote", func(_ []byte, s, _ string) []byte {
		return jsonObj("from_asset", `"USDT"`, "to_asset", `"MWK"`, "from_amount", s)
	}},
	{"quote amount string", "quote", func(_ []byte, s, _ string) []byte {
		return jsonObj("from_asset", `"MWK"`, "to_asset", `"USDT"`, "to_amount", quote(s))
	}},
	{"quote assets", "quote", func(raw []byte, s, _ string) []byte {
		return jsonObj("from_asset", quote(s), "to_asset", quote(string(raw)), "to_amount", `"1000.00"`)
	}},
	{"order raw", "order", func(raw []byte, _, _ string) []byte { return raw }},
	{"order to-bank", "order", func(raw []byte, s, q string) []byte {
		return jsonObj("quote_id", quote(q), "client_ref", quote(s), "beneficiary", string(raw))
	}},
	{"order from-bank", "order", func(raw []byte, s, q string) []byte {
		return jsonObj("quote_id", quote(q), "client_ref", quote(s), "beneficiary", string(raw))
	}},
	{"order quote id", "order", func(raw []byte, s, _ string) []byte {
		return jsonObj("quote_id", s, "client_ref", `"ref"`, "beneficiary", string(raw))
	}},
	{"proof", "proof", nil},
	{"proof to-bank order", "proof", nil},
	{"proof unknown order", "proof", nil},
}

// FuzzOrderBodies feeds arbitrary bodies, strings, content types and
// idempotency keys to POST /v2/orders/quotes, POST /v2/orders and PUT
// /v2/orders/{id}/proofs/funding: never a 5xx; every error is the envelope
// with a code of the route (deskCodes, or one every route may give);
// every response matches the OpenAPI document; no body the strict
// decoding refuses is ever accepted; an accepted order echoes client_ref
// and the beneficiary exactly; an accepted proof is stored byte for byte
// and starts with its type's signature.
func FuzzOrderBodies(f *testing.F) {
	e := newDeskEnv(f, func(o *tambala.Options) {
		o.Limits.MaxBodyBytes = 64 << 10
		o.Orders.MaxProofBytes = 1 << 10
	})
	_, key := e.deskOrg(f, "")
	ctx := context.Background()
	p, err := e.Engine.Authenticate(ctx, key)
	if err != nil {
		f.Fatal(err)
	}
	newQuote := func(t testing.TB, from, to, amount string) string {
		q, err := e.Engine.Client(p).QuoteOrder(ctx, quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: money.DecimalText(amount)})
		if err != nil {
			t.Fatal(err)
		}
		return q.ID
	}
	newOrder := func(t testing.TB, n tambala.NewOrder, idem string) orders.Order {
		c, err := e.Engine.Client(p).CreateOrder(ctx, n, tambala.Idempotency{Key: idem})
		if err != nil {
			t.Fatal(err)
		}
		return c.Resource
	}
	// A from-bank order awaiting funds takes the fuzzed proofs; a to-bank
	// one never does.
	fb := newOrder(f, tambala.NewOrder{QuoteID: newQuote(f, "MWK", "USDT", "1000.00"), ClientRef: "fuzz-fb"}, "fuzz-fb")
	if _, err := e.Engine.Operator().Desk().MoveOrder(ctx, fb.ID, orders.Instructions{BankName: "NBM", AccountName: "Desk", AccountNumber: "1"}); err != nil {
		f.Fatal(err)
	}
	tb := newOrder(f, tambala.NewOrder{QuoteID: newQuote(f, "USDT", "MWK", "1"), ClientRef: "fuzz-tb",
		Beneficiary: &orders.Beneficiary{Name: "A", BankName: "B", AccountNumber: "1"}}, "fuzz-tb")

	bodies := []string{
		``, `{}`, `null`, `[]`, `"x"`, `0`, `{"from_asset":null}`, `{"quote_id":[]}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"10"}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":10}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","to_amount":"17505.00"}`,
		`{"from_asset":"usdt","to_asset":"MWK","from_amount":"10"}`,
		`{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","from_amount":"11"}`,
		`{"from_asset":"USDT","to_asset":"MWK","FROM_AMOUNT":"10","from_amount":"11"}`,
		`{"from_asset":"USDT\u0000","to_asset":"MWK","from_amount":"10"}`,
		"{\"from_asset\":\"\xff\",\"to_asset\":\"MWK\",\"from_amount\":\"10\"}",
		`{"quote_id":"0190c4d2-7f3a-7b1e-8a2b-000000000000","client_ref":"a"}`,
		beneficiaryJSON, `{"name":"A","bank_name":"B","account_number":"1","branch":null}`,
		`{"name":"A","bank_name":"B","account_number":"1","iban":"x"}`, `{"name":"A","name":"B","bank_name":"B","account_number":"1"}`,
		`{"Name":"A","bank_name":"B","account_number":"1"}`, `{"name":"A\ud800","bank_name":"B","account_number":"1"}`,
		`{"name":"","bank_name":"B","account_number":"1"}`, `""`, `{"name":1}`,
		pdf1, pngBytes, "\xff\xd8\xff\xe0JFIF", "%PDF", "%PDF-" + strings.Repeat("x", 1100),
		strings.Repeat("[", 2000), `{"a":` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat(`}`, 601),
	}
	strs := []string{
		"10", "10.5", "0", "0.00", "-1", "1e3", "0x10", " 1", "1 ", ".5", "5.", "1000.001", "0.0000001", "999.99",
		strings.Repeat("9", 40), "NaN", "null", "true", "[]", "{}", `"1"`, "", "USDT", "MWK", "usdt", "USDT-TRC20",
		"ABCDEFGHIJKLM", "EUR", "ref-1", strings.Repeat("é", 64), strings.Repeat("é", 65), "a\x00b", "\xff", "\u0085",
		`"0190c4d2-7f3a-7b1e-8a2b-000000000000"`, `"not-a-uuid"`, `1`,
	}
	types := []string{"application/json", "application/pdf", "image/png", "image/jpeg", "IMAGE/PNG; x=1", "", "text/plain", "application/pdf;", "\xff"}
	idems := []string{"k", "", strings.Repeat("k", 256), "\xff\xfe", "key with spaces", "k\x00", "k2"}
	for i, b := range bodies {
		f.Add(uint8(i), []byte(b), strs[i%len(strs)], types[i%len(types)], idems[i%len(idems)])
	}
	for i, s := range strs {
		f.Add(uint8(i), []byte(beneficiaryJSON), s, types[i%len(types)], "k")
	}
	for i := range deskFuzzRoutes {
		f.Add(uint8(i), []byte(pdf1), "ref", "application/pdf", "seed")
		f.Add(uint8(i), []byte(beneficiaryJSON), "10", "application/json", "seed")
	}

	f.Fuzz(func(t *testing.T, route uint8, raw []byte, s, contentType, idem string) {
		r := deskFuzzRoutes[int(route)%len(deskFuzzRoutes)]
		var method, path string
		var sent []byte
		switch r.kind {
		case "quote":
			method, path, sent = "POST", "/v2/orders/quotes", r.body(raw, s, "")
		case "order":
			q := ""
			switch r.name {
			case "order to-bank":
				q = newQuote(t, "USDT", "MWK", "1")
			case "order from-bank":
				q = newQuote(t, "MWK", "USDT", "1000.00")
			}
			method, path, sent = "POST", "/v2/orders", r.body(raw, s, q)
		case "proof":
			method, sent = "PUT", raw
			switch r.name {
			case "proof":
				path = "/v2/orders/" + fb.ID + "/proofs/funding"
			case "proof to-bank order":
				path = "/v2/orders/" + tb.ID + "/proofs/funding"
			default:
				path = "/v2/orders/0190c4d2-7f3a-7b1e-8a2b-000000000000/proofs/funding"
			}
		}
		req := httptest.NewRequest(method, path, bytes.NewReader(sent))
		req.Header.Set("Authorization", "Bearer "+key)
		if r.kind == "proof" {
			req.Header.Set("Content-Type", contentType)
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
		if r.kind == "order" {
			// Distinct per iteration unless the fuzzer repeats one, so
			// replays and conflicts happen too.
			req.Header.Set("Idempotency-Key", idem)
		}
		res := serveDirect(e.Public, req)
		if res.Status >= 500 { // the corridor is open and /v2 live: no 503 either
			t.Fatalf("%s: %d %s\nbody: %q", r.name, res.Status, truncate(res.Body), sent)
		}
		checkPublic(t, method, path, res.Status, res.Header, res.Body)
		if res.Status >= 300 {
			code := errcode.Code(res.code())
			ok := false
			for _, c := range append(append([]errcode.Code(nil), commonCodes...), deskCodes[r.kind]...) {
				ok = ok || c == code
			}
			if !ok {
				t.Fatalf("%s: code %s is not one of the route's: %s", r.name, code, res.Body)
			}
			return
		}
		switch r.kind {
		case "quote", "order":
			if err := strictjson.Validate(sent); err != nil {
				t.Fatalf("%s: accepted a body the strict decoding refuses (%v): %q", r.name, err, sent)
			}
		}
		switch {
		case r.kind == "order" && res.Header.Get("Idempotent-Replayed") == "":
			var in struct {
				ClientRef   string          `json:"client_ref"`
				Beneficiary json.RawMessage `json:"beneficiary"`
			}
			var out struct {
				ClientRef   string            `json:"client_ref"`
				Beneficiary map[string]string `json:"beneficiary"`
				Status      string            `json:"status"`
			}
			if json.Unmarshal(sent, &in) != nil || json.Unmarshal(res.Body, &out) != nil {
				t.Fatalf("%s: accepted %q, answered %s", r.name, sent, res.Body)
			}
			if out.ClientRef != in.ClientRef {
				t.Fatalf("%s: client_ref %q echoed as %q", r.name, in.ClientRef, out.ClientRef)
			}
			var ben map[string]*string
			if len(in.Beneficiary) > 0 && string(in.Beneficiary) != "null" {
				if err := json.Unmarshal(in.Beneficiary, &ben); err != nil {
					t.Fatalf("%s: accepted a beneficiary that is not an object of strings: %s", r.name, in.Beneficiary)
				}
			}
			for k, v := range ben {
				if v != nil && out.Beneficiary[k] != *v {
					t.Fatalf("%s: beneficiary.%s %q echoed as %q", r.name, k, *v, out.Beneficiary[k])
				}
			}
			if (out.Status == "accepted") != (len(out.Beneficiary) > 0) {
				t.Fatalf("%s: status %s with beneficiary %v", r.name, out.Status, out.Beneficiary)
			}
		case r.kind == "proof":
			mt, err := orders.ProofMediaType(contentType)
			if err != nil {
				t.Fatalf("%s: accepted Content-Type %q", r.name, contentType)
			}
			magic := map[string]string{"application/pdf": "%PDF-", "image/png": "\x89PNG\r\n\x1a\n", "image/jpeg": "\xff\xd8\xff"}[mt]
			if !bytes.HasPrefix(raw, []byte(magic)) {
				t.Fatalf("%s: accepted %q as %s", r.name, raw, mt)
			}
			pf, err := e.Engine.Operator().Desk().Proof(ctx, fb.ID)
			if err != nil {
				t.Fatal(err)
			}
			var stored bytes.Buffer
			_, _ = stored.ReadFrom(pf.Content)
			pf.Content.Close()
			if !bytes.Equal(stored.Bytes(), raw) || pf.ContentType != mt {
				t.Fatalf("%s: stored %q as %s, sent %q as %s", r.name, stored.Bytes(), pf.ContentType, raw, mt)
			}
			// Reject it so that the next proof is expected again.
			o, err := e.Engine.Operator().Desk().Order(ctx, fb.ID)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status == orders.ProofSubmitted {
				if _, err := e.Engine.Operator().Desk().MoveOrder(ctx, fb.ID, orders.RejectProof{ProofID: o.Proof.ID, Reason: "fuzz"}); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
