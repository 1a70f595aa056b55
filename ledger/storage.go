package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// The ledger's buckets in the store. The ledger owns their layout; nothing
// else reads or writes them.
var (
	bucketBalances  = []byte("ledger.balances")
	bucketEntries   = []byte("ledger.entries")
	bucketHolds     = []byte("ledger.holds")
	bucketReversals = []byte("ledger.reversals")
)

// Post plans cmd against the ledger in tx and writes its effect there: the
// entry, the new balances, the holds and any reversal mark. A replay of an
// already posted command writes nothing and returns Replayed. On error
// nothing is written.
func Post(tx store.Tx, cmd Command) (Effect, error) {
	st := TxState(tx)
	eff, err := Plan(st, cmd)
	if err != nil || eff.Replayed {
		return eff, err
	}
	if err := write(tx, eff); err != nil {
		return Effect{}, err
	}
	return eff, nil
}

func write(tx store.Tx, eff Effect) error {
	// Encode and validate every record before the first Put, so that a
	// failure (an At that JSON cannot encode, a record above the store's
	// limits) leaves nothing in tx, even when the caller goes on to commit.
	type record struct{ bucket, key, value []byte }
	recs := make([]record, 0, len(eff.Balances)+len(eff.Holds)+2)
	for _, bc := range eff.Balances {
		recs = append(recs, record{bucketBalances, balanceKey(bc.Account), encodeAmount(bc.Balance)})
	}
	for _, h := range eff.Holds {
		b, err := json.Marshal(holdToWire(h))
		if err != nil {
			return err
		}
		recs = append(recs, record{bucketHolds, []byte(h.ID), b})
	}
	b, err := json.Marshal(entryToWire(eff.Entry))
	if err != nil {
		return err
	}
	recs = append(recs, record{bucketEntries, []byte(eff.Entry.ID), b})
	if eff.Entry.Kind == KindReverse {
		recs = append(recs, record{bucketReversals, []byte(eff.Entry.Reverses), []byte(eff.Entry.ID)})
	}
	for _, r := range recs {
		if err := store.CheckPut(r.bucket, r.key, r.value); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if err := tx.Put(r.bucket, r.key, r.value); err != nil {
			return err
		}
	}
	return nil
}

// TxState is the State of the ledger in tx.
func TxState(tx store.Tx) State { return txState{tx} }

type txState struct{ tx store.Tx }

func (s txState) Balance(a Account) (money.Amount, error) {
	v, err := s.tx.Get(bucketBalances, balanceKey(a))
	if errors.Is(err, store.ErrNotFound) {
		return money.Zero(a.Asset), nil
	}
	if err != nil {
		return money.Amount{}, err
	}
	return decodeAmount(a.Asset.Code, v, &a.Asset)
}

func (s txState) Hold(id string) (Hold, bool, error) {
	v, err := s.tx.Get(bucketHolds, []byte(id))
	if errors.Is(err, store.ErrNotFound) {
		return Hold{}, false, nil
	}
	if err != nil {
		return Hold{}, false, err
	}
	h, err := decodeHold(v)
	return h, err == nil, err
}

func (s txState) Entry(id string) (Entry, bool, error) {
	v, err := s.tx.Get(bucketEntries, []byte(id))
	if errors.Is(err, store.ErrNotFound) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	e, err := decodeEntry(v)
	return e, err == nil, err
}

func (s txState) ReversedBy(id string) (string, error) {
	v, err := s.tx.Get(bucketReversals, []byte(id))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return string(v), err
}

// ReadBalance returns an organization's available and held balance in asset
// (zeros when it has none).
func ReadBalance(tx store.Tx, org string, asset money.Asset) (Balance, error) {
	st := txState{tx}
	av, err := st.Balance(OrgAccount(org, Available, asset))
	if err != nil {
		return Balance{}, err
	}
	hd, err := st.Balance(OrgAccount(org, Held, asset))
	if err != nil {
		return Balance{}, err
	}
	sf, err := st.Balance(OrgAccount(org, Shortfall, asset))
	if err != nil {
		return Balance{}, err
	}
	return Balance{Asset: asset, Available: av, Held: hd, Shortfall: sf.Neg().Abs()}, nil
}

// ReadAccount returns any account's balance.
func ReadAccount(tx store.Tx, a Account) (money.Amount, error) { return txState{tx}.Balance(a) }

// GetHold returns the hold with id, or ErrHoldNotFound.
func GetHold(tx store.Tx, id string) (Hold, error) {
	h, ok, err := txState{tx}.Hold(id)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s", ErrHoldNotFound, id)
	}
	return h, err
}

// GetEntry returns the entry with id, or ErrEntryNotFound.
func GetEntry(tx store.Tx, id string) (Entry, error) {
	e, ok, err := txState{tx}.Entry(id)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s", ErrEntryNotFound, id)
	}
	return e, err
}

// Snapshot is everything the ledger holds, in key order.
type Snapshot struct {
	Balances  []BalanceChange
	Holds     []Hold
	Entries   []Entry
	Reversals map[string]string // reversed entry id -> reversing entry id
}

// ReadSnapshot reads the whole ledger in tx.
func ReadSnapshot(tx store.Tx) (Snapshot, error) {
	snap := Snapshot{Reversals: map[string]string{}}
	err := tx.Scan(bucketBalances, store.ScanOptions{}, func(k, v []byte) (bool, error) {
		a, err := parseBalanceKey(k)
		if err != nil {
			return false, err
		}
		amt, err := decodeAmount(a.Asset.Code, v, nil)
		if err != nil {
			return false, err
		}
		a.Asset = amt.Asset()
		snap.Balances = append(snap.Balances, BalanceChange{Account: a, Balance: amt})
		return true, nil
	})
	if err != nil {
		return Snapshot{}, err
	}
	err = tx.Scan(bucketHolds, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		h, err := decodeHold(v)
		snap.Holds = append(snap.Holds, h)
		return err == nil, err
	})
	if err != nil {
		return Snapshot{}, err
	}
	err = tx.Scan(bucketEntries, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		e, err := decodeEntry(v)
		snap.Entries = append(snap.Entries, e)
		return err == nil, err
	})
	if err != nil {
		return Snapshot{}, err
	}
	err = tx.Scan(bucketReversals, store.ScanOptions{}, func(k, v []byte) (bool, error) {
		snap.Reversals[string(k)] = string(v)
		return true, nil
	})
	return snap, err
}

// balanceKey is owner NUL asset NUL bucket; system accounts have an empty
// owner, so they sort first.
func balanceKey(a Account) []byte {
	k := make([]byte, 0, len(a.Owner)+len(a.Asset.Code)+len(a.Bucket)+2)
	k = append(k, a.Owner...)
	k = append(k, 0)
	k = append(k, a.Asset.Code...)
	k = append(k, 0)
	return append(k, a.Bucket...)
}

func parseBalanceKey(k []byte) (Account, error) {
	parts := strings.Split(string(k), "\x00")
	if len(parts) != 3 {
		return Account{}, fmt.Errorf("ledger: bad balance key %q", k)
	}
	return Account{Owner: parts[0], Asset: money.Asset{Code: parts[1]}, Bucket: Bucket(parts[2])}, nil
}

// encodeAmount is one byte of decimals, then the signed decimal text.
func encodeAmount(a money.Amount) []byte {
	b := make([]byte, 1, 24)
	b[0] = byte(a.Asset().Decimals)
	b, _ = a.AppendText(b)
	return b
}

// decodeAmount decodes an amount of asset code; when want is set, its
// decimals must match the stored ones.
func decodeAmount(code string, v []byte, want *money.Asset) (money.Amount, error) {
	if len(v) < 2 {
		return money.Amount{}, fmt.Errorf("ledger: bad stored amount %q", v)
	}
	asset := money.Asset{Code: code, Decimals: int32(v[0])}
	if want != nil && *want != asset {
		return money.Amount{}, fmt.Errorf("ledger: %s is stored with %d decimals, configured with %d", code, asset.Decimals, want.Decimals)
	}
	return money.ParseSigned(asset, string(v[1:]))
}

type wireAmount struct {
	Asset    string `json:"a"`
	Decimals int32  `json:"d"`
	Value    string `json:"v"`
}

func amountToWire(a money.Amount) wireAmount {
	return wireAmount{Asset: a.Asset().Code, Decimals: a.Asset().Decimals, Value: a.String()}
}

func (w wireAmount) amount() (money.Amount, error) {
	return money.ParseSigned(money.Asset{Code: w.Asset, Decimals: w.Decimals}, w.Value)
}

type wirePosting struct {
	Owner  string     `json:"o,omitempty"`
	Bucket Bucket     `json:"b"`
	Amount wireAmount `json:"m"`
}

type wireEntry struct {
	ID       string        `json:"id"`
	Kind     Kind          `json:"k"`
	Ref      string        `json:"r,omitempty"`
	HoldID   string        `json:"h,omitempty"`
	Reverses string        `json:"rv,omitempty"`
	At       time.Time     `json:"at"`
	Postings []wirePosting `json:"p"`
	Digest   string        `json:"dg"`
}

func entryToWire(e Entry) wireEntry {
	w := wireEntry{ID: e.ID, Kind: e.Kind, Ref: e.Ref, HoldID: e.HoldID, Reverses: e.Reverses, At: e.At.UTC(), Digest: e.Digest}
	for _, p := range e.Postings {
		w.Postings = append(w.Postings, wirePosting{Owner: p.Account.Owner, Bucket: p.Account.Bucket, Amount: amountToWire(p.Amount)})
	}
	return w
}

func decodeEntry(v []byte) (Entry, error) {
	var w wireEntry
	if err := json.Unmarshal(v, &w); err != nil {
		return Entry{}, fmt.Errorf("ledger: bad stored entry: %w", err)
	}
	e := Entry{ID: w.ID, Kind: w.Kind, Ref: w.Ref, HoldID: w.HoldID, Reverses: w.Reverses, At: w.At, Digest: w.Digest}
	for _, p := range w.Postings {
		a, err := p.Amount.amount()
		if err != nil {
			return Entry{}, err
		}
		e.Postings = append(e.Postings, Posting{Account: Account{Owner: p.Owner, Bucket: p.Bucket, Asset: a.Asset()}, Amount: a})
	}
	return e, nil
}

type wireHold struct {
	ID       string     `json:"id"`
	Org      string     `json:"org"`
	Amount   wireAmount `json:"m"`
	Ref      string     `json:"r,omitempty"`
	Open     bool       `json:"open"`
	OpenedBy string     `json:"ob"`
	ClosedBy string     `json:"cb,omitempty"`
}

func holdToWire(h Hold) wireHold {
	return wireHold{ID: h.ID, Org: h.Org, Amount: amountToWire(h.Amount), Ref: h.Ref, Open: h.Open, OpenedBy: h.OpenedBy, ClosedBy: h.ClosedBy}
}

func decodeHold(v []byte) (Hold, error) {
	var w wireHold
	if err := json.Unmarshal(v, &w); err != nil {
		return Hold{}, fmt.Errorf("ledger: bad stored hold: %w", err)
	}
	a, err := w.Amount.amount()
	if err != nil {
		return Hold{}, err
	}
	return Hold{ID: w.ID, Org: w.Org, Amount: a, Ref: w.Ref, Open: w.Open, OpenedBy: w.OpenedBy, ClosedBy: w.ClosedBy}, nil
}
