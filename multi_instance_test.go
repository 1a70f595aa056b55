package tambala_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// Two engines over one data set, each with its own handle (for pgstore two
// connection pools over one schema, as two server processes have): they
// behave as one service. On adapters that one process owns (memstore,
// boltstore) both engines share the handle.

func twoEngines(t *testing.T, k teststores.Kind, opts func(o *tambala.Options)) (a, b *tambala.Engine, s store.Store) {
	sa, sb := k.OpenTwo(t)
	mk := func(s store.Store) *tambala.Engine {
		var o tambala.Options
		if opts != nil {
			opts(&o)
		}
		e, err := tambala.New(s, &o)
		require.NoError(t, err)
		return e
	}
	return mk(sa), mk(sb), sa
}

func TestTwoInstances_RacingPayoutsNeverOverdraw(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		a, b, s := twoEngines(t, k, nil)
		ctx := context.Background()
		p := fundedPrincipal(t, a, "10000.00")
		pb, err := b.Act(ctx, p.Org.ID)
		require.NoError(t, err)
		const racers = 40
		want := 13 // floor(10000 / 739.70): 500.00 momo debits 739.70
		var accepted, refused atomic.Int32
		var wg sync.WaitGroup
		for i := range racers {
			e, pr := a, p
			if i%2 == 1 {
				e, pr = b, pb
			}
			wg.Go(func() {
				_, err := e.Client(pr).V1().CreatePayout(ctx, momoRequest("500"), tambala.Idempotency{Key: fmt.Sprint("k", i)})
				switch errcode.Of(err) {
				case "":
					accepted.Add(1)
				case errcode.InsufficientFunds:
					refused.Add(1)
				default:
					t.Errorf("payout %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		assert.EqualValues(t, want, accepted.Load())
		assert.EqualValues(t, racers-want, refused.Load())
		bal, err := b.Client(pb).V1().Balance(ctx)
		require.NoError(t, err)
		assert.Equal(t, "9616.10", bal.Held.String()) // 13 × 739.70
		assert.NoError(t, ledger.CheckStore(ctx, s))
	})
}

// One idempotency key sent to both instances at once: one payout, and
// every answer is that payout (created, replayed) or conflict while the
// other instance decides it.
func TestTwoInstances_OneKeyOnePayout(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		a, b, s := twoEngines(t, k, nil)
		ctx := context.Background()
		p := fundedPrincipal(t, a, "100000.00")
		pb, err := b.Act(ctx, p.Org.ID)
		require.NoError(t, err)
		for round := range 5 {
			key := fmt.Sprint("same-", round)
			var mu sync.Mutex
			ids := map[string]int{}
			var wg sync.WaitGroup
			for i := range 8 {
				e, pr := a, p
				if i%2 == 1 {
					e, pr = b, pb
				}
				wg.Go(func() {
					c, err := e.Client(pr).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: key})
					if errcode.Of(err) == errcode.Conflict {
						return // the other request with this key is still being decided
					}
					if !assert.NoError(t, err) {
						return
					}
					mu.Lock()
					ids[c.Resource.ID]++
					mu.Unlock()
				})
			}
			wg.Wait()
			assert.Len(t, ids, 1, "round %d: one key made %v", round, ids)
		}
		page, err := a.Client(p).V1().Payouts(ctx, tambala.PageRequest{Limit: 100}, tambala.PayoutFilter{})
		require.NoError(t, err)
		assert.Len(t, page.Items, 5)
		assert.NoError(t, ledger.CheckStore(ctx, s))
	})
}

// Two instances' workers over one data set submit each payout once, and
// their dispatchers send each event once.
func TestTwoInstances_WorkersAndDispatchersOnce(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
		prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: time.Second})
		var sent sync.Map
		var sends atomic.Int32
		sender := senderFunc(func(body []byte) {
			sends.Add(1)
			n, _ := sent.LoadOrStore(string(body), new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
		})
		a, b, s := twoEngines(t, k, func(o *tambala.Options) {
			o.Clock, o.Payouts, o.Webhooks = clock.Now, prov, sender
		})
		ctx := context.Background()
		p := fundedPrincipal(t, a, "100000.00")
		_, _, err := a.Operator().SetWebhookEndpoint(ctx, p.Org.ID, "https://hooks.example.com/two")
		require.NoError(t, err)
		var ids []string
		for i := range 12 {
			c, err := a.Client(p).V1().CreatePayout(ctx, momoRequest(fmt.Sprint(100+i)), tambala.Idempotency{Key: fmt.Sprint("w", i)})
			require.NoError(t, err)
			ids = append(ids, c.Resource.ID)
		}
		for range 6 {
			var wg sync.WaitGroup
			for _, e := range []*tambala.Engine{a, b} {
				wg.Go(func() {
					_, err := e.Work().ProcessPayouts(ctx)
					assert.NoError(t, err)
				})
				wg.Go(func() {
					_, err := e.Work().ProcessDeliveries(ctx)
					assert.NoError(t, err)
				})
			}
			wg.Wait()
			clock.Advance(time.Second)
		}
		for _, id := range ids {
			po, err := b.Client(p).V1().Payout(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, payouts.Succeeded, po.Status)
			assert.Equal(t, 1, prov.SubmitCalls(id), "one submission")
			assert.Equal(t, 1, prov.Payments(id))
		}
		assert.EqualValues(t, 12, sends.Load(), "one payout.succeeded event each")
		sent.Range(func(_, n any) bool {
			assert.EqualValues(t, 1, n.(*atomic.Int32).Load(), "an event sent twice")
			return true
		})
		assert.NoError(t, ledger.CheckStore(ctx, s))
		_ = money.MWK
	})
}

// senderFunc is a webhook sender that records each body and answers 200.
type senderFunc func(body []byte)

func (f senderFunc) Send(_ context.Context, _ string, body []byte, _ string) (tambala.SendResult, error) {
	f(body)
	return tambala.SendResult{StatusCode: 200}, nil
}

// Many organizations' payouts at once, from two instances, each
// organization's first key sent twice: every organization's money is
// exact, the ledger checks, and the back office's count of payouts
// accepted today (a counter every accept bumps, which pgstore updates at
// the end of each function run at once) counts each payout once. The
// replays find their key, which a round run at once takes as missing
// until the check before its commit.
func TestTwoInstances_ManyOrganizationsAtOnce(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		a, b, s := twoEngines(t, k, nil)
		ctx := context.Background()
		const orgs, each = 24, 4
		principals := make([][2]tambala.Principal, orgs)
		for i := range principals {
			p := fundedPrincipal(t, a, "100000.00")
			pb, err := b.Act(ctx, p.Org.ID)
			require.NoError(t, err)
			principals[i] = [2]tambala.Principal{p, pb}
		}
		var accepted, replayed atomic.Int32
		var wg sync.WaitGroup
		for i := range orgs {
			for j := range each + 1 {
				key := fmt.Sprint("k", min(j, each-1)) // the last sends k3 again
				e, pr := a, principals[i][0]
				if j%2 == 1 {
					e, pr = b, principals[i][1]
				}
				wg.Go(func() {
					c, err := e.Client(pr).V1().CreatePayout(ctx, momoRequest("500"), tambala.Idempotency{Key: key})
					switch {
					case errcode.Of(err) == errcode.Conflict: // the same key in flight on the other instance
					case err != nil:
						t.Errorf("org %d payout %d: %v", i, j, err)
					case c.Replayed:
						replayed.Add(1)
					default:
						accepted.Add(1)
					}
				})
			}
		}
		wg.Wait()
		assert.EqualValues(t, orgs*each, accepted.Load(), "one payout per key")
		t.Logf("%d accepted, %d replayed", accepted.Load(), replayed.Load())
		for i := range principals {
			bal, err := a.Client(principals[i][0]).V1().Balance(ctx)
			require.NoError(t, err)
			assert.Equal(t, "2958.80", bal.Held.String(), "org %d: 4 × 739.70 held", i) // 4 × 739.70
		}
		h, err := b.Operator().BackOffice().Home(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, orgs*each, h.RailsToday[payouts.Momo], "payouts accepted today")
		assert.NoError(t, ledger.CheckStore(ctx, s))
		if ps, ok := s.(*pgstore.Store); ok {
			st := ps.Stats()
			t.Logf("pgstore: %d commits, %d batched, %d run again, %d batches redone, %d read round trips", st.Commits, st.Batched, st.Reran, st.Redone, st.ReadRoundTrips)
		}
	})
}

// Authenticate reuses what it found with a key while the authentication
// epoch is unchanged (keys.go): every change the other instance commits
// is seen on the next request, and a revocation written without
// advancing the epoch (as an instance of an earlier version would write
// it) is refused all the same, since the key's own record is read every
// time.
func TestTwoInstances_AuthenticateSeesTheOthersChanges(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		ctx := context.Background()
		a, b, s := twoEngines(t, k, nil)
		org, err := a.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Auth"})
		require.NoError(t, err)
		key, _, err := a.Operator().CreateKey(ctx, org.ID)
		require.NoError(t, err)
		for range 2 { // the second is answered from what the first found
			p, err := b.Authenticate(ctx, key)
			require.NoError(t, err)
			assert.Equal(t, "Auth", p.Org.Name)
		}

		_, err = a.Operator().SetOrganizationStatus(ctx, org.ID, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = b.Authenticate(ctx, key)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err), "suspended through the other instance")
		_, err = a.Operator().SetOrganizationStatus(ctx, org.ID, tambala.OrgActive)
		require.NoError(t, err)
		_, err = b.Authenticate(ctx, key)
		require.NoError(t, err)

		allowed := netip.MustParseAddr("203.0.113.7")
		_, err = a.Operator().SetAllowlist(ctx, org.ID, []netip.Addr{allowed})
		require.NoError(t, err)
		p, err := b.Authenticate(ctx, key)
		require.NoError(t, err)
		assert.True(t, p.Org.Allows(allowed))
		assert.False(t, p.Org.Allows(netip.MustParseAddr("198.51.100.1")), "the allowlist set through the other instance")

		_, err = a.Operator().SetPause(ctx, tambala.APIv1, tambala.Maintenance)
		require.NoError(t, err)
		p, err = b.Authenticate(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, tambala.Maintenance, p.Pause.V1, "the pause switched through the other instance")
		p.Org.Name = "changed by a caller"
		p, err = b.Authenticate(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, "Auth", p.Org.Name, "a caller's change to its principal is its own")

		keys, err := a.Operator().Keys(ctx, org.ID)
		require.NoError(t, err)
		require.Len(t, keys, 1)
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { // no epoch advanced
			raw, err := tx.Get([]byte("keys"), []byte(keys[0].ID))
			if err != nil {
				return err
			}
			var rec map[string]any
			if err := json.Unmarshal(raw, &rec); err != nil {
				return err
			}
			rec["revoked_at"] = "2026-03-02T09:00:00Z"
			raw, err = json.Marshal(rec)
			if err != nil {
				return err
			}
			return tx.Put([]byte("keys"), []byte(keys[0].ID), raw)
		}))
		_, err = b.Authenticate(ctx, key)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err), "revoked without the epoch advanced")
	})
}
