package reconcile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/reconcile"
)

func TestMatchedLinesAndInFlight(t *testing.T) {
	l1 := reconcile.Line{Number: 1, Reference: "po_1"}
	l2 := reconcile.Line{Number: 2, Reference: "po_2"}
	ms := []reconcile.LineMatch{
		{Line: l1, Group: reconcile.Matched, Items: []string{"po_1", "col_1"}},
		{Line: l2, Group: reconcile.StatusDiffers, Items: []string{"po_2"}},
	}
	lineOf := reconcile.MatchedLines(ms)
	assert.Equal(t, map[string]reconcile.Line{"po_1": l1, "col_1": l1}, lineOf)

	byID := reconcile.ByID([]reconcile.Item{
		{Kind: reconcile.Payout, ID: "po_1", Status: reconcile.InFlight},
		{Kind: reconcile.Collection, ID: "col_1", Status: reconcile.ItemSucceeded},
		{Kind: reconcile.Payout, ID: "po_2", Status: reconcile.ItemSucceeded},
	})
	assert.Equal(t, []string{"po_1"}, reconcile.PayoutsInFlight(ms[0], byID))
	assert.Nil(t, reconcile.PayoutsInFlight(ms[1], byID))
}

func TestSettles(t *testing.T) {
	l := reconcile.Line{Number: 7, Reference: "prov-9", Status: reconcile.Failed}
	s := reconcile.Settles(l, "po_1", "bank.csv", "", 100)
	assert.Equal(t, reconcile.Settlement{Failed: true, Reference: "prov-9", Reason: `settled per settlement file "bank.csv" line 7`}, s)

	l = reconcile.Line{Number: 3, Reference: "po_1", Status: reconcile.Succeeded}
	s = reconcile.Settles(l, "po_1", "bank.csv", "checked", 100)
	assert.Equal(t, reconcile.Settlement{Reason: `checked (settlement file "bank.csv" line 3)`}, s)

	l.Reference = strings.Repeat("r", 101)
	assert.Empty(t, reconcile.Settles(l, "po_1", "f", "", 100).Reference)
}
