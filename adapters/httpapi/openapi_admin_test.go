package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/orders"
)

// ---------------------------------------------------------------------------
// The admin OpenAPI document, loaded once, and the check every admin
// response of the tests goes through (adminWith).

var (
	adminSpecOnce sync.Once
	adminSpec     openAPI
)

// loadAdminSpec parses the embedded admin document, validates it and
// builds a router.
func loadAdminSpec(t testing.TB) openAPI {
	t.Helper()
	adminSpecOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(httpapi.AdminOpenAPI())
		if err != nil {
			adminSpec.err = fmt.Errorf("loading openapi-admin.json: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			adminSpec.err = fmt.Errorf("openapi-admin.json is not a valid OpenAPI document: %w", err)
			return
		}
		r, err := gorillamux.NewRouter(doc)
		if err != nil {
			adminSpec.err = fmt.Errorf("building the admin router: %w", err)
			return
		}
		adminSpec = openAPI{doc: doc, router: r}
	})
	if adminSpec.err != nil {
		t.Fatal(adminSpec.err)
	}
	return adminSpec
}

// checkAdmin validates one admin-API response as checkPublic does a public
// one: the envelope rules; a routed request's status, headers and body
// must match its operation in the admin document; an unrouted one must be
// the 404/405 envelope.
func checkAdmin(t testing.TB, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	checkEnvelope(t, method, target, status, header, body)
	s := loadAdminSpec(t)
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Errorf("%s %s: %v", method, target, err)
		return
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		switch {
		case status >= 200 && status < 300:
			t.Errorf("%s %s answered %d, but the admin OpenAPI document lists no such operation (%v)", method, target, status, err)
		case errors.Is(err, routers.ErrPathNotFound) && status != 404 && status != 413:
			t.Errorf("%s %s: path not in the admin document, yet status %d (want 404)", method, target, status)
		case errors.Is(err, routers.ErrMethodNotAllowed) && status != 405 && status != 404 && status != 413:
			t.Errorf("%s %s: method not in the admin document, yet status %d (want 405)", method, target, status)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: validationOptions,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: validationOptions,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s -> %d does not match the admin OpenAPI document: %v\nbody: %s", method, target, status, err, truncate(body))
		return
	}
	exercised.Store(fmt.Sprintf("%s %d", route.Operation.OperationID, status), true)
}

// ---------------------------------------------------------------------------
// The document.

func TestAdminOpenAPI_DocumentIsValid(t *testing.T) {
	s := loadAdminSpec(t)
	if s.doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", s.doc.OpenAPI)
	}
	sc := s.doc.Components.SecuritySchemes["adminToken"]
	if sc == nil || sc.Value.Type != "http" || sc.Value.Scheme != "bearer" {
		t.Error("no adminToken bearer security scheme")
	}
	if len(s.doc.Security) != 1 || s.doc.Security[0]["adminToken"] == nil {
		t.Error("adminToken is not the document's default security")
	}
	if s.doc.Info.Version == "" || s.doc.Info.Title == loadSpec(t).doc.Info.Title {
		t.Errorf("info = %+v: the admin document has its own title and version", s.doc.Info)
	}
}

// TestAdminOpenAPI_ServedBehindTheToken: GET /admin/openapi.json serves the
// embedded document byte for byte, and like every admin route only with
// the admin token.
func TestAdminOpenAPI_ServedBehindTheToken(t *testing.T) {
	e := newEnv(t)
	r := e.admin(t, "GET", "/admin/openapi.json", nil).want(t, 200, "")
	if !bytes.Equal(r.Body, httpapi.AdminOpenAPI()) {
		t.Error("GET /admin/openapi.json does not serve the embedded admin document byte for byte")
	}
	e.adminWith(t, "GET", "/admin/openapi.json", nil, nil).want(t, 401, "unauthorized")
	// The public handler does not serve it, nor the admin handler the
	// public one.
	e.do(t, "GET", "/admin/openapi.json", nil, nil).want(t, 404, "not_found")
	e.admin(t, "GET", "/openapi.json", nil).want(t, 404, "not_found")
}

// TestAdminOpenAPI_RoutesMatchHandler: every route the admin handler
// registers is documented and every documented operation is registered.
//
// One pattern is special: POST /admin/orders/{id}/{move} is one route whose
// handler (moveOrder) switches over the move, while the document gives each
// move its own path, with its own body and description. So a pattern ending
// in /{move} counts as documented when the documented paths one segment
// below its prefix are exactly the moves its handler accepts (the case
// labels of moveOrder; any other move answers 404), and each of those
// documented operations counts as registered.
func TestAdminOpenAPI_RoutesMatchHandler(t *testing.T) {
	ops := operationsOf(loadAdminSpec(t).doc)
	routes := sourceRoutes(t, true)
	covered := map[string]bool{} // documented operations a {move} pattern serves
	for r := range routes {
		if prefix, ok := strings.CutSuffix(r, "{move}"); ok {
			var documented []string
			for op := range ops {
				if m, ok := strings.CutPrefix(op, prefix); ok && !strings.ContainsAny(m, "/{") {
					documented = append(documented, m)
					covered[op] = true
				}
			}
			slices.Sort(documented)
			if want := sourceMoves(t); !slices.Equal(documented, want) {
				t.Errorf("%s: the document lists the moves %v, the handler accepts %v", r, documented, want)
			}
			continue
		}
		if ops[r] == nil {
			t.Errorf("the admin handler serves %s, which the admin OpenAPI document does not list", r)
		}
	}
	for op := range ops {
		if !routes[op] && !covered[op] {
			t.Errorf("the admin OpenAPI document lists %s, which the admin handler does not register", op)
		}
	}
}

// sourceMoves reads the moves POST /admin/orders/{id}/{move} accepts: the
// handler moveOrder builds its move with orders.ParseMove, so they are
// orders.MoveNames (any other answers 404), sorted.
func sourceMoves(t *testing.T) []string {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), "admin_orders.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	parses := false
	for _, d := range af.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "moveOrder" {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "ParseMove" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "orders" {
					parses = true
				}
			}
			return true
		})
	}
	if !parses {
		t.Fatal("moveOrder (admin_orders.go) does not build its move with orders.ParseMove")
	}
	moves := orders.MoveNames()
	slices.Sort(moves)
	return moves
}

// TestAdminOpenAPI_EveryOperationNeedsTheToken probes each documented
// operation without the token and with an API key: 401 unauthorized.
func TestAdminOpenAPI_EveryOperationNeedsTheToken(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{})
	ops := operationsOf(loadAdminSpec(t).doc)
	for _, k := range sortedKeys(ops) {
		method, path, _ := strings.Cut(k, " ")
		path = strings.NewReplacer("{org}", o.ID, "{id}", "0190c4d2-7f3a-7b1e-8a2b-000000000000", "{key}", key[:16], "{rail}", "bank").Replace(path)
		var body any
		if method == "POST" || method == "PUT" {
			body = "{}"
		}
		for _, h := range []map[string]string{nil, hdr(key)} {
			if r := e.adminWith(t, method, path, body, h); r.Status != 401 || r.code() != "unauthorized" {
				t.Errorf("%s without the admin token: got %d %s, want 401 unauthorized", k, r.Status, r.Body)
			}
		}
	}
}

// TestAdminOpenAPI_OperationConventions pins the rules every admin
// operation follows.
func TestAdminOpenAPI_OperationConventions(t *testing.T) {
	public := map[string]bool{}
	for _, op := range docOperations(t) {
		public[op.OperationID] = true
	}
	for k, op := range operationsOf(loadAdminSpec(t).doc) {
		_, path, _ := strings.Cut(k, " ")
		has := func(st int) bool { return op.Responses.Status(st) != nil }
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", k)
		}
		// The tests record exercised operations by operationId.
		if public[op.OperationID] {
			t.Errorf("%s: operationId %s is also one of the public document", k, op.OperationID)
		}
		if op.Security != nil {
			t.Errorf("%s: every admin operation takes the document's security, the admin token", k)
		}
		for _, st := range []int{401, 413, 500} {
			if !has(st) {
				t.Errorf("%s: admin operation without a %d response", k, st)
			}
		}
		if op.RequestBody != nil && !has(400) {
			t.Errorf("%s: an operation with a body must document 400", k)
		}
		if (strings.Contains(path, "{id}") || strings.Contains(path, "{key}") || strings.Contains(path, "{org}")) &&
			k != "GET /admin/orgs/{org}/deliveries" && !has(404) { // deliveries of an unknown organization: an empty page
			t.Errorf("%s: an operation on an organization or a resource by id must document 404", k)
		}
		n := 0
		for st, r := range op.Responses.Map() {
			if st == "202" && r.Value != nil && r.Value.Content.Get("application/json").Schema.Ref == "#/components/schemas/ApprovalPending" {
				continue // the one exception: a move that waits for four-eyes
			}
			if st[0] == '2' {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d success responses, want 1 (besides a 202 ApprovalPending)", k, n)
		}
	}
}

// TestAdminOpenAPI_OneErrorSchema: the admin document has the public one's
// Error schema and ErrorCode enum (errcode.Table's codes), and every admin
// error response is it.
func TestAdminOpenAPI_OneErrorSchema(t *testing.T) {
	checkOneErrorSchema(t, loadAdminSpec(t).doc)
}

func TestAdminOpenAPI_ResponseObjectsAreClosed(t *testing.T) {
	checkResponsesClosed(t, loadAdminSpec(t).doc)
}

// TestAdminOpenAPI_SharedSchemasAreIdentical: a schema the admin document
// shares with the public one by name (Error, ErrorCode, Payout,
// Collection, Trade and what they refer to) is the same JSON in both, so
// the two cannot drift; the admin document refers to no schema it lacks.
func TestAdminOpenAPI_SharedSchemasAreIdentical(t *testing.T) {
	schemas := func(b []byte) map[string]any {
		var d struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		return d.Components.Schemas
	}
	pub, adm := schemas(httpapi.OpenAPI()), schemas(httpapi.AdminOpenAPI())
	shared := 0
	for name, a := range adm {
		if p, ok := pub[name]; ok {
			shared++
			if !reflect.DeepEqual(a, p) {
				t.Errorf("schema %s differs between openapi.json and openapi-admin.json", name)
			}
		}
	}
	for _, name := range []string{"Error", "ErrorCode", "Payout", "Collection", "Trade"} {
		if adm[name] == nil {
			t.Errorf("the admin document has no %s schema", name)
		}
	}
	if shared < 5 {
		t.Errorf("only %d schemas shared", shared)
	}
}

// ---------------------------------------------------------------------------
// Routes no other test answers with success: the webhook endpoint, the
// deliveries and a redelivery.

// downSender is a webhook endpoint that always answers 503.
type downSender struct{ calls atomic.Int32 }

func (s *downSender) Send(_ context.Context, _ string, _ []byte, _ string) (tambala.SendResult, error) {
	s.calls.Add(1)
	return tambala.SendResult{StatusCode: 503, Response: []byte("down")}, nil
}

// newWebhookEnv is newEnv with a webhook sender and a retry schedule with
// no retry: a delivery is dead after its first failed attempt.
func newWebhookEnv(t *testing.T, sender tambala.WebhookSender) *testEnv {
	t.Helper()
	e := &testEnv{Store: memstore.New(), Clock: &fakeClock{t: epoch}}
	eng, err := tambala.New(e.Store, &tambala.Options{
		Clock:      e.Clock.Now,
		Limits:     tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000},
		Webhooks:   sender,
		Dispatcher: tambala.DispatcherOptions{Schedule: []time.Duration{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Engine = eng
	e.Public = httpapi.New(eng, nil)
	adm, err := httpapi.NewAdmin(eng, adminToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Admin = adm
	e.srv = httptest.NewServer(e.Public)
	e.admSrv = httptest.NewServer(e.Admin)
	t.Cleanup(func() {
		e.srv.Close()
		e.admSrv.Close()
	})
	return e
}

func TestAdmin_WebhookDeliveriesAndRedelivery(t *testing.T) {
	sender := &downSender{}
	e := newWebhookEnv(t, sender)
	o, key := e.newOrg(t, orgSpec{})
	other, _ := e.newOrg(t, orgSpec{name: "other"})

	// The endpoint: https, or http to a loopback address in the sandbox.
	base := "/admin/orgs/" + o.ID
	for _, u := range []string{"", "ftp://hooks.example.com/x", "http://hooks.example.com/x", "https://user:pw@hooks.example.com/x", "/relative"} {
		e.admin(t, "PUT", base+"/webhook", map[string]string{"url": u}).want(t, 400, "validation_error")
	}
	e.admin(t, "PUT", "/admin/orgs/0190c4d2-7f3a-7b1e-8a2b-000000000000/webhook", map[string]string{"url": "https://hooks.example.com/x"}).want(t, 404, "not_found")
	var ep struct {
		URL, Secret string
		SecretID    string `json:"secret_id"`
	}
	e.admin(t, "PUT", base+"/webhook", map[string]string{"url": "https://hooks.example.com/tambala"}).want(t, 200, "").decode(t, &ep)
	if ep.URL != "https://hooks.example.com/tambala" || ep.Secret == "" || ep.SecretID == "" {
		t.Errorf("endpoint = %+v", ep)
	}

	// An event, sent once to an endpoint that is down: dead at once.
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":"1000"}`, hdr(key)).want(t, 201, "")
	if _, err := e.Engine.Work().ProcessDeliveries(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sender.calls.Load(); n != 1 {
		t.Fatalf("%d sends, want 1", n)
	}
	var page struct {
		Deliveries []struct {
			ID, State string
			EventType string `json:"event_type"`
			Attempts  []struct {
				StatusCode int `json:"status_code"`
				Response   string
			}
		}
		HasMore bool `json:"has_more"`
	}
	e.admin(t, "GET", base+"/deliveries", nil).want(t, 200, "").decode(t, &page)
	if len(page.Deliveries) != 1 || page.HasMore {
		t.Fatalf("deliveries = %+v", page)
	}
	d := page.Deliveries[0]
	if d.EventType != "collection.settled" || d.State != "dead" || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 503 || d.Attempts[0].Response != "down" {
		t.Errorf("delivery = %+v", d)
	}
	e.admin(t, "GET", base+"/deliveries?limit=0", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", base+"/deliveries?before_id=0190c4d2-7f3a-7b1e-8a2b-000000000000", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/orgs/"+other.ID+"/deliveries", nil).want(t, 200, "").decode(t, &page)
	if len(page.Deliveries) != 0 {
		t.Errorf("another organization lists %d deliveries", len(page.Deliveries))
	}

	// Redelivery: only a dead delivery, only under its organization.
	e.admin(t, "POST", "/admin/orgs/"+other.ID+"/deliveries/"+d.ID+"/redeliver", nil).want(t, 404, "not_found")
	e.admin(t, "POST", base+"/deliveries/0190c4d2-7f3a-7b1e-8a2b-000000000000/redeliver", nil).want(t, 404, "not_found")
	var again struct{ ID, State string }
	e.admin(t, "POST", base+"/deliveries/"+d.ID+"/redeliver", nil).want(t, 200, "").decode(t, &again)
	if again.ID != d.ID || again.State != "pending" {
		t.Errorf("redelivered = %+v", again)
	}
	e.admin(t, "POST", base+"/deliveries/"+d.ID+"/redeliver", nil).want(t, 409, "conflict")
	if _, err := e.Engine.Work().ProcessDeliveries(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sender.calls.Load(); n != 2 {
		t.Errorf("%d sends after the redelivery, want 2", n)
	}
}

// Taking every asset away leaves an empty list, never null.
func TestAdmin_SetAssetsEmpty(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	for _, body := range []any{map[string]any{}, map[string]any{"assets": nil}, map[string]any{"assets": []any{}}} {
		got := e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/assets", body).want(t, 200, "").obj(t)
		if list, ok := got["assets"].([]any); !ok || len(list) != 0 {
			t.Errorf("%v: assets = %#v, want []", body, got["assets"])
		}
	}
}

// TestAdminOpenAPI_AuditActions: the document's AuditAction enum is the
// engine's list of actions, the AuditAction constants of audit.go, in
// their order.
func TestAdminOpenAPI_AuditActions(t *testing.T) {
	af, err := parser.ParseFile(token.NewFileSet(), "../../audit.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []any
	for _, d := range af.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "AuditAction" {
				continue
			}
			for _, v := range vs.Values {
				if s, err := strconv.Unquote(v.(*ast.BasicLit).Value); err == nil {
					want = append(want, s)
				}
			}
		}
	}
	got := loadAdminSpec(t).doc.Components.Schemas["AuditAction"].Value.Enum
	if len(want) < 40 || !reflect.DeepEqual(got, want) {
		t.Errorf("the document's AuditAction enum is %v, the engine's actions are %v", got, want)
	}
}
