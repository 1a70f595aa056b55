package ledger

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tambalapay/tambala/internal/binrec"
	"github.com/tambalapay/tambala/money"
)

// The ledger's records are binary: a hold is written on every payout and
// read on every settlement, so encoding them is on the hot path, and a
// JSON record cost more than the rest of a hold together. The layouts:
//
//	balance: decimals(1) 0x00 units(8, big-endian two's complement)
//	         or decimals(1) signed decimal text, for values beyond int64
//	         minor units (and every balance written before the binary form)
//	hold:    0x01 id org amount ref open(1) openedBy closedBy
//	entry:   0x01 id kind ref holdID reverses seconds(varint) nanos(uvarint)
//	         digest count(uvarint) { owner bucket amount }
//
// where a string is uvarint length + bytes and an amount is code decimals(1)
// then 0x00 units(varint) or 0x01 text (a string). Records that start with
// '{' are the JSON of earlier versions and still decode.

const recordV1 = 0x01

// balanceKey is owner NUL asset NUL bucket; system accounts have an empty
// owner, so they sort first.
func appendBalanceKey(k []byte, a Account) []byte {
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
	return Account{Owner: parts[0], Asset: money.Asset{Code: money.AssetCode(parts[1])}, Bucket: Bucket(parts[2])}, nil
}

// appendAmountValue appends a balance record's value.
func appendAmountValue(b []byte, a money.Amount) []byte {
	b = append(b, byte(a.Asset().Decimals))
	if u, ok := a.Units(); ok {
		b = append(b, 0)
		return binary.BigEndian.AppendUint64(b, uint64(u))
	}
	b, _ = a.AppendText(b)
	return b
}

// decodeAmountValue decodes a balance of asset code; when want is set, its
// decimals must match the stored ones.
func decodeAmountValue(code string, v []byte, want *money.Asset) (money.Amount, error) {
	if len(v) < 2 {
		return money.Amount{}, fmt.Errorf("ledger: bad stored amount %q", v)
	}
	asset := money.Asset{Code: money.AssetCode(code), Decimals: int32(v[0])}
	if asset.Decimals > money.MaxDecimals {
		return money.Amount{}, fmt.Errorf("ledger: bad stored amount: %d decimals", asset.Decimals)
	}
	if want != nil && *want != asset {
		return money.Amount{}, fmt.Errorf("ledger: %s is stored with %d decimals, configured with %d", code, asset.Decimals, want.Decimals)
	}
	if v[1] == 0 {
		if len(v) != 10 {
			return money.Amount{}, fmt.Errorf("ledger: bad stored amount %q", v)
		}
		return money.FromUnits(asset, int64(binary.BigEndian.Uint64(v[2:]))), nil
	}
	return money.ParseSigned(asset, string(v[1:]))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendAmount(b []byte, a money.Amount) []byte {
	b = appendString(b, string(a.Asset().Code))
	b = append(b, byte(a.Asset().Decimals))
	if u, ok := a.Units(); ok {
		b = append(b, 0)
		return binary.AppendVarint(b, u)
	}
	b = append(b, 1)
	var tmp [80]byte
	t, _ := a.AppendText(tmp[:0])
	b = binary.AppendUvarint(b, uint64(len(t)))
	return append(b, t...)
}

func appendHold(b []byte, h *Hold) []byte {
	b = append(b, recordV1)
	b = appendString(b, h.ID)
	b = appendString(b, h.Org)
	b = appendAmount(b, h.Amount)
	b = appendString(b, h.Ref)
	open := byte(0)
	if h.Open {
		open = 1
	}
	b = append(b, open)
	b = appendString(b, h.OpenedBy)
	return appendString(b, h.ClosedBy)
}

func appendEntry(b []byte, e *Entry) []byte {
	b = append(b, recordV1)
	b = appendString(b, e.ID)
	b = appendString(b, string(e.Kind))
	b = appendString(b, e.Ref)
	b = appendString(b, e.HoldID)
	b = appendString(b, e.Reverses)
	b = binary.AppendVarint(b, e.At.Unix())
	b = binary.AppendUvarint(b, uint64(e.At.Nanosecond()))
	b = appendString(b, e.Digest)
	b = binary.AppendUvarint(b, uint64(len(e.Postings)))
	for _, p := range e.Postings {
		b = appendString(b, p.Account.Owner)
		b = appendString(b, string(p.Account.Bucket))
		b = appendAmount(b, p.Amount)
	}
	return b
}

// reader decodes a binary record; the first error sticks.
type reader struct{ binrec.Reader }

func (r *reader) string() string { return string(r.Bytes()) }

// name reads a string that is usually one of a few constants (a kind, a
// bucket, an asset code), sharing the constant instead of allocating.
func (r *reader) name() string {
	b := r.Bytes()
	switch string(b) {
	case "":
		return ""
	case "MWK":
		return "MWK"
	case "USDT":
		return "USDT"
	case string(Available):
		return string(Available)
	case string(Held):
		return string(Held)
	case string(Shortfall):
		return string(Shortfall)
	case string(Float):
		return string(Float)
	case string(Provider):
		return string(Provider)
	case string(Fees):
		return string(Fees)
	case string(Desk):
		return string(Desk)
	case string(External):
		return string(External)
	case string(KindCredit):
		return string(KindCredit)
	case string(KindHold):
		return string(KindHold)
	case string(KindRelease):
		return string(KindRelease)
	case string(KindCapture):
		return string(KindCapture)
	case string(KindReverse):
		return string(KindReverse)
	case string(KindConvert):
		return string(KindConvert)
	case string(KindCharge):
		return string(KindCharge)
	}
	return string(b)
}

func (r *reader) amount() money.Amount {
	asset := money.Asset{Code: money.AssetCode(r.name()), Decimals: int32(r.Byte())}
	if asset.Decimals > money.MaxDecimals {
		if r.Err == nil {
			r.Err = fmt.Errorf("%d decimals", asset.Decimals)
		}
		r.B = nil
		return money.Amount{}
	}
	switch r.Byte() {
	case 0:
		return money.FromUnits(asset, r.Varint())
	case 1:
		a, err := money.ParseSigned(asset, string(r.Bytes()))
		if err != nil && r.Err == nil {
			r.Err = err
		}
		return a
	}
	if r.Err == nil {
		r.Err = errors.New("bad amount tag")
	}
	return money.Amount{}
}

func (r *reader) done(what string) error {
	if r.Err == nil && len(r.B) != 0 {
		r.Err = errors.New("trailing bytes")
	}
	if r.Err != nil {
		return fmt.Errorf("ledger: bad stored %s: %w", what, r.Err)
	}
	return nil
}

func decodeHold(v []byte) (Hold, error) {
	if len(v) > 0 && v[0] == '{' {
		return decodeHoldJSON(v)
	}
	if len(v) == 0 || v[0] != recordV1 {
		return Hold{}, fmt.Errorf("ledger: bad stored hold: unknown version")
	}
	r := reader{binrec.Reader{B: v[1:]}}
	h := Hold{ID: r.string(), Org: r.string(), Amount: r.amount(), Ref: r.string()}
	h.Open = r.Byte() == 1
	h.OpenedBy, h.ClosedBy = r.string(), r.string()
	return h, r.done("hold")
}

func decodeEntry(v []byte) (Entry, error) {
	if len(v) > 0 && v[0] == '{' {
		return decodeEntryJSON(v)
	}
	if len(v) == 0 || v[0] != recordV1 {
		return Entry{}, fmt.Errorf("ledger: bad stored entry: unknown version")
	}
	r := reader{binrec.Reader{B: v[1:]}}
	e := Entry{ID: r.string(), Kind: Kind(r.name()), Ref: r.string(), HoldID: r.string(), Reverses: r.string()}
	sec, nsec := r.Varint(), r.Uvarint()
	if nsec >= 1e9 {
		r.Fail()
	}
	e.At = time.Unix(sec, int64(nsec)).UTC()
	e.Digest = r.string()
	n := r.Uvarint()
	if n > math.MaxInt16 || n > uint64(len(r.B)) {
		r.Fail()
		n = 0
	}
	e.Postings = make([]Posting, 0, n)
	for range n {
		owner, bucket := r.string(), Bucket(r.name())
		a := r.amount()
		e.Postings = append(e.Postings, Posting{Account: Account{Owner: owner, Bucket: bucket, Asset: a.Asset()}, Amount: a})
	}
	return e, r.done("entry")
}

// The JSON records of earlier versions.

type wireAmount struct {
	Asset    string `json:"a"`
	Decimals int32  `json:"d"`
	Value    string `json:"v"`
}

func (w wireAmount) amount() (money.Amount, error) {
	if w.Decimals < 0 || w.Decimals > money.MaxDecimals {
		return money.Amount{}, fmt.Errorf("ledger: bad stored amount: %d decimals", w.Decimals)
	}
	return money.ParseSigned(money.Asset{Code: money.AssetCode(w.Asset), Decimals: w.Decimals}, w.Value)
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

func decodeEntryJSON(v []byte) (Entry, error) {
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

func decodeHoldJSON(v []byte) (Hold, error) {
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
