package tambala_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// One idempotency key namespace per organization, on every store: a key
// decided by one create (a /v1 payout on either rail, a /v2 payout, an
// order, a conversion) is conflict on every other, creates and holds
// nothing there, and still replays where it was decided; another
// organization's same key is its own.
func TestIdempotency_OneNamespacePerOrganization(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		b := newBoundsEnv(t, s)
		bank := payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 100),
			Destination: payouts.Destination{InstitutionID: 1, AccountNumber: pv2Bank, BeneficiaryName: "Chikondi Banda"}}
		momo := momoRequest("100")
		v2 := tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("5"), Destination: walletDest("tron", pv2Tron)}
		others := func(key tambala.Idempotency) map[string]func() error {
			return map[string]func() error{
				"momo payout": func() error { _, err := b.e.Client(b.p).V1().CreatePayout(b.ctx, momo, key); return err },
				"bank payout": func() error { _, err := b.e.Client(b.p).V1().CreatePayout(b.ctx, bank, key); return err },
				"/v2 payout":  func() error { _, err := b.e.Client(b.p).CreatePayout(b.ctx, v2, key); return err },
				"order": func() error {
					q := b.quote(t, "USDT", "MWK", "10")
					_, err := b.e.Client(b.p).CreateOrder(b.ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: b.next("ref"), Beneficiary: deskBeneficiary()}, key)
					return err
				},
				"conversion": func() error {
					q, err := b.e.Client(b.p).QuoteConversion(b.ctx, quoteReq("USDT", "MWK", "2"))
					require.NoError(t, err)
					_, err = b.e.Client(b.p).CreateConversion(b.ctx, tambala.NewConversion{QuoteID: q.ID}, key)
					return err
				},
				"undecodable order body": func() error {
					return tambala.GateOf(b.e).RefuseCreate(b.ctx, b.e.Client(b.p), tambala.CreateOrder, key, errcode.New(errcode.ValidationError))
				},
			}
		}
		counts := func() [4]int {
			p1, err := b.e.Client(b.p).V1().Payouts(b.ctx, tambala.PageRequest{Limit: 200}, tambala.PayoutFilter{})
			require.NoError(t, err)
			p2, err := b.e.Client(b.p).Payouts(b.ctx, tambala.PageRequest{Limit: 200}, tambala.PayoutFilter{})
			require.NoError(t, err)
			o, err := b.e.Client(b.p).Orders(b.ctx, tambala.PageRequest{Limit: 200}, tambala.OrderFilter{})
			require.NoError(t, err)
			cv, err := b.e.Client(b.p).Conversions(b.ctx, tambala.PageRequest{Limit: 200}, tambala.ConversionFilter{})
			require.NoError(t, err)
			return [4]int{len(p1.Items), len(p2.Items), len(o.Items), len(cv.Items)}
		}

		// Decided by a bank payout: every other create is conflict.
		key := tambala.Idempotency{Key: "b-6"}
		first, err := b.e.Client(b.p).V1().CreatePayout(b.ctx, bank, key)
		require.NoError(t, err)
		before, usdt, mwk := counts(), b.balance(t, b.org.ID, money.USDT), b.balance(t, b.org.ID, money.MWK)
		for name, op := range others(key) {
			if name == "bank payout" {
				continue
			}
			requireCode(t, errcode.Conflict, op(), name)
		}
		require.Equal(t, before, counts(), "nothing created")
		require.Equal(t, usdt, b.balance(t, b.org.ID, money.USDT), "nothing held")
		require.Equal(t, mwk, b.balance(t, b.org.ID, money.MWK), "nothing held")
		again, err := b.e.Client(b.p).V1().CreatePayout(b.ctx, bank, key)
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, first.Resource.ID, again.Resource.ID)

		// Decided by a /v2 payout: the /v1 rails are conflict.
		key2 := tambala.Idempotency{Key: "v2-first"}
		p2, err := b.e.Client(b.p).CreatePayout(b.ctx, v2, key2)
		require.NoError(t, err)
		for _, name := range []string{"bank payout", "momo payout", "conversion"} {
			requireCode(t, errcode.Conflict, others(key2)[name](), name)
		}
		r2, err := b.e.Client(b.p).CreatePayout(b.ctx, v2, key2)
		require.NoError(t, err)
		require.True(t, r2.Replayed)
		require.Equal(t, p2.Resource.ID, r2.Resource.ID)

		// Another organization's key of the same name is its own.
		_, err = b.e.Client(b.victimP).V1().CreatePayout(b.ctx, momo, key)
		require.NoError(t, err)
		b.check(t)
	})
}
