package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// TestFaults runs random sequences on a store that fails a random
// operation or commit now and then: the failing command reports
// storetest.ErrInjected and leaves no trace, the ledger stays consistent,
// and the command then goes through as if nothing had happened.
func TestFaults(t *testing.T) {
	seeds, steps := 3, 150
	if testing.Short() {
		seeds = 1
	}
	for _, kind := range []string{"memstore", "boltstore"} {
		for seed := range uint64(seeds) {
			t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
				t.Parallel()
				var inner store.Store
				if kind == "memstore" {
					inner = newMem(t)
				} else {
					inner = newBolt(t, &boltstore.Options{NoSync: true})
				}
				fs := storetest.NewFaultStore(inner)
				g := newGen()
				d := randDrawer{rand.New(rand.NewPCG(seed, 99))}
				r := rand.New(rand.NewPCG(seed, 100))
				fired := map[string]int{}
				for range steps {
					cmd := g.next(d)
					wantReplayed, wantErr := g.apply(cmd)

					armed := ""
					switch r.IntN(4) {
					case 0:
						n := 1 + r.Int64N(10) // a Post does 1 to about 10 operations
						fs.FailOp(n)
						armed = fmt.Sprint("op ", n)
					case 1:
						fs.FailCommit(1)
						armed = "commit"
					}
					var before string
					if armed != "" {
						before = render(snapshot(t, inner))
					}
					injected := fs.Injected()
					eff, err := post(fs, cmd)
					fs.FailOp(0)
					fs.FailCommit(0)

					if fs.Injected() > injected {
						fired[armed[:2]]++
						require.ErrorIs(t, err, storetest.ErrInjected, "fault %s on %s", armed, describe(cmd))
						require.Equal(t, before, render(snapshot(t, inner)), "fault %s on %s left a trace", armed, describe(cmd))
						require.NoError(t, ledger.CheckStore(bg, inner))
						// The same command again, without fault.
						eff, err = post(fs, cmd)
					}
					checkOutcome(t, cmd, wantReplayed, wantErr, eff, err)
				}
				g.m.verify(t, inner)
				t.Logf("faults fired: %v (of %d injected)", fired, fs.Injected())
				assert.NotZero(t, fired["op"])
				assert.NotZero(t, fired["co"])
			})
		}
	}
}

// TestFaultInMultiPostTx: a fault in the second of two postings in one
// transaction undoes the first too.
func TestFaultInMultiPostTx(t *testing.T) {
	for _, kind := range []string{"memstore", "boltstore"} {
		t.Run(kind, func(t *testing.T) {
			var inner store.Store
			if kind == "memstore" {
				inner = newMem(t)
			} else {
				inner = newBolt(t, &boltstore.Options{NoSync: true})
			}
			fs := storetest.NewFaultStore(inner)
			mustPost(t, fs, credit1000)
			before := render(snapshot(t, inner))
			// Count the operations of the two postings, then fail each of
			// them in turn.
			counter := &countingStore{Store: inner}
			err := counter.Update(bg, func(tx store.Tx) error {
				if _, err := ledger.Post(tx, hold300); err != nil {
					return err
				}
				if _, err := ledger.Post(tx, capture1); err != nil {
					return err
				}
				return errRollback
			})
			require.ErrorIs(t, err, errRollback)
			require.Greater(t, counter.ops, 4)
			for n := int64(1); n <= int64(counter.ops); n++ {
				fs.FailOp(n)
				err := fs.Update(bg, func(tx store.Tx) error {
					if _, err := ledger.Post(tx, hold300); err != nil {
						return err
					}
					_, err := ledger.Post(tx, capture1)
					return err
				})
				require.ErrorIs(t, err, storetest.ErrInjected, "op %d", n)
				require.Equal(t, before, render(snapshot(t, inner)), "op %d", n)
			}
			fs.FailOp(0)
			fs.FailCommit(1)
			err = fs.Update(bg, func(tx store.Tx) error {
				if _, err := ledger.Post(tx, hold300); err != nil {
					return err
				}
				_, err := ledger.Post(tx, capture1)
				return err
			})
			require.ErrorIs(t, err, storetest.ErrInjected)
			require.Equal(t, before, render(snapshot(t, inner)))
			// And without faults both commit.
			mustPost(t, fs, hold300, capture1)
			assert.Equal(t, "745.00", balanceOf(t, inner, org, mwk).Available.String())
		})
	}
}

var errRollback = errors.New("rollback")

// countingStore counts the operations of the transactions run through it.
type countingStore struct {
	store.Store
	ops int
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.Update(ctx, func(tx store.Tx) error { return fn(&countingTx{tx, c}) })
}

type countingTx struct {
	store.Tx
	c *countingStore
}

func (t *countingTx) Get(b, k []byte) ([]byte, error) { t.c.ops++; return t.Tx.Get(b, k) }
func (t *countingTx) Put(b, k, v []byte) error        { t.c.ops++; return t.Tx.Put(b, k, v) }
func (t *countingTx) Delete(b, k []byte) error        { t.c.ops++; return t.Tx.Delete(b, k) }
func (t *countingTx) Scan(b []byte, o store.ScanOptions, fn func(k, v []byte) (bool, error)) error {
	t.c.ops++
	return t.Tx.Scan(b, o, fn)
}
