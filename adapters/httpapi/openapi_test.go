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

// docOperations lists "METHOD /path" of every documented operation.
func docOperations(t *testing.T) map[string]*openapi3.Operation {
	s := loadSpec(t)
	ops := map[string]*openapi3.Operation{}
	for path, item := range s.doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[method+" "+path] = op
		}
	}
	return ops
}

var routePattern = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (/\S*)$`)

// handlerRoutes reads every ServeMux pattern of the public handler from the
// package's source (admin patterns, under /admin, are not public).
func handlerRoutes(t *testing.T) map[string]bool {
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
			if m := routePattern.FindStringSubmatch(s); m != nil && !strings.HasPrefix(m[2], "/admin") {
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
		path = strings.NewReplacer("{id}", "0190c4d2-7f3a-7b1e-8a2b-000000000000", "{asset}", "MWK").Replace(path)
		var body any
		if method == "POST" {
			body = "{}"
		}
		r := e.do(t, method, path, body, nil)
		public := op.Security != nil && len(*op.Security) == 0
		switch {
		case public && (r.Status < 200 || r.Status > 299):
			t.Errorf("%s: documented without security, got %d", k, r.Status)
		case !public && (r.Status != 401 || r.code() != "unauthorized"):
			t.Errorf("%s without a key: got %d %s, want 401 unauthorized", k, r.Status, r.Body)
		}
	}
}

// TestOpenAPI_ErrorSchemasMatchTable: the per-status error schemas list
// exactly the codes errcode.Table gives that status, and ErrorCode lists
// every code.
func TestOpenAPI_ErrorSchemasMatchTable(t *testing.T) {
	s := loadSpec(t)
	byStatus := map[int][]string{}
	var all []string
	for _, sp := range errcode.Table {
		byStatus[sp.HTTPStatus] = append(byStatus[sp.HTTPStatus], string(sp.Code))
		all = append(all, string(sp.Code))
	}
	enum := func(sc *openapi3.Schema) []string {
		var out []string
		for _, v := range sc.Enum {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	slices.Sort(all)
	if got := enum(s.doc.Components.Schemas["ErrorCode"].Value); !slices.Equal(got, all) {
		t.Errorf("ErrorCode enum = %v, want errcode.Table %v", got, all)
	}
	for status, codes := range byStatus {
		name := "Error" + strconv.Itoa(status)
		ref := s.doc.Components.Schemas[name]
		if ref == nil {
			t.Errorf("no schema %s for status %d (%v)", name, status, codes)
			continue
		}
		slices.Sort(codes)
		code := ref.Value.Properties["error"].Value.Properties["code"].Value
		if got := enum(code); !slices.Equal(got, codes) {
			t.Errorf("%s codes = %v, want %v", name, got, codes)
		}
	}
}

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
		if strings.Contains(path, "/payouts/") && method == "POST" {
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
			if mt == nil || mt.Schema == nil || !strings.HasPrefix(mt.Schema.Ref, "#/components/schemas/Error") {
				t.Errorf("%s %s: error response is not the envelope", k, st)
			}
		}
	}
}

// TestOpenAPI_ResponseObjectsAreClosed: every object schema in a response
// forbids unknown properties, so a field added without the document fails.
func TestOpenAPI_ResponseObjectsAreClosed(t *testing.T) {
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
	for k, op := range docOperations(t) {
		for st, r := range op.Responses.Map() {
			if k == "GET /openapi.json" {
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
		{"BankPayoutRequest", `{"amount_mwk":100,"institution_id":1,"account_number":"1","beneficiary_name":"A","extra":1}`, true},
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
