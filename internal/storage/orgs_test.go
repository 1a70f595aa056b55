package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/store"
)

var errMissing = errors.New("missing")

func update(t *testing.T, s store.Store, f func(tx store.Tx) error) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), f))
}

func TestOrgRoundTripAndFloor(t *testing.T) {
	s := memstore.New()
	floor, err := money.Parse(money.MWK, "1000")
	require.NoError(t, err)
	o := orgs.Organization{ID: "org1", Name: "Acme", Status: orgs.Active, BalanceFloorMWK: floor,
		PayoutLimits: &orgs.PayoutLimits{HourlyCount: 3}, CreatedAt: time.Unix(1, 0).UTC()}
	update(t, s, func(tx store.Tx) error {
		some, err := storage.AnyOrg(tx)
		require.NoError(t, err)
		assert.False(t, some)
		return storage.SaveOrg(tx, o)
	})
	update(t, s, func(tx store.Tx) error {
		got, err := storage.LoadOrg(tx, "org1", errMissing)
		require.NoError(t, err)
		assert.Equal(t, o, got)
		fl, err := storage.OrgFloor(tx, "org1")
		require.NoError(t, err)
		assert.Equal(t, "1000.00", string(fl))
		_, err = storage.LoadOrg(tx, "nope", errMissing)
		assert.ErrorIs(t, err, errMissing)
		all, err := storage.Orgs(tx)
		require.NoError(t, err)
		assert.Len(t, all, 1)
		o.BalanceFloorMWK = money.Amount{}
		return storage.SaveOrg(tx, o)
	})
	update(t, s, func(tx store.Tx) error {
		_, err := storage.OrgFloor(tx, "org1")
		assert.ErrorIs(t, err, store.ErrNotFound)
		return nil
	})
}

func TestKeysByOrgAndHash(t *testing.T) {
	s := memstore.New()
	h := [32]byte{1}
	update(t, s, func(tx store.Tx) error {
		require.NoError(t, storage.SaveNewKey(tx, codec.KeyRecord{ID: "k1", Org: "o"}, h))
		return storage.SaveNewKey(tx, codec.KeyRecord{ID: "k2", Org: "o"}, [32]byte{2})
	})
	update(t, s, func(tx store.Tx) error {
		id, err := storage.KeyIDByHash(tx, h)
		require.NoError(t, err)
		assert.Equal(t, "k1", id)
		ids, err := storage.KeyIDsByOrg(tx, "o")
		require.NoError(t, err)
		assert.Equal(t, []string{"k1", "k2"}, ids)
		return nil
	})
}

func TestIdemPrune(t *testing.T) {
	s := memstore.New()
	at := time.Unix(100, 0)
	update(t, s, func(tx store.Tx) error {
		require.NoError(t, storage.SaveIdem(tx, "a", at, []byte("x")))
		return storage.SaveIdem(tx, "b", at.Add(time.Hour), []byte("y"))
	})
	update(t, s, func(tx store.Tx) error {
		n, err := storage.PruneIdem(tx, at.Add(time.Minute), 10)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		_, err = storage.Idem(tx, "a")
		assert.ErrorIs(t, err, store.ErrNotFound)
		some, err := storage.AnyIdem(tx)
		assert.True(t, some)
		return err
	})
}

func TestEventsDue(t *testing.T) {
	s := memstore.New()
	at := time.Unix(100, 0).UTC()
	update(t, s, func(tx store.Tx) error {
		return storage.SaveEvent(tx, codec.EventRecord{ID: "e1", NextAt: at}, nil)
	})
	ids, err := storage.DueEvents(context.Background(), s, at, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"e1"}, ids)
	update(t, s, func(tx store.Tx) error {
		r, err := storage.LoadEvent(tx, "e1", errMissing)
		require.NoError(t, err)
		return storage.DeleteEvent(tx, r)
	})
	ids, err = storage.DueEvents(context.Background(), s, at, 10)
	require.NoError(t, err)
	assert.Empty(t, ids)
}
