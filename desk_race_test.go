package tambala_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// The concurrency tests of order creation and a few more races of the desk,
// on both stores, under -race.

// deskRace runs fns at once and waits for them.
func deskRace(fns ...func()) {
	var start, done sync.WaitGroup
	start.Add(1)
	for _, fn := range fns {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			fn()
		}()
	}
	start.Done()
	done.Wait()
}

// TestDeskRaceOneQuote: two creates on one quote with different keys: one
// order, one quote_used, one hold.
func TestDeskRaceOneQuote(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		const rounds = 15
		for i := range rounds {
			q := d.quote(t, "USDT", "MWK", "10")
			var errs [2]error
			var got [2]tambala.Created[orders.Order]
			deskRace(
				func() {
					got[0], errs[0] = d.createFor(d.p, q.ID, fmt.Sprintf("a-%d", i), deskBeneficiary(), fmt.Sprintf("ka-%d", i))
				},
				func() {
					got[1], errs[1] = d.createFor(d.p, q.ID, fmt.Sprintf("b-%d", i), deskBeneficiary(), fmt.Sprintf("kb-%d", i))
				},
			)
			won := 0
			for j, err := range errs {
				if err == nil {
					won++
					assert.Equal(t, q.ID, got[j].Resource.QuoteID)
				} else {
					requireCode(t, errcode.QuoteUsed, err)
				}
			}
			require.Equal(t, 1, won, "round %d: exactly one order per quote", i)
		}
		d.requireUSDT(t, "850.000000", "150.000000")
		assert.Len(t, d.listAll(t, tambala.OrderFilter{}), rounds)
		d.check(t)
	})
}

// TestDeskRaceOneClientRef: two orders with one client_ref (two quotes):
// one order, one client_ref_used.
func TestDeskRaceOneClientRef(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		const rounds = 15
		for i := range rounds {
			q1 := d.quote(t, "USDT", "MWK", "10")
			q2 := d.quote(t, "MWK", "USDT", "5000.00")
			ref := fmt.Sprintf("inv-%d", i)
			var errs [2]error
			deskRace(
				func() { _, errs[0] = d.createFor(d.p, q1.ID, ref, deskBeneficiary(), fmt.Sprintf("ka-%d", i)) },
				func() { _, errs[1] = d.createFor(d.p, q2.ID, ref, nil, fmt.Sprintf("kb-%d", i)) },
			)
			won := 0
			for _, err := range errs {
				if err == nil {
					won++
				} else {
					requireCode(t, errcode.ClientRefUsed, err)
				}
			}
			require.Equal(t, 1, won, "round %d", i)
			require.Len(t, d.listAll(t, tambala.OrderFilter{ClientRef: ref}), 1)
		}
		// The held balance is exactly the to-bank winners'.
		held := money.Zero(money.USDT)
		for _, id := range d.listAll(t, tambala.OrderFilter{Status: orders.Accepted}) {
			held, _ = held.Add(d.order(t, id).From)
		}
		assert.Equal(t, held.String(), d.balance(t, d.org.ID, money.USDT).Held.String())
		d.check(t)
	})
}

// TestDeskRaceSameKey: one request sent twice at once under one key
// creates one order: the other answer is a replay of it, or conflict while
// the first is in flight.
func TestDeskRaceSameKey(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		for i := range 10 {
			q := d.quote(t, "USDT", "MWK", "10")
			n := tambala.NewOrder{QuoteID: q.ID, ClientRef: fmt.Sprintf("r-%d", i), Beneficiary: deskBeneficiary()}
			var errs [2]error
			var got [2]tambala.Created[orders.Order]
			one := func(j int) func() {
				return func() {
					got[j], errs[j] = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: fmt.Sprintf("k-%d", i)})
				}
			}
			deskRace(one(0), one(1))
			ids := map[string]bool{}
			fresh := 0
			for j, err := range errs {
				if err != nil {
					requireCode(t, errcode.Conflict, err)
					continue
				}
				ids[got[j].Resource.ID] = true
				if !got[j].Replayed {
					fresh++
				}
			}
			require.Equal(t, 1, fresh, "round %d: one order made", i)
			require.Len(t, ids, 1)
		}
		d.requireUSDT(t, "900.000000", "100.000000")
		d.check(t)
	})
}

// TestDeskRaceOneBalance: N to-bank orders race for one USDT balance:
// exactly floor(balance / from_amount) are accepted, the rest are
// insufficient_funds; from-bank orders in the same race hold nothing and
// all succeed.
func TestDeskRaceOneBalance(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		// 1000 USDT funded; 7.5 USDT each: floor(1000 / 7.5) = 133.
		const racers, fromBank = 160, 20
		const want = 133
		var qs, fqs []string
		for range racers {
			qs = append(qs, d.quote(t, "USDT", "MWK", "7.5").ID)
		}
		for range fromBank {
			fqs = append(fqs, d.quote(t, "MWK", "USDT", "5000.00").ID)
		}
		var mu sync.Mutex
		accepted, short := 0, 0
		var fns []func()
		for i, qid := range qs {
			fns = append(fns, func() {
				_, err := d.createFor(d.p, qid, fmt.Sprintf("tb-%d", i), deskBeneficiary(), fmt.Sprintf("tk-%d", i))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					accepted++
				case errcode.Of(err) == errcode.InsufficientFunds:
					short++
				default:
					t.Errorf("racer %d: %v", i, err)
				}
			})
		}
		for i, qid := range fqs {
			fns = append(fns, func() {
				_, err := d.createFor(d.p, qid, fmt.Sprintf("fb-%d", i), nil, fmt.Sprintf("fk-%d", i))
				assert.NoError(t, err, "from-bank racer %d", i)
			})
		}
		deskRace(fns...)
		assert.Equal(t, want, accepted)
		assert.Equal(t, racers-want, short)
		// held == accepted × 7.5; available what is left.
		d.requireUSDT(t, "2.500000", "997.500000")
		assert.Len(t, d.listAll(t, tambala.OrderFilter{Status: orders.Accepted}), want)
		assert.Len(t, d.listAll(t, tambala.OrderFilter{Status: orders.AwaitingInstructions}), fromBank)
		d.check(t)
	})
}

// TestDeskRaceMoves: conflicting desk moves on one order at once: one wins,
// the hold is closed exactly once, and a refund is credited once.
func TestDeskRaceMoves(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		for i := range 10 {
			o := d.toBank(t, "10")
			d.move(t, o.ID, orders.StartProcessing{})
			cmds := []orders.Command{orders.Complete{}, orders.Fail{Code: orders.NotDelivered}, orders.Cancel{}, orders.CoinsSent{}}
			errs := make([]error, len(cmds))
			var fns []func()
			for j, cmd := range cmds {
				fns = append(fns, func() { _, errs[j] = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, cmd) })
			}
			deskRace(fns...)
			for j, err := range errs {
				if err != nil {
					requireCode(t, errcode.Conflict, err, "round %d: %s", i, cmds[j].Name())
				}
			}
			got := d.order(t, o.ID)
			require.True(t, got.Status.Terminal(), "round %d: %s", i, got.Status)
			if got.Refund != nil {
				deskRace(
					func() {
						_, err := d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.ReturnRefund{})
						assert.NoError(t, err)
					},
					func() {
						_, err := d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.ReturnRefund{})
						assert.NoError(t, err)
					},
				)
			}
			require.NoError(t, s.View(d.ctx, func(tx store.Tx) error {
				h, err := ledger.GetHold(tx, orders.HoldID(o.ID))
				require.NoError(t, err)
				assert.False(t, h.Open, "round %d: the hold is closed", i)
				return nil
			}))
		}
		b := d.balance(t, d.org.ID, money.USDT)
		assert.True(t, b.Held.IsZero())
		d.check(t)
	})
}

// TestDeskRaceUploadAndCancel: an upload racing the desk's cancel never
// leaves a cancelled order behind a proof_submitted answer it did not see:
// the order ends cancelled, and the upload either came first or is
// proof_not_expected.
func TestDeskRaceUploadAndCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		for i := range 10 {
			o := d.funded(t, "5000.00")
			var upErr, cancelErr error
			var up orders.Order
			deskRace(
				func() { up, upErr = d.upload(d.p, o.ID, "application/pdf", deskPDF) },
				func() { _, cancelErr = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.Cancel{}) },
			)
			require.NoError(t, cancelErr, "round %d", i)
			got := d.order(t, o.ID)
			assert.Equal(t, orders.Cancelled, got.Status)
			if upErr == nil {
				assert.Equal(t, orders.ProofSubmitted, up.Status)
				require.NotNil(t, got.Proof, "the upload came first")
				assert.Equal(t, up.Proof.ID, got.Proof.ID)
			} else {
				requireCode(t, errcode.ProofNotExpected, upErr, "round %d", i)
				assert.Nil(t, got.Proof)
			}
		}
	})
}
