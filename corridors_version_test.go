package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// Commands read the corridors through a version that every corridor write
// changes: an engine sees a corridor another engine over the same store
// set, and a store whose corridors have no version yet (written before it
// existed) is read by scanning them, as before.
func TestCorridorsSeenAcrossEngines(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	d := newDeskEnv(t, s, nil)
	other, err := tambala.New(s, nil)
	require.NoError(t, err)

	rates := func() (string, bool) {
		t.Helper()
		list, err := d.e.Client(d.p).Corridors(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1)
		return list[0].RateOffRamp.String(), list[0].Open
	}
	rate, open := rates()
	require.Equal(t, deskCorridor().RateOffRamp.String(), rate)
	require.True(t, open)

	// Another engine changes the corridor: the first sees it at once.
	c := deskCorridor()
	c.RateOffRamp = money.MustRate("1700.25")
	_, err = other.Operator().Desk().SetCorridor(ctx, c)
	require.NoError(t, err)
	rate, _ = rates()
	require.Equal(t, "1700.25", rate)
	c.Open = false
	_, err = other.Operator().Desk().SetCorridor(ctx, c)
	require.NoError(t, err)
	_, open = rates()
	require.False(t, open, "a closed corridor read as open")

	// A store written before the version: the corridor is read by a scan,
	// and a change to it is seen.
	dropVersion := func() {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
			return tx.Delete([]byte("settings"), []byte("corridors.version"))
		}))
	}
	dropVersion()
	c.Open = true
	_, err = other.Operator().Desk().SetCorridor(ctx, c)
	require.NoError(t, err)
	dropVersion()
	_, open = rates()
	require.True(t, open, "without a version the corridors are scanned")
}
