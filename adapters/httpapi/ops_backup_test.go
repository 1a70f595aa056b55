package httpapi_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// TestAdminBackup_StreamsARestorableCopy: GET /admin/backup over a
// boltstore answers the database as application/octet-stream; the copy
// opens as a store and holds what was committed before it.
func TestAdminBackup_StreamsARestorableCopy(t *testing.T) {
	dir := t.TempDir()
	st, err := boltstore.Open(filepath.Join(dir, "live.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, withStore(st))
	o, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 500_000})
	created := e.do(t, "POST", "/v1/payouts/bank", bankBody("1000.00"), hdr(key, "Idempotency-Key", "before-backup")).want(t, 202, "").obj(t)

	// Without the token: refused like every admin route.
	for _, h := range []map[string]string{nil, hdr(key), hdr(adminToken + "x")} {
		e.adminWith(t, "GET", "/admin/backup", nil, h).want(t, 401, "unauthorized")
	}
	r, err := send(e.admSrv, "GET", "/admin/backup", nil, hdr(adminToken))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/octet-stream" || r.Header.Get("Request-Id") == "" {
		t.Fatalf("GET /admin/backup: %d %v", r.Status, r.Header)
	}
	if len(r.Body) < 4096 {
		t.Fatalf("a backup of %d bytes", len(r.Body))
	}
	path := filepath.Join(dir, "copy.bolt")
	if err := os.WriteFile(path, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	restored, err := boltstore.Open(path, nil)
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer restored.Close()
	ctx := context.Background()
	if err := ledger.CheckStore(ctx, restored); err != nil {
		t.Fatal(err)
	}
	eng, err := tambala.New(restored, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := eng.Act(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Client(p).V1().Payout(ctx, created["id"].(string)); err != nil {
		t.Errorf("the payout made before the backup: %v", err)
	}
}

// TestAdminBackup_StoreWithoutBackup: a store that cannot stream a copy
// (memstore) answers 404 not_found in the envelope.
func TestAdminBackup_StoreWithoutBackup(t *testing.T) {
	e := newEnv(t)
	e.admin(t, "GET", "/admin/backup", nil).want(t, 404, "not_found")
}

// TestAdminBackup_NamesTheCopyByItsFormat: the attachment is named by the
// store's BackupName: a bbolt file, or a pebble checkpoint's tar (whose
// first entry is a file of the checkpoint).
func TestAdminBackup_NamesTheCopyByItsFormat(t *testing.T) {
	dir := t.TempDir()
	bolt, err := boltstore.Open(filepath.Join(dir, "live.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	peb, err := pebblestore.Open(filepath.Join(dir, "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peb.Close() })
	for _, c := range []struct {
		st   store.Store
		name string
	}{{bolt, "tambala.bolt"}, {peb, "tambala-pebble.tar"}} {
		e := newEnv(t, withStore(c.st))
		r, err := send(e.admSrv, "GET", "/admin/backup", nil, hdr(adminToken))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Header.Get("Content-Disposition"); r.Status != 200 || got != `attachment; filename="`+c.name+`"` {
			t.Fatalf("GET /admin/backup: %d, Content-Disposition %q, want filename %s", r.Status, got, c.name)
		}
		if c.name != "tambala-pebble.tar" {
			continue
		}
		h, err := tar.NewReader(bytes.NewReader(r.Body)).Next()
		if err != nil || h.Typeflag != tar.TypeReg {
			t.Fatalf("the pebble copy is not a tar of files: %v %+v", err, h)
		}
	}
}
