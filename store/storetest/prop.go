package storetest

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/store"
)

// Generators of the property test. Keys come from a small alphabet with 0x00
// and 0xff so that sequences hit the same keys and the scan bounds' edges.
var (
	propKey   = rapid.Custom(func(t *rapid.T) string { return string(propBytes(1, 3).Draw(t, "key")) })
	propValue = rapid.Custom(func(t *rapid.T) string {
		return string(rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, "value"))
	})
	propBound = rapid.Custom(func(t *rapid.T) []byte {
		if rapid.Bool().Draw(t, "set") {
			return propBytes(0, 3).Draw(t, "bound")
		}
		return nil
	})
	propOptions = rapid.Custom(func(t *rapid.T) store.ScanOptions {
		return store.ScanOptions{
			Start:   propBound.Draw(t, "start"),
			End:     propBound.Draw(t, "end"),
			Prefix:  propBound.Draw(t, "prefix"),
			Reverse: rapid.Bool().Draw(t, "reverse"),
		}
	})
)

func propBytes(minLen, maxLen int) *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		p := rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 'a', 'b', 0xfe, 0xff}), minLen, maxLen).Draw(t, "bytes")
		if p == nil {
			p = []byte{}
		}
		return p
	})
}

// propOp is one write of a transaction in the property test.
type propOp struct {
	Delete bool
	Key    string
	Value  string
}

func (o propOp) String() string {
	if o.Delete {
		return fmt.Sprintf("delete %q", o.Key)
	}
	return fmt.Sprintf("put %q=%q", o.Key, o.Value)
}

var propOps = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) propOp {
	return propOp{
		Delete: rapid.IntRange(0, 2).Draw(t, "kind") == 0,
		Key:    propKey.Draw(t, "key"),
		Value:  propValue.Draw(t, "value"),
	}
}), 1, 6)

// errMismatch reports, out of an Update's fn, a difference from the model.
var errMismatch = errors.New("storetest: store disagrees with the model")

// testProperty runs random sequences of Puts, Deletes, Scans and Updates
// that commit or fail against a map model. The committed state must equal
// the model after every step, and every scan, inside or outside a
// transaction, the sorted model.
//
// The number of steps per sequence is bounded here rather than by
// rapid.steps: each step may be a durable commit.
func (s *suite) testProperty(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		bucket := b(fmt.Sprintf("prop-%04d", run)) // every sequence starts empty
		m := model{}

		// scanEqual scans tx and compares with want, stopping early at
		// limit (0: no limit).
		scanEqual := func(tx store.Tx, opt store.ScanOptions, limit int, want []kv) error {
			if limit > 0 && limit < len(want) {
				want = want[:limit]
			}
			got := []kv{}
			err := tx.Scan(bucket, opt, func(k, v []byte) (bool, error) {
				got = append(got, kv{string(k), string(v)})
				return limit == 0 || len(got) < limit, nil
			})
			if err != nil {
				return err
			}
			if !equalPairs(got, want) {
				return fmt.Errorf("%w: scan %s limit %d: got %v, want %v", errMismatch, describe(opt), limit, got, want)
			}
			return nil
		}

		steps := rapid.IntRange(1, 6).Draw(rt, "steps")
		for range steps {
			switch action := rapid.SampledFrom([]string{"put", "delete", "update", "scan"}).Draw(rt, "action"); action {
			case "put":
				k, v := propKey.Draw(rt, "key"), propValue.Draw(rt, "value")
				if err := st.Update(ctx, func(tx store.Tx) error { return tx.Put(bucket, b(k), b(v)) }); err != nil {
					rt.Fatalf("put %q: %v", k, err)
				}
				m[k] = v

			case "delete":
				k := propKey.Draw(rt, "key")
				if err := st.Update(ctx, func(tx store.Tx) error { return tx.Delete(bucket, b(k)) }); err != nil {
					rt.Fatalf("delete %q: %v", k, err)
				}
				delete(m, k)

			case "update":
				// Several writes, with reads of each written key and a
				// scan inside, committed or rolled back.
				ops := propOps.Draw(rt, "ops")
				opt := propOptions.Draw(rt, "scan")
				limit := rapid.IntRange(0, 3).Draw(rt, "limit")
				fail := rapid.Bool().Draw(rt, "fail")
				var after model
				err := st.Update(ctx, func(tx store.Tx) error {
					after = m.clone() // fn may run more than once
					for _, op := range ops {
						var err error
						if op.Delete {
							err = tx.Delete(bucket, b(op.Key))
							delete(after, op.Key)
						} else {
							err = tx.Put(bucket, b(op.Key), b(op.Value))
							after[op.Key] = op.Value
						}
						if err != nil {
							return fmt.Errorf("%v: %w", op, err)
						}
						v, err := tx.Get(bucket, b(op.Key))
						want, ok := after[op.Key]
						switch {
						case !ok && !errors.Is(err, store.ErrNotFound):
							return fmt.Errorf("%w: after %v, Get returned %q, %v", errMismatch, op, v, err)
						case ok && (err != nil || string(v) != want):
							return fmt.Errorf("%w: after %v, Get returned %q, %v", errMismatch, op, v, err)
						}
					}
					if err := scanEqual(tx, opt, limit, after.scan(opt)); err != nil {
						return err
					}
					if err := scanEqual(tx, store.ScanOptions{}, 0, after.pairs()); err != nil {
						return err
					}
					if fail {
						return errRollback
					}
					return nil
				})
				switch {
				case fail && !errors.Is(err, errRollback):
					rt.Fatalf("update %v that fails: got %v", ops, err)
				case !fail && err != nil:
					rt.Fatalf("update %v: %v", ops, err)
				case !fail:
					m = after
				}

			case "scan":
				opt := propOptions.Draw(rt, "scan")
				limit := rapid.IntRange(0, 3).Draw(rt, "limit")
				if err := st.View(ctx, func(tx store.Tx) error {
					return scanEqual(tx, opt, limit, m.scan(opt))
				}); err != nil {
					rt.Fatal(err)
				}
			}

			// After every step the committed state is the model.
			if err := st.View(ctx, func(tx store.Tx) error {
				if err := scanEqual(tx, store.ScanOptions{}, 0, m.pairs()); err != nil {
					return err
				}
				if err := scanEqual(tx, store.ScanOptions{Reverse: true}, 0, m.scan(store.ScanOptions{Reverse: true})); err != nil {
					return err
				}
				for k, want := range m {
					v, err := tx.Get(bucket, b(k))
					if err != nil || string(v) != want {
						return fmt.Errorf("%w: Get(%q) = %q, %v; want %q", errMismatch, k, v, err, want)
					}
				}
				return nil
			}); err != nil {
				rt.Fatal(err)
			}
		}
	})
}
