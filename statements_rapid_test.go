package tambala_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The statement invariants, on every store, over random funding,
// deposits, conversions (holds, captures, credits in the other asset, releases) and
// clock moves: for each asset, opening plus the lines equals closing, over
// the whole history and over a random period; each line's running balances
// are the previous ones plus its changes; the last line's running balances
// are the balance read in the same transaction; every ledger entry of the
// organization in the asset is in exactly one line; and pages of a random
// size never skip or repeat a line.
func TestStatementRapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := 0
		rapid.Check(t, func(rt *rapid.T) {
			if cases++; cases > rapidCases(name) {
				return
			}
			s := open()
			defer s.Close()
			statementProperty(rt, s)
		})
	})
}

func statementProperty(rt *rapid.T, s store.Store) {
	c := newConvEnv(rt, s)
	var marks []time.Time
	steps := rapid.IntRange(1, 20).Draw(rt, "steps")
	for i := 0; i < steps; i++ {
		marks = append(marks, c.clock.Now())
		switch rapid.IntRange(0, 4).Draw(rt, "action") {
		case 0: // fund either asset
			a := money.MWK
			amt := money.FromInt(a, int64(rapid.IntRange(1, 5000).Draw(rt, "fund")))
			if rapid.Bool().Draw(rt, "usdt") {
				a = money.USDT
				amt = money.FromInt(a, int64(rapid.IntRange(1, 50).Draw(rt, "fund_usdt")))
			}
			must(rt, c.e.Operator().Fund(c.ctx, c.org.ID, amt, c.next("f")))
		case 1: // convert MWK to USDT
			amt := money.FromInt(money.MWK, int64(rapid.IntRange(100, 20000).Draw(rt, "mwk"))).String()
			q, err := c.e.Client(c.p).QuoteConversion(c.ctx, quotes.Request{FromAsset: "MWK", ToAsset: "USDT", FromAmount: money.DecimalText(amt)})
			must(rt, err)
			cr, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: c.next("k")})
			if err == nil && rapid.IntRange(0, 2).Draw(rt, "fails") == 0 {
				c.conv.ScriptFailure(cr.Resource.ID, tambala.ConversionProviderDeclined) // released, not credited
			}
			_ = err // insufficient funds is a possible answer: nothing posted
		case 2: // a worker pass and the converter's delay
			_, err := c.e.Work().ProcessConversions(c.ctx)
			must(rt, err)
			c.clock.Advance(convDelay + time.Millisecond)
			_, err = c.e.Work().ProcessConversions(c.ctx)
			must(rt, err)
		case 3:
			c.clock.Advance(time.Duration(rapid.IntRange(0, 3).Draw(rt, "secs")) * time.Second)
		case 4: // a USDT deposit (a /v2 collection from a deposit)
			amt := money.FromInt(money.USDT, int64(rapid.IntRange(1, 50).Draw(rt, "deposit")))
			_, err := c.e.Operator().Desk().RecordDeposit(c.ctx, c.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: amt, TxRef: c.next("0x")})
			must(rt, err)
		}
	}
	must(rt, ledger.CheckStore(c.ctx, c.s))
	for _, a := range []money.Asset{money.MWK, money.USDT} {
		checkStatement(rt, c.ctx, c.e, c.s, c.p, c.org.ID, a, marks)
	}
}

// readStatement pages through a statement with pages of limit lines.
func readStatement(rt *rapid.T, ctx context.Context, read func(tambala.PageRequest) (tambala.Statement, error), limit int) (first tambala.Statement, lines []tambala.StatementLine) {
	page := tambala.PageRequest{Limit: limit}
	for n := 0; ; n++ {
		st, err := read(page)
		must(rt, err)
		if n == 0 {
			first = st
		}
		if len(st.Lines.Items) > limit {
			rt.Fatalf("page of %d lines, limit %d", len(st.Lines.Items), limit)
		}
		lines = append(lines, st.Lines.Items...)
		if !st.Lines.HasMore {
			if st.Lines.NextBeforeID != "" {
				rt.Fatalf("last page with a cursor")
			}
			return first, lines
		}
		page.BeforeID = st.Lines.NextBeforeID
	}
}

func checkStatement(rt *rapid.T, ctx context.Context, e *tambala.Engine, s store.Store, p tambala.Principal, org string, a money.Asset, marks []time.Time) {
	add := func(x, y money.Amount) money.Amount { z, err := x.Add(y); must(rt, err); return z }
	limit := rapid.IntRange(1, 7).Draw(rt, "limit")
	whole, lines := readStatement(rt, ctx, func(pr tambala.PageRequest) (tambala.Statement, error) {
		return e.Client(p).Statement(ctx, tambala.StatementRequest{Asset: a.Code}, pr)
	}, limit)
	// The staff face reads the same statement.
	_, staff := readStatement(rt, ctx, func(pr tambala.PageRequest) (tambala.Statement, error) {
		return e.Operator().BackOffice().OrgStatement(ctx, org, tambala.StatementRequest{Asset: a.Code}, pr)
	}, rapid.IntRange(1, 7).Draw(rt, "staff_limit"))
	if len(staff) != len(lines) {
		rt.Fatalf("%s: staff statement %d lines, client %d", a.Code, len(staff), len(lines))
	}
	// Running balances chain, and opening + lines = closing.
	av, hd := whole.OpeningAvailable, whole.OpeningHeld
	seen := map[string]bool{}
	for i, l := range lines {
		if seen[l.EntryID] {
			rt.Fatalf("%s: entry %s in two lines", a.Code, l.EntryID)
		}
		seen[l.EntryID] = true
		if i > 0 && l.At.Before(lines[i-1].At) {
			rt.Fatalf("%s: line %d goes back in time", a.Code, i)
		}
		if l.Kind == tambala.LineOther {
			rt.Fatalf("%s: entry %s has no kind", a.Code, l.EntryID)
		}
		if strings.HasPrefix(l.EntryID, "collection_v2:") != (l.Kind == tambala.LineDeposit) {
			rt.Fatalf("%s: entry %s is a %s", a.Code, l.EntryID, l.Kind)
		}
		av, hd = add(av, l.Available), add(hd, l.Held)
		if av.Cmp(l.AvailableAfter) != 0 || hd.Cmp(l.HeldAfter) != 0 {
			rt.Fatalf("%s: line %d runs to %s/%s, sum %s/%s", a.Code, i, l.AvailableAfter, l.HeldAfter, av, hd)
		}
	}
	if av.Cmp(whole.ClosingAvailable) != 0 || hd.Cmp(whole.ClosingHeld) != 0 {
		rt.Fatalf("%s: opening + lines %s/%s, closing %s/%s", a.Code, av, hd, whole.ClosingAvailable, whole.ClosingHeld)
	}
	// The closing is the balance read in the same transaction: nothing
	// posts in between here, so the balance read now is that one.
	b, err := e.Operator().OrgBalances(ctx, org)
	must(rt, err)
	for _, bb := range b {
		if bb.Asset.Code == a.Code && (bb.Available.Cmp(whole.ClosingAvailable) != 0 || bb.Held.Cmp(whole.ClosingHeld) != 0) {
			rt.Fatalf("%s: closing %s/%s, balance %s/%s", a.Code, whole.ClosingAvailable, whole.ClosingHeld, bb.Available, bb.Held)
		}
	}
	if n := len(lines); n > 0 && (lines[n-1].AvailableAfter.Cmp(whole.ClosingAvailable) != 0 || lines[n-1].HeldAfter.Cmp(whole.ClosingHeld) != 0) {
		rt.Fatalf("%s: last line runs to %s/%s, closing %s/%s", a.Code, lines[n-1].AvailableAfter, lines[n-1].HeldAfter, whole.ClosingAvailable, whole.ClosingHeld)
	}
	// Every ledger entry of the organization in the asset is in a line.
	var snap ledger.Snapshot
	must(rt, s.View(ctx, func(tx store.Tx) error {
		var err error
		snap, err = ledger.ReadSnapshot(tx)
		return err
	}))
	want := 0
	for _, en := range snap.Entries {
		for _, po := range en.Postings {
			if po.Account.Owner == org && po.Account.Asset.Code == a.Code {
				if !seen[en.ID] {
					rt.Fatalf("%s: entry %s in no line", a.Code, en.ID)
				}
				want++
				break
			}
		}
	}
	if want != len(lines) {
		rt.Fatalf("%s: %d entries, %d lines", a.Code, want, len(lines))
	}
	// A random period: its opening + its lines = its closing.
	if len(marks) < 2 {
		return
	}
	i := rapid.IntRange(0, len(marks)-1).Draw(rt, "from")
	j := rapid.IntRange(i, len(marks)-1).Draw(rt, "to")
	req := tambala.StatementRequest{Asset: a.Code, From: marks[i], To: marks[j]}
	period, plines := readStatement(rt, ctx, func(pr tambala.PageRequest) (tambala.Statement, error) {
		return e.Client(p).Statement(ctx, req, pr)
	}, limit)
	av, hd = period.OpeningAvailable, period.OpeningHeld
	for _, l := range plines {
		if l.At.Before(req.From) || !l.At.Before(req.To) {
			rt.Fatalf("%s: line at %s outside [%s, %s)", a.Code, l.At, req.From, req.To)
		}
		av, hd = add(av, l.Available), add(hd, l.Held)
	}
	if av.Cmp(period.ClosingAvailable) != 0 || hd.Cmp(period.ClosingHeld) != 0 {
		rt.Fatalf("%s: period opening + lines %s/%s, closing %s/%s", a.Code, av, hd, period.ClosingAvailable, period.ClosingHeld)
	}
}
