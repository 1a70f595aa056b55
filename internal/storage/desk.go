package storage

// The desk's records: the corridors and quotes, the orders with their
// indexes and funding proofs, the conversions, the OTC trades and the
// deposits.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
)

var (
	deskCorridors = []byte("corridors") // asset code -> corridor
	deskQuotes    = []byte("quotes")    // quote id -> quote
	// corridorsVersionKey, in the settings bucket, is a digest of the
	// corridors, written with each of them in the same transaction
	// (PutCorridor).
	corridorsVersionKey = []byte("corridors.version")
	proofLinkKeyKey     = []byte("proofs.link_key") // in the settings bucket

	deskOrders       = []byte("orders")
	deskClientRefs   = []byte("orders.client_ref")  // org NUL client_ref -> id
	deskFundingRefs  = []byte("orders.funding_ref") // reference -> id, across organizations
	deskProofs       = []byte("orders.proofs")      // proof id -> proof record
	deskProofBytes   = []byte("orders.proof_bytes") // proof id -> the bytes (the default ProofStore)
	deskMovers       = []byte("orders.movers")      // id NUL move name -> who made it
	deskOrderExpiry  = []byte("orders.expiry_at")   // id -> the time it is listed at in OrdersExpiry
	deskConversions  = []byte("conversions")
	deskTrades       = []byte("trades")
	deskTradesByRef  = []byte("trades.by_ref")     // org NUL ref -> id
	deskDepositAddrs = []byte("deposit_addresses") // org NUL network -> address
	deskDeposits     = []byte("deposits")          // network NUL tx_ref -> deposit record

	// OrdersByOrg indexes each organization's orders (IndexKey).
	OrdersByOrg = []byte("orders.by_org")
	// OrderQueue is the desk's queue: status NUL id -> nil.
	OrderQueue = []byte("orders.queue")
	// OrdersExpiry lists the from-bank funding deadlines.
	OrdersExpiry = DueIndex("orders.expiry")
	// ConversionsByOrg indexes each organization's conversions.
	ConversionsByOrg = []byte("conversions.by_org")
	// ConversionsDue lists the conversions by when the worker next looks.
	ConversionsDue = DueIndex("conversions.due")
	// TradesByOrg indexes each organization's trades.
	TradesByOrg = []byte("trades.by_org")
)

// deskGet is tx.Get with a missing key as found false.
func deskGet(tx store.Tx, bucket, key []byte) ([]byte, bool, error) {
	v, err := tx.Get(bucket, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// CorridorsVersion is the corridors' version (PutCorridor); found false
// for a store whose corridors were written before the version existed.
func CorridorsVersion(tx store.Tx) ([]byte, bool, error) {
	return deskGet(tx, bucketSettings, corridorsVersionKey)
}

// ScanCorridors reads every corridor, in asset-code order.
func ScanCorridors(tx store.Tx) ([]quotes.Corridor, error) {
	var out []quotes.Corridor
	err := tx.Scan(deskCorridors, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		c, err := codec.DecodeCorridor(v)
		out = append(out, c)
		return err == nil, err
	})
	return out, err
}

// LoadCorridor reads the corridor of asset; found false when it has none.
func LoadCorridor(tx store.Tx, asset money.AssetCode) (quotes.Corridor, bool, error) {
	raw, ok, err := deskGet(tx, deskCorridors, []byte(asset))
	if !ok || err != nil {
		return quotes.Corridor{}, false, err
	}
	c, err := codec.DecodeCorridor(raw)
	return c, err == nil, err
}

// PutCorridor writes c and the corridors' new version: the SHA-256 of
// every corridor record, keys and values, in key order. A version is a
// function of the corridors alone, so a list kept under it is the list,
// whatever wrote it and whenever.
func PutCorridor(tx store.Tx, c quotes.Corridor) error {
	if err := tx.Put(deskCorridors, []byte(c.Asset.Code), codec.EncodeCorridor(c)); err != nil {
		return err
	}
	h := sha256.New()
	err := tx.Scan(deskCorridors, store.ScanOptions{}, func(k, v []byte) (bool, error) {
		var n [binary.MaxVarintLen64]byte
		h.Write(binary.AppendUvarint(n[:0], uint64(len(k))))
		h.Write(k)
		h.Write(binary.AppendUvarint(n[:0], uint64(len(v))))
		h.Write(v)
		return true, nil
	})
	if err != nil {
		return err
	}
	return tx.Put(bucketSettings, corridorsVersionKey, h.Sum(nil))
}

// LoadQuote reads quote id; found false when there is none.
func LoadQuote(tx store.Tx, id string) (quotes.Quote, bool, error) {
	v, ok, err := deskGet(tx, deskQuotes, []byte(id))
	if !ok || err != nil {
		return quotes.Quote{}, false, err
	}
	q, err := codec.DecodeQuote(v)
	return q, err == nil, err
}

// AppendQuoteKey appends the key of quote id, for a store that reads it
// ahead (store.WithReadsAhead).
func AppendQuoteKey(dst []store.KeyRef, id string) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: deskQuotes, Key: []byte(id)})
}

// SaveQuote writes q.
func SaveQuote(tx store.Tx, q quotes.Quote) error {
	return tx.Put(deskQuotes, []byte(q.ID), codec.EncodeQuote(q))
}

// PruneQuotes deletes up to batch quotes prunable at now (oldest first:
// ids sort by issue time) and returns how many it deleted.
func PruneQuotes(tx store.Tx, now time.Time, batch int) (int, error) {
	var old [][]byte
	err := tx.Scan(deskQuotes, store.ScanOptions{}, func(k, v []byte) (bool, error) {
		q, err := codec.DecodeQuote(v)
		if err != nil {
			return false, err
		}
		if !q.Prunable(now) {
			return false, nil // ids sort by issue time: the rest are younger
		}
		old = append(old, k)
		return len(old) < batch, nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range old {
		if err := tx.Delete(deskQuotes, k); err != nil {
			return 0, err
		}
	}
	return len(old), nil
}

// LoadOrder reads order id; an empty, overlong or unknown id is notFound.
func LoadOrder(tx store.Tx, id string, notFound error) (orders.Order, error) {
	if id == "" || len(id) > 64 {
		return orders.Order{}, notFound
	}
	v, ok, err := deskGet(tx, deskOrders, []byte(id))
	switch {
	case err != nil:
		return orders.Order{}, err
	case !ok:
		return orders.Order{}, notFound
	}
	return codec.DecodeOrder(v)
}

func deskQueueKey(s orders.Status, id string) []byte {
	return append(append([]byte(s), 0), id...)
}

// SaveOrder stores o, keeping the desk queue and the expiry index in step
// with prev (zero for a new order); a new order is also indexed under its
// organization.
func SaveOrder(tx store.Tx, prev, o orders.Order) error {
	return SaveOrderEncoded(tx, prev, o, codec.EncodeOrder(o))
}

// SaveOrderEncoded is SaveOrder with o's encoding (codec.EncodeOrder)
// given, for a caller that keeps the encoding too (an idempotent create).
func SaveOrderEncoded(tx store.Tx, prev, o orders.Order, encoded []byte) error {
	if prev.Status != o.Status {
		if prev.Status != "" {
			if err := tx.Delete(OrderQueue, deskQueueKey(prev.Status, o.ID)); err != nil {
				return err
			}
		}
		if err := tx.Put(OrderQueue, deskQueueKey(o.Status, o.ID), nil); err != nil {
			return err
		}
	}
	if prev.ID == "" {
		if err := tx.Put(OrdersByOrg, IndexKey(o.Org, o.ID), nil); err != nil {
			return err
		}
	}
	var next *time.Time
	if t, ok := o.ExpiresAt(); ok && o.Status == orders.AwaitingFunds && o.Proof == nil {
		next = &t
	}
	if _, had := prev.ExpiresAt(); had || next != nil {
		if err := MoveOrderExpiry(tx, o.ID, next); err != nil {
			return err
		}
	}
	return tx.Put(deskOrders, []byte(o.ID), encoded)
}

// MoveOrderExpiry lists order id in OrdersExpiry at next (nil: unlisted),
// removing the entry it had: each order's listed time is kept (its
// deadline, or a later one a pause extended it to), so that every change
// of the listing removes the entry it replaces.
func MoveOrderExpiry(tx store.Tx, id string, next *time.Time) error {
	var old *time.Time
	v, ok, err := deskGet(tx, deskOrderExpiry, []byte(id))
	switch {
	case err != nil:
		return err
	case ok && len(v) == 8:
		t := time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		old = &t
	}
	if old == nil && next == nil {
		return nil
	}
	if err := OrdersExpiry.Move(tx, id, old, next); err != nil {
		return err
	}
	if next == nil {
		return tx.Delete(deskOrderExpiry, []byte(id))
	}
	return tx.Put(deskOrderExpiry, []byte(id), binary.BigEndian.AppendUint64(nil, uint64(next.UnixNano())))
}

// OrderByClientRef is the id of org's order with client_ref ref; found
// false when there is none.
func OrderByClientRef(tx store.Tx, org, ref string) (string, bool, error) {
	id, ok, err := deskGet(tx, deskClientRefs, IndexKey(org, ref))
	return string(id), ok, err
}

// SaveOrderClientRef records ref as org's order id's client_ref.
func SaveOrderClientRef(tx store.Tx, org, ref, id string) error {
	return tx.Put(deskClientRefs, IndexKey(org, ref), []byte(id))
}

// FundingRefOwner is the id of the order holding funding reference ref
// (unique across organizations); found false when none does.
func FundingRefOwner(tx store.Tx, ref string) (string, bool, error) {
	id, ok, err := deskGet(tx, deskFundingRefs, []byte(ref))
	return string(id), ok, err
}

// SaveFundingRef records ref as order id's funding reference.
func SaveFundingRef(tx store.Tx, ref, id string) error {
	return tx.Put(deskFundingRefs, []byte(ref), []byte(id))
}

func deskMoverKey(id, move string) []byte { return []byte(id + "\x00" + move) }

// LoadMover is who made move of order id, as SaveMover kept it; found
// false when nobody is recorded.
func LoadMover(tx store.Tx, id, move string) ([]byte, bool, error) {
	return deskGet(tx, deskMovers, deskMoverKey(id, move))
}

// SaveMover records who made move of order id.
func SaveMover(tx store.Tx, id, move string, who []byte) error {
	return tx.Put(deskMovers, deskMoverKey(id, move), who)
}

// ScanDeskOrders visits the ids of the desk's orders, newest first: every
// order, or with status those in it, from before beforeID ("" from the
// newest) on, until fn returns false.
func ScanDeskOrders(tx store.Tx, status orders.Status, beforeID string, fn func(id string) (bool, error)) error {
	bucket, opt, prefix := deskOrders, store.ScanOptions{Reverse: true}, []byte(nil)
	if status != "" {
		prefix = append([]byte(status), 0)
		bucket, opt = OrderQueue, store.ScanOptions{Reverse: true, Prefix: prefix}
	}
	if beforeID != "" {
		opt.End = append(append([]byte(nil), prefix...), beforeID...)
	}
	return tx.Scan(bucket, opt, func(k, _ []byte) (bool, error) { return fn(string(k[len(prefix):])) })
}

// LoadProof reads funding proof id's record; unknown is notFound.
func LoadProof(tx store.Tx, id string, notFound error) (codec.ProofRecord, error) {
	var r codec.ProofRecord
	err := GetJSON(tx, deskProofs, id, &r, notFound)
	return r, err
}

// SaveProof writes a funding proof's record.
func SaveProof(tx store.Tx, r codec.ProofRecord) error { return PutJSON(tx, deskProofs, r.ID, r) }

// LoadProofBytes reads the bytes of proof id kept in the store; found
// false when there are none.
func LoadProofBytes(tx store.Tx, id string) ([]byte, bool, error) {
	return deskGet(tx, deskProofBytes, []byte(id))
}

// SaveProofBytes keeps the bytes of proof id in the store.
func SaveProofBytes(tx store.Tx, id string, b []byte) error {
	return tx.Put(deskProofBytes, []byte(id), b)
}

// LoadProofLinkKey reads the HMAC key of proof links; found false before
// one is made.
func LoadProofLinkKey(tx store.Tx) ([]byte, bool, error) {
	return deskGet(tx, bucketSettings, proofLinkKeyKey)
}

// SaveProofLinkKey writes the HMAC key of proof links.
func SaveProofLinkKey(tx store.Tx, key []byte) error {
	return tx.Put(bucketSettings, proofLinkKeyKey, key)
}

// ConversionRecord is the stored form of c, with no worker bookkeeping.
func ConversionRecord(c conversions.Conversion) codec.ConversionRecord {
	var f *codec.Failure
	if c.Failure != nil {
		f = &codec.Failure{Code: c.Failure.Code, Message: c.Failure.Message}
	}
	return codec.ConversionRecord{ID: c.ID, Org: c.Org, FromAsset: string(c.From.Asset().Code), FromAmount: c.From.String(),
		ToAsset: string(c.To.Asset().Code), ToAmount: c.To.String(), Rate: c.Rate.String(), Status: c.Status,
		Failure: f, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// ConversionOf reads a stored conversion back, its assets from assets.
func ConversionOf(r codec.ConversionRecord, assets money.Assets) (conversions.Conversion, error) {
	fa, ok1 := assets.Lookup(money.AssetCode(r.FromAsset))
	ta, ok2 := assets.Lookup(money.AssetCode(r.ToAsset))
	if !ok1 || !ok2 {
		return conversions.Conversion{}, fmt.Errorf("conversion %s: asset %s or %s is not configured", r.ID, r.FromAsset, r.ToAsset)
	}
	from, err := money.Parse(fa, r.FromAmount)
	if err != nil {
		return conversions.Conversion{}, err
	}
	to, err := money.Parse(ta, r.ToAmount)
	if err != nil {
		return conversions.Conversion{}, err
	}
	rate, err := money.ParseRate(r.Rate)
	if err != nil {
		return conversions.Conversion{}, err
	}
	var f *conversions.Failure
	if r.Failure != nil {
		f = &conversions.Failure{Code: r.Failure.Code, Message: r.Failure.Message}
	}
	return conversions.Conversion{ID: r.ID, Org: r.Org, From: from, To: to, Rate: rate, Status: r.Status, Failure: f,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, nil
}

// LoadConversion reads conversion id's record; an empty, overlong or
// unknown id is notFound.
func LoadConversion(tx store.Tx, id string, notFound error) (codec.ConversionRecord, error) {
	var r codec.ConversionRecord
	if id == "" || len(id) > 64 {
		return r, notFound
	}
	err := GetJSON(tx, deskConversions, id, &r, notFound)
	return r, err
}

// SaveConversion writes conversion record r.
func SaveConversion(tx store.Tx, r codec.ConversionRecord) error {
	return PutJSON(tx, deskConversions, r.ID, r)
}

// IndexConversion lists conversion id under org (ConversionsByOrg).
func IndexConversion(tx store.Tx, org, id string) error {
	return tx.Put(ConversionsByOrg, IndexKey(org, id), nil)
}

// TradeRecord is the stored form of t: its figures as decimal text, its
// times as rendered (payouts.FormatTime).
func TradeRecord(t trades.Trade) codec.TradeRecord {
	return codec.TradeRecord{Org: t.Org, Ref: t.Ref, ID: t.ID, USDTAmount: t.USDTAmount.String(), ClientRate: t.ClientRate.String(),
		MWKAmount: t.MWKAmount, Status: string(t.Status), CreatedAt: payouts.FormatTime(t.CreatedAt), SettledAt: payouts.FormatTime(t.SettledAt)}
}

// TradeOf reads a stored trade back.
func TradeOf(r codec.TradeRecord) (trades.Trade, error) {
	rate, err := money.ParseRate(r.ClientRate)
	if err != nil {
		return trades.Trade{}, err
	}
	amt, err := money.Parse(money.USDT, r.USDTAmount)
	if err != nil {
		return trades.Trade{}, err
	}
	created, err := WireTime(r.CreatedAt)
	if err != nil {
		return trades.Trade{}, err
	}
	settled, err := WireTime(r.SettledAt)
	if err != nil {
		return trades.Trade{}, err
	}
	return trades.Trade{ID: r.ID, Org: r.Org, Ref: r.Ref, USDTAmount: amt, ClientRate: rate, MWKAmount: r.MWKAmount,
		Status: trades.Status(r.Status), CreatedAt: created, SettledAt: settled}, nil
}

// WireTime reads a time a record keeps as its wire text
// (payouts.FormatTime: UTC, milliseconds).
func WireTime(s string) (time.Time, error) {
	t, err := time.Parse(payouts.TimeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("tambala: stored time %q: %w", s, err)
	}
	return t, nil
}

// LoadTrade reads trade id; unknown is notFound.
func LoadTrade(tx store.Tx, id string, notFound error) (trades.Trade, error) {
	var r codec.TradeRecord
	if err := GetJSON(tx, deskTrades, id, &r, notFound); err != nil {
		return trades.Trade{}, err
	}
	return TradeOf(r)
}

// TradeByRef reads org's trade recorded under ref; found false when there
// is none.
func TradeByRef(tx store.Tx, org, ref string, notFound error) (trades.Trade, bool, error) {
	id, ok, err := deskGet(tx, deskTradesByRef, IndexKey(org, ref))
	if !ok || err != nil {
		return trades.Trade{}, false, err
	}
	t, err := LoadTrade(tx, string(id), notFound)
	return t, err == nil, err
}

// SaveTrade stores a new trade t with its indexes and returns its record.
func SaveTrade(tx store.Tx, t trades.Trade) (codec.TradeRecord, error) {
	r := TradeRecord(t)
	if err := PutJSON(tx, deskTrades, r.ID, r); err != nil {
		return r, err
	}
	if err := tx.Put(deskTradesByRef, IndexKey(r.Org, r.Ref), []byte(r.ID)); err != nil {
		return r, err
	}
	return r, tx.Put(TradesByOrg, IndexKey(r.Org, r.ID), nil)
}

// LoadDepositAddress reads org's deposit address on network; found false
// when none was issued.
func LoadDepositAddress(tx store.Tx, org, network string) (string, bool, error) {
	v, ok, err := deskGet(tx, deskDepositAddrs, IndexKey(org, network))
	return string(v), ok, err
}

// SaveDepositAddress writes org's deposit address on network.
func SaveDepositAddress(tx store.Tx, org, network, address string) error {
	return tx.Put(deskDepositAddrs, IndexKey(org, network), []byte(address))
}

// DepositKey is the key of the deposit of tx_ref on network: its record's
// and its approval's.
func DepositKey(network, txRef string) string { return string(IndexKey(network, txRef)) }

// LoadDeposit reads the deposit recorded under key (DepositKey); found
// false when there is none.
func LoadDeposit(tx store.Tx, key string) (codec.DepositRecord, bool, error) {
	var r codec.DepositRecord
	err := GetJSON(tx, deskDeposits, key, &r, store.ErrNotFound)
	if errors.Is(err, store.ErrNotFound) {
		return r, false, nil
	}
	return r, err == nil, err
}

// SaveDeposit writes the deposit's record under key (DepositKey).
func SaveDeposit(tx store.Tx, key string, r codec.DepositRecord) error {
	return PutJSON(tx, deskDeposits, key, r)
}
