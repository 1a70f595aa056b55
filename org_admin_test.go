package tambala_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

func TestOrgAdmin(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		u := p.person(t, p.org, "ada@example.com")
		r := p.signIn(t, "ada@example.com")
		admin, err := p.e.Sessions().Admin(p.ctx, r.Token)
		require.NoError(t, err)
		before := len(p.actions(t, p.org))

		// Keys: at most three active, each shown once, and working.
		var keys []tambala.APIKey
		for range 3 {
			full, k, err := admin.CreateKey(p.ctx)
			require.NoError(t, err)
			pr, err := p.e.Authenticate(p.ctx, full)
			require.NoError(t, err)
			assert.Equal(t, p.org, pr.Org.ID)
			keys = append(keys, k)
		}
		_, _, err = admin.CreateKey(p.ctx)
		assert.Equal(t, errcode.Conflict, errcode.Of(err))
		listed, err := admin.Keys(p.ctx)
		require.NoError(t, err)
		assert.Len(t, listed, 3)
		revoked, err := admin.RevokeKey(p.ctx, keys[0].Prefix)
		require.NoError(t, err)
		assert.False(t, revoked.Active())
		_, err = admin.RevokeKey(p.ctx, keys[0].ID) // revoked already: no change
		require.NoError(t, err)

		o, err := admin.SetAllowlist(p.ctx, []netip.Addr{netip.MustParseAddr("192.0.2.1")})
		require.NoError(t, err)
		assert.Len(t, o.Allowlist, 1)
		o, err = admin.SetBalanceFloor(p.ctx, money.FromInt(money.MWK, 100))
		require.NoError(t, err)
		assert.Equal(t, "100.00", o.BalanceFloorMWK.String())
		got, err := admin.Organization(p.ctx)
		require.NoError(t, err)
		assert.Equal(t, o, got)

		ep, secret1, err := admin.SetWebhookEndpoint(p.ctx, "https://hooks.example.com/a")
		require.NoError(t, err)
		_, secret2, err := admin.SetWebhookEndpoint(p.ctx, "https://hooks.example.com/b")
		require.NoError(t, err)
		assert.NotEqual(t, secret1, secret2)
		_, err = p.e.Sessions().Admin(p.ctx, r.Token)
		require.NoError(t, err)
		cur, ok, err := admin.WebhookEndpoint(p.ctx)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "https://hooks.example.com/b", cur.URL)
		assert.NotEqual(t, ep.SecretID, cur.SecretID)
		dl, err := admin.Deliveries(p.ctx, tambala.PageRequest{})
		require.NoError(t, err)
		assert.Empty(t, dl.Items)

		// The operator's own calls are audited as the operator's.
		_, _, err = p.e.Operator().CreateKey(p.ctx, p.org)
		require.NoError(t, err)
		_, err = p.e.Operator().SetAllowlist(p.ctx, p.org, nil)
		require.NoError(t, err)

		trail, err := admin.AuditTrail(p.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize})
		require.NoError(t, err)
		var acts []tambala.AuditAction
		user := tambala.AuditActor{Kind: tambala.ActorUser, ID: u.ID, Email: u.Email}
		operator := tambala.AuditActor{Kind: tambala.ActorAutomation}
		for i := len(trail.Items) - 1; i >= 0; i-- {
			a := trail.Items[i]
			if i < len(trail.Items)-before {
				acts = append(acts, a.Action)
				if i < 2 {
					assert.Equal(t, operator, a.Actor)
				} else {
					assert.Equal(t, user, a.Actor)
				}
				assert.Equal(t, p.org, a.Org)
			}
		}
		assert.Equal(t, []tambala.AuditAction{tambala.AuditKeyCreated, tambala.AuditKeyCreated, tambala.AuditKeyCreated,
			tambala.AuditKeyRevoked, tambala.AuditAllowlistChanged, tambala.AuditBalanceFloorChanged,
			tambala.AuditWebhookEndpointSet, tambala.AuditWebhookEndpointSet, tambala.AuditKeyCreated, tambala.AuditAllowlistChanged}, acts)
		assert.Equal(t, "allowlist [192.0.2.1] -> [any]", trail.Items[0].Summary)
		for _, a := range trail.Items {
			assert.NotContains(t, a.Summary, secret1)
			assert.NotContains(t, a.Summary, secret2)
		}
		assert.Equal(t, "balance floor none -> 100.00 MWK", trail.Items[4].Summary)

		// The face checks the session at every call, and the organization.
		_, err = p.e.Operator().SetOrganizationStatus(p.ctx, p.org, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = admin.Keys(p.ctx)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		_, err = p.e.Operator().SetOrganizationStatus(p.ctx, p.org, tambala.OrgActive)
		require.NoError(t, err)
		require.NoError(t, p.e.Sessions().SignOut(p.ctx, r.Token))
		_, err = admin.Keys(p.ctx)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		_, err = p.e.Sessions().Admin(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)

		// A session still enrolling TOTP administers nothing.
		require.NoError(t, p.e.People().SetTOTPRequired(p.ctx, p.org, true))
		r = p.signIn(t, "ada@example.com")
		_, err = p.e.Sessions().Admin(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrTOTPRequired)
	})
}
