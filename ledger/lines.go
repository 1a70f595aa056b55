package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/internal/binrec"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// Statement lines: every entry that touches an organization's accounts in
// an asset writes one line for that (organization, asset), in the entry's
// transaction, with the signed change on available and held and the
// balances after it. Lines are keyed by org, asset, booking time and a
// sequence number, so a statement page is one bounded scan and never reads
// history.
var (
	bucketLines    = []byte("ledger.lines")      // org \0 asset \0 at(8) seq(8) -> line
	bucketLineHead = []byte("ledger.lines.head") // org \0 asset -> last seq, at, balances after
)

// Line is one entry as an organization's statement in one asset sees it.
type Line struct {
	// Cursor orders the lines of one (organization, asset): booking time
	// then sequence. It is the position to resume a scan after this line.
	Cursor [16]byte
	Seq    uint64
	// At is the booking time: the entry's time, or the previous line's when
	// the caller's clock went back, so lines in posting order never go back
	// in time.
	At        time.Time
	EntryID   string
	Kind      Kind
	Ref       string
	Available money.Amount // signed change on available
	Held      money.Amount // signed change on held
	// AvailableAfter and HeldAfter are the balances after the line.
	AvailableAfter money.Amount
	HeldAfter      money.Amount
}

// lineHead is the last line of one (organization, asset).
type lineHead struct {
	seq         uint64
	at          int64 // unix nanoseconds
	avail, held money.Amount
}

// AppendOrgKeys appends the keys that a posting to org's asset reads,
// for a store that reads them ahead (store.Prefetch): its available and
// held balances and its line head.
func AppendOrgKeys(dst []store.KeyRef, org string, asset money.Asset) []store.KeyRef {
	return append(dst,
		store.KeyRef{Bucket: bucketBalances, Key: appendBalanceKey(nil, OrgAccount(org, Available, asset))},
		store.KeyRef{Bucket: bucketBalances, Key: appendBalanceKey(nil, OrgAccount(org, Held, asset))},
		store.KeyRef{Bucket: bucketLineHead, Key: lineHeadKey(nil, org, asset.Code)})
}

func lineHeadKey(b []byte, org string, code money.AssetCode) []byte {
	b = append(b, org...)
	b = append(b, 0)
	return append(b, code...)
}

func linePrefix(b []byte, org string, code money.AssetCode) []byte {
	return append(lineHeadKey(b, org, code), 0)
}

// timeOrder maps unix nanoseconds to bytes that sort as the times do.
func timeOrder(ns int64) uint64 { return uint64(ns) ^ 1<<63 }

func appendLineCursor(b []byte, ns int64, seq uint64) []byte {
	b = binary.BigEndian.AppendUint64(b, timeOrder(ns))
	return binary.BigEndian.AppendUint64(b, seq)
}

// lineGroup is one (organization, asset) an entry touches.
type lineGroup struct {
	org         string
	asset       money.Asset
	avail, held money.Amount
}

// appendLines appends the statement records of eff (lines and heads) to buf
// and their spans to recs.
func (s *txState) appendLines(buf []byte, eff *Effect, recs []record) ([]byte, []record, error) {
	var arr [4]lineGroup
	groups := arr[:0]
	for _, p := range eff.Entry.Postings {
		a := p.Account
		if a.Owner == "" || !a.Bucket.IsCustomer() {
			continue
		}
		i := 0
		for i < len(groups) && !(groups[i].org == a.Owner && groups[i].asset == a.Asset) {
			i++
		}
		if i == len(groups) {
			groups = append(groups, lineGroup{org: a.Owner, asset: a.Asset, avail: money.Zero(a.Asset), held: money.Zero(a.Asset)})
		}
		g := &groups[i]
		var err error
		switch a.Bucket {
		case Available:
			g.avail, err = g.avail.Add(p.Amount)
		case Held:
			g.held, err = g.held.Add(p.Amount)
		}
		if err != nil {
			return buf, recs, err
		}
	}
	for _, g := range groups {
		s.key = lineHeadKey(s.key[:0], g.org, g.asset.Code)
		v, err := lend.Get(s.tx, bucketLineHead, s.key) // decoded, never kept
		var h lineHead
		switch {
		case errors.Is(err, store.ErrNotFound):
			// The first line (or the first since lines were kept): start from
			// the balances before this entry.
			if h.avail, err = s.Balance(OrgAccount(g.org, Available, g.asset)); err != nil {
				return buf, recs, err
			}
			if h.held, err = s.Balance(OrgAccount(g.org, Held, g.asset)); err != nil {
				return buf, recs, err
			}
			h.at = eff.Entry.At.UnixNano()
		case err != nil:
			return buf, recs, err
		default:
			if h, err = decodeLineHead(v); err != nil {
				return buf, recs, err
			}
		}
		ns := eff.Entry.At.UnixNano()
		if ns < h.at {
			ns = h.at
		}
		after := lineHead{seq: h.seq + 1, at: ns}
		if after.avail, err = h.avail.Add(g.avail); err != nil {
			return buf, recs, err
		}
		if after.held, err = h.held.Add(g.held); err != nil {
			return buf, recs, err
		}
		k0 := len(buf)
		buf = linePrefix(buf, g.org, g.asset.Code)
		buf = appendLineCursor(buf, ns, after.seq)
		v0 := len(buf)
		buf = append(buf, recordV1)
		buf = appendString(buf, eff.Entry.ID)
		buf = appendString(buf, string(eff.Entry.Kind))
		buf = appendString(buf, eff.Entry.Ref)
		buf = appendAmount(buf, g.avail)
		buf = appendAmount(buf, g.held)
		buf = appendAmount(buf, after.avail)
		buf = appendAmount(buf, after.held)
		recs = append(recs, record{bucketLines, span{k0, v0}, span{v0, len(buf)}})
		k0 = len(buf)
		buf = lineHeadKey(buf, g.org, g.asset.Code)
		v0 = len(buf)
		buf = append(buf, recordV1)
		buf = binary.AppendUvarint(buf, after.seq)
		buf = binary.AppendVarint(buf, after.at)
		buf = appendAmount(buf, after.avail)
		buf = appendAmount(buf, after.held)
		recs = append(recs, record{bucketLineHead, span{k0, v0}, span{v0, len(buf)}})
	}
	return buf, recs, nil
}

func decodeLineHead(v []byte) (lineHead, error) {
	if len(v) == 0 || v[0] != recordV1 {
		return lineHead{}, errors.New("ledger: bad stored line head: unknown version")
	}
	r := reader{binrec.Reader{B: v[1:]}}
	h := lineHead{seq: r.Uvarint(), at: r.Varint()}
	h.avail, h.held = r.amount(), r.amount()
	return h, r.done("line head")
}

func decodeLine(k, v []byte, prefix int) (Line, error) {
	if len(k) != prefix+16 || len(v) == 0 || v[0] != recordV1 {
		return Line{}, fmt.Errorf("ledger: bad stored line %q", k)
	}
	var l Line
	copy(l.Cursor[:], k[prefix:])
	l.At = time.Unix(0, int64(binary.BigEndian.Uint64(k[prefix:])^1<<63)).UTC()
	l.Seq = binary.BigEndian.Uint64(k[prefix+8:])
	r := reader{binrec.Reader{B: v[1:]}}
	l.EntryID, l.Kind, l.Ref = r.string(), Kind(r.name()), r.string()
	l.Available, l.Held, l.AvailableAfter, l.HeldAfter = r.amount(), r.amount(), r.amount(), r.amount()
	return l, r.done("line")
}

// LineRange selects the lines of one organization in one asset: booked at
// or after From (zero: from the first) and before To (zero: to the last),
// strictly after the cursor After when it is set.
type LineRange struct {
	Org      string
	Asset    money.AssetCode
	From, To time.Time
	After    *[16]byte
}

func (r LineRange) bounds() (prefix []byte, opt store.ScanOptions) {
	prefix = linePrefix(nil, r.Org, r.Asset)
	opt.Prefix = prefix
	if !r.From.IsZero() {
		opt.Start = appendLineCursor(append([]byte(nil), prefix...), r.From.UnixNano(), 0)
	}
	if r.After != nil {
		start := append(append([]byte(nil), prefix...), r.After[:]...)
		start = append(start, 0) // strictly after
		if opt.Start == nil || string(start) > string(opt.Start) {
			opt.Start = start
		}
	}
	if !r.To.IsZero() {
		opt.End = appendLineCursor(append([]byte(nil), prefix...), r.To.UnixNano(), 0)
	}
	return prefix, opt
}

// ScanLines visits the lines in r in posting order until fn returns false.
// It reads only the lines it visits.
func ScanLines(tx store.Tx, r LineRange, fn func(Line) (bool, error)) error {
	prefix, opt := r.bounds()
	return tx.Scan(bucketLines, opt, func(k, v []byte) (bool, error) {
		l, err := decodeLine(k, v, len(prefix))
		if err != nil {
			return false, err
		}
		return fn(l)
	})
}

// BalanceBefore returns an organization's available and held balance in
// asset just before the first line booked at or after at (zero at: before
// every line): the balances after the last line before it, or, when there
// is none, the balances before the first line kept. It reads at most two
// lines and the balances.
func BalanceBefore(tx store.Tx, org string, asset money.Asset, at time.Time) (available, held money.Amount, err error) {
	prefix := linePrefix(nil, org, asset.Code)
	opt := store.ScanOptions{Prefix: prefix, Reverse: true}
	if !at.IsZero() {
		opt.End = appendLineCursor(append([]byte(nil), prefix...), at.UnixNano(), 0)
	}
	var found bool
	if !at.IsZero() {
		err = tx.Scan(bucketLines, opt, func(k, v []byte) (bool, error) {
			l, err := decodeLine(k, v, len(prefix))
			available, held, found = l.AvailableAfter, l.HeldAfter, err == nil
			return false, err
		})
		if err != nil || found {
			return available, held, err
		}
	}
	// No line before: the opening is the first line's balances less its
	// change, or the current balances when there are no lines at all.
	err = tx.Scan(bucketLines, store.ScanOptions{Prefix: prefix}, func(k, v []byte) (bool, error) {
		l, err := decodeLine(k, v, len(prefix))
		if err != nil {
			return false, err
		}
		if available, err = l.AvailableAfter.Sub(l.Available); err != nil {
			return false, err
		}
		held, err = l.HeldAfter.Sub(l.Held)
		found = err == nil
		return false, err
	})
	if err != nil || found {
		return available, held, err
	}
	b, err := ReadBalance(tx, org, asset)
	return b.Available, b.Held, err
}
