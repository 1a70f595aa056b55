package ledger_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// concurrentStores are the stores the race tests run on: bbolt with its
// default options (fsync on), in both commit modes.
func concurrentStores(t *testing.T) map[string]store.Store {
	return map[string]store.Store{
		"memstore":            newMem(t),
		"boltstore":           newBolt(t, nil),
		"boltstore-boltbatch": newBolt(t, &boltstore.Options{Mode: boltstore.CommitBoltBatch}),
	}
}

// together runs fn(i) for i in [0, n) in n goroutines released at once.
func together(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}

// TestConcurrentHoldsEqual: 100 holds of 15.00 against 1000.00: exactly
// 66 fit, whatever the interleaving.
func TestConcurrentHoldsEqual(t *testing.T) {
	for name, s := range concurrentStores(t) {
		t.Run(name, func(t *testing.T) {
			mustPost(t, s, credit1000)
			var ok atomic.Int64
			errs := make([]error, 100)
			together(100, func(i int) {
				_, errs[i] = post(s, ledger.PlaceHold{EntryID: fmt.Sprint("h-", i), HoldID: fmt.Sprint("hold-", i), Org: org, Amount: mw(1500)})
				if errs[i] == nil {
					ok.Add(1)
				}
			})
			for _, err := range errs {
				if err != nil {
					require.ErrorIs(t, err, ledger.ErrInsufficientFunds)
				}
			}
			assert.EqualValues(t, 66, ok.Load())
			b := balanceOf(t, s, org, mwk)
			assert.Equal(t, "10.00", b.Available.String())
			assert.Equal(t, "990.00", b.Held.String())
			require.NoError(t, ledger.CheckStore(bg, s))
		})
	}
}

// TestConcurrentHoldsRandom: 64 holds of random amounts against 1000.00.
func TestConcurrentHoldsRandom(t *testing.T) {
	for name, s := range concurrentStores(t) {
		t.Run(name, func(t *testing.T) {
			mustPost(t, s, credit1000)
			r := rand.New(rand.NewPCG(1, 2))
			amounts := make([]int64, 64)
			for i := range amounts {
				amounts[i] = 1 + r.Int64N(5000) // up to 50.00
			}
			errs := make([]error, len(amounts))
			together(len(amounts), func(i int) {
				_, errs[i] = post(s, ledger.PlaceHold{EntryID: fmt.Sprint("h-", i), HoldID: fmt.Sprint("hold-", i), Org: org, Amount: mw(amounts[i])})
			})
			b := balanceOf(t, s, org, mwk)
			var sum int64
			successes := 0
			for i, err := range errs {
				if err == nil {
					sum += amounts[i]
					successes++
					continue
				}
				require.ErrorIs(t, err, ledger.ErrInsufficientFunds)
				var ife *ledger.InsufficientFundsError
				require.ErrorAs(t, err, &ife)
				// Available only went down, so a refused hold is above what is
				// left now.
				assert.Greater(t, amounts[i], units(b.Available), "hold %d of %d refused", i, amounts[i])
			}
			t.Logf("%d of %d holds placed, %d held", successes, len(amounts), sum)
			assert.LessOrEqual(t, sum, int64(100000))
			assert.Equal(t, sum, units(b.Held))
			assert.GreaterOrEqual(t, units(b.Available), int64(0))
			assert.Equal(t, int64(100000), units(b.Available)+units(b.Held))
			require.NoError(t, ledger.CheckStore(bg, s))
		})
	}
}

// TestConcurrentCloseOfOneHold: many goroutines release or capture one
// hold: exactly one wins, the rest find it closed.
func TestConcurrentCloseOfOneHold(t *testing.T) {
	for name, s := range concurrentStores(t) {
		t.Run(name, func(t *testing.T) {
			mustPost(t, s, credit1000, hold300)
			var wins atomic.Int64
			var winner atomic.Value
			errs := make([]error, 48)
			together(len(errs), func(i int) {
				var cmd ledger.Command = ledger.ReleaseHold{EntryID: fmt.Sprint("r-", i), HoldID: "hold-1"}
				if i%2 == 1 {
					cmd = ledger.CaptureHold{EntryID: fmt.Sprint("x-", i), HoldID: "hold-1", Amount: mw(30000)}
				}
				eff, err := post(s, cmd)
				errs[i] = err
				if err == nil {
					wins.Add(1)
					winner.Store(eff.Entry)
				}
			})
			require.EqualValues(t, 1, wins.Load())
			for _, err := range errs {
				if err != nil {
					require.ErrorIs(t, err, ledger.ErrHoldClosed)
				}
			}
			e := winner.Load().(ledger.Entry)
			b := balanceOf(t, s, org, mwk)
			assert.Equal(t, "0.00", b.Held.String())
			if e.Kind == ledger.KindRelease {
				assert.Equal(t, "1000.00", b.Available.String())
			} else {
				assert.Equal(t, "700.00", b.Available.String())
			}
			require.NoError(t, ledger.CheckStore(bg, s))
		})
	}
}

// TestConcurrentReplays: one command posted from many goroutines under one
// entry id takes effect once; the others are replays of it.
func TestConcurrentReplays(t *testing.T) {
	for name, s := range concurrentStores(t) {
		t.Run(name, func(t *testing.T) {
			mustPost(t, s, credit1000)
			var fresh, replays atomic.Int64
			together(48, func(i int) {
				eff, err := post(s, ledger.PlaceHold{EntryID: "h-1", HoldID: "hold-1", Org: org, Amount: mw(30000), At: t0.Add(timeSeconds(i))})
				if !assert.NoError(t, err) {
					return
				}
				if eff.Replayed {
					replays.Add(1)
				} else {
					fresh.Add(1)
				}
			})
			assert.EqualValues(t, 1, fresh.Load())
			assert.EqualValues(t, 47, replays.Load())
			assert.Equal(t, "700.00", balanceOf(t, s, org, mwk).Available.String())
			require.NoError(t, ledger.CheckStore(bg, s))

			// A different command racing under a used id always loses.
			var reused atomic.Int64
			together(16, func(i int) {
				_, err := post(s, ledger.PlaceHold{EntryID: "h-1", HoldID: fmt.Sprint("other-", i), Org: org, Amount: mw(1)})
				if errors.Is(err, ledger.ErrEntryIDReused) {
					reused.Add(1)
				}
			})
			assert.EqualValues(t, 16, reused.Load())
		})
	}
}

func timeSeconds(i int) time.Duration { return time.Duration(i) * time.Second }
