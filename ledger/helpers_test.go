package ledger_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

var (
	mwk  = money.MWK
	usdt = money.USDT
	t0   = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	bg   = context.Background()
)

// mw is units tambala (hundredths) of MWK; us is units millionths of USDT.
func mw(units int64) money.Amount { return money.FromUnits(mwk, units) }
func us(units int64) money.Amount { return money.FromUnits(usdt, units) }

// checkedStore registers a ledger.CheckStore and Close of s at the end of t.
func checkedStore[S store.Store](t testing.TB, s S) S {
	t.Helper()
	t.Cleanup(func() {
		require.NoError(t, ledger.CheckStore(bg, s), "ledger invariants at the end of the test")
		require.NoError(t, s.Close())
	})
	return s
}

// newMem returns an empty memstore whose ledger is checked when t ends.
func newMem(t testing.TB) *memstore.Store { return checkedStore(t, memstore.New()) }

// newBolt returns a bbolt-backed store in a temp dir, checked when t ends.
func newBolt(t testing.TB, opts *boltstore.Options) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), opts)
	require.NoError(t, err)
	return checkedStore(t, s)
}

// post posts cmd in its own Update.
func post(s store.Store, cmd ledger.Command) (ledger.Effect, error) {
	var eff ledger.Effect
	err := s.Update(bg, func(tx store.Tx) error {
		var err error
		eff, err = ledger.Post(tx, cmd)
		return err
	})
	return eff, err
}

func mustPost(t testing.TB, s store.Store, cmds ...ledger.Command) ledger.Effect {
	t.Helper()
	var eff ledger.Effect
	for _, c := range cmds {
		var err error
		eff, err = post(s, c)
		require.NoError(t, err, "posting %#v", c)
		require.False(t, eff.Replayed, "posting %#v", c)
	}
	return eff
}

// plan runs ledger.Plan in a read-only transaction: Plan never writes, so
// a write attempt would fail with store.ErrReadOnly.
func plan(s store.Store, cmd ledger.Command) (ledger.Effect, error) {
	var eff ledger.Effect
	err := s.View(bg, func(tx store.Tx) error {
		var err error
		eff, err = ledger.Plan(ledger.TxState(tx), cmd)
		return err
	})
	return eff, err
}

func snapshot(t testing.TB, s store.Store) ledger.Snapshot {
	t.Helper()
	var snap ledger.Snapshot
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		var err error
		snap, err = ledger.ReadSnapshot(tx)
		return err
	}))
	return snap
}

func balanceOf(t testing.TB, s store.Store, org string, asset money.Asset) ledger.Balance {
	t.Helper()
	var b ledger.Balance
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		var err error
		b, err = ledger.ReadBalance(tx, org, asset)
		return err
	}))
	return b
}

func accountOf(t testing.TB, s store.Store, a ledger.Account) money.Amount {
	t.Helper()
	var m money.Amount
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		var err error
		m, err = ledger.ReadAccount(tx, a)
		return err
	}))
	return m
}

func renderAmount(a money.Amount) string {
	return fmt.Sprintf("%s/%d:%s", a.Asset().Code, a.Asset().Decimals, a.String())
}

func renderPosting(p ledger.Posting) string {
	return fmt.Sprintf("%s %s", p.Account, p.Amount)
}

func renderEntry(e ledger.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s kind=%s ref=%q hold=%q reverses=%q at=%s digest=%q [", e.ID, e.Kind, e.Ref, e.HoldID, e.Reverses,
		e.At.UTC().Format(time.RFC3339Nano), e.Digest)
	for i, p := range e.Postings {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", p.Account, renderAmount(p.Amount))
	}
	b.WriteString("]")
	return b.String()
}

func renderHold(h ledger.Hold) string {
	return fmt.Sprintf("%s org=%s %s ref=%q open=%t opened=%s closed=%s", h.ID, h.Org, renderAmount(h.Amount), h.Ref, h.Open, h.OpenedBy, h.ClosedBy)
}

// render is a canonical text of a snapshot, for comparing stores and states.
func render(snap ledger.Snapshot) string {
	var b strings.Builder
	for _, bc := range snap.Balances {
		fmt.Fprintf(&b, "balance %s %s\n", bc.Account, renderAmount(bc.Balance))
	}
	for _, h := range snap.Holds {
		fmt.Fprintf(&b, "hold %s\n", renderHold(h))
	}
	for _, e := range snap.Entries {
		fmt.Fprintf(&b, "entry %s\n", renderEntry(e))
	}
	keys := make([]string, 0, len(snap.Reversals))
	for k := range snap.Reversals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "reversal %s by %s\n", k, snap.Reversals[k])
	}
	return b.String()
}

// renderEffect is a canonical text of an Effect (Post's result).
func renderEffect(eff ledger.Effect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "replayed=%t entry=%s", eff.Replayed, renderEntry(eff.Entry))
	for _, bc := range eff.Balances {
		fmt.Fprintf(&b, " bal(%s=%s)", bc.Account, renderAmount(bc.Balance))
	}
	for _, h := range eff.Holds {
		fmt.Fprintf(&b, " hold(%s)", renderHold(h))
	}
	return b.String()
}

// renderOutcome is a command's observable result.
func renderOutcome(eff ledger.Effect, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return renderEffect(eff)
}
