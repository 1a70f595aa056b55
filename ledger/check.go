package ledger

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// CheckError lists every invariant a snapshot breaks.
type CheckError struct {
	Problems []string
}

func (e *CheckError) Error() string {
	return "ledger: check failed:\n  " + strings.Join(e.Problems, "\n  ")
}

// Check verifies a snapshot of the ledger:
//   - every entry's postings sum to zero per asset;
//   - every stored balance equals the sum of the journal's postings to its
//     account, and every account the journal touches has its balance stored;
//   - no customer available or held account is negative, and no
//     shortfall account is positive;
//   - each held account equals the sum of its organization's open holds in
//     that asset, and every hold names entries that exist;
//   - every reversal mark names an existing reverse entry of that original,
//     and every reverse entry is marked.
func Check(snap Snapshot) error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	entries := make(map[string]Entry, len(snap.Entries))
	journal := map[Account]money.Amount{}
	add := func(m map[Account]money.Amount, a Account, v money.Amount) {
		cur, ok := m[a]
		if !ok {
			cur = money.Zero(v.Asset())
		}
		sum, err := cur.Add(v)
		if err != nil {
			bad("account %s: %v", a, err)
			return
		}
		m[a] = sum
	}
	for _, e := range snap.Entries {
		entries[e.ID] = e
		sums := map[money.Asset]money.Amount{}
		for _, p := range e.Postings {
			if p.Amount.Asset() != p.Account.Asset {
				bad("entry %s posts %s to a %s account", e.ID, p.Amount.Asset().Code, p.Account.Asset.Code)
			}
			if err := p.Account.valid(); err != nil {
				bad("entry %s: %v", e.ID, err)
			}
			s, ok := sums[p.Amount.Asset()]
			if !ok {
				s = money.Zero(p.Amount.Asset())
			}
			s, _ = s.Add(p.Amount)
			sums[p.Amount.Asset()] = s
			add(journal, p.Account, p.Amount)
		}
		for asset, s := range sums {
			if !s.IsZero() {
				bad("entry %s does not balance in %s: sums to %s", e.ID, asset.Code, s)
			}
		}
		if len(e.Postings) == 0 {
			bad("entry %s has no postings", e.ID)
		}
	}

	stored := make(map[Account]money.Amount, len(snap.Balances))
	for _, bc := range snap.Balances {
		stored[bc.Account] = bc.Balance
		if violates(bc.Account.Bucket, bc.Balance.Sign()) {
			way := "negative"
			if bc.Account.Bucket == Shortfall {
				way = "positive"
			}
			bad("customer account %s is %s: %s", bc.Account, way, bc.Balance)
		}
		want, ok := journal[bc.Account]
		if !ok {
			want = money.Zero(bc.Balance.Asset())
		}
		if !want.Equal(bc.Balance) {
			bad("account %s holds %s, its journal sums to %s", bc.Account, bc.Balance, want)
		}
	}
	for a, sum := range journal {
		if _, ok := stored[a]; !ok && !sum.IsZero() {
			bad("account %s has journal sum %s but no stored balance", a, sum)
		}
	}

	openHolds := map[Account]money.Amount{}
	for _, h := range snap.Holds {
		if h.Amount.Sign() <= 0 {
			bad("hold %s has non-positive amount %s", h.ID, h.Amount)
		}
		if e, ok := entries[h.OpenedBy]; !ok || e.Kind != KindHold || e.HoldID != h.ID {
			bad("hold %s: opening entry %q missing or not its hold entry", h.ID, h.OpenedBy)
		}
		if h.Open {
			add(openHolds, OrgAccount(h.Org, Held, h.Amount.Asset()), h.Amount)
			if h.ClosedBy != "" {
				bad("open hold %s names closing entry %s", h.ID, h.ClosedBy)
			}
		} else if e, ok := entries[h.ClosedBy]; !ok || (e.Kind != KindRelease && e.Kind != KindCapture) || e.HoldID != h.ID {
			bad("closed hold %s: closing entry %q missing or not a release or capture of it", h.ID, h.ClosedBy)
		}
	}
	for a, bal := range stored {
		if a.Bucket != Held {
			continue
		}
		want, ok := openHolds[a]
		if !ok {
			want = money.Zero(bal.Asset())
		}
		if !want.Equal(bal) {
			bad("held account %s is %s, its open holds sum to %s", a, bal, want)
		}
	}
	for a, sum := range openHolds {
		if _, ok := stored[a]; !ok {
			bad("open holds of %s sum to %s but the account has no balance", a, sum)
		}
	}

	for orig, by := range snap.Reversals {
		e, ok := entries[by]
		if !ok || e.Kind != KindReverse || e.Reverses != orig {
			bad("reversal mark %s -> %s does not name its reverse entry", orig, by)
		}
		if _, ok := entries[orig]; !ok {
			bad("reversal mark for missing entry %s", orig)
		}
	}
	for _, e := range snap.Entries {
		if e.Kind == KindReverse && snap.Reversals[e.Reverses] != e.ID {
			bad("reverse entry %s is not marked on %s", e.ID, e.Reverses)
		}
	}

	if len(problems) > 0 {
		sort.Strings(problems)
		return &CheckError{Problems: problems}
	}
	return nil
}

// CheckTx runs Check over the whole ledger in tx.
func CheckTx(tx store.Tx) error {
	snap, err := ReadSnapshot(tx)
	if err != nil {
		return err
	}
	return Check(snap)
}

// CheckStore runs Check over everything s holds, in one read transaction.
func CheckStore(ctx context.Context, s store.Store) error {
	return s.View(ctx, CheckTx)
}
