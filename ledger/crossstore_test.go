package ledger_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// genSequence is a random command sequence, with the model's verdict on
// each command and the model after all of them.
func genSequence(seed uint64, n int) ([]ledger.Command, *gen) {
	g := newGen()
	d := randDrawer{rand.New(rand.NewPCG(seed, 7))}
	cmds := make([]ledger.Command, 0, n)
	for range n {
		cmd := g.next(d)
		g.apply(cmd)
		cmds = append(cmds, cmd)
	}
	return cmds, g
}

// TestSameOnEveryStore runs one random command sequence on memstore and on
// boltstore: every outcome and the final ledger must be identical (and the
// model's).
func TestSameOnEveryStore(t *testing.T) {
	seeds, steps := 6, 250
	if testing.Short() {
		seeds = 2
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			cmds, g := genSequence(seed, steps)
			stores := map[string]store.Store{
				"memstore":  newMem(t),
				"boltstore": newBolt(t, &boltstore.Options{NoSync: true}),
				"boltstore-boltbatch": newBolt(t, &boltstore.Options{NoSync: true, Mode: boltstore.CommitBoltBatch,
					MaxBatchDelay: 1}),
			}
			outcomes := map[string][]string{}
			snaps := map[string]string{}
			for name, s := range stores {
				for _, cmd := range cmds {
					eff, err := post(s, cmd)
					outcomes[name] = append(outcomes[name], renderOutcome(eff, err))
				}
				g.m.verify(t, s)
				snaps[name] = render(snapshot(t, s))
			}
			for name := range stores {
				if name == "memstore" {
					continue
				}
				for i := range cmds {
					require.Equal(t, outcomes["memstore"][i], outcomes[name][i], "command %d on %s: %s", i, name, describe(cmds[i]))
				}
				require.Equal(t, snaps["memstore"], snaps[name], "final snapshot on %s", name)
			}
		})
	}
}
