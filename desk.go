package tambala

// The desk: the corridors and quotes, the orders (created, listed,
// moved by the desk, expired by the sweep) and their funding proofs.
// Their records are internal/storage's (desk.go); the rules are
// packages quotes' and orders'.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/fingerprint"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
)

// CreateOrder is the idempotent create of a desk order.
const CreateOrder Operation = "orders.create"

func init() {
	operationInfo[CreateOrder] = operationFacts{api: APIv2}
}

// The corridors' version (storage.CorridorsVersion) is a digest of the
// corridors, written with each of them in the same transaction. A command
// that needs the corridors reads it (one key, which every store serves from its caches when many
// commands read it) and, finding the version it last scanned them at,
// takes the list it kept instead of scanning the bucket again: on
// PostgreSQL a scan is a range query to the server in every command, and
// it made the creates of an order or an FX payout run twice in a batch
// (docs/performance.md, "/v2 over HTTP"). A store whose corridors were
// written before the version existed has none until the next corridor is
// set; it is scanned each time meanwhile.

// corridorsIn are the corridors as tx sees them. The slice is shared by
// the commands reading the same version: callers do not modify it.
func (e *Engine) corridorsIn(tx store.Tx) ([]quotes.Corridor, error) {
	version, ok, err := storage.CorridorsVersion(tx)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return storage.ScanCorridors(tx)
	}
	return e.cachedCorridors.Decode(version, func([]byte) ([]quotes.Corridor, error) { return storage.ScanCorridors(tx) })
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

// setCorridor is Desk.SetCorridor.
func (e *Engine) setCorridor(ctx context.Context, c quotes.Corridor) (quotes.Corridor, error) {
	if err := e.checkCorridor(c); err != nil {
		return quotes.Corridor{}, err
	}
	err := e.store.Update(ctx, func(tx store.Tx) error {
		before := "none"
		prev, ok, err := storage.LoadCorridor(tx, c.Asset.Code)
		if err != nil {
			return err
		}
		if ok {
			before = corridorText(prev)
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
		return money.NotConfigured(truncate(string(c.Asset.Code), 12))
	}
	return c.Validate(e.classes)
}

// putCorridor writes c and the corridors' new version
// (storage.PutCorridor).
func putCorridor(tx store.Tx, c quotes.Corridor) error { return storage.PutCorridor(tx, c) }

// allCorridors is Desk.Corridors.
func (e *Engine) allCorridors(ctx context.Context) ([]quotes.Corridor, error) {
	var out []quotes.Corridor
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = storage.ScanCorridors(tx) // the host's own slice
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

// deskOperation is the operation a desk order of dir needs on its
// corridor currency: payout to-bank, collection from-bank.
func deskOperation(dir quotes.Direction) string {
	if dir == quotes.ToBank {
		return OpPayout
	}
	return OpCollection
}

// A quote is committed lazily (store.UpdateLazy): where the store can, its
// write is not waited on to be durable, which costs it no fsync of its
// own. Losing one at a crash is harmless: a quote commits nothing but
// itself and moves no money, and a create that spends it rereads it in
// its own, durable, transaction, where a lost quote is as unknown as one
// never issued (quotes.NotFound). A create that did find it wrote the
// spent quote in full, and a durable commit that read a lazy one makes it
// durable too (store.Lazy), so no durable record ever points to a quote
// that a crash lost. Quote ids are random, never issued twice.

// quoteOrder is Client.QuoteOrder.
func (e *Engine) quoteOrder(ctx context.Context, p Principal, req quotes.Request) (quotes.Quote, error) {
	if err := req.Check(); err != nil {
		return quotes.Quote{}, err
	}
	var q quotes.Quote
	// A quote commits lazily (see above): a crash may lose it.
	err := store.UpdateLazy(ctx, e.store, func(tx store.Tx) error {
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
		return storage.SaveQuote(tx, q)
	})
	if err != nil {
		return quotes.Quote{}, err
	}
	return q, nil
}

// namingQuote returns ctx naming quote id's key to a store that reads
// ahead (store.WithReadsAhead): the create reads it first thing, and it
// was written moments ago, by the quote, so no batch has read it yet.
func (e *Engine) namingQuote(ctx context.Context, id string) context.Context {
	if !validQuoteID(id) || !store.ReadsAheadOf(e.raw) {
		return ctx
	}
	return store.WithReadsAhead(ctx, storage.AppendQuoteKey(nil, id)...)
}

// validQuoteID reports whether id may name a quote (loadQuote reads it).
func validQuoteID(id string) bool { return id != "" && len(id) <= 64 }

// loadQuote loads org's quote id; unknown, foreign and malformed ids are
// all quotes.NotFound.
func loadQuote(tx store.Tx, org, id string) (quotes.Quote, error) {
	if !validQuoteID(id) {
		return quotes.Quote{}, quotes.NotFound()
	}
	q, ok, err := storage.LoadQuote(tx, id)
	if err == nil && (!ok || q.Org != org) {
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

// createOrder is Client.CreateOrder: the quote loaded and spent, the
// order made (newOrder), its hold posted, the quote, the order and its
// indexes stored, in the idempotent create's transaction.
func (e *Engine) createOrder(ctx context.Context, p Principal, n NewOrder, idem Idempotency) (Created[orders.Order], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = n.Fingerprint()
	}
	ctx = e.namingQuote(ctx, n.QuoteID)
	created, err := create(ctx, e, p, CreateOrder, idem, fp, orderCodec, func(tx store.Tx, org *Organization) (orders.Order, []byte, error) {
		now := e.nowUTC()
		o, q, postings, err := e.newOrder(tx, org, n, now)
		if err != nil {
			return orders.Order{}, nil, err
		}
		if err := postDesk(tx, postings, now); err != nil {
			return orders.Order{}, nil, err
		}
		if err := storage.SaveQuote(tx, q); err != nil {
			return orders.Order{}, nil, err
		}
		if err := storage.SaveOrderClientRef(tx, org.ID, n.ClientRef, o.ID); err != nil {
			return orders.Order{}, nil, err
		}
		// The order as stored is the idempotent create's outcome too:
		// encoded once.
		encoded := codec.EncodeOrder(o)
		if err := storage.SaveOrderEncoded(tx, orders.Order{}, o, encoded); err != nil {
			return orders.Order{}, nil, err
		}
		return o, encoded, nil
	})
	if err == nil && !created.Replayed {
		e.reportOrder(created.Resource, true, "api")
	}
	return created, err
}

// newOrder is the order n makes for org at now, the quote it spends and
// the order's postings, checked in the order the API answers: the
// body's shape, the quote, the beneficiary, the order's own rules, the
// assets and the desk, the client_ref.
func (e *Engine) newOrder(tx store.Tx, org *Organization, n NewOrder, now time.Time) (orders.Order, quotes.Quote, []orders.Posting, error) {
	if err := orders.ValidateClientRef(n.ClientRef); err != nil { // the body's shape comes before the quote
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	q, err := loadQuote(tx, org.ID, n.QuoteID)
	if err != nil {
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	id := e.newID()
	if q, err = q.Use(id, quotes.KindOrder, now); err != nil {
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	dir := orderDirection(q.Direction)
	if err := checkBeneficiaryRead(dir, n.BeneficiaryInvalid); err != nil {
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	o, postings, err := orders.New(orders.Params{ID: id, Org: org.ID, QuoteID: q.ID, Direction: dir,
		From: q.From, To: q.To, Rate: q.Rate, ClientRef: n.ClientRef, Beneficiary: n.Beneficiary}, now)
	if err != nil {
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	if err := e.checkDeskFor(tx, org, q); err != nil {
		return orders.Order{}, quotes.Quote{}, nil, err
	}
	_, used, err := storage.OrderByClientRef(tx, org.ID, n.ClientRef)
	if err == nil && used {
		err = errClientRefUsed()
	}
	return o, q, postings, err
}

// checkDeskFor checks that org may trade quote q now: both its assets
// enabled, its corridor enabled for the desk's operation, the desk open.
func (e *Engine) checkDeskFor(tx store.Tx, org *Organization, q quotes.Quote) error {
	for _, code := range []money.AssetCode{q.From.Asset().Code, q.To.Asset().Code} {
		if _, err := e.enabledAsset(org, code, ""); err != nil {
			return err
		}
	}
	if _, err := e.enabledAsset(org, q.Corridor(), deskOperation(q.Direction)); err != nil {
		return err
	}
	visible, err := e.visibleCorridors(tx, org)
	if err != nil {
		return err
	}
	return quotes.CheckDeskOpen(visible)
}

// The order rules below are pure; they belong in package orders and move
// there with its next change (the root keeps them meanwhile).

// orderDirection is the direction of an order of a quote of dir.
func orderDirection(dir quotes.Direction) orders.Direction {
	if dir == quotes.FromBank {
		return orders.FromBank
	}
	return orders.ToBank
}

// checkBeneficiaryRead answers a beneficiary a transport could not read
// (invalid, not nil): a from-bank order may have none at all
// (beneficiary_not_allowed); a to-bank one is told invalid.
func checkBeneficiaryRead(dir orders.Direction, invalid error) error {
	if invalid == nil {
		return nil
	}
	if dir == orders.FromBank {
		return errcode.Newf(errcode.BeneficiaryNotAllowed, "A from-bank order must not have a beneficiary.")
	}
	return invalid
}

// checkHasProof answers an order with no funding proof not_found.
func checkHasProof(o orders.Order) error {
	if o.Proof == nil {
		return errcode.Newf(errcode.NotFound, "This order has no funding proof.")
	}
	return nil
}

// errClientRefUsed is the answer to an order whose client_ref another of
// the organization's orders has.
func errClientRefUsed() error {
	return errcode.Newf(errcode.ClientRefUsed, "The client_ref is already used by another order of this organization.")
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
			id, ok, err := storage.OrderByClientRef(tx, p.Org.ID, f.ClientRef)
			if !ok || err != nil {
				return err
			}
			o, err := loadOwnOrder(tx, p.Org.ID, id)
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
		out, err = listPage(tx, storage.OrdersByOrg, p.Org.ID, page, keep, func(id string) (orders.Order, error) { return loaded[id], nil })
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

// maxProofBytesOfEngine is Gate.MaxProofBytes.
func (e *Engine) maxProofBytesOfEngine() int64 { return e.orderOpts.MaxProofBytes }

// uploadProof is Client.UploadProof: the order checked (proofPrecheck),
// the content read and checked (checkProofContent), the move tried with
// its hash before any byte is stored, the bytes put in the ProofStore,
// then the move made and the proof recorded (recordProof).
func (e *Engine) uploadProof(ctx context.Context, p Principal, orderID string, up ProofUpload) (orders.Order, error) {
	mt, err := orders.ProofMediaType(up.ContentType)
	if err != nil {
		return orders.Order{}, err
	}
	if up.Content == nil {
		up.Content = bytes.NewReader(nil)
	}
	var current orders.Order
	var deadline time.Time
	if err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		current, deadline, err = e.proofPrecheck(tx, p, orderID, mt)
		return err
	}); err != nil {
		return orders.Order{}, err
	}
	data, err := io.ReadAll(io.LimitReader(up.Content, e.orderOpts.MaxProofBytes+1))
	if err != nil {
		return orders.Order{}, err
	}
	if err := checkProofContent(mt, data, e.orderOpts.MaxProofBytes); err != nil {
		return orders.Order{}, err
	}
	sum := sha256.Sum256(data)
	proof := orders.ProofUploaded{ID: "-", SHA256: hex.EncodeToString(sum[:]), ContentType: mt, Size: int64(len(data)), Deadline: deadline}
	// The move with the real hash, before any byte is stored: the newest
	// proof again while it is under review is the order unchanged (a safe
	// retry); another one then is proof_not_expected.
	if _, fx, err := orders.Apply(current, proof, e.nowUTC()); err != nil {
		return orders.Order{}, err
	} else if !fx.Changed {
		return current, nil
	}
	proof.ID = e.newID()
	if err := e.proofs.Put(ctx, proof.ID, mt, bytes.NewReader(data)); err != nil {
		return orders.Order{}, err
	}
	var o orders.Order
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		o, err = e.recordProof(ctx, tx, p, orderID, proof)
		return err
	})
	if err == nil {
		e.reportOrder(o, true, "api")
	}
	return o, err
}

// proofPrecheck loads p's order id for an upload of a proof of media type
// mt and the funding deadline honoured (zero: the order's own), and
// checks that a proof is expected: a dry run of the move with a
// placeholder proof. An order under review with a proof passes: the
// newest proof again is decided once its bytes are hashed.
func (e *Engine) proofPrecheck(tx store.Tx, p Principal, id, mt string) (orders.Order, time.Time, error) {
	if _, err := e.admit(tx, p, APIv2); err != nil {
		return orders.Order{}, time.Time{}, err
	}
	o, err := loadOwnOrder(tx, p.Org.ID, id)
	if err != nil {
		return o, time.Time{}, err
	}
	pause, err := e.readPause(tx)
	if err != nil {
		return o, time.Time{}, err
	}
	var deadline time.Time
	if exp, ok := o.ExpiresAt(); ok {
		deadline = e.effectiveDeadline(pause, exp)
	}
	if o.Status == orders.ProofSubmitted && o.Proof != nil {
		return o, deadline, nil
	}
	_, _, err = orders.Apply(o, orders.ProofUploaded{ID: "-", SHA256: strings.Repeat("0", 64), ContentType: mt, Size: 1, Deadline: deadline}, e.nowUTC())
	return o, deadline, err
}

// recordProof makes the upload of proof (its bytes stored) on p's order id
// in tx, checked again: the move, its audit entry and the proof's record.
func (e *Engine) recordProof(ctx context.Context, tx store.Tx, p Principal, id string, proof orders.ProofUploaded) (orders.Order, error) {
	if _, _, err := e.proofPrecheck(tx, p, id, proof.ContentType); err != nil {
		return orders.Order{}, err
	}
	now := e.nowUTC()
	m, err := e.applyOrder(tx, id, p.Org.ID, proof, now)
	if err != nil {
		return m.Order, err
	}
	if err := e.auditAs(ctx, tx, p.Org.ID, AuditProofUploaded, id, fmt.Sprintf("proof %s (%s, %d bytes, sha256 %s): status %s -> %s",
		proof.ID, proof.ContentType, proof.Size, proof.SHA256, m.From, m.Order.Status)); err != nil {
		return m.Order, err
	}
	return m.Order, storage.SaveProof(tx, proofRecord{ID: proof.ID, Order: id, Org: p.Org.ID,
		SHA256: proof.SHA256, ContentType: proof.ContentType, Size: proof.Size, UploadedAt: now})
}

// checkProofContent checks a funding proof's bytes, read up to max+1:
// at most max of them, some, and of media type mt. (A pure order rule:
// it belongs in package orders.)
func checkProofContent(mt string, data []byte, max int64) error {
	switch {
	case int64(len(data)) > max:
		return errcode.Newf(errcode.PayloadTooLarge, "A funding proof may be at most %d bytes.", max)
	case len(data) == 0:
		return errcode.Newf(errcode.ValidationError, "The funding proof is empty.")
	case !orders.ProofIs(mt, data):
		return errcode.Newf(errcode.UnsupportedMediaType, "The content is not %s.", mt)
	}
	return nil
}

// ProofLink is a short-lived link to a funding proof: the token that
// Gate.OpenProofLink opens, which needs no API key.
type ProofLink struct {
	Token     string
	ExpiresAt time.Time
}

// proofLinkKey returns the HMAC key of proof links, kept in the store so
// that every instance over it agrees (made on first use).
func (e *Engine) proofLinkKey(ctx context.Context) ([]byte, error) {
	var key []byte
	var ok bool
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		key, ok, err = storage.LoadProofLinkKey(tx)
		return err
	})
	if err != nil || ok {
		return key, err
	}
	fresh := make([]byte, 32)
	if _, err := io.ReadFull(e.random, fresh); err != nil {
		return nil, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		v, ok, err := storage.LoadProofLinkKey(tx)
		if ok || err != nil { // another instance made it first
			key = v
			return err
		}
		key = fresh
		return storage.SaveProofLinkKey(tx, fresh)
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
	if err := checkHasProof(o); err != nil {
		return ProofLink{}, err
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

// openProofLinkOfEngine is Gate.OpenProofLink.
func (e *Engine) openProofLinkOfEngine(ctx context.Context, token string) (ProofFile, error) {
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

// pruneQuotesOfEngine is Work.PruneQuotes.
func (e *Engine) pruneQuotesOfEngine(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	now := e.nowUTC()
	n := 0
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		n, err = storage.PruneQuotes(tx, now, batch)
		return err
	})
	return n, err
}

// loadOrder loads order id; an unknown one is not_found.
func loadOrder(tx store.Tx, id string) (orders.Order, error) {
	return storage.LoadOrder(tx, id, errNotFound)
}

// loadOwnOrder is loadOrder for org's own orders: another organization's
// is not_found.
func loadOwnOrder(tx store.Tx, org, id string) (orders.Order, error) {
	o, err := loadOrder(tx, id)
	if err == nil && o.Org != org {
		return orders.Order{}, errNotFound
	}
	return o, err
}

// postDesk posts the ledger movements of a desk product (an order's or a
// conversion's) or a trade, all orders.Posting, at now in tx: a capture
// pays the desk, a credit comes from the desk or, for a trade, the float.
func postDesk(tx store.Tx, ps []orders.Posting, now time.Time) error {
	for _, p := range ps {
		var cmd ledger.Command
		switch p.Kind {
		case orders.KindPlaceHold:
			cmd = ledger.PlaceHold{EntryID: p.EntryID, HoldID: p.HoldID, Org: p.Org, Amount: p.Amount, Ref: p.Ref, At: now}
		case orders.KindCaptureHold:
			cmd = ledger.CaptureHold{EntryID: p.EntryID, HoldID: p.HoldID, Amount: p.Amount, To: ledger.Desk, Ref: p.Ref, At: now}
		case orders.KindReleaseHold:
			cmd = ledger.ReleaseHold{EntryID: p.EntryID, HoldID: p.HoldID, Ref: p.Ref, At: now}
		case orders.KindCredit:
			from := ledger.Desk
			if p.System == trades.Float {
				from = ledger.Float
			}
			cmd = ledger.Credit{EntryID: p.EntryID, Org: p.Org, Amount: p.Amount, From: from, Ref: p.Ref, At: now}
		default:
			return fmt.Errorf("tambala: unknown desk posting %q", p.Kind)
		}
		if _, err := postLedger(tx, cmd); err != nil {
			return err
		}
	}
	return nil
}

// orderMove is what applyOrder did: the order's status before, the order
// after, and whether the move changed it (a move already made does not).
type orderMove struct {
	From    orders.Status
	Order   orders.Order
	Changed bool
}

// moved says the move changed the order's status.
func (m orderMove) moved() bool { return m.Changed && m.From != m.Order.Status }

// applyOrder makes one move of order id in tx: the order package's rules,
// then the postings, the records and the events of the move, together.
func (e *Engine) applyOrder(tx store.Tx, id string, org string, cmd orders.Command, now time.Time) (orderMove, error) {
	prev, err := loadOrder(tx, id)
	if err != nil {
		return orderMove{}, err
	}
	if org != "" && prev.Org != org {
		return orderMove{}, errNotFound
	}
	o, fx, err := orders.Apply(prev, cmd, now)
	m := orderMove{From: prev.Status, Order: o}
	if err != nil || !fx.Changed {
		return m, err
	}
	if err := postDesk(tx, fx.Postings, now); err != nil {
		return m, err
	}
	if fx.Collection != nil {
		if err := e.recordRefundCollection(tx, o, fx.Collection, now); err != nil {
			return m, err
		}
	}
	if err := storage.SaveOrder(tx, prev, o); err != nil {
		return m, err
	}
	for _, ev := range fx.Events {
		if err := e.emit(tx, o.Org, ev.Type, render.Order(o), orderResource(o)); err != nil {
			return m, err
		}
	}
	if err := e.checkBalanceLow(tx, o.Org); err != nil {
		return m, err
	}
	m.Changed = true
	return m, nil
}

// reportOrder logs and counts an order's committed move.
func (e *Engine) reportOrder(o orders.Order, moved bool, by string) {
	if !moved {
		return
	}
	if e.log.Enabled(context.Background(), slog.LevelInfo) {
		e.log.Info("order", slog.String("order", o.ID), slog.String("org", o.Org), slog.String("direction", string(o.Direction)),
			slog.String("status", string(o.Status)), slog.String("by", by))
	}
	e.metrics.OrderMoved(o.Direction, o.Status, by)
}

// moveOrder is Desk.MoveOrder: the move checked (checkDeskMove), then
// made in one transaction (deskMove), drawn again when a generated
// funding reference met another order's.
func (e *Engine) moveOrder(ctx context.Context, id string, cmd orders.Command) (orders.Order, error) {
	if err := checkDeskMove(cmd); err != nil {
		return orders.Order{}, err
	}
	for try := 0; ; try++ {
		var err error
		if cmd, err = e.drawInstructions(cmd); err != nil {
			return orders.Order{}, err
		}
		var r deskMoved
		err = e.store.Update(ctx, func(tx store.Tx) error {
			var err error
			r, err = e.deskMove(ctx, tx, id, cmd)
			return err
		})
		if r.clash && try < 5 {
			continue // a generated reference met another: draw again
		}
		if err != nil {
			return orders.Order{}, err
		}
		if r.pending != nil {
			return orders.Order{}, &ApprovalPendingError{Approval: *r.pending}
		}
		e.reportOrder(r.order, r.moved, "desk")
		return r.order, nil
	}
}

// deskMoved is what deskMove did.
type deskMoved struct {
	order   orders.Order
	moved   bool      // the order's status changed
	clash   bool      // a generated funding reference met another order's
	pending *Approval // the move waits for this approval; nothing moved
}

// deskMove makes the desk's move cmd of order id in tx: four-eyes for a
// refund returned (gateRefund), the move (applyOrder), or the repeat
// decided (checkRepeat); the audit entry, the mover, and a new funding
// reference claimed.
func (e *Engine) deskMove(ctx context.Context, tx store.Tx, id string, cmd orders.Command) (deskMoved, error) {
	if _, ok := cmd.(orders.ReturnRefund); ok {
		pending, err := e.gateRefund(ctx, tx, id)
		if err != nil || pending != nil {
			return deskMoved{pending: pending}, err
		}
	}
	m, err := e.applyOrder(tx, id, "", cmd, e.nowUTC())
	r := deskMoved{order: m.Order, moved: m.moved()}
	if err != nil {
		return r, err
	}
	if !m.Changed {
		return r, checkRepeat(ctx, tx, id, cmd)
	}
	if err := e.auditAs(ctx, tx, r.order.Org, AuditOrderMoved, r.order.ID, orderMoveSummary(cmd, m)); err != nil {
		return r, err
	}
	if err := putMover(ctx, tx, id, cmd); err != nil {
		return r, err
	}
	if !r.moved || r.order.Funding == nil || r.order.Status != orders.AwaitingFunds {
		return r, nil
	}
	r.clash, err = claimFundingRef(tx, r.order, cmd)
	return r, err
}

// claimFundingRef makes o's new funding reference o's: it is unique across
// organizations. A reference the desk chose that another order has is
// conflict; a generated one is a clash (errRetryReference), drawn again.
func claimFundingRef(tx store.Tx, o orders.Order, cmd orders.Command) (clash bool, err error) {
	owner, taken, err := storage.FundingRefOwner(tx, o.Funding.Reference)
	switch {
	case err != nil:
		return false, err
	case taken && owner != o.ID:
		if in := cmd.(orders.Instructions); in.Reference != "" {
			return false, errcode.Newf(errcode.Conflict, "The funding reference %s is already used by another order.", in.Reference)
		}
		return true, errRetryReference
	}
	return false, storage.SaveFundingRef(tx, o.Funding.Reference, o.ID)
}

// drawInstructions gives a move of instructions the funding window and
// fresh random bytes (for a reference it generates); another move is
// returned as it is.
func (e *Engine) drawInstructions(cmd orders.Command) (orders.Command, error) {
	in, ok := cmd.(orders.Instructions)
	if !ok {
		return cmd, nil
	}
	in.Window = e.orderOpts.FundingWindow
	if _, err := io.ReadFull(e.random, in.Random[:]); err != nil {
		return nil, err
	}
	return in, nil
}

// checkDeskMove refuses a move the desk may not make: a proof's upload and
// the expiry are the client's and the sweep's. (A pure order rule: it
// belongs in package orders.)
func checkDeskMove(cmd orders.Command) error {
	switch cmd.(type) {
	case orders.ProofUploaded, orders.Expire:
		return errcode.Newf(errcode.ValidationError, "%s is not a desk move.", cmd.Name())
	case nil:
		return errcode.Newf(errcode.ValidationError, "no move given.")
	}
	return nil
}

var errRetryReference = errors.New("tambala: generated funding reference already used")

// ErrOrderAlreadyMoved is the error of a desk move that another person
// already made: the order is as the move would leave it, nothing changed,
// and the caller is told so instead of "done" (code conflict). The
// same person repeating their own move (a retry) gets the order
// unchanged, with no error; so does any repeat when no person asked (the
// engine's own work, or a move made before movers were recorded).
var ErrOrderAlreadyMoved = errors.New("tambala: the order already moved")

// moverOf is how a mover is recorded: the actor's kind and id (a staff
// user's, or none for the automation), NUL, and the name shown.
func moverOf(a AuditActor) []byte {
	return []byte(string(a.Kind) + ":" + a.ID + "\x00" + actorName(a))
}

// putMover records who made cmd on order id, when ctx names someone.
func putMover(ctx context.Context, tx store.Tx, id string, cmd orders.Command) error {
	a, ok := ctx.Value(actorKey{}).(AuditActor)
	if !ok {
		return nil
	}
	return storage.SaveMover(tx, id, cmd.Name(), moverOf(a))
}

// checkRepeat decides a move that changed nothing: a repeat by whoever
// made it is answered with the order unchanged; one by another person,
// ErrOrderAlreadyMoved, naming who made it. Two people posting one move
// at once are thus told apart: one moved the order, the other is told it
// already moved.
func checkRepeat(ctx context.Context, tx store.Tx, id string, cmd orders.Command) error {
	a, ok := ctx.Value(actorKey{}).(AuditActor)
	if !ok {
		return nil
	}
	v, ok, err := storage.LoadMover(tx, id, cmd.Name())
	if !ok || err != nil {
		return err
	}
	who, name, _ := strings.Cut(string(v), "\x00")
	mine, _, _ := strings.Cut(string(moverOf(a)), "\x00")
	if who == mine {
		return nil
	}
	return &errcode.Error{Code: errcode.Conflict, Err: ErrOrderAlreadyMoved,
		Message: fmt.Sprintf("The order already moved: %s made this move (%s) first; nothing changed.", name, cmd.Name())}
}

// deskOrder is Desk.Order.
func (e *Engine) deskOrder(ctx context.Context, id string) (orders.Order, error) {
	var o orders.Order
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		o, err = loadOrder(tx, id)
		return err
	})
	return o, err
}

// DeskQueue filters the desk's queue.
type DeskQueue struct {
	Status orders.Status // "" for every status
	OrgID  string        // "" for every organization
}

// deskOrders is Desk.Orders.
func (e *Engine) deskOrders(ctx context.Context, q DeskQueue, page PageRequest) (Page[orders.Order], error) {
	if q.Status != "" {
		if _, err := orders.ParseStatus(string(q.Status)); err != nil {
			return Page[orders.Order]{}, err
		}
	}
	page, err := page.check()
	if err != nil {
		return Page[orders.Order]{}, err
	}
	out := Page[orders.Order]{Items: []orders.Order{}}
	err = e.store.View(ctx, func(tx store.Tx) error {
		out.Items, out.NextBeforeID = out.Items[:0], ""
		if page.BeforeID != "" {
			if _, err := loadOrder(tx, page.BeforeID); err != nil {
				if errors.Is(err, errNotFound) {
					return errcode.Newf(errcode.ValidationError, "before_id is not a cursor of this list")
				}
				return err
			}
		}
		budget, examined, last := storage.ExamineBudget(page.Limit), 0, ""
		return storage.ScanDeskOrders(tx, q.Status, page.BeforeID, func(id string) (bool, error) {
			if q.OrgID != "" && examined == budget { // more to look at, past the budget
				out.NextBeforeID = last
				return false, nil
			}
			examined++
			o, err := loadOrder(tx, id)
			if err != nil {
				return false, err
			}
			if q.OrgID != "" && o.Org != q.OrgID {
				last = o.ID
				return true, nil
			}
			if len(out.Items) == page.Limit { // one more that matches: there is a next page
				out.NextBeforeID = out.Items[len(out.Items)-1].ID
				return false, nil
			}
			out.Items = append(out.Items, o)
			last = o.ID
			return true, nil
		})
	})
	out.HasMore = out.NextBeforeID != ""
	return out, err
}

// processOrdersOfEngine is Work.ProcessOrders.
func (e *Engine) processOrdersOfEngine(ctx context.Context) (int, error) {
	pause, err := e.pause(ctx)
	if err != nil {
		return 0, err
	}
	if pause.V2 != Live {
		return 0, nil
	}
	now := e.nowUTC()
	ids, err := storage.OrdersExpiry.Due(ctx, e.store, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		var o orders.Order
		var moved bool
		err := e.store.Update(ctx, func(tx store.Tx) error {
			cur, err := loadOrder(tx, id)
			if err != nil {
				return err
			}
			exp, ok := cur.ExpiresAt()
			if !ok || cur.Status != orders.AwaitingFunds || cur.Proof != nil {
				return storage.MoveOrderExpiry(tx, id, nil) // not the sweep's any more
			}
			effective := e.effectiveDeadline(pause, exp)
			if !orders.ExpiryDue(cur, now, effective) {
				if effective.After(now) { // honoured longer: look again then
					return storage.MoveOrderExpiry(tx, id, &effective)
				}
				return nil
			}
			m, err := e.applyOrder(tx, id, "", orders.Expire{Deadline: effective}, now)
			o, moved = m.Order, m.moved()
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			e.log.Error("order expiry", slog.String("order", id), slog.Any("error", err))
			continue
		}
		if moved {
			n++
			e.reportOrder(o, moved, "sweep")
		}
	}
	return n, nil
}

// effectiveDeadline is the funding deadline the sweep and uploads honour:
// exp, or, when exp fell inside a /v2 pause, that pause's end plus
// the grace, and so on while the extended deadline falls inside a later
// pause. Zero means exp. Inside a pause that still lasts there is no
// deadline yet: the sweep does not run then, and uploads are paused.
func (e *Engine) effectiveDeadline(p PauseState, exp time.Time) time.Time {
	deadline, extended := exp, false
	for _, w := range p.V2Pauses {
		if deadline.Before(w.From) {
			continue
		}
		if w.To == nil {
			return time.Time{} // paused now
		}
		if !deadline.After(*w.To) {
			deadline, extended = w.To.Add(e.orderOpts.PauseGrace), true
		}
	}
	if !extended {
		return time.Time{}
	}
	return deadline
}

// proofRecord is a stored funding proof: its bytes are in the ProofStore.
type proofRecord = codec.ProofRecord

// ProofFile is a stored funding proof's content.
type ProofFile struct {
	ContentType string
	Size        int64
	Content     io.ReadCloser
}

// deskProof is Desk.Proof.
func (e *Engine) deskProof(ctx context.Context, orderID string) (ProofFile, error) {
	o, err := e.deskOrder(ctx, orderID)
	if err != nil {
		return ProofFile{}, err
	}
	if err := checkHasProof(o); err != nil {
		return ProofFile{}, err
	}
	return e.openProof(ctx, o.Proof.ID)
}

func (e *Engine) openProof(ctx context.Context, id string) (ProofFile, error) {
	var rec proofRecord
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		rec, err = storage.LoadProof(tx, id, errNotFound)
		return err
	})
	if err != nil {
		return ProofFile{}, err
	}
	rc, err := e.proofs.Open(ctx, id)
	if err != nil {
		return ProofFile{}, err
	}
	return ProofFile{ContentType: rec.ContentType, Size: rec.Size, Content: rc}, nil
}

// kvProofs is the default ProofStore: a bucket of the engine's store.
type kvProofs struct{ s store.Store }

func (p kvProofs) Put(ctx context.Context, id, _ string, content io.Reader) error {
	b, err := io.ReadAll(content)
	if err != nil {
		return err
	}
	return p.s.Update(ctx, func(tx store.Tx) error { return storage.SaveProofBytes(tx, id, b) })
}

func (p kvProofs) Open(ctx context.Context, id string) (io.ReadCloser, error) {
	var b []byte
	var ok bool
	err := p.s.View(ctx, func(tx store.Tx) error {
		var err error
		b, ok, err = storage.LoadProofBytes(tx, id)
		return err
	})
	if err == nil && !ok {
		return nil, errNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), err
}

// orderMoveSummary tells, for the audit trail, which move m was and what
// it changed: the status before and after, and the move's own figures
// (a failure code, a proof, a reason, a funding reference).
func orderMoveSummary(cmd orders.Command, m orderMove) string {
	s := fmt.Sprintf("%s: status %s -> %s", cmd.Name(), m.From, m.Order.Status)
	switch c := cmd.(type) {
	case orders.Fail:
		s += ", failure code " + string(c.Code)
	case orders.RejectProof:
		s += fmt.Sprintf(", proof %s, reason %q", c.ProofID, c.Reason)
	case orders.ConfirmFunds:
		s += ", proof " + c.ProofID
	case orders.Instructions:
		if f := m.Order.Funding; f != nil {
			s += ", funding reference " + f.Reference
		}
	}
	if m.Order.Refund != nil && m.From == m.Order.Status {
		s += ", refund " + string(m.Order.Refund.Status)
	}
	return s
}

// gateRefund is four-eyes for the desk's refund returned of order id: a
// move the order's state allows and that credits above the threshold
// waits for a desk approval (gate).
func (e *Engine) gateRefund(ctx context.Context, tx store.Tx, id string) (*Approval, error) {
	o, err := loadOrder(tx, id)
	if err != nil {
		return nil, err
	}
	if _, fx, err := orders.Apply(o, orders.ReturnRefund{}, e.nowUTC()); err != nil || !fx.Changed {
		return nil, err
	}
	return e.gate(ctx, tx, approvals.RefundReturned, o.Org, o.From, o.ID, accounts.StaffDesk, map[string]string{"order": o.ID})
}

// MaxProofBytes is the engine's cap on a funding proof.
func (u Gate) MaxProofBytes() int64 {
	return u.x.maxProofBytesOfEngine()
}

// OpenProofLink opens the proof a link's token names: a bad, forged or
// expired token is not_found; while /v2 is paused, the pause's error.
func (u Gate) OpenProofLink(ctx context.Context, token string) (ProofFile, error) {
	return u.x.openProofLinkOfEngine(ctx, token)
}

// ProcessOrders runs one pass of the expiry sweep: every from-bank order
// past its funding deadline that never had a proof is expired, each in its
// own transaction with its event. While /v2 is paused it expires nothing,
// and a deadline that fell inside the last pause is honoured until the
// pause ended plus the grace (OrderOptions.PauseGrace). Run calls it.
func (u Work) ProcessOrders(ctx context.Context) (int, error) {
	return u.x.processOrdersOfEngine(ctx)
}

// PruneQuotes deletes quotes a day past their expiry (used or not), at
// most batch per call, and reports how many it deleted. Run calls it with
// the idempotency pruning.
func (u Work) PruneQuotes(ctx context.Context, batch int) (int, error) {
	return u.x.pruneQuotesOfEngine(ctx, batch)
}
