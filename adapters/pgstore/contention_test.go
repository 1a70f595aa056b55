package pgstore_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// TestHotKeyTwoStores is an organization's balance under contention: two
// stores on one schema (two processes), each with many callers making
// "payouts" (read the balance and a new id, write the record, a due
// entry and the balance) and a "worker" settling them (take the first
// due entry, delete it, update the record, give part of the amount back
// to the balance). Every update must succeed, and the end state be the
// serial one: no update lost, none applied twice.
func TestHotKeyTwoStores(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			// A small retry budget (the default is 30): an update that
			// failed to serialize runs again holding locks on what it
			// wrote, and the others lock the hot balance first, so
			// contention does not make it fail again.
			opts := m.opts
			opts.MaxRetries = 5
			stores := []*pgstore.Store{open(t, schema, opts), open(t, schema, opts)}
			ctx := t.Context()
			const (
				callers  = 12 // per store
				each     = 15 // payouts per caller
				start    = 1_000_000
				amount   = 100
				giveBack = 7
			)
			require.NoError(t, stores[0].Update(ctx, func(tx store.Tx) error {
				return tx.Put(b("acct"), b("bal"), num(start))
			}))

			var paid, settled, failed atomic.Int64
			var payers, workers sync.WaitGroup
			done := make(chan struct{})
			for si, s := range stores {
				for c := range callers {
					payers.Go(func() {
						for i := range each {
							id := fmt.Appendf(nil, "p-%d-%02d-%02d", si, c, i)
							if err := s.Update(ctx, func(tx store.Tx) error { return pay(tx, id, amount) }); err != nil {
								failed.Add(1)
								t.Errorf("payout %s: %v", id, err)
								continue
							}
							paid.Add(1)
						}
					})
				}
				workers.Go(func() {
					for {
						var found bool
						err := s.Update(ctx, func(tx store.Tx) (err error) {
							found, err = settle(tx, giveBack)
							return err
						})
						switch {
						case err != nil:
							failed.Add(1)
							t.Errorf("settle: %v", err)
						case found:
							settled.Add(1)
							continue
						}
						select {
						case <-done:
							return
						default:
						}
					}
				})
			}
			payers.Wait()
			close(done)
			workers.Wait()
			// What the workers left due, settled now.
			for {
				var found bool
				require.NoError(t, stores[1].Update(ctx, func(tx store.Tx) (err error) {
					found, err = settle(tx, giveBack)
					return err
				}))
				if !found {
					break
				}
				settled.Add(1)
			}

			require.Zero(t, failed.Load(), "contention must cost time, never an error")
			require.EqualValues(t, 2*callers*each, paid.Load())
			require.EqualValues(t, paid.Load(), settled.Load())
			v, err := getValue(t, stores[1], "acct", "bal")
			require.NoError(t, err)
			want := start - paid.Load()*amount + settled.Load()*giveBack
			require.Equal(t, want, int64(binary.BigEndian.Uint64([]byte(v))), "a lost or doubled update")
			recs := keys(t, stores[0], "rec", store.ScanOptions{})
			require.Len(t, recs, int(paid.Load()))
			for _, k := range recs {
				v, err := getValue(t, stores[0], "rec", k)
				require.NoError(t, err)
				assert.Equal(t, "settled", v, k)
			}
			for _, s := range stores {
				t.Logf("%+v", s.Stats())
			}
		})
	}
}

func num(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// pay is a payout: id must be new, the balance must cover amount.
func pay(tx store.Tx, id []byte, amount int64) error {
	v, err := tx.Get(b("acct"), b("bal"))
	if err != nil {
		return err
	}
	bal := int64(binary.BigEndian.Uint64(v))
	if bal < amount {
		return errors.New("insufficient funds")
	}
	if _, err := tx.Get(b("rec"), id); !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("payout %s exists (%v)", id, err)
	}
	if err := tx.Put(b("rec"), id, b("held")); err != nil {
		return err
	}
	if err := tx.Put(b("due"), id, nil); err != nil {
		return err
	}
	return tx.Put(b("acct"), b("bal"), num(bal-amount))
}

// settle settles the first due payout, if any, giving back giveBack.
func settle(tx store.Tx, giveBack int64) (found bool, err error) {
	var id []byte
	if err := tx.Scan(b("due"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
		id = k
		return false, nil
	}); err != nil || id == nil {
		return false, err
	}
	if v, err := tx.Get(b("rec"), id); err != nil || string(v) != "held" {
		return false, fmt.Errorf("payout %s due but %q (%v)", id, v, err)
	}
	v, err := tx.Get(b("acct"), b("bal"))
	if err != nil {
		return false, err
	}
	bal := int64(binary.BigEndian.Uint64(v))
	for _, err := range []error{
		tx.Delete(b("due"), id),
		tx.Put(b("rec"), id, b("settled")),
		tx.Put(b("acct"), b("bal"), num(bal+giveBack)),
	} {
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
