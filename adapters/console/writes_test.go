package console_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// updateCounter is a store that counts its write transactions.
type updateCounter struct {
	store.Store
	n atomic.Int64
}

func (s *updateCounter) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.n.Add(1)
	return s.Store.Update(ctx, fn)
}

// countedEnv is newEnv over a store that counts its write transactions.
func countedEnv(t *testing.T) (*env, *updateCounter) {
	t.Helper()
	s := &updateCounter{Store: memstore.New()}
	t.Cleanup(func() { s.Close() })
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Clock: c.Now, People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
			{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}}}})
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
	return &env{engine: e, clock: c, org: org, p: p, ctx: ctx}, s
}

// An order move through the console's form is one write transaction:
// the session, the user and the role are checked, and the session
// extended, inside the move's own.
func TestMoveFormIsOneWrite(t *testing.T) {
	v, s := countedEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.toBank(t, "Chikondi Banda")
	h := v.handler()
	v.clock.Add(20 * time.Minute)

	before := s.n.Load()
	w := do(h, "POST", "/console/orders/"+o.ID+"/moves/processing", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}})
	n := s.n.Load() - before
	if w.Code != http.StatusSeeOther {
		t.Fatalf("move: %d %s", w.Code, w.Body)
	}
	if st := v.status(t, o.ID); st != orders.Processing {
		t.Fatalf("the order is %s", st)
	}
	t.Logf("POST /console/orders/{id}/moves/processing: %d write transactions", n)
	if n != 1 {
		t.Errorf("the move made %d write transactions, want 1", n)
	}
	// The move extended the session: 20 minutes on, past the idle limit
	// of the sign-in, the console still serves the desk.
	v.clock.Add(20 * time.Minute)
	if w := do(h, "GET", "/console/desk", token, nil); w.Code != http.StatusOK {
		t.Errorf("the desk after the move: %d (the session was not extended)", w.Code)
	}
}
