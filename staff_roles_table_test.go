package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// TestStaffRolesEveryCall: every call of the Operator face, made by a
// staff user of each single role, is forbidden exactly when the role does
// not allow it (other refusals, of the call's own figures, do not count):
// reads for every role, the desk's calls for desk, the rest for
// operations, nothing that changes for support or admin.
func TestStaffRolesEveryCall(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		ctx := p.ctx
		org := p.org
		var read, desk, ops accounts.StaffRole = "", accounts.StaffDesk, accounts.StaffOperations
		calls := []struct {
			name string
			need accounts.StaffRole
			call func(op *tambala.Operator) error
		}{
			{"AllCorridors", read, func(op *tambala.Operator) error { _, err := op.Desk().Corridors(ctx); return err }},
			{"AssetLimits", read, func(op *tambala.Operator) error {
				_, err := op.Desk().AssetLimits(ctx, "USDT", tambala.OpPayout)
				return err
			}},
			{"Backlog", read, func(op *tambala.Operator) error { _, err := op.BackOffice().Backlog(ctx); return err }},
			{"Deliveries", read, func(op *tambala.Operator) error {
				_, err := op.Deliveries(ctx, org, tambala.PageRequest{})
				return err
			}},
			{"DeskOrder", read, func(op *tambala.Operator) error { _, err := op.Desk().Order(ctx, "nope"); return err }},
			{"DeskOrders", read, func(op *tambala.Operator) error {
				_, err := op.Desk().Orders(ctx, tambala.DeskQueue{}, tambala.PageRequest{})
				return err
			}},
			{"DeskProof", read, func(op *tambala.Operator) error { _, err := op.Desk().Proof(ctx, "nope"); return err }},
			{"Keys", read, func(op *tambala.Operator) error { _, err := op.Keys(ctx, org); return err }},
			{"OrgBalances", read, func(op *tambala.Operator) error { _, err := op.OrgBalances(ctx, org); return err }},
			{"Organization", read, func(op *tambala.Operator) error { _, err := op.Organization(ctx, org); return err }},
			{"Organizations", read, func(op *tambala.Operator) error { _, err := op.Organizations(ctx); return err }},
			{"Pause", read, func(op *tambala.Operator) error { _, err := op.PauseState(ctx); return err }},
			{"PayoutsInFlight", read, func(op *tambala.Operator) error {
				_, err := op.BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
				return err
			}},
			{"Rails", read, func(op *tambala.Operator) error { _, err := op.Rails(ctx); return err }},
			{"WebhookEndpoint", read, func(op *tambala.Operator) error { _, _, err := op.WebhookEndpoint(ctx, org); return err }},
			{"MoveOrder", desk, func(op *tambala.Operator) error {
				_, err := op.Desk().MoveOrder(ctx, "nope", orders.Cancel{})
				return err
			}},
			{"SetCorridor", desk, func(op *tambala.Operator) error { _, err := op.Desk().SetCorridor(ctx, quotes.Corridor{}); return err }},
			{"SetAssetLimits", desk, func(op *tambala.Operator) error {
				return op.Desk().SetAssetLimits(ctx, "USDT", tambala.OpPayout, quotes.Limits{})
			}},
			{"BootstrapOrganization", ops, func(op *tambala.Operator) error {
				_, err := op.BootstrapOrganization(ctx, tambala.Bootstrap{})
				return err
			}},
			{"ClawbackPayout", ops, func(op *tambala.Operator) error { return op.BackOffice().ClawbackPayout(ctx, "nope") }},
			{"CreateKey", ops, func(op *tambala.Operator) error { _, _, err := op.CreateKey(ctx, "nope"); return err }},
			{"CreateOrganization", ops, func(op *tambala.Operator) error {
				_, err := op.CreateOrganization(ctx, tambala.NewOrganization{})
				return err
			}},
			{"Fund", ops, func(op *tambala.Operator) error { return op.Fund(ctx, "nope", money.FromInt(money.MWK, 1), "r") }},
			{"RecordCollection", ops, func(op *tambala.Operator) error {
				_, err := op.RecordCollection(ctx, "nope", tambala.NewCollection{})
				return err
			}},
			{"RecordDeposit", ops, func(op *tambala.Operator) error {
				_, err := op.Desk().RecordDeposit(ctx, "nope", tambala.Deposit{})
				return err
			}},
			{"RecordTrade", ops, func(op *tambala.Operator) error {
				_, err := op.Desk().RecordTrade(ctx, "nope", tambala.NewTrade{})
				return err
			}},
			{"Redeliver", ops, func(op *tambala.Operator) error { _, err := op.Redeliver(ctx, org, "nope"); return err }},
			{"ResolvePayout", ops, func(op *tambala.Operator) error {
				_, err := op.BackOffice().ResolvePayout(ctx, "nope", tambala.Resolution{})
				return err
			}},
			{"ReverseCollection", ops, func(op *tambala.Operator) error { _, err := op.ReverseCollection(ctx, org, "nope"); return err }},
			{"RevokeKey", ops, func(op *tambala.Operator) error { _, err := op.RevokeKey(ctx, org, "nope"); return err }},
			{"RotateDepositAddress", ops, func(op *tambala.Operator) error {
				_, err := op.Desk().RotateDepositAddress(ctx, "nope", "tron")
				return err
			}},
			{"SetAllowlist", ops, func(op *tambala.Operator) error { _, err := op.SetAllowlist(ctx, "nope", nil); return err }},
			{"SetAssets", ops, func(op *tambala.Operator) error { _, err := op.SetAssets(ctx, "nope", nil); return err }},
			{"SetBalanceFloor", ops, func(op *tambala.Operator) error {
				_, err := op.SetBalanceFloor(ctx, "nope", money.Amount{})
				return err
			}},
			{"SetOrganizationStatus", ops, func(op *tambala.Operator) error {
				_, err := op.SetOrganizationStatus(ctx, "nope", tambala.OrgActive)
				return err
			}},
			{"SetPause", ops, func(op *tambala.Operator) error { _, err := op.SetPause(ctx, "v9", tambala.Live); return err }},
			{"SetPayoutLimits", ops, func(op *tambala.Operator) error {
				_, err := op.SetPayoutLimits(ctx, "nope", tambala.PayoutLimits{})
				return err
			}},
			{"SetRailDisabled", ops, func(op *tambala.Operator) error { _, err := op.SetRailDisabled(ctx, "nope", true); return err }},
			{"SetV2Access", ops, func(op *tambala.Operator) error { _, err := op.SetV2Access(ctx, "nope", tambala.V2Enabled); return err }},
			{"SetWebhookEndpoint", ops, func(op *tambala.Operator) error {
				_, _, err := op.SetWebhookEndpoint(ctx, "nope", "https://x.example")
				return err
			}},
			{"SyncInstitutions", ops, func(op *tambala.Operator) error { return op.SyncInstitutions(ctx, nil) }},
			{"Approvals().Thresholds", read, func(op *tambala.Operator) error { _, err := op.Approvals().Thresholds(ctx); return err }},
			{"Approvals().SetThreshold", ops, func(op *tambala.Operator) error {
				return op.Approvals().SetThreshold(ctx, "ZZZ", money.Amount{})
			}},
		}
		faces := map[accounts.StaffRole]*tambala.Operator{}
		for _, role := range accounts.StaffRoles() {
			_, token := p.staffMember(t, string(role)+"@operator.example", role)
			op, err := p.e.Sessions().Operator(context.Background(), token)
			if err != nil {
				t.Fatal(err)
			}
			faces[role] = op
		}
		for _, c := range calls {
			for role, op := range faces {
				err := c.call(op)
				allowed := c.need == "" || c.need == role
				if allowed {
					assert.NotEqual(t, errcode.Forbidden, errcode.Of(err), "%s by %s: %v", c.name, role, err)
				} else {
					assert.Equal(t, errcode.Forbidden, errcode.Of(err), "%s by %s: %v", c.name, role, err)
				}
			}
		}
	})
}
