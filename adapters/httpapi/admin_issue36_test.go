package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"

	"github.com/tambalapay/tambala"
)

// TestAdmin_OrgBalances: GET /admin/orgs/{org}/balances answers the
// organization's balances, MWK first then each asset it has enabled, with
// their shortfall, even while it is suspended and /v2 is paused (issue
// #36: no admin route read them); an unknown organization is not_found.
func TestAdmin_OrgBalances(t *testing.T) {
	e := newEnv(t)
	org := e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "A", "assets": []map[string]any{
		{"asset": "MWK", "operations": []string{"payout"}}, {"asset": "USDT", "operations": []string{"convert"}},
	}}).want(t, 201, "").obj(t)["id"].(string)
	e.admin(t, "POST", "/admin/orgs/"+org+"/funding", map[string]any{"asset": "MWK", "amount": "2500", "ref": "w1"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+org+"/status", map[string]any{"status": "suspended"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/pause", map[string]any{"api": "v2", "mode": "maintenance"}).want(t, 200, "")
	got := e.admin(t, "GET", "/admin/orgs/"+org+"/balances", nil).want(t, 200, "")
	want := `{"balances":[{"asset":"MWK","available":"2500.00","held":"0.00","shortfall":"0.00"},` +
		`{"asset":"USDT","available":"0.000000","held":"0.000000","shortfall":"0.000000"}],"org_id":"` + org + `"}`
	if string(got.Body) != want {
		t.Errorf("balances:\n got %s\nwant %s", got.Body, want)
	}
	e.admin(t, "GET", "/admin/orgs/nope/balances", nil).want(t, 404, "not_found")
}

// swappedProofs is a host's ProofStore whose Open hands back other bytes
// than were put (a broken or tampered object store).
type swappedProofs struct {
	mu    sync.Mutex
	files map[string][]byte
	swap  bool
}

func (p *swappedProofs) Put(_ context.Context, id, _ string, content io.Reader) error {
	b, err := io.ReadAll(content)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[id] = b
	return nil
}

func (p *swappedProofs) Open(_ context.Context, id string) (io.ReadCloser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.files[id]
	if p.swap {
		b = []byte("<html><script>alert(1)</script>")
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// TestAdmin_DeskProofDownload: the admin route serves a funding proof as
// a file to save (Content-Disposition: attachment, named by the order and
// the media type), and sends nothing of bytes that are not what their
// media type says (issue #36: it served them inline, unchecked).
func TestAdmin_DeskProofDownload(t *testing.T) {
	proofs := &swappedProofs{files: map[string][]byte{}}
	e := newDeskEnv(t, func(o *tambala.Options) { o.Proofs = proofs })
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	a, _ := createOrder(t, e, key, "a", orderBody(q.QuoteID, "a", ""))
	e.file(t, true, "/admin/orders/"+a.ID+"/proofs/funding", hdr(adminToken)).want(t, 404, "not_found")
	move(t, e, a.ID, "instructions", instructions, 200, "")
	pdf := "%PDF-1.4 a wire receipt"
	uploadProof(t, e, key, a.ID, "application/pdf", pdf).want(t, 200, "")

	b := e.file(t, true, "/admin/orders/"+a.ID+"/proofs/funding", hdr(adminToken)).want(t, 200, "")
	if string(b.Body) != pdf || b.Header.Get("Content-Type") != "application/pdf" ||
		b.Header.Get("Content-Disposition") != `attachment; filename=proof-`+a.ID+`.pdf` ||
		b.Header.Get("X-Content-Type-Options") != "nosniff" || b.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("desk proof: %v %q", b.Header, b.Body)
	}

	proofs.mu.Lock()
	proofs.swap = true
	proofs.mu.Unlock()
	bad := e.file(t, true, "/admin/orders/"+a.ID+"/proofs/funding", hdr(adminToken)).want(t, 500, "internal_error")
	if bytes.Contains(bad.Body, []byte("script")) || bad.Header.Get("Content-Disposition") != "" {
		t.Errorf("swapped proof served: %v %q", bad.Header, bad.Body)
	}
}
