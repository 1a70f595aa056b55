package tambala_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
)

func TestPageRequestRange(t *testing.T) {
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 0)
	for _, limit := range []int{-1, 201} {
		_, err := e.Client(p).V1().Payouts(context.Background(), tambala.PageRequest{Limit: limit}, tambala.PayoutFilter{})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "limit %d", limit)
	}
	page, err := e.Client(p).V1().Payouts(context.Background(), tambala.PageRequest{}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

func ids(t *testing.T, items []payouts.Payout) []string {
	var out []string
	for _, p := range items {
		out = append(out, p.ID)
	}
	return out
}

func TestPayouts_KeysetPages(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 10_000_000)
	q, _ := orgWithKey(t, e, "B", 10_000_000)
	var made []string
	seq := 0
	add := func(who tambala.Principal, n int) {
		for range n {
			seq++
			out := create(t, e, who, "k"+strconv.Itoa(seq), bankPayout("10"))
			var po struct{ ID string }
			require.NoError(t, json.Unmarshal(out.Body, &po))
			if who.Org.ID == p.Org.ID {
				made = append(made, po.ID)
			}
		}
	}
	add(p, 5)
	add(q, 3) // interleaved organization

	var walked []string
	req := tambala.PageRequest{Limit: 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		page, err := e.Client(p).V1().Payouts(ctx, req, tambala.PayoutFilter{})
		require.NoError(t, err)
		walked = append(walked, ids(t, page.Items)...)
		if !page.HasMore {
			assert.Empty(t, page.NextBeforeID)
			break
		}
		assert.Equal(t, walked[len(walked)-1], page.NextBeforeID)
		add(p, 1) // inserts between pages never show up in this walk
		req.BeforeID = page.NextBeforeID
	}
	want := slices.Clone(made[:5])
	slices.Reverse(want)
	assert.Equal(t, want, walked)

	// A cursor from another organization's list, or an unknown one, is
	// validation_error.
	other, err := e.Client(q).V1().Payouts(ctx, tambala.PageRequest{Limit: 1}, tambala.PayoutFilter{})
	require.NoError(t, err)
	require.NotEmpty(t, other.NextBeforeID)
	_, err = e.Client(p).V1().Payouts(ctx, tambala.PageRequest{Limit: 2, BeforeID: other.NextBeforeID}, tambala.PayoutFilter{})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, err = e.Client(p).V1().Payouts(ctx, tambala.PageRequest{BeforeID: "nope"}, tambala.PayoutFilter{})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))

	// Limit 0 means the default.
	all, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Len(t, all.Items, len(made))
	assert.False(t, all.HasMore)

	// A status filter with nothing matching says has_more false.
	none, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{Limit: 1}, tambala.PayoutFilter{Status: "succeeded"})
	require.NoError(t, err)
	assert.Empty(t, none.Items)
	assert.False(t, none.HasMore)
}
