package tambala_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// TestDeskRaceSameMoveTwoPeople (issue #33): two desk clerks post the same
// move of one order at once. The order moves once, one audit entry names
// the one who moved it, and the other is told the order already moved
// (conflict, ErrOrderAlreadyMoved, naming who), not "done". The one who
// moved it repeating the move (a retry) gets the order unchanged; anyone
// else, the automation (admin API) included, is told.
func TestDeskRaceSameMoveTwoPeople(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		emails := [2]string{"desk-a@operator.example", "desk-b@operator.example"}
		var ops [2]*tambala.Operator
		for i, email := range emails {
			_, token := enrolStaff(t, d.e, d.ctx, d.clock, email, accounts.StaffDesk)
			op, err := d.e.Sessions().Operator(d.ctx, token)
			require.NoError(t, err)
			ops[i] = op
		}
		for _, cmd := range []orders.Command{orders.StartProcessing{}, orders.Cancel{}} {
			const rounds = 4
			for i := range rounds {
				o := d.toBank(t, "10")
				var errs [2]error
				var got [2]orders.Order
				deskRace(
					func() { got[0], errs[0] = ops[0].Desk().MoveOrder(d.ctx, o.ID, cmd) },
					func() { got[1], errs[1] = ops[1].Desk().MoveOrder(d.ctx, o.ID, cmd) },
				)
				winner := -1
				for j, err := range errs {
					if err == nil {
						require.Equal(t, -1, winner, "%s round %d: both were answered done", cmd.Name(), i)
						winner = j
						continue
					}
					require.True(t, errors.Is(err, tambala.ErrOrderAlreadyMoved), "%s round %d: %v", cmd.Name(), i, err)
					requireCode(t, errcode.Conflict, err)
					assert.Contains(t, errcode.Message(err), emails[1-j], "the message names who moved it")
				}
				require.NotEqual(t, -1, winner, "%s round %d: nobody moved the order", cmd.Name(), i)
				moved := d.order(t, o.ID)
				assert.Equal(t, got[winner], moved)
				assert.NotEqual(t, o.Status, moved.Status)

				trail, err := d.e.People().AuditTrail(d.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize},
					tambala.AuditFilter{Target: o.ID, Action: tambala.AuditOrderMoved})
				require.NoError(t, err)
				require.Len(t, trail.Items, 1, "one audit entry")
				assert.Equal(t, emails[winner], trail.Items[0].Actor.Email)

				// The winner's retry: unchanged. The loser again, and the
				// automation: told.
				again, err := ops[winner].Desk().MoveOrder(d.ctx, o.ID, cmd)
				require.NoError(t, err, "a retry by the one who moved it")
				assert.Equal(t, moved, again)
				_, err = ops[1-winner].Desk().MoveOrder(d.ctx, o.ID, cmd)
				require.True(t, errors.Is(err, tambala.ErrOrderAlreadyMoved), fmt.Sprint(err))
				_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, cmd)
				require.True(t, errors.Is(err, tambala.ErrOrderAlreadyMoved), fmt.Sprint(err))
				assert.Equal(t, moved, d.order(t, o.ID), "nothing changed")
			}
		}
		d.check(t)
	})
}
