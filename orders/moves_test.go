package orders_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/orders"
)

// The desk's moves, as every transport has spelled them since the desk
// opened: the names are wire bytes (the admin API's paths, the console's
// forms, the command's arguments) and never change.
func TestMoveNames(t *testing.T) {
	assert.Equal(t, []string{"processing", "coins-sent", "complete", "fail", "cancel",
		"refund-returned", "instructions", "reject-proof", "confirm-funds"}, orders.MoveNames())
}

func TestParseMove(t *testing.T) {
	deadline := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	all := orders.MoveFields{Code: orders.NotDelivered, BankName: "b", AccountName: "a", AccountNumber: "1",
		Reference: "REF001", Deadline: &deadline, ProofID: "p", Reason: "r"}
	want := map[string]orders.Command{
		"processing":      orders.StartProcessing{},
		"coins-sent":      orders.CoinsSent{},
		"complete":        orders.Complete{},
		"fail":            orders.Fail{Code: orders.NotDelivered},
		"cancel":          orders.Cancel{},
		"refund-returned": orders.ReturnRefund{},
		"instructions": orders.Instructions{BankName: "b", AccountName: "a", AccountNumber: "1",
			Reference: "REF001", Deadline: &deadline},
		"reject-proof":  orders.RejectProof{ProofID: "p", Reason: "r"},
		"confirm-funds": orders.ConfirmFunds{ProofID: "p"},
	}
	require.Len(t, orders.MoveNames(), len(want))
	for _, name := range orders.MoveNames() {
		cmd, err := orders.ParseMove(name, all)
		require.NoError(t, err, name)
		assert.Equal(t, want[name], cmd, name)
		assert.Equal(t, name, cmd.Name(), "a move's command answers its name")
	}
	for _, name := range []string{"", "teleport", "Processing", "proof upload", "expire", "fail "} {
		cmd, err := orders.ParseMove(name, all)
		assert.Nil(t, cmd, name)
		var unknown *orders.UnknownMoveError
		require.True(t, errors.As(err, &unknown), "%q: %v", name, err)
		assert.Equal(t, name, unknown.Name)
	}
}

func TestMoveTakes(t *testing.T) {
	fields, required, ok := orders.MoveTakes("instructions")
	require.True(t, ok)
	assert.Equal(t, []string{"bank_name", "account_name", "account_number", "reference", "deadline"}, fields)
	assert.Equal(t, []string{"bank_name", "account_name", "account_number"}, required)
	fields, required, ok = orders.MoveTakes("processing")
	assert.True(t, ok)
	assert.Empty(t, fields)
	assert.Empty(t, required)
	_, _, ok = orders.MoveTakes("teleport")
	assert.False(t, ok)
	// The slices are the caller's: changing them changes nothing here.
	fields, _, _ = orders.MoveTakes("fail")
	fields[0] = "x"
	again, _, _ := orders.MoveTakes("fail")
	assert.Equal(t, []string{"code"}, again)
	// Every required field is one the move takes.
	for _, name := range orders.MoveNames() {
		fields, required, ok := orders.MoveTakes(name)
		require.True(t, ok, name)
		assert.Subset(t, fields, required, name)
	}
}
