package portal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/money"
)

// password is every test user's.
const password = "correct horse battery staple"

// fixture is an engine with one funded organization whose admin has
// accepted an invitation.
type fixture struct {
	engine *tambala.Engine
	org    tambala.Organization
	email  string
	ctx    context.Context
}

func newFixture(t *testing.T, email string) *fixture {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	e, err := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 12_345), "opening"); err != nil {
		t.Fatal(err)
	}
	f := &fixture{engine: e, org: org, email: email, ctx: ctx}
	if email != "" {
		inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Sessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// signIn opens a signed-in session and returns its token.
func (f *fixture) signIn(t *testing.T) string {
	t.Helper()
	res, err := f.engine.Sessions().SignIn(f.ctx, f.email, password)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stage != accounts.StageSignedIn {
		t.Fatalf("stage %s", res.Stage)
	}
	return res.Token
}

// handler is the portal over f's engine, with plain-HTTP cookies.
func (f *fixture) handler() http.Handler {
	return portal.New(f.engine, &portal.Options{InsecureCookies: true})
}

// do serves one request with the session cookie token (none when "").
func do(h http.Handler, method, target, token string, form url.Values) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: token})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
