package ledger_test

import (
	"context"

	"github.com/tambalapay/tambala/adapters/memstore"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// Ids, orgs and refs are stored in JSON records, which cannot carry
// invalid UTF-8 (encoding/json replaces it with U+FFFD). Such a command is
// refused rather than stored under a different name than it was posted.
func TestInvalidUTF8Refused(t *testing.T) {
	s := newMem(t)
	mustPost(t, s, credit1000, hold300)
	for _, c := range cmds(
		ledger.Credit{EntryID: "c-9", Org: "acme\xff", Amount: mw(100)},
		ledger.Credit{EntryID: "c-9", Org: org, Amount: mw(100), Ref: "dep\xff"},
		ledger.Credit{EntryID: "c-9\xff", Org: org, Amount: mw(100)},
		ledger.PlaceHold{EntryID: "h-9", HoldID: "hold\xff", Org: org, Amount: mw(100)},
		ledger.PlaceHold{EntryID: "h-9", HoldID: "hold-9", Org: org, Amount: mw(100), Ref: "\xfe"},
		ledger.ReleaseHold{EntryID: "r-9", HoldID: "hold-1", Ref: "\xc3"},
		ledger.CaptureHold{EntryID: "x-9", HoldID: "hold-1", Ref: "\xc3"},
		ledger.Reverse{EntryID: "rv-9", Of: "c-1", Ref: "\x80"},
		ledger.Convert{EntryID: "cv-9", Org: org, From: mw(1), To: us(1), Ref: "\x80"},
	) {
		_, err := post(s, c)
		require.ErrorIs(t, err, ledger.ErrInvalidCommand, "%#v", c)
	}
	// Valid non-ASCII text is fine, and replays.
	c := ledger.Credit{EntryID: "c-ü", Org: "Ñandú", Amount: mw(100), Ref: "déjà vu"}
	mustPost(t, s, c)
	eff, err := post(s, c)
	require.NoError(t, err)
	require.True(t, eff.Replayed)
}

// An asset code is part of the balance key, whose parts are NUL-separated.
func TestAssetCodeWithNULRefused(t *testing.T) {
	s := newMem(t)
	odd := money.Asset{Code: "M\x00K", Decimals: 2}
	_, err := post(s, ledger.Credit{EntryID: "c-9", Org: org, Amount: money.FromUnits(odd, 100)})
	require.ErrorIs(t, err, ledger.ErrInvalidCommand)
}

// A Post that fails leaves nothing in the caller's transaction, even when
// the failure comes after planning (here: a ref too long for the store's
// largest value, which only the encoded records reveal), so a caller that
// goes on and commits does not commit half an entry.
func TestFailedPostLeavesNothingInTx(t *testing.T) {
	s := newMem(t)
	mustPost(t, s, credit1000)
	before := render(snapshot(t, s))
	require.NoError(t, s.Update(bg, func(tx store.Tx) error {
		_, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "h-9", HoldID: "hold-9", Org: org, Amount: mw(100),
			Ref: strings.Repeat("r", store.MaxValueSize), At: t0})
		require.Error(t, err)
		snap, err := ledger.ReadSnapshot(tx)
		require.NoError(t, err)
		assert.Equal(t, before, render(snap))
		return nil // the caller commits anyway
	}))
	assert.Equal(t, before, render(snapshot(t, s)))
}

func TestDigestSpellingsOfZero(t *testing.T) {
	s := memstore.New()
	ctx := context.Background()
	credit := ledger.Credit{EntryID: "c", Org: "o", Amount: money.FromInt(money.MWK, 10)}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { _, err := ledger.Post(tx, credit); return err }))
	credit.Fee = money.Zero(money.MWK)
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		eff, err := ledger.Post(tx, credit)
		if err == nil && !eff.Replayed {
			t.Error("an explicit zero fee must replay the unset fee")
		}
		return err
	}))
	// Length-prefixed fields: moving a separator between ref and org is a
	// different command.
	a := ledger.Credit{EntryID: "x", Org: "o\x1fp", Amount: money.FromInt(money.MWK, 1), Ref: "r"}
	b := ledger.Credit{EntryID: "x", Org: "o", Amount: money.FromInt(money.MWK, 1), Ref: "p\x1fr"}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { _, err := ledger.Post(tx, a); return err }))
	err := s.Update(ctx, func(tx store.Tx) error { _, err := ledger.Post(tx, b); return err })
	assert.ErrorIs(t, err, ledger.ErrEntryIDReused)
}
