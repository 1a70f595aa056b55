package httpapi_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/errcode"
)

func TestOpenAPI_DocumentIsValid(t *testing.T) {
	s := loadSpec(t)
	if s.doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", s.doc.OpenAPI)
	}
	if s.doc.Components.SecuritySchemes["bearerAuth"] == nil {
		t.Error("no bearerAuth security scheme")
	}
	if len(s.doc.Security) != 1 || s.doc.Security[0]["bearerAuth"] == nil {
		t.Error("bearerAuth is not the document's default security")
	}
}

func TestOpenAPI_ServedAtOpenAPIJSON(t *testing.T) {
	e := newEnv(t)
	r := e.do(t, "GET", "/openapi.json", nil, nil).want(t, 200, "")
	if !bytes.Equal(r.Body, httpapi.OpenAPI()) {
		t.Error("GET /openapi.json does not serve the embedded document byte for byte")
	}
}

// docOperations lists "METHOD /path" of every operation of the public
// document.
func docOperations(t *testing.T) map[string]*openapi3.Operation {
	return operationsOf(loadSpec(t).doc)
}

// operationsOf lists "METHOD /path" of every operation of doc.
func operationsOf(doc *openapi3.T) map[string]*openapi3.Operation {
	ops := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[method+" "+path] = op
		}
	}
	return ops
}

var routePattern = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (/\S*)$`)

// handlerRoutes reads every ServeMux pattern of the public handler from the
// package's source (admin patterns, under /admin, are not public).
func handlerRoutes(t *testing.T) map[string]bool { return sourceRoutes(t, false) }

// sourceRoutes reads every ServeMux pattern of the package's source: those
// of the admin handler (under /admin, or any in an admin*.go file, such as
// the scraper's GET /metrics) when admin, else the public ones.
func sourceRoutes(t *testing.T, admin bool) map[string]bool {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			isAdmin := func(p string) bool { return strings.HasPrefix(p, "/admin/") || strings.HasPrefix(f, "admin") }
			if m := routePattern.FindStringSubmatch(s); m != nil && isAdmin(m[2]) == admin {
				out[s] = true
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("found no route pattern in the package source")
	}
	return out
}

// TestOpenAPI_RoutesMatchHandler: every route the handler registers is
// documented and every documented operation is registered.
func TestOpenAPI_RoutesMatchHandler(t *testing.T) {
	ops := docOperations(t)
	routes := handlerRoutes(t)
	for r := range routes {
		if ops[r] == nil {
			t.Errorf("the handler serves %s, which the OpenAPI document does not list", r)
		}
	}
	for op := range ops {
		if !routes[op] {
			t.Errorf("the OpenAPI document lists %s, which the handler does not register", op)
		}
	}
}

// TestOpenAPI_OperationsServedWithDocumentedAuth probes each documented
// operation without a key: an operation under bearerAuth answers 401 (so it
// is routed and authenticated), one with empty security answers 2xx.
func TestOpenAPI_OperationsServedWithDocumentedAuth(t *testing.T) {
	e := newEnv(t)
	ops := docOperations(t)
	for _, k := range sortedKeys(ops) {
		op := ops[k]
		method, path, _ := strings.Cut(k, " ")
		path = strings.NewReplacer("{id}", "0190c4d2-7f3a-7b1e-8a2b-000000000000", "{asset}", "MWK", "{token}", "not-a-token").Replace(path)
		var body any
		if method == "POST" {
			body = "{}"
		}
		r := e.do(t, method, path, body, nil)
		public := op.Security != nil && len(*op.Security) == 0
		switch {
		// GET /files/proofs/{token}: no API key, the signed token in the
		// path is the credential, so a made-up one is 404 (not 401).
		case public && strings.Contains(path, "/not-a-token"):
			if r.Status != 404 || r.code() != "not_found" {
				t.Errorf("%s with a made-up token: got %d %s, want 404 not_found", k, r.Status, r.Body)
			}
		case public && (r.Status < 200 || r.Status > 299):
			t.Errorf("%s: documented without security, got %d", k, r.Status)
		case !public && (r.Status != 401 || r.code() != "unauthorized"):
			t.Errorf("%s without a key: got %d %s, want 401 unauthorized", k, r.Status, r.Body)
		}
	}
}

// TestOpenAPI_OneErrorSchema: every error response of the public document
// is the one Error schema, whose code is the one ErrorCode enum listing
// exactly the codes of errcode.Table.
func TestOpenAPI_OneErrorSchema(t *testing.T) {
	checkOneErrorSchema(t, loadSpec(t).doc)
}

// checkOneErrorSchema holds for both documents: one Error schema (the
// envelope, closed) whose error.code is ErrorCode; ErrorCode's enum is the
// set of errcode.Table's codes, each once; no other error schema; every
// non-2xx response of every operation is the Error schema; and a response
// description names only codes the table sends with that response's
// status, and at least one.
func checkOneErrorSchema(t *testing.T, doc *openapi3.T) {
	t.Helper()
	var want []string
	status := map[string]int{}
	for _, sp := range errcode.Table {
		want = append(want, string(sp.Code))
		status[string(sp.Code)] = httpapi.Status(sp.Code)
	}
	slices.Sort(want)
	ec := doc.Components.Schemas["ErrorCode"]
	if ec == nil {
		t.Fatal("no ErrorCode schema")
	}
	var got []string
	for _, v := range ec.Value.Enum {
		got = append(got, v.(string))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("ErrorCode enum = %v, want exactly errcode.Table's codes %v", got, want)
	}
	if len(slices.Compact(slices.Clone(got))) != len(ec.Value.Enum) {
		t.Errorf("ErrorCode lists a code twice: %v", got)
	}
	env := doc.Components.Schemas["Error"]
	if env == nil {
		t.Fatal("no Error schema")
	}
	e := env.Value.Properties["error"]
	if e == nil || e.Value.Properties["code"] == nil || e.Value.Properties["code"].Ref != "#/components/schemas/ErrorCode" ||
		e.Value.Properties["message"] == nil || len(e.Value.Properties) != 2 || len(e.Value.Required) != 2 ||
		env.Value.AdditionalProperties.Has == nil || *env.Value.AdditionalProperties.Has ||
		e.Value.AdditionalProperties.Has == nil || *e.Value.AdditionalProperties.Has {
		t.Error(`Error is not the closed envelope {"error":{"code": ErrorCode, "message"}}`)
	}
	for name := range doc.Components.Schemas {
		if strings.HasPrefix(name, "Error") && name != "Error" && name != "ErrorCode" {
			t.Errorf("schema %s: the one error schema is Error", name)
		}
	}
	word := regexp.MustCompile(`[a-z0-9_]+`)
	for k, op := range operationsOf(doc) {
		for st, r := range op.Responses.Map() {
			if st[0] == '2' {
				continue
			}
			where := k + " " + st
			mt := r.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Error" || len(r.Value.Content) != 1 {
				t.Errorf("%s: the error response is not the one Error schema", where)
			}
			n, _ := strconv.Atoi(st)
			named := 0
			for _, w := range word.FindAllString(*r.Value.Description, -1) {
				if s, ok := status[w]; ok {
					named++
					if s != n {
						t.Errorf("%s: the description names %s, which errcode.Table sends with %d", where, w, s)
					}
				}
			}
			if named == 0 {
				t.Errorf("%s: the description names no code: %q", where, *r.Value.Description)
			}
		}
	}
}

// v2Creates are the /v2 creates that take an Idempotency-Key; those not
// yet served are simply not in the document.
var v2Creates = map[string]bool{"/v2/orders": true, "/v2/conversions": true, "/v2/payouts": true}

// TestOpenAPI_OperationConventions pins the rules every operation follows.
func TestOpenAPI_OperationConventions(t *testing.T) {
	for k, op := range docOperations(t) {
		method, path, _ := strings.Cut(k, " ")
		has := func(st int) bool { return op.Responses.Status(st) != nil }
		public := op.Security != nil && len(*op.Security) == 0
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", k)
		}
		if !public {
			for _, st := range []int{401, 403, 429, 500} {
				if !has(st) {
					t.Errorf("%s: authenticated operation without a %d response", k, st)
				}
			}
			if r := op.Responses.Status(429); r != nil && r.Value.Headers["Retry-After"] == nil {
				t.Errorf("%s: 429 without the Retry-After header", k)
			}
		}
		if k != "GET /v2/ping" && !public && !has(503) {
			t.Errorf("%s: pausable operation without 503", k)
		}
		if k == "GET /v2/ping" && has(503) {
			t.Errorf("GET /v2/ping is never paused, yet documents 503")
		}
		if method == "POST" {
			if !has(400) || !has(413) {
				t.Errorf("%s: a POST must document 400 and 413", k)
			}
		}
		// Creates: the /v1 payouts and the idempotent /v2 creates.
		if method == "POST" && (strings.Contains(path, "/payouts/") || v2Creates[path]) {
			found := false
			for _, p := range op.Parameters {
				if p.Value.In == "header" && p.Value.Name == "Idempotency-Key" && p.Value.Required {
					found = true
				}
			}
			if !found || !has(409) {
				t.Errorf("%s: a create needs a required Idempotency-Key header and a 409", k)
			}
		}
		if strings.Contains(path, "{") && method == "GET" && !strings.Contains(path, "{asset}") && !has(404) {
			t.Errorf("%s: a read by id must document 404", k)
		}
		// Every error response is the envelope.
		for st, r := range op.Responses.Map() {
			if st[0] == '2' {
				continue
			}
			mt := r.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Error" {
				t.Errorf("%s %s: error response is not the envelope", k, st)
			}
		}
	}
}

// TestOpenAPI_ResponseObjectsAreClosed: every object schema in a response
// forbids unknown properties, so a field added without the document fails.
func TestOpenAPI_ResponseObjectsAreClosed(t *testing.T) {
	checkResponsesClosed(t, loadSpec(t).doc)
}

// checkResponsesClosed: every object schema of a response of doc (but the
// document itself) forbids unknown properties.
func checkResponsesClosed(t *testing.T, doc *openapi3.T) {
	t.Helper()
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, sc *openapi3.SchemaRef)
	walk = func(where string, sc *openapi3.SchemaRef) {
		if sc == nil || sc.Value == nil || seen[sc.Value] {
			return
		}
		v := sc.Value
		seen[v] = true
		if v.Type.Is("object") && len(v.Properties) > 0 {
			if v.AdditionalProperties.Has == nil || *v.AdditionalProperties.Has {
				t.Errorf("%s: object schema allows additional properties", where)
			}
			for name, p := range v.Properties {
				walk(where+"."+name, p)
			}
		}
		walk(where+"[]", v.Items)
		for _, x := range append(append(v.OneOf, v.AnyOf...), v.AllOf...) {
			walk(where+"|", x)
		}
	}
	for k, op := range operationsOf(doc) {
		for st, r := range op.Responses.Map() {
			if strings.HasSuffix(k, "/openapi.json") {
				continue
			}
			for _, mt := range r.Value.Content {
				walk(k+" "+st, mt.Schema)
			}
		}
	}
}

// TestOpenAPI_SchemasRejectDrift validates a few bodies written by
// hand, so the schemas are known to reject drift.
func TestOpenAPI_SchemasRejectDrift(t *testing.T) {
	s := loadSpec(t)
	payout := func(mut func(m map[string]any)) map[string]any {
		m := map[string]any{
			"id": "0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "amount_mwk": "1500.00", "fee": nil, "rail": "bank",
			"status": "held", "failure": nil, "created_at": "2026-03-02T09:00:00.000Z", "terminal_at": nil,
			"destination": map[string]any{"institution_id": 1, "account_number": "3333888800", "beneficiary_name": "A"},
		}
		if mut != nil {
			mut(m)
		}
		return m
	}
	sc := s.doc.Components.Schemas["Payout"].Value
	check := func(name string, v map[string]any, ok bool) {
		t.Helper()
		b, _ := json.Marshal(v)
		var x any
		_ = json.Unmarshal(b, &x)
		err := sc.VisitJSON(x, uuidFormat)
		if (err == nil) != ok {
			t.Errorf("%s: VisitJSON err=%v, want ok=%v", name, err, ok)
		}
	}
	check("valid", payout(nil), true)
	check("failed", payout(func(m map[string]any) {
		m["status"], m["fee"] = "failed", "0.00"
		m["failure"] = map[string]any{"code": "declined", "message": "The provider declined the payout."}
		m["terminal_at"] = "2026-03-02T09:01:00.000Z"
	}), true)
	check("momo", payout(func(m map[string]any) {
		m["rail"] = "momo"
		m["destination"] = map[string]any{"institution_id": 101, "mobile_number": "265991234567", "beneficiary_name": "A"}
	}), true)
	check("extra field", payout(func(m map[string]any) { m["org"] = "x" }), false)
	check("number amount", payout(func(m map[string]any) { m["amount_mwk"] = 1500 }), false)
	check("3 decimals", payout(func(m map[string]any) { m["amount_mwk"] = "1500.000" }), false)
	check("no decimals", payout(func(m map[string]any) { m["amount_mwk"] = "1500" }), false)
	check("missing fee", payout(func(m map[string]any) { delete(m, "fee") }), false)
	check("bad status", payout(func(m map[string]any) { m["status"] = "done" }), false)
	check("bad failure code", payout(func(m map[string]any) {
		m["failure"] = map[string]any{"code": "nope", "message": "x"}
	}), false)
	check("destination with both", payout(func(m map[string]any) {
		m["destination"] = map[string]any{"institution_id": 1, "account_number": "1", "mobile_number": "2", "beneficiary_name": "A"}
	}), false)
	check("bad id", payout(func(m map[string]any) { m["id"] = "not-a-uuid" }), false)
	check("bad time", payout(func(m map[string]any) { m["created_at"] = "yesterday" }), false)
}

// TestOpenAPI_RequestSchemas: the bodies the tests send as valid match the
// documented request schemas, and documented refusals do not.
func TestOpenAPI_RequestSchemas(t *testing.T) {
	s := loadSpec(t)
	cases := []struct {
		schema, body string
		ok           bool
	}{
		{"BankPayoutRequest", bankBody("100"), true},
		{"BankPayoutRequest", bankBody("100.5"), true},
		{"BankPayoutRequest", `{"amount_mwk":"100","institution_id":1,"account_number":"1","beneficiary_name":"A","extra":1}`, true},
		// The server also takes a JSON integer (the description says so);
		// the schema types the string, what generated clients send.
		{"BankPayoutRequest", `{"amount_mwk":100,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, false},
		{"BankPayoutRequest", `{"amount_mwk":10.5,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, false},
		{"BankPayoutRequest", `{"amount_mwk":"1.001","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, false},
		{"BankPayoutRequest", `{"amount_mwk":"1","institution_id":1,"beneficiary_name":"A"}`, false},
		{"MomoPayoutRequest", momoBody("100"), true},
		{"MomoPayoutRequest", `{"amount_mwk":"1","institution_id":101,"mobile_number":"0991234567","beneficiary_name":"A"}`, false},
		{"FeeQuoteRequest", feeBody("payout", "bank", "100"), true},
		{"FeeQuoteRequest", feeBody("refund", "bank", "100"), false},
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.body), &v); err != nil {
			t.Fatal(err)
		}
		err := s.doc.Components.Schemas[c.schema].Value.VisitJSON(v)
		if (err == nil) != c.ok {
			t.Errorf("%s %s: err=%v, want ok=%v", c.schema, c.body, err, c.ok)
		}
	}
}

// TestOpenAPI_RequestAmountsAreStrings: in both documents every amount,
// fee, floor and rate field of a request body is a string with a decimal
// pattern (no oneOf), so a generated client has one type to send.
func TestOpenAPI_RequestAmountsAreStrings(t *testing.T) {
	moneyField := regexp.MustCompile(`(amount|fee|floor|rate|_mwk)`)
	for _, doc := range []*openapi3.T{loadSpec(t).doc, loadAdminSpec(t).doc} {
		found := 0
		for k, op := range operationsOf(doc) {
			if op.RequestBody == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil && isFileBody(op.RequestBody.Value) {
				continue // a file upload (a funding proof) has no amount field
			}
			if mt == nil || mt.Schema == nil {
				t.Errorf("%s: request body without a JSON schema", k)
				continue
			}
			for name, p := range mt.Schema.Value.Properties {
				if !moneyField.MatchString(name) {
					continue
				}
				found++
				v := p.Value
				if !v.Type.Is("string") || v.Pattern == "" || len(v.OneOf) > 0 || len(v.AnyOf) > 0 {
					t.Errorf("%s: request field %s is not a string with a decimal pattern", k, name)
				}
			}
		}
		if found == 0 {
			t.Errorf("%s: found no amount in any request body", doc.Info.Title)
		}
	}
}

// isFileBody reports a request body that is a file: every media type is a
// binary string.
func isFileBody(rb *openapi3.RequestBody) bool {
	for _, mt := range rb.Content {
		if mt.Schema == nil || !mt.Schema.Value.Type.Is("string") || mt.Schema.Value.Format != "binary" {
			return false
		}
	}
	return len(rb.Content) > 0
}

// TestOpenAPI_UUIDFormat: format uuid, as the tests validate it, accepts
// the ids the engine makes (UUIDv7) and the bank ids (UUIDv5), and
// refuses anything else, so "format": "uuid" on an id is checked.
func TestOpenAPI_UUIDFormat(t *testing.T) {
	sc := openapi3.NewUUIDSchema()
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{uuid.Must(uuid.NewV7()).String(), true},
		{uuid.NewSHA1(uuid.MustParse("6f1d7a52-2c59-4c39-9a4e-8c2b2a1d0b11"), []byte("1")).String(), true},
		{"0190c4d2-7f3a-7b1e-8a2b-000000000000", true},
		{"not-a-uuid", false},
		{"0190c4d27f3a7b1e8a2b000000000000", false},
		{"tmb_live_0123456", false},
	} {
		if err := sc.VisitJSON(c.v, uuidFormat); (err == nil) != c.ok {
			t.Errorf("%s: err=%v, want ok=%v", c.v, err, c.ok)
		}
	}
}

// unexercised lists, for each document a test loaded, the operations no
// test received a documented success response of (TestMain fails then).
func unexercised() []string {
	var missing []string
	for _, doc := range []*openapi3.T{spec.doc, adminSpec.doc} {
		if doc == nil {
			continue
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				ok := false
				for st := range op.Responses.Map() {
					if _, hit := exercised.Load(op.OperationID + " " + st); hit && st[0] == '2' {
						ok = true
					}
				}
				if !ok {
					missing = append(missing, method+" "+path)
				}
			}
		}
	}
	slices.Sort(missing)
	return missing
}
