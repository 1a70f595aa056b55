package console_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

// password is every test user's.
const password = "correct horse battery staple"

// pdf is a funding proof.
var pdf = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n")

// clock is the engine's and the console's time, moved by the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is an engine with a funded organization, its principal and the MWK
// corridor.
type env struct {
	engine *tambala.Engine
	clock  *clock
	org    tambala.Organization
	p      tambala.Principal
	ctx    context.Context
	n      int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Clock: c.Now, People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}},
			{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.USDT, 1000), "start"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Operator().Desk().SetCorridor(ctx, quotes.Corridor{Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"),
		RateOnRamp: money.MustRate("1800"), Min: money.FromInt(money.MWK, 1000), Open: true}); err != nil {
		t.Fatal(err)
	}
	p, err := e.Act(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	return &env{engine: e, clock: c, org: org, p: p, ctx: ctx}
}

// handler is the console over the env's engine, with plain-HTTP cookies.
func (v *env) handler() http.Handler {
	return console.New(v.engine, &console.Options{InsecureCookies: true, Now: v.clock.Now})
}

// order creates an order from asset from to asset to of amount (the from
// side), with the beneficiary b (to-bank).
func (v *env) order(t *testing.T, from, to, amount string, b *orders.Beneficiary) orders.Order {
	t.Helper()
	c := v.engine.Client(v.p)
	q, err := c.QuoteOrder(v.ctx, quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: money.DecimalText(amount)})
	if err != nil {
		t.Fatal(err)
	}
	v.n++
	ref := "ref-" + strings.Repeat("x", v.n)
	cr, err := c.CreateOrder(v.ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: ref, Beneficiary: b}, tambala.Idempotency{Key: ref})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Resource
}

func (v *env) toBank(t *testing.T, name string) orders.Order {
	return v.order(t, "USDT", "MWK", "10", &orders.Beneficiary{Name: name, BankName: "National Bank of Malawi", AccountNumber: "1001234567"})
}

func (v *env) fromBank(t *testing.T) orders.Order {
	return v.order(t, "MWK", "USDT", "18000", nil)
}

func (v *env) upload(t *testing.T, id string) orders.Order {
	t.Helper()
	o, err := v.engine.Client(v.p).UploadProof(v.ctx, id, tambala.ProofUpload{ContentType: "application/pdf", Content: bytes.NewReader(pdf)})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// code is the TOTP code of secret at the clock's time, after moving the
// clock past the step of the last code.
func (v *env) code(t *testing.T, secret string) string {
	t.Helper()
	v.clock.Add(accounts.TOTPPeriod + time.Second)
	c, err := accounts.TOTPCode(secret, v.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// staff invites a staff user with roles, accepts the invitation and
// enrols TOTP through the engine; it returns the TOTP secret.
func (v *env) staff(t *testing.T, email string, roles ...accounts.StaffRole) string {
	t.Helper()
	inv, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Email: email, StaffRoles: roles})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.engine.StaffSessions().AcceptInvitation(v.ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	res, err := v.engine.StaffSessions().SignIn(v.ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stage != accounts.StageEnrolTOTP {
		t.Fatalf("a new staff user's stage: %s", res.Stage)
	}
	en, err := v.engine.Sessions().BeginTOTP(v.ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.engine.Sessions().ConfirmTOTP(v.ctx, res.Token, v.code(t, en.Secret)); err != nil {
		t.Fatal(err)
	}
	return en.Secret
}

// signIn opens a signed-in session of a staff user through the engine.
func (v *env) signIn(t *testing.T, email, secret string) string {
	t.Helper()
	res, err := v.engine.StaffSessions().SignIn(v.ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	res, err = v.engine.StaffSessions().SecondFactor(v.ctx, res.Token, v.code(t, secret))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stage != accounts.StageSignedIn {
		t.Fatalf("stage %s", res.Stage)
	}
	return res.Token
}

// do serves one request with the console cookie token (none when "").
func do(h http.Handler, method, target, token string, form url.Values) *httptest.ResponseRecorder {
	body := strings.NewReader("")
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		r.AddCookie(&http.Cookie{Name: console.InsecureCookieName, Value: token})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// forms counts the forms of a page.
func forms(body string) int { return len(regexp.MustCompile(`<form\b`).FindAllString(body, -1)) }

// status is the order's status now.
func (v *env) status(t *testing.T, id string) orders.Status {
	t.Helper()
	o, err := v.engine.Operator().Desk().Order(v.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return o.Status
}
