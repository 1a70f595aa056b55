package tambala_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

func demoBootstrap() tambala.Bootstrap {
	off, on := money.MustRate("1750.5"), money.MustRate("1800")
	return tambala.Bootstrap{
		Marker: "demo",
		Organization: tambala.NewOrganization{Name: "Demo", V2Access: tambala.V2Enabled, Assets: []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{tambala.OpPayout}}, {Asset: "USDT", Operations: []string{tambala.OpPayout}}}},
		Funding: []tambala.Funding{{Amount: money.FromInt(money.MWK, 1000), Ref: "opening"}, {Amount: money.FromInt(money.USDT, 10), Ref: "opening"}},
		Corridors: []quotes.Corridor{{Asset: money.MWK, RateOffRamp: off, RateOnRamp: on,
			Min: money.FromInt(money.MWK, 1000), Open: true}},
	}
}

// TestBootstrapOrganization: the organization, its funding, the corridors
// and a working key in one go; a second bootstrap under the marker, or one
// over a store that already holds an organization, creates nothing.
func TestBootstrapOrganization(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		e, err := tambala.New(s, nil)
		require.NoError(t, err)
		got, err := e.Operator().BootstrapOrganization(ctx, demoBootstrap())
		require.NoError(t, err)
		require.True(t, got.Created)
		assert.Equal(t, "Demo", got.Organization.Name)
		p, err := e.Authenticate(ctx, got.Key)
		require.NoError(t, err, "the key works")
		assert.Equal(t, got.Organization.ID, p.Org.ID)
		assert.Equal(t, got.APIKey.ID, p.Key.ID)
		bal, err := e.Client(p).Balance(ctx, "USDT")
		require.NoError(t, err)
		assert.Equal(t, "10.000000", bal.Available.String())
		cs, err := e.Operator().Desk().Corridors(ctx)
		require.NoError(t, err)
		require.Len(t, cs, 1)
		assert.True(t, cs[0].Open)
		require.NoError(t, ledger.CheckStore(ctx, s))

		again, err := e.Operator().BootstrapOrganization(ctx, demoBootstrap())
		require.NoError(t, err)
		assert.False(t, again.Created)
		assert.Empty(t, again.Key)
		assert.Equal(t, got.Organization.ID, again.Organization.ID, "the organization the marker names")
		orgs, err := e.Operator().Organizations(ctx)
		require.NoError(t, err)
		assert.Len(t, orgs, 1)

		other := demoBootstrap()
		other.Marker = "another"
		none, err := e.Operator().BootstrapOrganization(ctx, other)
		require.NoError(t, err)
		assert.False(t, none.Created, "the store already holds an organization")
		assert.Empty(t, none.Organization.ID)
		orgs, err = e.Operator().Organizations(ctx)
		require.NoError(t, err)
		assert.Len(t, orgs, 1)
	})
}

// TestBootstrapOrganization_RefusedBeforeWriting: a bootstrap that does not
// validate writes nothing, so a corrected one still runs.
func TestBootstrapOrganization_RefusedBeforeWriting(t *testing.T) {
	ctx := context.Background()
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	for _, mutate := range []func(*tambala.Bootstrap){
		func(b *tambala.Bootstrap) { b.Marker = "" },
		func(b *tambala.Bootstrap) { b.Organization.Name = "" },
		func(b *tambala.Bootstrap) { b.Funding[0].Ref = "" },
		func(b *tambala.Bootstrap) { b.Corridors[0].Min = money.FromInt(money.MWK, -1) },
	} {
		b := demoBootstrap()
		mutate(&b)
		_, err = e.Operator().BootstrapOrganization(ctx, b)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%v", err)
	}
	orgs, err := e.Operator().Organizations(ctx)
	require.NoError(t, err)
	assert.Empty(t, orgs)
	got, err := e.Operator().BootstrapOrganization(ctx, demoBootstrap())
	require.NoError(t, err)
	assert.True(t, got.Created)
}

// TestBootstrapOrganization_TwoServersOnOneEmptyDatabase: two engines with
// their own connection pools bootstrap one fresh PostgreSQL schema at once,
// as two servers starting together do: exactly one organization exists,
// one of them created it and the other names it.
func TestBootstrapOrganization_TwoServersOnOneEmptyDatabase(t *testing.T) {
	k := teststores.Pgstore(nil)
	for range 3 {
		a, b, s := twoEngines(t, k, nil)
		ctx := context.Background()
		var got [2]tambala.Bootstrapped
		var errs [2]error
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, e := range []*tambala.Engine{a, b} {
			wg.Go(func() {
				<-start
				got[i], errs[i] = e.Operator().BootstrapOrganization(ctx, demoBootstrap())
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		assert.True(t, got[0].Created != got[1].Created, "exactly one created it: %v %v", got[0].Created, got[1].Created)
		assert.Equal(t, got[0].Organization.ID, got[1].Organization.ID)
		orgs, err := a.Operator().Organizations(ctx)
		require.NoError(t, err)
		assert.Len(t, orgs, 1)
		require.NoError(t, ledger.CheckStore(ctx, s))
	}
}
