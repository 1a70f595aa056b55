package tambala_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestOperatorOrgBalances: the staff read an organization's balances, MWK
// first then each asset it has enabled, whatever its status, its /v2
// access or the pause switches (issue #36: the console read them as the
// organization, refused once it was suspended); a signed-out session
// reads nothing.
func TestOperatorOrgBalances(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		ctx := p.ctx
		op := p.e.Operator()
		_, err := op.SetAssets(ctx, p.org, []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{"payout", "collection"}}, {Asset: "USDT", Operations: []string{"convert"}},
		})
		require.NoError(t, err)
		usdt, err := money.Parse(money.USDT, "12.5")
		require.NoError(t, err)
		require.NoError(t, op.Fund(ctx, p.org, usdt, "usdt-1"))
		_, err = op.SetOrganizationStatus(ctx, p.org, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = op.SetPause(ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)

		_, token := p.staffMember(t, "support@operator.example", accounts.StaffSupport)
		staff, err := p.e.Sessions().Operator(ctx, token)
		require.NoError(t, err)
		for name, face := range map[string]*tambala.Operator{"automation": op, "support": staff} {
			got, err := face.OrgBalances(ctx, p.org)
			require.NoError(t, err, name)
			codes := make([]money.AssetCode, len(got))
			for i, b := range got {
				codes[i] = b.Asset.Code
			}
			assert.Equal(t, []money.AssetCode{"MWK", "USDT"}, codes, name)
			assert.Equal(t, "1000.00", got[0].Available.String(), name)
			assert.Equal(t, "12.500000", got[1].Available.String(), name)
			_, err = face.OrgBalances(ctx, "no-such-org")
			assert.Equal(t, errcode.NotFound, errcode.Of(err), name)
		}

		// An organization without MWK among its assets still shows its
		// MWK (/v1) balance first.
		_, err = op.SetAssets(ctx, p.org, []tambala.AssetAccess{{Asset: "USDT", Operations: []string{"convert"}}})
		require.NoError(t, err)
		got, err := op.OrgBalances(ctx, p.org)
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, money.AssetCode("MWK"), got[0].Asset.Code)
		assert.Equal(t, money.AssetCode("USDT"), got[1].Asset.Code)

		require.NoError(t, p.e.Sessions().SignOut(ctx, token))
		_, err = staff.OrgBalances(ctx, p.org)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err), "a signed-out session reads nothing")
	})
}
