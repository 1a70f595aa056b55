package tambala

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/fingerprint"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

var (
	bucketCorridors = []byte("corridors") // asset code -> corridor
	bucketQuotes    = []byte("quotes")    // quote id -> quote
)

// CreateOrder is the idempotent create of a desk order.
const CreateOrder Operation = "orders.create"

func init() {
	operationInfo[CreateOrder] = struct {
		api    API
		legacy string
	}{APIv2, ""}
}

// corridorsVersion, in the settings bucket, is a digest of the corridors,
// written with each of them in the same transaction. A command that needs
// the corridors reads it (one key, which every store serves from its caches when many
// commands read it) and, finding the version it last scanned them at,
// takes the list it kept instead of scanning the bucket again: on
// PostgreSQL a scan is a range query to the server in every command, and
// it made the creates of an order or an FX payout run twice in a batch
// (docs/performance.md, "/v2 over HTTP"). A store whose corridors were
// written before the version existed has none until the next corridor is
// set; it is scanned each time meanwhile.
var corridorsVersion = []byte("corridors.version")

// corridorsIn are the corridors as tx sees them. The slice is shared by
// the commands reading the same version: callers do not modify it.
func (e *Engine) corridorsIn(tx store.Tx) ([]quotes.Corridor, error) {
	version, err := storage.Setting(tx, corridorsVersion)
	switch {
	case isNotFound(err):
		return scanCorridors(tx)
	case err != nil:
		return nil, err
	}
	return e.cachedCorridors.Decode(version, func([]byte) ([]quotes.Corridor, error) { return scanCorridors(tx) })
}

func scanCorridors(tx store.Tx) ([]quotes.Corridor, error) {
	var out []quotes.Corridor
	err := tx.Scan(bucketCorridors, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		c, err := codec.DecodeCorridor(v)
		out = append(out, c)
		return err == nil, err
	})
	return out, err
}

// visibleCorridors are the corridors org sees: those of a currency in its
// asset list.
func (e *Engine) visibleCorridors(tx store.Tx, org *Organization) ([]quotes.Corridor, error) {
	all, err := e.corridorsIn(tx)
	if err != nil {
		return nil, err
	}
	return quotes.Visible(all, func(code money.AssetCode) bool { return org.Enabled(code, "") }), nil
}

// setCorridor is Operator.SetCorridor.
func (e *Engine) setCorridor(ctx context.Context, c quotes.Corridor) (quotes.Corridor, error) {
	if err := e.checkCorridor(c); err != nil {
		return quotes.Corridor{}, err
	}
	err := e.store.Update(ctx, func(tx store.Tx) error {
		before := "none"
		switch raw, err := tx.Get(bucketCorridors, []byte(c.Asset.Code)); {
		case err == nil:
			prev, err := codec.DecodeCorridor(raw)
			if err != nil {
				return err
			}
			before = corridorText(prev)
		case !isNotFound(err):
			return err
		}
		if err := e.auditAs(ctx, tx, "", AuditCorridorSet, string(c.Asset.Code), before+" -> "+corridorText(c)); err != nil {
			return err
		}
		return putCorridor(tx, c)
	})
	return c, err
}

// corridorText is a corridor's figures for the audit trail.
func corridorText(c quotes.Corridor) string {
	rate := func(r money.Rate) string {
		if r.IsZero() {
			return "closed"
		}
		return r.String()
	}
	max := "none"
	if c.Max.IsSet() {
		max = c.Max.String()
	}
	return fmt.Sprintf("[open %t, to-bank rate %s, from-bank rate %s, min %s, max %s]", c.Open, rate(c.RateOffRamp), rate(c.RateOnRamp), c.Min, max)
}

// checkCorridor checks a corridor before any transaction.
func (e *Engine) checkCorridor(c quotes.Corridor) error {
	asset, ok := e.assets.Lookup(c.Asset.Code)
	if !ok || asset != c.Asset {
		return errcode.Newf(errcode.ValidationError, "%s is not a configured asset.", truncate(string(c.Asset.Code), 12))
	}
	return c.Validate(e.classes)
}

// putCorridor writes c and the corridors' new version: the SHA-256 of
// every corridor record, keys and values, in key order. A version is a
// function of the corridors alone, so a list kept under it is the list,
// whatever wrote it and whenever.
func putCorridor(tx store.Tx, c quotes.Corridor) error {
	if err := tx.Put(bucketCorridors, []byte(c.Asset.Code), codec.EncodeCorridor(c)); err != nil {
		return err
	}
	h := sha256.New()
	err := tx.Scan(bucketCorridors, store.ScanOptions{}, func(k, v []byte) (bool, error) {
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
	return storage.PutSetting(tx, corridorsVersion, h.Sum(nil))
}

// allCorridors is Operator.AllCorridors.
func (e *Engine) allCorridors(ctx context.Context) ([]quotes.Corridor, error) {
	var out []quotes.Corridor
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = scanCorridors(tx) // the host's own slice
		return err
	})
	return out, err
}

// corridors is Client.Corridors.
func (e *Engine) corridors(ctx context.Context, p Principal) ([]quotes.Corridor, error) {
	var out []quotes.Corridor
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		out, err = e.visibleCorridors(tx, org)
		return err
	})
	return out, err
}

// assetOf checks a /v2 asset code: well-formed (else unsupported_asset),
// in the organization's list (else corridor_not_enabled, naming it).
func (e *Engine) assetOf(org *Organization, code money.AssetCode, op string) (money.Asset, error) {
	if err := quotes.CheckCode(code); err != nil {
		return money.Asset{}, err
	}
	return e.enabledAsset(org, code, op)
}

// deskOperation is the operation a desk order of dir needs on its
// corridor currency: payout to-bank, collection from-bank.
func deskOperation(dir quotes.Direction) string {
	if dir == quotes.ToBank {
		return OpPayout
	}
	return OpCollection
}

// quoteOrder is Client.QuoteOrder.
func (e *Engine) quoteOrder(ctx context.Context, p Principal, req quotes.Request) (quotes.Quote, error) {
	if err := req.Check(); err != nil {
		return quotes.Quote{}, err
	}
	var q quotes.Quote
	err := e.store.Update(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		from, err := e.assetOf(org, req.FromAsset, "")
		if err != nil {
			return err
		}
		to, err := e.assetOf(org, req.ToAsset, "")
		if err != nil {
			return err
		}
		pair, err := quotes.PairOf(from, to, e.classes)
		if err != nil {
			return err
		}
		visible, err := e.visibleCorridors(tx, org)
		if err != nil {
			return err
		}
		if _, err := quotes.FindCorridor(pair.Fiat().Code, visible); err != nil {
			return err
		}
		if _, err := e.enabledAsset(org, pair.Fiat().Code, deskOperation(pair.Direction)); err != nil {
			return err
		}
		q, err = quotes.NewOrder(req, pair, visible, quotes.Issue{Org: org.ID, Now: e.nowUTC(), TTL: e.orderOpts.QuoteTTL, ID: e.newID()})
		if err != nil {
			return err
		}
		return tx.Put(bucketQuotes, []byte(q.ID), codec.EncodeQuote(q))
	})
	if err != nil {
		return quotes.Quote{}, err
	}
	return q, nil
}

// loadQuote loads org's quote id; unknown, foreign and malformed ids are
// all quotes.NotFound.
func loadQuote(tx store.Tx, org, id string) (quotes.Quote, error) {
	if id == "" || len(id) > 64 {
		return quotes.Quote{}, quotes.NotFound()
	}
	v, err := tx.Get(bucketQuotes, []byte(id))
	if isNotFound(err) {
		return quotes.Quote{}, quotes.NotFound()
	}
	if err != nil {
		return quotes.Quote{}, err
	}
	q, err := codec.DecodeQuote(v)
	if err == nil && q.Org != org {
		return quotes.Quote{}, quotes.NotFound()
	}
	return q, err
}

// NewOrder is what Client.CreateOrder takes: the quote to execute, the
// caller's own reference, and for a to-bank order the beneficiary (nil
// when absent or null).
type NewOrder struct {
	QuoteID     string
	ClientRef   string
	Beneficiary *orders.Beneficiary
	// BeneficiaryInvalid is set by a transport whose request had a
	// beneficiary it could not read into Beneficiary (an unknown field, a
	// value that is not a string): the engine answers it where it checks
	// the beneficiary's fields, after the quote, and only for a
	// to-bank order (a from-bank order with any beneficiary is
	// beneficiary_not_allowed).
	BeneficiaryInvalid error
}

// Fingerprint is the default idempotency fingerprint of n: SHA-256 over a
// length-prefixed encoding of every field.
func (n NewOrder) Fingerprint() Fingerprint {
	f := fingerprint.New("tambala.NewOrder/v1")
	f.Field(n.QuoteID)
	f.Field(n.ClientRef)
	if b := n.Beneficiary; b != nil {
		f.Field("beneficiary")
		f.Field(b.Name)
		f.Field(b.BankName)
		f.Field(b.AccountNumber)
		if b.Branch != nil {
			f.Field("branch")
			f.Field(*b.Branch)
		}
	}
	return f.Sum()
}

var orderCodec = resourceCodec[orders.Order]{
	decode:       func(_ string, stored []byte) (orders.Order, error) { return codec.DecodeOrder(stored) },
	decodeLegacy: func(string, []byte) (orders.Order, error) { return orders.Order{}, errcode.New(errcode.InternalError) },
}

// createOrder is Client.CreateOrder.
func (e *Engine) createOrder(ctx context.Context, p Principal, n NewOrder, idem Idempotency) (Created[orders.Order], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = n.Fingerprint()
	}
	created, err := create(ctx, e, p, CreateOrder, idem, fp, orderCodec, func(tx store.Tx, org *Organization) (orders.Order, []byte, error) {
		now := e.nowUTC()
		if err := orders.ValidateClientRef(n.ClientRef); err != nil { // the body's shape comes before the quote
			return orders.Order{}, nil, err
		}
		q, err := loadQuote(tx, org.ID, n.QuoteID)
		if err != nil {
			return orders.Order{}, nil, err
		}
		id := e.newID()
		if q, err = q.Use(id, quotes.KindOrder, now); err != nil {
			return orders.Order{}, nil, err
		}
		dir := orders.ToBank
		if q.Direction == quotes.FromBank {
			dir = orders.FromBank
		}
		if n.BeneficiaryInvalid != nil { // present, but not a beneficiary
			if dir == orders.FromBank {
				return orders.Order{}, nil, errcode.Newf(errcode.BeneficiaryNotAllowed, "A from-bank order must not have a beneficiary.")
			}
			return orders.Order{}, nil, n.BeneficiaryInvalid
		}
		o, postings, err := orders.New(orders.Params{ID: id, Org: org.ID, QuoteID: q.ID, Direction: dir,
			From: q.From, To: q.To, Rate: q.Rate, ClientRef: n.ClientRef, Beneficiary: n.Beneficiary}, now)
		if err != nil {
			return orders.Order{}, nil, err
		}
		for _, code := range []money.AssetCode{q.From.Asset().Code, q.To.Asset().Code} {
			if _, err := e.enabledAsset(org, code, ""); err != nil {
				return orders.Order{}, nil, err
			}
		}
		if _, err := e.enabledAsset(org, q.Corridor(), deskOperation(q.Direction)); err != nil {
			return orders.Order{}, nil, err
		}
		visible, err := e.visibleCorridors(tx, org)
		if err != nil {
			return orders.Order{}, nil, err
		}
		if err := quotes.CheckDeskOpen(visible); err != nil {
			return orders.Order{}, nil, err
		}
		refKey := clientRefKey(org.ID, n.ClientRef)
		if _, err := tx.Get(bucketOrderClientRefs, refKey); err == nil {
			return orders.Order{}, nil, errcode.Newf(errcode.ClientRefUsed, "The client_ref is already used by another order of this organization.")
		} else if !isNotFound(err) {
			return orders.Order{}, nil, err
		}
		if err := postDesk(tx, postings, now); err != nil {
			return orders.Order{}, nil, err
		}
		if err := tx.Put(bucketQuotes, []byte(q.ID), codec.EncodeQuote(q)); err != nil {
			return orders.Order{}, nil, err
		}
		if err := tx.Put(bucketOrderClientRefs, refKey, []byte(o.ID)); err != nil {
			return orders.Order{}, nil, err
		}
		if err := tx.Put(bucketOrdersByOrg, storage.IndexKey(org.ID, o.ID), nil); err != nil {
			return orders.Order{}, nil, err
		}
		if err := putOrder(tx, orders.Order{}, o); err != nil {
			return orders.Order{}, nil, err
		}
		return o, codec.EncodeOrder(o), nil
	})
	if err == nil && !created.Replayed {
		e.reportOrder(created.Resource, true, "api")
	}
	return created, err
}

// order is Client.Order.
func (e *Engine) order(ctx context.Context, p Principal, id string) (orders.Order, error) {
	var o orders.Order
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return err
		}
		var err error
		o, err = loadOwnOrder(tx, p.Org.ID, id)
		return err
	})
	return o, err
}

// OrderFilter narrows a list of orders.
type OrderFilter struct {
	Status    orders.Status // "" for every status
	ClientRef string        // "" for every order; else the one with this exact client_ref
}

// orders is Client.Orders.
func (e *Engine) orders(ctx context.Context, p Principal, page PageRequest, f OrderFilter) (Page[orders.Order], error) {
	if f.Status != "" {
		if _, err := orders.ParseStatus(string(f.Status)); err != nil {
			return Page[orders.Order]{}, err
		}
	}
	var out Page[orders.Order]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return err
		}
		if f.ClientRef != "" {
			out = Page[orders.Order]{Items: []orders.Order{}}
			id, err := tx.Get(bucketOrderClientRefs, clientRefKey(p.Org.ID, f.ClientRef))
			if isNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			o, err := loadOwnOrder(tx, p.Org.ID, string(id))
			if err == nil && (f.Status == "" || o.Status == f.Status) {
				out.Items = append(out.Items, o)
			}
			return err
		}
		loaded := map[string]orders.Order{}
		keep := func(id string) (bool, error) {
			o, err := loadOwnOrder(tx, p.Org.ID, id)
			loaded[id] = o
			return err == nil && (f.Status == "" || o.Status == f.Status), err
		}
		var err error
		out, err = listPage(tx, bucketOrdersByOrg, p.Org.ID, page, keep, func(id string) (orders.Order, error) { return loaded[id], nil })
		return err
	})
	return out, err
}

// ProofUpload is a funding proof a caller uploads: its media type
// (application/pdf, image/png or image/jpeg; parameters ignored) and its
// content, read up to OrderOptions.MaxProofBytes.
type ProofUpload struct {
	ContentType string
	Content     io.Reader
}

// MaxProofBytes is the engine's cap on a funding proof.
func (e *Engine) MaxProofBytes() int64 { return e.orderOpts.MaxProofBytes }

// uploadProof is Client.UploadProof.
func (e *Engine) uploadProof(ctx context.Context, p Principal, orderID string, up ProofUpload) (orders.Order, error) {
	mt, err := orders.ProofMediaType(up.ContentType)
	if err != nil {
		return orders.Order{}, err
	}
	if up.Content == nil {
		up.Content = bytes.NewReader(nil)
	}
	var deadline time.Time
	precheck := func(tx store.Tx) (orders.Order, error) {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return orders.Order{}, err
		}
		o, err := loadOwnOrder(tx, p.Org.ID, orderID)
		if err != nil {
			return o, err
		}
		pause, err := e.readPause(tx)
		if err != nil {
			return o, err
		}
		if exp, ok := o.ExpiresAt(); ok {
			deadline = e.effectiveDeadline(pause, exp)
		}
		if o.Status == orders.ProofSubmitted && o.Proof != nil {
			return o, nil // perhaps the newest proof again: decided once its bytes are hashed
		}
		// A dry run of the move with a placeholder proof: is one expected?
		_, _, err = orders.Apply(o, orders.ProofUploaded{ID: "-", SHA256: strings.Repeat("0", 64), ContentType: mt, Size: 1, Deadline: deadline}, e.nowUTC())
		return o, err
	}
	var current orders.Order
	if err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		current, err = precheck(tx)
		return err
	}); err != nil {
		return orders.Order{}, err
	}
	data, err := io.ReadAll(io.LimitReader(up.Content, e.orderOpts.MaxProofBytes+1))
	if err != nil {
		return orders.Order{}, err
	}
	switch {
	case int64(len(data)) > e.orderOpts.MaxProofBytes:
		return orders.Order{}, errcode.Newf(errcode.PayloadTooLarge, "A funding proof may be at most %d bytes.", e.orderOpts.MaxProofBytes)
	case len(data) == 0:
		return orders.Order{}, errcode.Newf(errcode.ValidationError, "The funding proof is empty.")
	case !orders.ProofIs(mt, data):
		return orders.Order{}, errcode.Newf(errcode.UnsupportedMediaType, "The content is not %s.", mt)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	// The move with the real hash, before any byte is stored: the newest
	// proof again while it is under review is the order unchanged (a safe
	// retry); another one then is proof_not_expected.
	_, fx, err := orders.Apply(current, orders.ProofUploaded{ID: "-", SHA256: digest, ContentType: mt, Size: int64(len(data)), Deadline: deadline}, e.nowUTC())
	if err != nil {
		return orders.Order{}, err
	}
	if !fx.Changed {
		return current, nil
	}
	proofID := e.newID()
	if err := e.proofs.Put(ctx, proofID, mt, bytes.NewReader(data)); err != nil {
		return orders.Order{}, err
	}
	var o orders.Order
	err = e.store.Update(ctx, func(tx store.Tx) error {
		if _, err := precheck(tx); err != nil {
			return err
		}
		now := e.nowUTC()
		m, err := e.applyOrder(tx, orderID, p.Org.ID, orders.ProofUploaded{ID: proofID, SHA256: digest, ContentType: mt,
			Size: int64(len(data)), Deadline: deadline}, now)
		o = m.Order
		if err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, p.Org.ID, AuditProofUploaded, orderID, fmt.Sprintf("proof %s (%s, %d bytes, sha256 %s): status %s -> %s",
			proofID, mt, len(data), digest, m.From, o.Status)); err != nil {
			return err
		}
		return storage.PutJSON(tx, bucketProofs, proofID, proofRecord{ID: proofID, Order: orderID, Org: p.Org.ID,
			SHA256: digest, ContentType: mt, Size: int64(len(data)), UploadedAt: now})
	})
	if err == nil {
		e.reportOrder(o, true, "api")
	}
	return o, err
}

// ProofLink is a short-lived link to a funding proof: the token that
// Engine.OpenProofLink opens, which needs no API key.
type ProofLink struct {
	Token     string
	ExpiresAt time.Time
}

var settingProofKey = []byte("proofs.link_key")

// proofLinkKey returns the HMAC key of proof links, kept in the store so
// that every instance over it agrees (made on first use).
func (e *Engine) proofLinkKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		key, err = storage.Setting(tx, settingProofKey)
		return err
	})
	if err == nil {
		return key, nil
	}
	if !isNotFound(err) {
		return nil, err
	}
	fresh := make([]byte, 32)
	if _, err := io.ReadFull(e.random, fresh); err != nil {
		return nil, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		v, err := storage.Setting(tx, settingProofKey)
		if err == nil { // another instance made it first
			key = v
			return nil
		}
		if !isNotFound(err) {
			return err
		}
		key = fresh
		return storage.PutSetting(tx, settingProofKey, fresh)
	})
	return key, err
}

func proofMAC(key []byte, org, order, proof string, exp int64) []byte {
	m := hmac.New(sha256.New, key)
	for _, s := range []string{org, order, proof} {
		m.Write(binary.AppendUvarint(nil, uint64(len(s))))
		m.Write([]byte(s))
	}
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(exp)))
	return m.Sum(nil)
}

// proofLinkFor is Client.ProofLink.
func (e *Engine) proofLinkFor(ctx context.Context, p Principal, orderID string) (ProofLink, error) {
	o, err := e.order(ctx, p, orderID)
	if err != nil {
		return ProofLink{}, err
	}
	if o.Proof == nil {
		return ProofLink{}, errcode.Newf(errcode.NotFound, "This order has no funding proof.")
	}
	key, err := e.proofLinkKey(ctx)
	if err != nil {
		return ProofLink{}, err
	}
	exp := e.nowUTC().Add(e.orderOpts.ProofLinkTTL)
	payload := strings.Join([]string{o.Org, o.ID, o.Proof.ID}, "\x00")
	raw := binary.BigEndian.AppendUint64([]byte(payload+"\x00"), uint64(exp.UnixMilli()))
	raw = append(raw, proofMAC(key, o.Org, o.ID, o.Proof.ID, exp.UnixMilli())...)
	return ProofLink{Token: base64.RawURLEncoding.EncodeToString(raw), ExpiresAt: exp}, nil
}

// OpenProofLink opens the proof a link's token names: a bad, forged or
// expired token is not_found; while /v2 is paused, the pause's error.
func (e *Engine) OpenProofLink(ctx context.Context, token string) (ProofFile, error) {
	pause, err := e.pause(ctx)
	if err != nil {
		return ProofFile{}, err
	}
	if err := pause.Err(APIv2); err != nil {
		return ProofFile{}, err
	}
	// Strict: only the canonical spelling decodes (unused trailing bits
	// zero), so one link has one token.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) < 8+32+4 {
		return ProofFile{}, errNotFound
	}
	mac := raw[len(raw)-32:]
	exp := int64(binary.BigEndian.Uint64(raw[len(raw)-40 : len(raw)-32]))
	parts := strings.Split(string(raw[:len(raw)-41]), "\x00")
	if len(parts) != 3 || raw[len(raw)-41] != 0 {
		return ProofFile{}, errNotFound
	}
	key, err := e.proofLinkKey(ctx)
	if err != nil {
		return ProofFile{}, err
	}
	if !hmac.Equal(mac, proofMAC(key, parts[0], parts[1], parts[2], exp)) || e.nowUTC().UnixMilli() > exp {
		return ProofFile{}, errNotFound
	}
	return e.openProof(ctx, parts[2])
}

// PruneQuotes deletes quotes a day past their expiry (used or not), at
// most batch per call, and reports how many it deleted. Run calls it with
// the idempotency pruning.
func (e *Engine) PruneQuotes(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	now := e.nowUTC()
	n := 0
	err := e.store.Update(ctx, func(tx store.Tx) error {
		n = 0
		var old [][]byte
		err := tx.Scan(bucketQuotes, store.ScanOptions{}, func(k, v []byte) (bool, error) {
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
			return err
		}
		for _, k := range old {
			if err := tx.Delete(bucketQuotes, k); err != nil {
				return err
			}
		}
		n = len(old)
		return nil
	})
	return n, err
}
