package reconcile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/reconcile"
)

func TestParse(t *testing.T) {
	m := reconcile.DefaultMapping()
	f, err := reconcile.Parse([]byte("\uFEFFReference,Amount,Currency,Status,Time,File_Number\n"+
		"po_1,100.50,mwk,Settled,2026-11-21T10:00:00Z,7\n\n"+
		"po_2,3,MWK,rejected,2026-11-21 11:00:00,7\n"), m)
	require.NoError(t, err)
	assert.Equal(t, 7, f.Number)
	require.Len(t, f.Lines, 2)
	assert.Equal(t, reconcile.Line{Number: 2, Reference: "po_1", Amount: "100.50", Currency: "MWK", Status: reconcile.Succeeded,
		Time: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}, f.Lines[0])
	assert.Equal(t, 4, f.Lines[1].Number)
	assert.Equal(t, reconcile.Failed, f.Lines[1].Status)

	custom := reconcile.Mapping{Reference: "psp ref", Amount: "value", Currency: "ccy", Status: "state", Time: "booked"}
	f, err = reconcile.Parse([]byte("booked,psp ref,value,ccy,state\n2026-11-21,b1,5,MWK,paid\n"), custom)
	require.NoError(t, err)
	assert.Equal(t, 0, f.Number)
	assert.Equal(t, "b1", f.Lines[0].Reference)
}

func TestParseRefuses(t *testing.T) {
	m := reconcile.DefaultMapping()
	head := "reference,amount,currency,status,time\n"
	for name, c := range map[string]struct {
		file   string
		header string
		lines  []int
	}{
		"empty":          {"", "the file is empty", nil},
		"no lines":       {head, "the file has no lines", nil},
		"missing column": {"reference,amount,currency,status\nx,1,MWK,paid\n", `no column "time"`, nil},
		"bad lines": {head + "a,1,MWK,paid,2026-11-21\n" + "b,-1,MWK,paid,2026-11-21\n" + "c,1,MWK,maybe,2026-11-21\n" +
			",1,MWK,paid,2026-11-21\n" + "d,1,MWK,paid,yesterday\n" + "e,1e3,MWK,paid,2026-11-21\n" + "f,1,MWK,paid\n" +
			"g,1,M,paid,2026-11-21\n", "", []int{3, 4, 5, 6, 7, 8, 9}},
		"file numbers disagree": {"reference,amount,currency,status,time,file_number\na,1,MWK,paid,2026-11-21,1\nb,1,MWK,paid,2026-11-21,2\nc,1,MWK,paid,2026-11-21,x\n",
			"", []int{3, 4}},
	} {
		_, err := reconcile.Parse([]byte(c.file), m)
		var me *reconcile.MalformedError
		require.True(t, errors.As(err, &me), name)
		assert.Equal(t, c.header, me.Header, name)
		var got []int
		for _, l := range me.Lines {
			got = append(got, l.Line)
		}
		assert.Equal(t, c.lines, got, name)
	}
	assert.Error(t, reconcile.Mapping{Reference: "a", Amount: "a", Currency: "c", Status: "s", Time: "t"}.Check())
	assert.Error(t, reconcile.Mapping{Reference: "a"}.Check())
}

func TestMatchGroups(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	line := func(ref, amount string, s reconcile.Status, h int) reconcile.Line {
		return reconcile.Line{Number: h, Reference: ref, Amount: amount, Currency: "MWK", Status: s, Time: at.Add(time.Duration(h) * time.Hour)}
	}
	item := func(id, amount string, s reconcile.ItemStatus, h int, refs ...string) reconcile.Item {
		it := reconcile.Item{Kind: reconcile.Payout, ID: id, References: append([]string{id}, refs...), Amount: amount, Currency: "MWK", Status: s}
		if s != reconcile.InFlight {
			it.At = at.Add(time.Duration(h) * time.Hour)
		}
		return it
	}
	items := []reconcile.Item{
		item("p1", "100", reconcile.ItemSucceeded, 1),
		item("p2", "100", reconcile.ItemSucceeded, 1),
		item("p3", "100", reconcile.ItemSucceeded, 1),
		item("p4", "40", reconcile.InFlight, 0),
		item("b1", "10", reconcile.ItemSucceeded, 2, "BATCH9"),
		item("b2", "15.5", reconcile.ItemSucceeded, 2, "BATCH9"),
		item("gone", "1", reconcile.ItemSucceeded, 3),  // in the window, in no line
		item("late", "1", reconcile.ItemSucceeded, 40), // out of the window
		item("fl", "1", reconcile.InFlight, 0),         // in flight, in no line: not missing
	}
	lines := []reconcile.Line{
		line("p1", "100.00", reconcile.Succeeded, 1),
		line("p2", "99", reconcile.Succeeded, 2),
		line("p3", "100", reconcile.Failed, 3),
		line("p4", "40", reconcile.Succeeded, 4),
		line("BATCH9", "25.50", reconcile.Succeeded, 5),
		line("nobody", "1", reconcile.Succeeded, 6),
		line("p1", "100", reconcile.Succeeded, 7), // p1 again
	}
	r := reconcile.Match(lines, items)
	var got []string
	for _, m := range r.Lines {
		got = append(got, fmt.Sprintf("%d %s %s", m.Line.Number, m.Group, strings.Join(m.Items, "+")))
	}
	assert.Equal(t, []string{"1 matched p1", "2 amount_differs p2", "3 status_differs p3", "4 matched p4",
		"5 matched b1+b2", "6 file_only ", "7 file_only "}, got)
	assert.Equal(t, []string{"gone"}, r.Missing)

	other := lines[0]
	other.Currency = "USD"
	assert.Equal(t, reconcile.AmountDiffers, reconcile.Match([]reconcile.Line{other}, items).Lines[0].Group)
}

func TestGaps(t *testing.T) {
	for _, c := range []struct {
		in                []int
		missing, repeated []int
	}{
		{nil, nil, nil},
		{[]int{1, 2, 3}, nil, nil},
		{[]int{3, 1, 0}, []int{2}, nil},
		{[]int{1, 2, 2, 5}, []int{3, 4}, []int{2}},
		{[]int{1, 1_000_000, 1}, []int{-1}, []int{1}},
	} {
		m, r := reconcile.Gaps(c.in)
		assert.Equal(t, c.missing, m, "%v", c.in)
		assert.Equal(t, c.repeated, r, "%v", c.in)
	}
}

// Every line lands in exactly one group, an item is named by at most one
// line, and every terminal item in the window is named or missing.
func TestMatchRapid(t *testing.T) {
	at := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "items")
		var items []reconcile.Item
		for i := range n {
			st := rapid.SampledFrom([]reconcile.ItemStatus{reconcile.InFlight, reconcile.ItemSucceeded, reconcile.ItemFailed}).Draw(t, "status")
			it := reconcile.Item{Kind: reconcile.Payout, ID: fmt.Sprintf("p%d", i), Amount: fmt.Sprint(rapid.IntRange(0, 5).Draw(t, "amount")),
				Currency: "MWK", Status: st, References: []string{fmt.Sprintf("p%d", i), rapid.SampledFrom([]string{"", "B1", "B2"}).Draw(t, "batch")}}
			if st != reconcile.InFlight {
				it.At = at.Add(time.Duration(rapid.IntRange(0, 10).Draw(t, "at")) * time.Hour)
			}
			items = append(items, it)
		}
		var lines []reconcile.Line
		for i := range rapid.IntRange(0, 12).Draw(t, "lines") {
			lines = append(lines, reconcile.Line{Number: i + 2, Reference: rapid.SampledFrom([]string{"p0", "p1", "p2", "p3", "B1", "B2", "zz"}).Draw(t, "ref"),
				Amount: fmt.Sprint(rapid.IntRange(0, 10).Draw(t, "amt")), Currency: "MWK",
				Status: rapid.SampledFrom([]reconcile.Status{reconcile.Succeeded, reconcile.Failed}).Draw(t, "st"),
				Time:   at.Add(time.Duration(rapid.IntRange(0, 10).Draw(t, "t")) * time.Hour)})
		}
		r := reconcile.Match(lines, items)
		if len(r.Lines) != len(lines) {
			t.Fatalf("%d lines in, %d out", len(lines), len(r.Lines))
		}
		named := map[string]int{}
		for i, m := range r.Lines {
			if m.Line != lines[i] {
				t.Fatalf("line %d changed", i)
			}
			if !map[reconcile.Group]bool{reconcile.Matched: true, reconcile.AmountDiffers: true, reconcile.StatusDiffers: true, reconcile.FileOnly: true}[m.Group] {
				t.Fatalf("line %d in group %q", i, m.Group)
			}
			if (m.Group == reconcile.FileOnly) != (len(m.Items) == 0) {
				t.Fatalf("line %d: group %s with items %v", i, m.Group, m.Items)
			}
			for _, id := range m.Items {
				named[id]++
			}
		}
		missing := map[string]bool{}
		for _, id := range r.Missing {
			missing[id] = true
		}
		for _, it := range items {
			if named[it.ID] > 1 || (named[it.ID] == 1 && missing[it.ID]) {
				t.Fatalf("%s named %d times, missing %v", it.ID, named[it.ID], missing[it.ID])
			}
			in := len(lines) > 0 && it.Status != reconcile.InFlight && !it.At.Before(r.From) && !it.At.After(r.To)
			if in && named[it.ID] == 0 && !missing[it.ID] {
				t.Fatalf("%s: terminal in the window, neither named nor missing", it.ID)
			}
			if missing[it.ID] && !in {
				t.Fatalf("%s missing but not terminal in the window", it.ID)
			}
		}
	})
}
