package tambala_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// rpPayout is the model of one /v2 payout.
type rpPayout struct {
	p       tambala.PayoutV2
	fee     *money.Amount // a scripted provider fee (same-asset MWK only)
	status  payouts.Status
	charged bool
}

// TestPayoutV2Rapid: random /v2 payouts of every destination type and
// source asset, with scripted outcomes (success, a provider fee below or
// above the hold, failure, clawback by the provider), worker passes and
// operator clawbacks. After every step the ledger invariants hold, and per
// asset the organization's total (available + held) equals the funding
// less what succeeded payouts took (principal_src plus the fee charged)
// plus what clawbacks returned, and held equals the source amounts of the
// payouts not yet terminal.
func TestPayoutV2Rapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := newPV2Env(rt, memstore.New(), nil)
		total := map[string]money.Amount{
			"USDT": d.balance(rt, d.org.ID, money.USDT).Available,
			"MWK":  d.balance(rt, d.org.ID, money.MWK).Available,
		}
		var model []*rpPayout
		assetOf := func(code string) money.Asset {
			if code == "MWK" {
				return money.MWK
			}
			return money.USDT
		}
		observe := func() {
			for _, m := range model {
				got := d.get(rt, m.p.ID)
				if got.Status == m.status {
					continue
				}
				src := m.p.SourceAsset.Code
				if (got.Status == payouts.Succeeded || got.Status == payouts.Reversed) && !m.charged {
					charged := m.p.FeeSource
					if m.fee != nil && m.fee.Cmp(charged) < 0 {
						charged = *m.fee
					}
					total[string(src)], _ = total[string(src)].Sub(m.p.PrincipalSource)
					total[string(src)], _ = total[string(src)].Sub(charged)
					m.charged = true
				}
				if got.Status == payouts.Reversed {
					total[string(src)], _ = total[string(src)].Add(m.p.PrincipalSource)
				}
				m.status = got.Status
			}
			d.check(rt)
			for _, code := range []string{"USDT", "MWK"} {
				b := d.balance(rt, d.org.ID, assetOf(code))
				sum, _ := b.Available.Add(b.Held)
				require.Equal(rt, total[code].String(), sum.String(), "total %s", code)
				held := money.Zero(assetOf(code))
				for _, m := range model {
					if string(m.p.SourceAsset.Code) == code && !m.status.Terminal() {
						held, _ = held.Add(m.p.SourceAmount)
					}
				}
				require.Equal(rt, held.String(), b.Held.String(), "held %s", code)
				require.GreaterOrEqual(rt, b.Available.Sign(), 0)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"create": func(rt *rapid.T) {
				kind := rapid.SampledFrom([]string{"bank", "momo", "wallet"}).Draw(rt, "kind")
				var req tambala.PayoutV2Request
				switch kind {
				case "wallet":
					req.Asset = "USDT"
					req.SourceAsset = rapid.SampledFrom([]money.AssetCode{"USDT", "MWK"}).Draw(rt, "src")
					req.Amount = money.DecimalText(money.FromUnits(money.USDT, rapid.Int64Range(1, 30_000_000).Draw(rt, "usdt")).String())
					network := rapid.SampledFrom([]string{"tron", "ethereum"}).Draw(rt, "network")
					addrs := append([]string{"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "0xdac17f958d2ee523a2206206994597c13d831ec7"}, sandbox.TestWalletAddresses[network]...)
					addr := rapid.SampledFrom(addrs).Draw(rt, "address")
					if (network == "tron") != (addr[0] == 'T') {
						addr = sandbox.TestWalletAddresses[network][0]
					}
					req.Destination = walletDest(network, addr)
				default:
					req.Asset = "MWK"
					req.SourceAsset = rapid.SampledFrom([]money.AssetCode{"USDT", "MWK"}).Draw(rt, "src")
					req.Amount = money.DecimalText(money.FromUnits(money.MWK, rapid.Int64Range(100_00, 5_000_000_00).Draw(rt, "mwk")).String())
					if kind == "bank" {
						req.Destination = bankDest()
						req.Destination.AccountNumber = rapid.SampledFrom([]string{pv2Bank, "3333888805", "12345678"}).Draw(rt, "account")
					} else {
						req.Destination = momoDest()
					}
				}
				c, err := d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{Key: d.next("rp")})
				if err != nil {
					require.Equal(rt, errcode.InsufficientFunds, errcode.Of(err), "%v", err)
					observe()
					return
				}
				m := &rpPayout{p: c.Resource, status: payouts.Held}
				switch rapid.IntRange(0, 4).Draw(rt, "outcome") {
				case 1:
					d.prov.ScriptPayout(m.p.ID, sandbox.Outcome{Fail: string(payouts.Declined)})
				case 2:
					d.prov.ScriptPayout(m.p.ID, sandbox.Outcome{Clawback: true})
				case 3:
					if req.SourceAsset == "MWK" && req.Asset == "MWK" {
						fee := money.FromUnits(money.MWK, rapid.Int64Range(0, 2000_00).Draw(rt, "fee"))
						m.fee = &fee
						d.prov.ScriptPayout(m.p.ID, sandbox.Outcome{Fee: &fee})
					}
				}
				model = append(model, m)
				observe()
			},
			"work": func(rt *rapid.T) {
				_, err := d.e.Work().ProcessPayouts(d.ctx)
				require.NoError(rt, err)
				d.clock.Advance(time.Duration(rapid.IntRange(0, 3).Draw(rt, "secs")) * time.Second)
				observe()
			},
			"clawback": func(rt *rapid.T) {
				if len(model) == 0 {
					return
				}
				m := model[rapid.IntRange(0, len(model)-1).Draw(rt, "i")]
				err := d.e.Operator().BackOffice().ClawbackPayout(d.ctx, m.p.ID)
				if m.status != payouts.Succeeded {
					require.Error(rt, err)
				} else {
					require.NoError(rt, err)
				}
				observe()
			},
		})
	})
}
