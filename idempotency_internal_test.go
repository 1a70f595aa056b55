package tambala

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// Outcomes stored by versions that scoped idempotency by method and path
// and kept the response bytes (version 1 records, and the JSON before
// them) still replay after the upgrade: the same body gets the same
// payout back, rendered byte for byte as it was first answered, and a
// different body is conflict.
func TestIdempotency_LegacyRecordsReplay(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	e, p := legacySetup(t, s, nil)
	org := p.Org

	body := []byte(legacyBody)
	rendered := putLegacyRecord(t, s, org.ID, "old-key")

	req := legacyRequest(100)
	idem := Idempotency{Key: "old-key", Fingerprint: BodyFingerprint(body)}
	got, err := e.createPayout(ctx, p, req, idem)
	require.NoError(t, err)
	assert.True(t, got.Replayed)
	assert.Equal(t, string(rendered), string(render.Payout(got.Resource)), "byte for byte as first answered")
	assert.Equal(t, org.ID, got.Resource.Org)

	other := []byte(`{"amount_mwk":"101.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"W"}`)
	req2 := legacyRequest(101)
	_, err = e.createPayout(ctx, p, req2, Idempotency{Key: "old-key", Fingerprint: BodyFingerprint(other)})
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	// A body that no longer decodes, under a key decided for another body.
	err = e.refuseCreate(ctx, p, CreateMomoPayout, Idempotency{Key: "old-key", Fingerprint: BodyFingerprint([]byte("{"))}, errcode.New(errcode.ValidationError))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	// The key decided on the momo rail names that create on every
	// endpoint: the bank rail is conflict too.
	bank := payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 100),
		Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "W"}}
	_, err = e.createPayout(ctx, p, bank, Idempotency{Key: "old-key"})
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	// Nothing was held for the replays and refusals.
	b, err := e.balanceV1(ctx, p)
	require.NoError(t, err)
	assert.True(t, b.Held.IsZero(), "held %s", b.Held)
}

// legacySetup makes an engine on s (on the clock *now, when not nil) and a
// funded organization.
func legacySetup(t *testing.T, s store.Store, now *time.Time) (*Engine, Principal) {
	t.Helper()
	ctx := context.Background()
	var opts *Options
	if now != nil {
		opts = &Options{Clock: func() time.Time { return *now }}
	}
	e, err := New(s, opts)
	require.NoError(t, err)
	org, err := e.createOrganization(ctx, NewOrganization{Name: "Legacy"})
	require.NoError(t, err)
	require.NoError(t, e.fundOrg(ctx, org.ID, money.FromInt(money.MWK, 100_000), "seed"))
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)
	return e, p
}

const legacyBody = `{"amount_mwk":"100.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"W"}`

// legacyRequest is the Request of legacyBody, for amount MWK (100 is
// legacyBody's).
func legacyRequest(amount int64) payouts.Request {
	return payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, amount),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "W"}}
}

// putLegacyRecord stores, as a version before operation names did, the
// outcome of a momo payout created with legacyBody under key, and returns
// the response it stored.
func putLegacyRecord(t *testing.T, s store.Store, org, key string) []byte {
	t.Helper()
	at := time.Date(2026, 11, 20, 8, 0, 0, 123e6, time.UTC)
	fee := money.FromInt(money.MWK, 282)
	old := payouts.Payout{ID: "0190a000-0000-7000-8000-000000000001", Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 100),
		Fee: &fee, Status: payouts.Succeeded, CreatedAt: at, TerminalAt: &at,
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "W"}}
	rendered := render.Payout(old)
	v1 := (&codec.IdemRecord{Status: 202, Body: rendered, CreatedAt: at}).EncodeV1(sha256.Sum256([]byte(legacyBody)))
	require.NoError(t, s.Update(context.Background(), func(tx store.Tx) error {
		return storage.PutIdem(tx, legacyIdemScope(org, "POST\x00/v1/payouts/momo", key), v1)
	}))
	return rendered
}

// The legacy scopes are read only while a record stored under one can be
// within the retention: from the store's first create by this version
// (recorded in the store) until the retention has passed; never in a store
// whose first create found no outcome at all.
func TestIdempotency_LegacyLookupsEnd(t *testing.T) {
	ctx := context.Background()
	req := legacyRequest(100)
	idem := Idempotency{Key: "old-key", Fingerprint: BodyFingerprint([]byte(legacyBody))}
	since := func(t *testing.T, s store.Store) string {
		var v []byte
		require.NoError(t, s.View(ctx, func(tx store.Tx) (err error) {
			v, err = storage.Setting(tx, storage.IdemLegacySince)
			return err
		}))
		return string(v)
	}

	t.Run("upgraded store", func(t *testing.T) {
		s := memstore.New()
		t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		now := t0
		e, p := legacySetup(t, s, &now)
		putLegacyRecord(t, s, p.Org.ID, "old-key")
		got, err := e.createPayout(ctx, p, req, idem)
		require.NoError(t, err)
		assert.True(t, got.Replayed)
		assert.Equal(t, "2026-11-23T09:00:00Z", since(t, s), "recorded at the first create")

		// Another engine on the store (a restart, or a second process)
		// reads the recorded time rather than its own.
		now = t0.Add(e.Settings().Limits().IdempotencyRetention - time.Millisecond)
		e2, err := New(s, &Options{Clock: func() time.Time { return now }})
		require.NoError(t, err)
		p2, err := e2.Act(ctx, p.Org.ID)
		require.NoError(t, err)
		got, err = e2.createPayout(ctx, p2, req, idem)
		require.NoError(t, err)
		assert.True(t, got.Replayed, "still within the retention")

		now = t0.Add(e.Settings().Limits().IdempotencyRetention)
		got, err = e2.createPayout(ctx, p2, req, idem)
		require.NoError(t, err)
		assert.False(t, got.Replayed, "past the retention the legacy record is no longer read")
	})

	t.Run("new store", func(t *testing.T) {
		s := memstore.New()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		e, p := legacySetup(t, s, &now)
		first, err := e.createPayout(ctx, p, req, Idempotency{Key: "first"})
		require.NoError(t, err)
		assert.False(t, first.Replayed)
		assert.Equal(t, "0001-01-01T00:00:00Z", since(t, s), "no outcome was stored before")
		// A record under a legacy scope (only a build before operation
		// names writes one) is never read in this store.
		putLegacyRecord(t, s, p.Org.ID, "old-key")
		got, err := e.createPayout(ctx, p, req, idem)
		require.NoError(t, err)
		assert.False(t, got.Replayed)
		// Nor after a restart.
		putLegacyRecord(t, s, p.Org.ID, "older-key")
		e2, err := New(s, &Options{Clock: func() time.Time { return now }})
		require.NoError(t, err)
		assert.Equal(t, errcode.Conflict, errcode.Of(e2.refuseCreate(ctx, p, CreateMomoPayout, Idempotency{Key: "first", Fingerprint: BodyFingerprint([]byte("{"))}, errcode.New(errcode.ValidationError))),
			"the new scope is read as before")
		assert.Equal(t, errcode.ValidationError, errcode.Of(e2.refuseCreate(ctx, p, CreateMomoPayout, Idempotency{Key: "older-key", Fingerprint: BodyFingerprint([]byte("{"))}, errcode.New(errcode.ValidationError))),
			"the legacy record is not read: the reason, not conflict")
	})
}

func mustSub(t *testing.T, a, b money.Amount) money.Amount {
	d, err := a.Sub(b)
	require.NoError(t, err)
	return d
}

// asOperationScoped turns the decision under key into what a build that
// kept a namespace per operation stored: a version 2 record under the
// operation's scope, and no namespace setting (that build wrote none).
func asOperationScoped(t *testing.T, s store.Store, org string, op Operation, key string) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), func(tx store.Tx) error {
		v, err := storage.Idem(tx, idemScope(org, key))
		if err != nil {
			return err
		}
		rec, err := codec.DecodeIdemRecord(v)
		if err != nil {
			return err
		}
		require.Equal(t, string(op), rec.Operation)
		var sum [32]byte
		_, err = hex.Decode(sum[:], []byte(rec.BodySHA256))
		require.NoError(t, err)
		if err := storage.DeleteIdem(tx, idemScope(org, key)); err != nil {
			return err
		}
		if err := storage.DeleteSetting(tx, storage.IdemNamespaceSince); err != nil {
			return err
		}
		return storage.PutIdem(tx, opIdemScope(org, op, key), rec.EncodeV2(sum))
	}))
}

// Decisions stored by builds that kept a namespace per operation (version
// 2 records under the operation's scope) still replay for their operation
// and make the key conflict on every other, while they can be within the
// retention after the upgrade; past it, and in a store that held no
// decision at the upgrade, they are not read.
func TestIdempotency_OperationScopedRecordsAfterUpgrade(t *testing.T) {
	ctx := context.Background()
	momo := legacyRequest(100)
	idem := Idempotency{Key: "b-6", Fingerprint: BodyFingerprint([]byte(legacyBody))}
	bank := payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 100),
		Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "W"}}

	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	now := t0
	s := memstore.New()
	e, p := legacySetup(t, s, &now)
	first, err := e.createPayout(ctx, p, momo, idem)
	require.NoError(t, err)
	asOperationScoped(t, s, p.Org.ID, CreateMomoPayout, "b-6")

	// The upgrade: a new engine on the store.
	e2, err := New(s, &Options{Clock: func() time.Time { return now }})
	require.NoError(t, err)
	got, err := e2.createPayout(ctx, p, momo, idem)
	require.NoError(t, err)
	assert.True(t, got.Replayed)
	assert.Equal(t, first.Resource.ID, got.Resource.ID)
	_, err = e2.createPayout(ctx, p, bank, Idempotency{Key: "b-6"})
	assert.Equal(t, errcode.Conflict, errcode.Of(err), "the key names the momo create on every endpoint")
	assert.Equal(t, errcode.Conflict, errcode.Of(e2.refuseCreate(ctx, p, CreateBankPayout, Idempotency{Key: "b-6"}, errcode.New(errcode.ValidationError))))
	var since []byte
	require.NoError(t, s.View(ctx, func(tx store.Tx) (err error) {
		since, err = storage.Setting(tx, storage.IdemNamespaceSince)
		return err
	}))
	assert.Equal(t, "2026-11-25T09:00:00Z", string(since), "recorded at the first create after the upgrade")

	// Past the retention the record would be pruned; it is not read.
	now = t0.Add(e2.Settings().Limits().IdempotencyRetention)
	c, err := e2.createPayout(ctx, p, bank, Idempotency{Key: "b-6"})
	require.NoError(t, err)
	assert.False(t, c.Replayed)

	// A store that held no decision when this build first created in it
	// never reads an operation's scope.
	s2 := memstore.New()
	now = t0
	e3, p3 := legacySetup(t, s2, &now)
	_, err = e3.createPayout(ctx, p3, momo, Idempotency{Key: "first"})
	require.NoError(t, err)
	_, err = e3.createPayout(ctx, p3, momo, idem)
	require.NoError(t, err)
	asOperationScoped(t, s2, p3.Org.ID, CreateMomoPayout, "b-6")
	require.NoError(t, s2.Update(ctx, func(tx store.Tx) error {
		zero, _ := time.Time{}.MarshalText()
		return storage.PutSetting(tx, storage.IdemNamespaceSince, zero)
	}))
	e4, err := New(s2, &Options{Clock: func() time.Time { return now }})
	require.NoError(t, err)
	c, err = e4.createPayout(ctx, p3, bank, Idempotency{Key: "b-6"})
	require.NoError(t, err)
	assert.False(t, c.Replayed)
}

// BodyFingerprint is the fingerprint the HTTP binding gives a body.
func BodyFingerprint(body []byte) Fingerprint { return sha256.Sum256(body) }

// One create decides a scope at a time: entering a scope being decided is
// refused until it is left, across shards and goroutines.
func TestDecidingScopes(t *testing.T) {
	var d deciding
	require.True(t, d.enter("org\x00\x00k1"))
	require.False(t, d.enter("org\x00\x00k1"), "a second entry of a scope being decided")
	require.True(t, d.busy("org\x00\x00k1"))
	require.False(t, d.busy("org\x00\x00k2"))
	require.True(t, d.enter("org\x00\x00k2"), "another scope is not blocked")
	d.leave("org\x00\x00k1")
	require.False(t, d.busy("org\x00\x00k1"))
	require.True(t, d.enter("org\x00\x00k1"), "a scope left can be entered again")

	// Many goroutines racing on the same 8 scopes: never two inside one.
	var inside [8]atomic.Int32
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := (g + i) % len(inside)
				scope := fmt.Sprintf("o\x00\x00%d", k)
				if !d.enter(scope) {
					continue
				}
				if n := inside[k].Add(1); n != 1 {
					t.Errorf("%d goroutines inside scope %d", n, k)
				}
				inside[k].Add(-1)
				d.leave(scope)
			}
		}()
	}
	wg.Wait()
}
