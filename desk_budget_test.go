package tambala_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
)

// The desk's queue filtered by organization looks at a bounded number of
// orders a page: with a thousand newer orders of another organization in
// front of it, the first pages come back short (even empty) with a
// cursor, and paging on finds the organization's order once.
func TestDeskQueueByOrganizationLooksAtABoundedNumber(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	mine := d.toBank(t, "10")
	other := d.newOrg(t, "Busy", deskAssets())
	po := actFor(d.e, other.ID)
	for i := range 1005 {
		q, err := d.quoteFor(po, "MWK", "USDT", strp("5000.00"), nil)
		require.NoError(t, err)
		_, err = d.createFor(po, q.ID, fmt.Sprintf("ref-%d", i), nil, fmt.Sprintf("key-%d", i))
		require.NoError(t, err)
	}
	var found []string
	page, pages := tambala.PageRequest{}, 0
	for {
		pg, err := d.e.Operator().Desk().Orders(d.ctx, tambala.DeskQueue{OrgID: d.org.ID}, page)
		require.NoError(t, err)
		for _, o := range pg.Items {
			found = append(found, o.ID)
		}
		pages++
		if !pg.HasMore {
			require.Empty(t, pg.NextBeforeID)
			break
		}
		require.NotEmpty(t, pg.NextBeforeID)
		page.BeforeID = pg.NextBeforeID
		require.Less(t, pages, 10, "paging does not end")
	}
	require.Equal(t, []string{mine.ID}, found)
	require.Equal(t, 2, pages, "1,006 orders, a budget of 1,000 a page")
}
