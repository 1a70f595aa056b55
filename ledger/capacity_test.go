package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// The ledger never writes a balance it cannot read: a posting that would
// take an account to 10^MaxBalanceDigits whole units or beyond is refused
// whole, with a coded error, and leaves nothing behind.
func TestCapacityRefusedWhole(t *testing.T) {
	for name, s := range map[string]store.Store{"memstore": newMem(t), "boltstore": newBolt(t, nil)} {
		t.Run(name, func(t *testing.T) {
			tenth, err := money.ParseSigned(usdt, "1"+strings.Repeat("0", ledger.MaxBalanceDigits-1))
			require.NoError(t, err)
			// Nine credits of 10^39 leave External at -(9 * 10^39): held.
			for i := range 9 {
				mustPost(t, s, ledger.Credit{EntryID: "c" + string(rune('0'+i)), Org: "org-secret", Amount: tenth})
			}
			before := snapshot(t, s)
			_, err = post(s, ledger.Credit{EntryID: "c9", Org: "org-secret", Amount: tenth})
			require.ErrorIs(t, err, ledger.ErrCapacity)
			require.ErrorIs(t, err, errcode.New(errcode.LimitExceeded))
			var ce *errcode.Error
			require.True(t, errors.As(err, &ce))
			require.NotContains(t, ce.Message, "org-secret", "the message names no organization")
			require.Equal(t, render(before), render(snapshot(t, s)), "nothing written")

			// A single posting of 10^40 is refused too, on a fresh account.
			whole, err := money.ParseSigned(usdt, "1"+strings.Repeat("0", ledger.MaxBalanceDigits))
			require.NoError(t, err)
			_, err = post(s, ledger.Credit{EntryID: "big", Org: "p", Amount: whole})
			require.ErrorIs(t, err, ledger.ErrCapacity)

			// Every balance still reads back, and moving money out works.
			b := balanceOf(t, s, "org-secret", usdt)
			require.Equal(t, "9"+strings.Repeat("0", ledger.MaxBalanceDigits-1)+".000000", b.Available.String())
			mustPost(t, s, ledger.PlaceHold{EntryID: "h", HoldID: "h", Org: "org-secret", Amount: tenth})
			mustPost(t, s, ledger.CaptureHold{EntryID: "x", HoldID: "h", Amount: tenth})
			require.NoError(t, ledger.CheckStore(bg, s))
		})
	}
}

// A store written before the bound holds balances beyond the wire's 30
// digits (sums of 30-digit amounts): they read back, and postings go on.
func TestBalancesBeyondWireDigitsReadBack(t *testing.T) {
	s := newBolt(t, nil)
	big, err := money.Parse(usdt, "9"+strings.Repeat("0", money.MaxIntegerDigits-1))
	require.NoError(t, err)
	for _, id := range []string{"a", "b", "c"} {
		mustPost(t, s, ledger.Credit{EntryID: id, Org: "o", Amount: big})
	}
	ext := accountOf(t, s, ledger.SystemAccount(ledger.External, usdt))
	require.Equal(t, "-27"+strings.Repeat("0", money.MaxIntegerDigits-1)+".000000", ext.String())
	mustPost(t, s, ledger.Credit{EntryID: "small", Org: "q", Amount: us(1)})
	require.Equal(t, "0.000001", balanceOf(t, s, "q", usdt).Available.String())
	require.NoError(t, ledger.CheckStore(bg, s))
}
