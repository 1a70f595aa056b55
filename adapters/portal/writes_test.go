package portal_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
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

// A key created through the portal's form is one write transaction: the
// session is checked, and extended, inside the key's own.
func TestCreateKeyFormIsOneWrite(t *testing.T) {
	s := &updateCounter{Store: memstore.New()}
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
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	f := &fixture{engine: e, org: org, email: "ada@example.com", ctx: ctx}
	token := f.signIn(t)
	h := f.handler()

	before := s.n.Load()
	w := do(h, "POST", "/portal/keys", token, url.Values{"csrf": {accounts.CSRFToken(token)}})
	n := s.n.Load() - before
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="full-key"`) {
		t.Fatalf("key: %d %s", w.Code, w.Body)
	}
	t.Logf("POST /portal/keys: %d write transactions", n)
	if n != 1 {
		t.Errorf("POST /portal/keys made %d write transactions, want 1", n)
	}
}
