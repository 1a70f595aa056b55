package tambala_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// TestOperatorAudit: every change the Operator face makes appends one
// entry to the audit trail, in its transaction, with the operator as its
// actor and the context's RequestInfo; a refused call, a repeat that
// changes nothing, a read and a client's own call append none.
func TestOperatorAudit(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		op := d.e.Operator()
		ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("198.51.100.4"), RequestID: "req-op"})
		trail := func() []tambala.AuditEntry {
			page, err := d.e.People().AuditTrail(ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.AuditFilter{})
			require.NoError(t, err)
			return page.Items
		}
		// wrote runs a change and checks it appended exactly one entry of
		// action to org's trail ("" for the engine's own settings), which
		// summary names in full (org "*": any; summary "": any).
		wrote := func(action tambala.AuditAction, org, summary string, change func() error) {
			t.Helper()
			before := len(trail())
			require.NoError(t, change(), action)
			after := trail()
			require.Len(t, after, before+1, "%s writes one entry", action)
			got := after[0]
			assert.Equal(t, action, got.Action)
			if org != "*" {
				assert.Equal(t, org, got.Org, action)
			}
			assert.Equal(t, tambala.AuditActor{Kind: tambala.ActorAutomation}, got.Actor, action)
			assert.Equal(t, netip.MustParseAddr("198.51.100.4"), got.Address, action)
			assert.Equal(t, "req-op", got.RequestID, action)
			if summary != "" {
				assert.Equal(t, summary, got.Summary, action)
			}
		}
		// none runs a call and checks it appended nothing.
		none := func(what string, call func() error, code errcode.Code) {
			t.Helper()
			before := len(trail())
			err := call()
			if code == "" {
				require.NoError(t, err, what)
			} else {
				assert.Equal(t, code, errcode.Of(err), what)
			}
			assert.Len(t, trail(), before, "%s writes no entry", what)
		}
		org := d.org.ID

		// Organizations and their settings.
		var other tambala.Organization
		wrote(tambala.AuditOrgCreated, "*", `created "Other Ltd"`, func() error {
			var err error
			other, err = op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Other Ltd"})
			return err
		})
		assert.Equal(t, other.ID, trail()[0].Org)
		wrote(tambala.AuditOrgStatusChanged, org, "status active -> suspended", func() error {
			_, err := op.SetOrganizationStatus(ctx, org, tambala.OrgSuspended)
			return err
		})
		wrote(tambala.AuditOrgStatusChanged, org, "status suspended -> active", func() error {
			_, err := op.SetOrganizationStatus(ctx, org, tambala.OrgActive)
			return err
		})
		wrote(tambala.AuditOrgV2AccessChanged, org, "/v2 access enabled -> access_suspended", func() error {
			_, err := op.SetV2Access(ctx, org, tambala.V2AccessSuspended)
			return err
		})
		wrote(tambala.AuditOrgV2AccessChanged, org, "", func() error {
			_, err := op.SetV2Access(ctx, org, tambala.V2Enabled)
			return err
		})
		wrote(tambala.AuditOrgAssetsChanged, org, "", func() error {
			_, err := op.SetAssets(ctx, org, deskAssets())
			return err
		})
		wrote(tambala.AuditAllowlistChanged, org, "allowlist [any] -> [192.0.2.1]", func() error {
			_, err := op.SetAllowlist(ctx, org, []netip.Addr{netip.MustParseAddr("192.0.2.1")})
			return err
		})
		wrote(tambala.AuditAllowlistChanged, org, "allowlist [192.0.2.1] -> [any]", func() error {
			_, err := op.SetAllowlist(ctx, org, nil)
			return err
		})
		wrote(tambala.AuditBalanceFloorChanged, org, "balance floor none -> 10.00 MWK", func() error {
			_, err := op.SetBalanceFloor(ctx, org, money.FromInt(money.MWK, 10))
			return err
		})
		wrote(tambala.AuditPayoutLimitsChanged, org,
			"payout limits [per payout default, daily default, hourly count default] -> [per payout default, daily default, hourly count 5]", func() error {
				_, err := op.SetPayoutLimits(ctx, org, tambala.PayoutLimits{HourlyCount: 5})
				return err
			})
		var key tambala.APIKey
		wrote(tambala.AuditKeyCreated, org, "", func() error {
			var err error
			_, key, err = op.CreateKey(ctx, org)
			return err
		})
		wrote(tambala.AuditKeyRevoked, org, "key "+key.Prefix+" revoked", func() error {
			_, err := op.RevokeKey(ctx, org, key.ID)
			return err
		})
		wrote(tambala.AuditWebhookEndpointSet, org, "", func() error {
			_, _, err := op.SetWebhookEndpoint(ctx, org, "https://hooks.example.com/new")
			return err
		})

		// Money: funding once per ref, trades, deposits, collections.
		wrote(tambala.AuditOrgFunded, org, `credited 50.00 MWK from the float, ref "top-up"`, func() error {
			return op.Fund(ctx, org, money.FromInt(money.MWK, 50), "top-up")
		})
		none("the same funding again", func() error { return op.Fund(ctx, org, money.FromInt(money.MWK, 50), "top-up") }, "")
		none("the ref with another amount", func() error { return op.Fund(ctx, org, money.FromInt(money.MWK, 51), "top-up") }, errcode.Conflict)
		none("an unknown organization", func() error { return op.Fund(ctx, "nowhere", money.FromInt(money.MWK, 1), "x") }, errcode.NotFound)
		trade := tambala.NewTrade{Ref: "otc-1", USDTAmount: money.FromInt(money.USDT, 2), ClientRate: deskOffRamp}
		wrote(tambala.AuditTradeRecorded, org, `2.000000 USDT at 1750.5 credited 3501 MWK from the float, ref "otc-1"`, func() error {
			_, err := op.Desk().RecordTrade(ctx, org, trade)
			return err
		})
		none("the same trade again", func() error { _, err := op.Desk().RecordTrade(ctx, org, trade); return err }, "")
		dep := tambala.Deposit{Network: "tron", Asset: "USDT", Amount: money.FromInt(money.USDT, 3), TxRef: "0xfeed"}
		wrote(tambala.AuditDepositRecorded, org, `credited 3.000000 USDT net of the fee 0.000000 USDT, network tron, tx_ref "0xfeed"`, func() error {
			_, err := op.Desk().RecordDeposit(ctx, org, dep)
			return err
		})
		none("the same deposit again", func() error { _, err := op.Desk().RecordDeposit(ctx, org, dep); return err }, "")
		var col tambala.Collection
		wrote(tambala.AuditCollectionRecorded, org, "", func() error {
			var err error
			col, err = op.RecordCollection(ctx, org, tambala.NewCollection{Amount: money.FromInt(money.MWK, 2000), RTPReferenceNumber: "RTP1"})
			return err
		})
		wrote(tambala.AuditCollectionReversed, org, "", func() error {
			_, err := op.ReverseCollection(ctx, org, col.ID)
			return err
		})
		none("a reversed collection again", func() error { _, err := op.ReverseCollection(ctx, org, col.ID); return err }, errcode.Conflict)

		// The desk's moves: one entry each, none for a refused one or a
		// repeat.
		o := d.fromBank(t, "2000")
		wrote(tambala.AuditOrderMoved, org, "", func() error {
			_, err := op.Desk().MoveOrder(ctx, o.ID, deskInstructions())
			return err
		})
		none("the same instructions again", func() error { _, err := op.Desk().MoveOrder(ctx, o.ID, deskInstructions()); return err }, "")
		none("an illegal move", func() error { _, err := op.Desk().MoveOrder(ctx, o.ID, orders.Complete{}); return err }, errcode.Conflict)
		wrote(tambala.AuditOrderMoved, org, "cancel: status awaiting_funds -> cancelled", func() error {
			_, err := op.Desk().MoveOrder(ctx, o.ID, orders.Cancel{})
			return err
		})

		none("a client's order", func() error {
			_, err := d.createFor(d.p, d.quote(t, "MWK", "USDT", "1500").ID, "c-1", nil, "k-1")
			return err
		}, "")

		// The engine's own settings belong to no organization.
		wrote(tambala.AuditCorridorSet, "", "", func() error {
			c := deskCorridor()
			c.Open = false
			_, err := op.Desk().SetCorridor(ctx, c)
			return err
		})
		wrote(tambala.AuditAssetLimitsChanged, "", "USDT payout: min none -> 1.000000, max none -> none", func() error {
			return op.Desk().SetAssetLimits(ctx, "USDT", tambala.OpPayout, quotes.Limits{Min: money.FromInt(money.USDT, 1)})
		})
		wrote(tambala.AuditPauseChanged, "", "v2 live -> maintenance", func() error {
			_, err := op.SetPause(ctx, tambala.APIv2, tambala.Maintenance)
			return err
		})
		wrote(tambala.AuditRailChanged, "", "momo disabled false -> true", func() error {
			_, err := op.SetRailDisabled(ctx, payouts.Momo, true)
			return err
		})
		wrote(tambala.AuditInstitutionsSynced, "", "1 institutions", func() error {
			return op.SyncInstitutions(ctx, []payouts.Institution{{ID: 8, Name: "Default Bank", Rail: payouts.Bank}})
		})
		none("a refused pause", func() error { _, err := op.SetPause(ctx, "v3", tambala.Incident); return err }, errcode.ValidationError)

		// Reads and a client's own calls are not audited.
		none("reads", func() error {
			if _, err := op.Organizations(ctx); err != nil {
				return err
			}
			_, err := op.Keys(ctx, org)
			return err
		}, "")
		for _, en := range trail() {
			assert.NotContains(t, en.Summary, "whsec_", "no secret in %s", en.Action)
		}
	})
}
