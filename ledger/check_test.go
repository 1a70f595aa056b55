package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// validSnapshot is a hand-built, consistent ledger: a credit of 1000.00, a
// hold of 300.00 still open, a hold of 100.00 released, a credit of 5.00
// reversed.
func validSnapshot() ledger.Snapshot {
	ext := ledger.SystemAccount(ledger.External, mwk)
	av := ledger.OrgAccount(org, ledger.Available, mwk)
	hd := ledger.OrgAccount(org, ledger.Held, mwk)
	p := func(a ledger.Account, units int64) ledger.Posting {
		return ledger.Posting{Account: a, Amount: mw(units)}
	}
	return ledger.Snapshot{
		Balances: []ledger.BalanceChange{
			{Account: ext, Balance: mw(-100000)},
			{Account: av, Balance: mw(70000)},
			{Account: hd, Balance: mw(30000)},
		},
		Holds: []ledger.Hold{
			{ID: "hold-1", Org: org, Amount: mw(30000), Open: true, OpenedBy: "h-1"},
			{ID: "hold-2", Org: org, Amount: mw(10000), Open: false, OpenedBy: "h-2", ClosedBy: "r-2"},
		},
		Entries: []ledger.Entry{
			{ID: "c-1", Kind: ledger.KindCredit, Postings: []ledger.Posting{p(ext, -100000), p(av, 100000)}},
			{ID: "c-2", Kind: ledger.KindCredit, Postings: []ledger.Posting{p(ext, -500), p(av, 500)}},
			{ID: "h-1", Kind: ledger.KindHold, HoldID: "hold-1", Postings: []ledger.Posting{p(av, -30000), p(hd, 30000)}},
			{ID: "h-2", Kind: ledger.KindHold, HoldID: "hold-2", Postings: []ledger.Posting{p(av, -10000), p(hd, 10000)}},
			{ID: "r-2", Kind: ledger.KindRelease, HoldID: "hold-2", Postings: []ledger.Posting{p(hd, -10000), p(av, 10000)}},
			{ID: "rv-2", Kind: ledger.KindReverse, Reverses: "c-2", Postings: []ledger.Posting{p(ext, 500), p(av, -500)}},
		},
		Reversals: map[string]string{"c-2": "rv-2"},
	}
}

func entryIndex(s ledger.Snapshot, id string) int {
	for i, e := range s.Entries {
		if e.ID == id {
			return i
		}
	}
	panic("no entry " + id)
}

func balanceIndex(s ledger.Snapshot, a ledger.Account) int {
	for i, bc := range s.Balances {
		if bc.Account == a {
			return i
		}
	}
	panic("no balance " + a.String())
}

func TestCheckValid(t *testing.T) {
	require.NoError(t, ledger.Check(validSnapshot()))
	require.NoError(t, ledger.Check(ledger.Snapshot{}))
}

func TestCheckFindsProblems(t *testing.T) {
	ext := ledger.SystemAccount(ledger.External, mwk)
	av := ledger.OrgAccount(org, ledger.Available, mwk)
	hd := ledger.OrgAccount(org, ledger.Held, mwk)

	cases := []struct {
		name   string
		mutate func(s *ledger.Snapshot)
		want   []string // substrings, each of which some problem contains
	}{
		{
			name: "unbalanced entry",
			mutate: func(s *ledger.Snapshot) {
				i := entryIndex(*s, "c-1")
				s.Entries[i].Postings[1].Amount = mw(100001)
				s.Balances[balanceIndex(*s, av)].Balance = mw(70001) // stored balances still match the journal
			},
			want: []string{"entry c-1 does not balance in MWK: sums to 0.01"},
		},
		{
			name: "entry balancing only across assets",
			mutate: func(s *ledger.Snapshot) {
				i := entryIndex(*s, "c-1")
				s.Entries[i].Postings[0] = ledger.Posting{Account: ledger.SystemAccount(ledger.External, usdt), Amount: us(-100000)}
				s.Balances[balanceIndex(*s, ext)] = ledger.BalanceChange{Account: ledger.SystemAccount(ledger.External, usdt), Balance: us(-100000)}
				s.Balances = append(s.Balances, ledger.BalanceChange{Account: ext, Balance: mw(0)})
			},
			want: []string{"entry c-1 does not balance in MWK: sums to 1000.00", "entry c-1 does not balance in USDT"},
		},
		{
			name: "negative customer balance",
			mutate: func(s *ledger.Snapshot) {
				s.Entries = append(s.Entries, ledger.Entry{ID: "z", Kind: ledger.KindCredit, Postings: []ledger.Posting{
					{Account: av, Amount: mw(-70001)}, {Account: ext, Amount: mw(70001)},
				}})
				s.Balances[balanceIndex(*s, av)].Balance = mw(-1)
				s.Balances[balanceIndex(*s, ext)].Balance = mw(-29999)
			},
			want: []string{"customer account org/acme/available/MWK is negative: -0.01"},
		},
		{
			name: "held balance above open holds",
			mutate: func(s *ledger.Snapshot) {
				s.Holds[0].Amount = mw(20000)
			},
			want: []string{"held account org/acme/held/MWK is 300.00, its open holds sum to 200.00"},
		},
		{
			name: "hold closed without its held money moving",
			mutate: func(s *ledger.Snapshot) {
				s.Holds[0].Open, s.Holds[0].ClosedBy = false, "r-2"
			},
			want: []string{"held account org/acme/held/MWK is 300.00, its open holds sum to 0.00", "closed hold hold-1: closing entry \"r-2\" missing or not a release or capture of it"},
		},
		{
			name: "open holds without a held balance",
			mutate: func(s *ledger.Snapshot) {
				s.Holds = append(s.Holds, ledger.Hold{ID: "hold-u", Org: org, Amount: us(1), Open: true, OpenedBy: "h-1"})
			},
			want: []string{"open holds of org/acme/held/USDT sum to 0.000001 but the account has no balance", "hold hold-u: opening entry \"h-1\" missing or not its hold entry"},
		},
		{
			name: "hold without opening entry",
			mutate: func(s *ledger.Snapshot) {
				s.Holds[0].OpenedBy = "nope"
			},
			want: []string{"hold hold-1: opening entry \"nope\" missing or not its hold entry"},
		},
		{
			name: "open hold naming a closing entry",
			mutate: func(s *ledger.Snapshot) {
				s.Holds[0].ClosedBy = "r-2"
			},
			want: []string{"open hold hold-1 names closing entry r-2"},
		},
		{
			name: "hold of zero",
			mutate: func(s *ledger.Snapshot) {
				s.Holds[1].Amount = mw(0)
			},
			want: []string{"hold hold-2 has non-positive amount 0.00"},
		},
		{
			name: "stored balance not matching its journal",
			mutate: func(s *ledger.Snapshot) {
				s.Balances[balanceIndex(*s, ext)].Balance = mw(-100001)
			},
			want: []string{"account system/external/MWK holds -1000.01, its journal sums to -1000.00"},
		},
		{
			name: "stored balance without any journal",
			mutate: func(s *ledger.Snapshot) {
				s.Balances = append(s.Balances, ledger.BalanceChange{Account: ledger.SystemAccount(ledger.Fees, mwk), Balance: mw(1)})
			},
			want: []string{"account system/fees/MWK holds 0.01, its journal sums to 0.00"},
		},
		{
			name: "journal account without stored balance",
			mutate: func(s *ledger.Snapshot) {
				i := balanceIndex(*s, ext)
				s.Balances = append(s.Balances[:i], s.Balances[i+1:]...)
			},
			want: []string{"account system/external/MWK has journal sum -1000.00 but no stored balance"},
		},
		{
			name: "reversal mark without entry",
			mutate: func(s *ledger.Snapshot) {
				s.Reversals["c-1"] = "rv-missing"
			},
			want: []string{"reversal mark c-1 -> rv-missing does not name its reverse entry"},
		},
		{
			name: "reversal mark of a missing entry",
			mutate: func(s *ledger.Snapshot) {
				s.Reversals["gone"] = "rv-2"
			},
			want: []string{"reversal mark gone -> rv-2 does not name its reverse entry", "reversal mark for missing entry gone"},
		},
		{
			name: "reverse entry not marked",
			mutate: func(s *ledger.Snapshot) {
				delete(s.Reversals, "c-2")
			},
			want: []string{"reverse entry rv-2 is not marked on c-2"},
		},
		{
			name: "entry without postings",
			mutate: func(s *ledger.Snapshot) {
				s.Entries = append(s.Entries, ledger.Entry{ID: "empty", Kind: ledger.KindCredit})
			},
			want: []string{"entry empty has no postings"},
		},
		{
			name: "posting in another asset than its account",
			mutate: func(s *ledger.Snapshot) {
				s.Entries = append(s.Entries, ledger.Entry{ID: "mix", Kind: ledger.KindCredit, Postings: []ledger.Posting{
					{Account: ext, Amount: us(1)}, {Account: ext, Amount: us(-1)},
				}})
			},
			want: []string{"entry mix posts USDT to a MWK account"},
		},
		{
			name: "posting to an ownerless customer account",
			mutate: func(s *ledger.Snapshot) {
				s.Entries = append(s.Entries, ledger.Entry{ID: "own", Kind: ledger.KindCredit, Postings: []ledger.Posting{
					{Account: ledger.Account{Bucket: ledger.Available, Asset: mwk}, Amount: mw(1)}, {Account: ext, Amount: mw(-1)},
				}})
				s.Balances[balanceIndex(*s, ext)].Balance = mw(-100001)
				s.Balances = append(s.Balances, ledger.BalanceChange{Account: ledger.Account{Bucket: ledger.Available, Asset: mwk}, Balance: mw(1)})
			},
			want: []string{"entry own: ledger: available account needs an owner"},
		},
		{
			name: "held account changed without a hold",
			mutate: func(s *ledger.Snapshot) {
				s.Entries = append(s.Entries, ledger.Entry{ID: "sneak", Kind: ledger.KindCredit, Postings: []ledger.Posting{
					{Account: hd, Amount: mw(1)}, {Account: ext, Amount: mw(-1)},
				}})
				s.Balances[balanceIndex(*s, ext)].Balance = mw(-100001)
				s.Balances[balanceIndex(*s, hd)].Balance = mw(30001)
			},
			want: []string{"held account org/acme/held/MWK is 300.01, its open holds sum to 300.00"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := validSnapshot()
			tc.mutate(&snap)
			err := ledger.Check(snap)
			require.Error(t, err)
			var ce *ledger.CheckError
			require.True(t, errors.As(err, &ce), "%T", err)
			for _, w := range tc.want {
				found := false
				for _, p := range ce.Problems {
					found = found || strings.Contains(p, w)
				}
				assert.True(t, found, "want a problem containing %q, got:\n%s", w, strings.Join(ce.Problems, "\n"))
			}
			assert.Contains(t, err.Error(), tc.want[0])
		})
	}
}

// TestCheckStoreReadsTheStore tampers with a stored balance under the
// ledger's own layout and expects CheckStore to notice.
func TestCheckStoreReadsTheStore(t *testing.T) {
	s := newMem(t)
	mustPost(t, s, credit1000, hold300)
	require.NoError(t, ledger.CheckStore(bg, s))

	bucket := []byte("ledger.balances")
	var key, old []byte
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		return tx.Scan(bucket, store.ScanOptions{Prefix: []byte(org + "\x00MWK\x00available")}, func(k, v []byte) (bool, error) {
			key, old = k, v
			return false, nil
		})
	}))
	require.NotNil(t, key, "the balances bucket layout changed; update this test")
	require.NoError(t, s.Update(bg, func(tx store.Tx) error { return tx.Put(bucket, key, append([]byte{2}, "700.01"...)) }))
	err := ledger.CheckStore(bg, s)
	var ce *ledger.CheckError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "account org/acme/available/MWK holds 700.01, its journal sums to 700.00")
	require.NoError(t, s.Update(bg, func(tx store.Tx) error { return tx.Put(bucket, key, old) }))
}

// TestCorruptRecords: records the ledger cannot decode are errors for
// ReadSnapshot, CheckStore and any Post that reads them, never panics or
// silent zeros.
func TestCorruptRecords(t *testing.T) {
	hold9 := ledger.PlaceHold{EntryID: "h-9", HoldID: "hold-9", Org: org, Amount: mw(1)}
	cases := []struct {
		name        string
		bucket, key string
		value       string
		post        ledger.Command // a command that reads the record
	}{
		{"balance value", "ledger.balances", org + "\x00MWK\x00available", "\x02not a number", hold9},
		{"short balance value", "ledger.balances", org + "\x00MWK\x00available", "\x02", hold9},
		{"balance key", "ledger.balances", "no separators", "\x021.00", nil},
		{"entry", "ledger.entries", "c-1", "{not json", credit1000},
		{"entry amount", "ledger.entries", "c-1", `{"id":"c-1","k":"credit","p":[{"b":"external","m":{"a":"MWK","d":2,"v":"x"}}]}`, reverseC1},
		{"hold", "ledger.holds", "hold-1", "[]", release1},
		{"hold amount", "ledger.holds", "hold-1", `{"id":"hold-1","m":{"a":"MWK","d":2,"v":"-"}}`, release1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newMemUnchecked(t)
			mustPost(t, s, credit1000, hold300)
			require.NoError(t, s.Update(bg, func(tx store.Tx) error {
				return tx.Put([]byte(tc.bucket), []byte(tc.key), []byte(tc.value))
			}))
			require.Error(t, s.View(bg, func(tx store.Tx) error { _, err := ledger.ReadSnapshot(tx); return err }))
			err := ledger.CheckStore(bg, s)
			require.Error(t, err)
			var ce *ledger.CheckError
			assert.False(t, errors.As(err, &ce), "a decoding failure is not a CheckError: %v", err)
			if tc.post != nil {
				_, err := post(s, tc.post)
				require.Error(t, err)
			}
		})
	}
}

func newMemUnchecked(t *testing.T) store.Store {
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	return s
}
