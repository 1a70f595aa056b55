package tambala_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// allowedMoves is the payout state machine as seen from outside: a read
// may skip the internal steps, so a payout may be seen to jump forward
// along the table.
var allowedMoves = map[string][]string{
	"held":      {"held", "submitted", "pending", "succeeded", "failed", "reversed"},
	"submitted": {"submitted", "pending", "succeeded", "failed", "reversed"},
	"pending":   {"pending", "succeeded", "failed", "reversed"},
	"succeeded": {"succeeded", "reversed"},
	"failed":    {"failed"},
	"reversed":  {"reversed"},
}

// TestPayoutsRapid drives random payouts, provider outcomes, worker passes,
// clock moves and clawbacks through the engine, checking after every step:
// only the table's moves happen, terminal_at never moves, the fee rules of
// each state hold, the ledger checks out, and available plus held equals
// the funding less what succeeded payouts consumed.
func TestPayoutsRapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := 0
		rapid.Check(t, func(rt *rapid.T) {
			if cases++; cases > rapidCases(name) {
				return
			}
			s := open()
			defer s.Close()
			payoutsProperty(rt, s)
		})
	})
}

// payoutsProperty is one case of TestPayoutsRapid on the fresh store s.
func payoutsProperty(rt *rapid.T, s store.Store) {
	{
		ctx := context.Background()
		clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
		prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: time.Second})
		e, err := tambala.New(s, &tambala.Options{Clock: clock.Now, Payouts: prov})
		if err != nil {
			rt.Fatal(err)
		}
		org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "R"})
		if err != nil {
			rt.Fatal(err)
		}
		funding := money.FromInt(money.MWK, 20000)
		if err := e.Operator().Fund(ctx, org.ID, funding, "start"); err != nil {
			rt.Fatal(err)
		}
		p := actFor(e, org.ID)
		type seen struct {
			status, terminalAt string
		}
		last := map[string]seen{}
		var ids []string
		n := 0
		rt.Repeat(map[string]func(*rapid.T){
			"create": func(rt *rapid.T) {
				n++
				amount := rapid.IntRange(1, 6000).Draw(rt, "amount")
				wallet := rapid.SampledFrom(append([]string{"265991234567"}, tambala.SandboxWallets[:3]...)).Draw(rt, "wallet")
				body := fmt.Sprintf(`{"amount_mwk":%d,"institution_id":101,"mobile_number":%q,"beneficiary_name":"R"}`, amount, wallet)
				out, err := createFromBody(ctx, e, p, payouts.Momo, fmt.Sprint("k", n), []byte(body))
				if err != nil {
					return // insufficient funds is a fine outcome
				}
				var po struct{ ID string }
				_ = json.Unmarshal(out.Body, &po)
				ids = append(ids, po.ID)
				switch rapid.IntRange(0, 5).Draw(rt, "script") {
				case 0:
					prov.ScriptPayout(po.ID, sandbox.Outcome{Fail: rapid.SampledFrom([]string{"declined", "provider_unavailable", "weird"}).Draw(rt, "code")})
				case 1:
					prov.ScriptPayout(po.ID, sandbox.Outcome{TimeoutSubmits: rapid.IntRange(1, 2).Draw(rt, "timeouts")})
				case 2:
					prov.ScriptPayout(po.ID, sandbox.Outcome{NoFee: true})
				case 3:
					f := money.FromUnits(money.MWK, rapid.Int64Range(0, 50000).Draw(rt, "fee"))
					prov.ScriptPayout(po.ID, sandbox.Outcome{Fee: &f})
				}
			},
			"work": func(rt *rapid.T) {
				if _, err := e.Work().ProcessPayouts(ctx); err != nil {
					rt.Fatal(err)
				}
			},
			"tick": func(rt *rapid.T) {
				clock.Advance(time.Duration(rapid.IntRange(1, 8).Draw(rt, "seconds")) * time.Second)
			},
			"clawback": func(rt *rapid.T) {
				if len(ids) == 0 {
					rt.Skip()
				}
				_ = e.Operator().BackOffice().ClawbackPayout(ctx, rapid.SampledFrom(ids).Draw(rt, "id"))
			},
			"": func(rt *rapid.T) {
				if err := ledger.CheckStore(ctx, s); err != nil {
					rt.Fatal(err)
				}
				consumed := money.Zero(money.MWK)
				for _, id := range ids {
					b, err := payoutBytes(e.Client(p).V1().Payout(ctx, id))
					if err != nil {
						rt.Fatal(err)
					}
					var po struct {
						Status     string
						Amount     string `json:"amount_mwk"`
						Fee        *string
						Failure    *struct{ Code string }
						TerminalAt *string `json:"terminal_at"`
					}
					if err := json.Unmarshal(b, &po); err != nil {
						rt.Fatal(err)
					}
					prev, ok := last[id]
					if !ok {
						prev = seen{status: "held"}
					}
					okMove := false
					for _, to := range allowedMoves[prev.status] {
						okMove = okMove || to == po.Status
					}
					if !okMove {
						rt.Fatalf("payout %s moved %s -> %s", id, prev.status, po.Status)
					}
					term := ""
					if po.TerminalAt != nil {
						term = *po.TerminalAt
					}
					if prev.terminalAt != "" && term != prev.terminalAt {
						rt.Fatalf("terminal_at of %s moved from %s to %s", id, prev.terminalAt, term)
					}
					last[id] = seen{po.Status, term}
					switch po.Status {
					case "held", "submitted", "pending":
						if po.Fee != nil || po.Failure != nil || po.TerminalAt != nil {
							rt.Fatalf("in-flight payout %s has fee, failure or terminal_at", id)
						}
					case "failed":
						if po.Fee == nil || *po.Fee != "0.00" || po.Failure == nil || po.TerminalAt == nil {
							rt.Fatalf("failed payout %s breaks the fee/failure rules", id)
						}
					case "succeeded", "reversed":
						if po.Failure != nil || po.TerminalAt == nil {
							rt.Fatalf("%s payout %s has a failure or no terminal_at", po.Status, id)
						}
					}
					// What the payout consumed from the organization: amount
					// and fee once succeeded, only the fee once reversed.
					if po.Status == "succeeded" || po.Status == "reversed" {
						charged := money.Zero(money.MWK)
						if po.Fee != nil {
							charged, _ = money.Parse(money.MWK, *po.Fee)
						} else {
							q, _ := e.Client(p).V1().QuoteFee(context.Background(), payouts.DirPayout, payouts.Momo, mustMWK(rt, po.Amount))
							charged = q.Total
						}
						consumed, _ = consumed.Add(charged)
						if po.Status == "succeeded" {
							consumed, _ = consumed.Add(mustMWK(rt, po.Amount))
						}
					}
				}
				b, err := e.Client(p).V1().Balance(ctx)
				if err != nil {
					rt.Fatal(err)
				}
				have, _ := b.Available.Add(b.Held)
				have, _ = have.Sub(b.Shortfall)
				want, _ := funding.Sub(consumed)
				if !have.Equal(want) {
					rt.Fatalf("available+held-shortfall = %s, want funding - consumed = %s", have, want)
				}
			},
		})
	}
}

func mustMWK(t *rapid.T, s string) money.Amount {
	a, err := money.Parse(money.MWK, s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
