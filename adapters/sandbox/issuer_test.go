package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tambalapay/tambala/money"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/networks"
)

func TestIssuerAddressesAreValidAndStable(t *testing.T) {
	ctx := context.Background()
	table := networks.Default()
	table["polygon"] = networks.Network{ID: "polygon", Kind: networks.EVM, Assets: []money.AssetCode{"USDC"}}
	iss := sandbox.NewIssuer(table)
	seen := map[string]bool{}
	for i := range 50 {
		org := fmt.Sprintf("0190c4d2-7f3a-7b1e-8a2b-%012d", i)
		for _, n := range table.Sorted() {
			a, err := iss.Issue(ctx, org, n.ID)
			require.NoError(t, err)
			require.NoError(t, n.CheckAddress(n.Assets[0], a), "%s on %s", a, n.ID)
			again, err := sandbox.NewIssuer(table).Issue(ctx, org, n.ID)
			require.NoError(t, err)
			assert.Equal(t, a, again, "deterministic")
			assert.False(t, seen[a], "distinct per (org, network)")
			seen[a] = true
		}
	}
	_, err := iss.Issue(ctx, "org", "solana")
	assert.Equal(t, errcode.UnsupportedNetwork, errcode.Of(err))
	boom := errors.New("boom")
	iss.Fail("tron", boom)
	_, err = iss.Issue(ctx, "org", "tron")
	assert.ErrorIs(t, err, boom)
	iss.Fail("tron", nil)
	_, err = iss.Issue(ctx, "org", "tron")
	assert.NoError(t, err)
}

func TestIssuerRotationGivesAnotherAddress(t *testing.T) {
	ctx := context.Background()
	iss := sandbox.NewIssuer(nil)
	n := networks.Default()["tron"]
	a, err := iss.Issue(ctx, "org", "tron")
	require.NoError(t, err)
	b, err := iss.Issue(ctx, "org", "tron")
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	require.NoError(t, n.CheckAddress("USDT", b))
	first, err := sandbox.NewIssuer(nil).Issue(ctx, "org", "tron")
	require.NoError(t, err)
	assert.Equal(t, a, first, "the first address of a pair is the same in every process")
}
