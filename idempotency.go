package tambala

import (
	"context"
	"encoding/hex"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// Operation names an idempotent create. An organization's idempotency keys
// are one namespace across all its creates: a key decided by one
// operation is a conflict on any other. The names are stable across
// versions, whatever transport carries the call, and are stored with each
// decision.
type Operation string

// The idempotent creates.
const (
	CreateBankPayout Operation = "payouts.create.bank"
	CreateMomoPayout Operation = "payouts.create.momo"
)

// operationInfo is what the engine knows of each operation: the API whose
// rules it is under, and the scope under which versions before operation
// names stored its outcomes (method and path), still read so that a retry
// across the upgrade replays, for as long as such a record can be within
// the retention (earlierScopes).
var operationInfo = map[Operation]operationFacts{
	CreateBankPayout: {api: APIv1, legacy: "POST\x00/v1/payouts/bank", reads: payoutReads},
	CreateMomoPayout: {api: APIv1, legacy: "POST\x00/v1/payouts/momo", reads: payoutReads},
}

// operationFacts are what the engine knows of an operation: its API, the
// scope its idempotency keys had in builds that kept one per operation
// (legacy), and what its transaction reads.
type operationFacts struct {
	api    API
	legacy string
	// reads names the keys the operation's transaction reads; nil names
	// none.
	reads keysRead
}

// keysRead appends the keys a transaction reads of org at now, which
// create names first to a store that reads ahead (store.Prefetch).
type keysRead func(dst []store.KeyRef, org string, now time.Time) []store.KeyRef

// Fingerprint identifies the request a create was made with. Two calls
// with one idempotency key and different fingerprints are a conflict.
type Fingerprint [32]byte

// Idempotency makes a create safe to retry. Key is required (at most
// MaxIdempotencyKeyLength bytes). Fingerprint identifies the request; when
// it is zero the engine uses the default fingerprint of the typed request
// (for payouts, payouts.Request.Fingerprint: SHA-256 over a length-prefixed
// encoding of every field), which is what a Go host without a request body
// wants.
type Idempotency struct {
	Key         string
	Fingerprint Fingerprint
}

// Created is the result of an idempotent create: the resource as it was
// when the create was decided, and whether this call replayed that
// decision instead of making it.
type Created[T any] struct {
	Resource T
	Replayed bool
}

// MaxIdempotencyKeyLength bounds an idempotency key.
const MaxIdempotencyKeyLength = 255

// idemScope is where an organization's decision under key is stored, for
// every operation: organization, an empty operation, key. Scopes of
// earlier builds always name an operation (opIdemScope) or a method and
// path (legacyIdemScope), so they never collide with it.
func idemScope(org, key string) string {
	return org + "\x00\x00" + key
}

// opIdemScope is the scope of builds that kept a namespace per operation.
func opIdemScope(org string, op Operation, key string) string {
	return org + "\x00" + string(op) + "\x00" + key
}

func legacyIdemScope(org, legacy, key string) string {
	return org + "\x00" + legacy + "\x00" + key
}

// operationsFrom lists every operation, op first, then the rest in name
// order: the order in which a create looks for its key under the scopes
// of earlier builds.
func operationsFrom(op Operation) []Operation {
	out := make([]Operation, 0, len(operationInfo))
	out = append(out, op)
	rest := make([]Operation, 0, len(operationInfo))
	for o := range operationInfo {
		if o != op {
			rest = append(rest, o)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// ErrNoIdempotencyKey is a create whose Idempotency has no Key;
// ErrIdempotencyKeyTooLong one whose Key is longer than
// MaxIdempotencyKeyLength. Both are validation errors, and errors.Is
// matches them; a transport words them for its own request (the HTTP
// binding names its header).
var (
	ErrNoIdempotencyKey      = errcode.Newf(errcode.ValidationError, "an idempotency key is required: set Idempotency.Key")
	ErrIdempotencyKeyTooLong = errcode.Newf(errcode.ValidationError, "the idempotency key is longer than %d characters", MaxIdempotencyKeyLength)
)

func checkIdemKey(key string) error {
	if key == "" {
		return ErrNoIdempotencyKey
	}
	if len(key) > MaxIdempotencyKeyLength {
		return ErrIdempotencyKeyTooLong
	}
	return nil
}

var (
	errIdemInFlight       = errcode.Newf(errcode.Conflict, "The original request with this Idempotency-Key is still in progress.")
	errIdemMismatch       = errcode.Newf(errcode.Conflict, "This Idempotency-Key was used with a different request body.")
	errIdemOtherOperation = errcode.Newf(errcode.Conflict,
		"This Idempotency-Key was used for another kind of request; a key names one create across every endpoint.")
	errIdemUndecodable = errcode.Newf(errcode.Conflict,
		"This Idempotency-Key was decided for a request this version no longer accepts; use a new key.")
)

// storedOutcome looks up the organization's decision under key (whose
// scope, idemScope(org, key), the caller has built already), and which
// operation made it; ok is false when there is none. While earlier builds'
// records can be within the retention (earlier), it also looks under
// their scopes: per operation (op's own first), then per method and path.
func storedOutcome(tx store.Tx, org, key, scope string, op Operation, earlier earlierScopes) (rec codec.IdemRecord, by Operation, ok bool, err error) {
	v, err := storage.Idem(tx, scope)
	switch {
	case err == nil:
		rec, err = codec.DecodeIdemRecord(v)
		return rec, Operation(rec.Operation), err == nil, err
	case !isNotFound(err):
		return rec, "", false, err
	case !earlier.operation && !earlier.legacy:
		return rec, "", false, nil
	}
	for _, o := range operationsFrom(op) {
		scopes := make([]string, 0, 2)
		if earlier.operation {
			scopes = append(scopes, opIdemScope(org, o, key))
		}
		if legacy := operationInfo[o].legacy; earlier.legacy && legacy != "" {
			scopes = append(scopes, legacyIdemScope(org, legacy, key))
		}
		for _, scope := range scopes {
			v, err := storage.Idem(tx, scope)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return rec, "", false, err
			}
			rec, err = codec.DecodeIdemRecord(v)
			return rec, o, err == nil, err
		}
	}
	return rec, "", false, nil
}

// resourceCodec reads the resource a decided create stored: decode reads
// what run returned (version 2 records); decodeLegacy reads the response
// body that versions 0 and 1 stored instead.
type resourceCodec[T any] struct {
	decode       func(org string, stored []byte) (T, error)
	decodeLegacy func(org string, body []byte) (T, error)
}

// create runs a create exactly once per (organization, key), whatever
// the operation:
//   - a missing or too long key is validation_error;
//   - inside one transaction, the Principal's rules are checked first
//     (admit), so a paused API or a suspended organization answers even a
//     replay;
//   - while the same key is being decided in this process, conflict;
//   - once decided by another operation, conflict; by this one, the same
//     fingerprint replays the stored resource and a different one is
//     conflict;
//   - otherwise run decides it in the same transaction, returning the
//     resource and its stored encoding; an error (a rejection or a fault)
//     stores nothing, so the key can be used again.
//
// Across processes sharing a store, the serializable Update guarantees
// that only one decision commits; the loser replays it.
func create[T any](ctx context.Context, e *Engine, p Principal, op Operation, idem Idempotency, fp Fingerprint, rc resourceCodec[T],
	run func(tx store.Tx, org *Organization) (T, []byte, error)) (Created[T], error) {
	if err := checkIdemKey(idem.Key); err != nil {
		return Created[T]{}, err
	}
	if !p.valid {
		return Created[T]{}, errNoPrincipal
	}
	orgID := p.Org.ID // all the transaction needs of p, which is valid
	scope := idemScope(orgID, idem.Key)
	if !e.inflight.enter(scope) {
		return Created[T]{}, errIdemInFlight
	}
	defer e.inflight.leave(scope)
	earlier, err := e.earlierScopes(ctx)
	if err != nil {
		return Created[T]{}, err
	}
	var out Created[T]
	reads := operationInfo[op].reads
	if store.ReadsAheadOf(e.raw) {
		// Named before the transaction, a store that runs updates together
		// reads them with the others' in one round trip.
		ctx = store.WithReadsAhead(ctx, createReads(scope, reads, orgID, e.nowUTC())...)
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		out = Created[T]{}
		if store.Prefetch(tx, nil) {
			store.Prefetch(tx, createReads(scope, reads, orgID, e.nowUTC()))
		}
		org, err := e.admitOrg(tx, orgID, operationInfo[op].api)
		if err != nil {
			return err
		}
		var found bool
		if out, found, err = replay(tx, orgID, op, idem.Key, scope, fp, earlier, rc); err != nil || found {
			return err
		}
		res, stored, err := run(tx, org)
		if err != nil {
			return err
		}
		now := e.nowUTC()
		r := codec.IdemRecord{Operation: string(op), Body: stored, CreatedAt: now}
		out.Resource = res
		return storage.SaveIdemRecord(tx, scope, now, &r, fp)
	})
	if err != nil {
		return Created[T]{}, err
	}
	return out, nil
}

// createReads are the keys a create's transaction reads first, which it
// names to a store that reads ahead (store.Prefetch): the organization's
// record (admitOrg), the outcome under scope, and those of the
// operation's reads at now, if it has any.
func createReads(scope string, reads keysRead, org string, now time.Time) []store.KeyRef {
	keys := storage.AppendIdemKey(storage.AppendOrgKey(make([]store.KeyRef, 0, 9), org), scope)
	if reads != nil {
		keys = reads(keys, org, now)
	}
	return keys
}

// replay is the outcome decided under key (in scope), when there is one
// (found): a replay of op's own decision for the fingerprint fp, or
// conflict.
func replay[T any](tx store.Tx, org string, op Operation, key, scope string, fp Fingerprint, earlier earlierScopes,
	rc resourceCodec[T]) (out Created[T], found bool, err error) {
	rec, by, found, err := storedOutcome(tx, org, key, scope, op, earlier)
	if err != nil || !found {
		return out, false, err
	}
	if by != op {
		return out, true, errIdemOtherOperation
	}
	if rec.BodySHA256 != hex.EncodeToString(fp[:]) {
		return out, true, errIdemMismatch
	}
	out.Replayed = true
	if rec.Version >= 2 {
		out.Resource, err = rc.decode(org, rec.Body)
	} else {
		out.Resource, err = rc.decodeLegacy(org, rec.Body)
	}
	return out, true, err
}

// refuseCreate is Gate.RefuseCreate.
func (e *Engine) refuseCreate(ctx context.Context, p Principal, op Operation, idem Idempotency, reason error) error {
	info, ok := operationInfo[op]
	if !ok {
		return errcode.Newf(errcode.ValidationError, "Unknown operation %q.", truncate(string(op), 40))
	}
	if err := checkIdemKey(idem.Key); err != nil {
		return err
	}
	if !p.valid {
		return errNoPrincipal
	}
	scope := idemScope(p.Org.ID, idem.Key)
	if e.inflight.busy(scope) {
		return errIdemInFlight
	}
	earlier, err := e.earlierScopes(ctx)
	if err != nil {
		return err
	}
	digest := hex.EncodeToString(idem.Fingerprint[:])
	err = e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, info.api); err != nil {
			return err
		}
		rec, by, found, err := storedOutcome(tx, p.Org.ID, idem.Key, scope, op, earlier)
		switch {
		case err != nil:
			return err
		case !found:
			return nil
		case by != op:
			return errIdemOtherOperation
		case rec.BodySHA256 != digest:
			return errIdemMismatch
		default: // decided for these very bytes, which no longer decode
			return errIdemUndecodable
		}
	})
	if err != nil {
		return err
	}
	return reason
}

// earlierScopes says under which scopes of earlier builds a create must
// still look for its key.
type earlierScopes struct {
	operation bool // per operation (version 2 records)
	legacy    bool // per method and path (versions 0 and 1)
}

// earlierScopes reports which earlier scopes can still hold a decision
// within the retention: each only until the retention has passed since
// the store's first create by the build that stopped writing it. A new
// store never holds any, so a create reads one record, not several.
func (e *Engine) earlierScopes(ctx context.Context) (earlierScopes, error) {
	ns, err := e.storeSince(ctx, storage.IdemNamespaceSince, &e.namespaceSince)
	if err != nil {
		return earlierScopes{}, err
	}
	legacy, err := e.storeSince(ctx, storage.IdemLegacySince, &e.legacySince)
	if err != nil {
		return earlierScopes{}, err
	}
	within := func(since time.Time) bool {
		return !since.IsZero() && e.now().Before(since.Add(e.limits.IdempotencyRetention))
	}
	return earlierScopes{operation: within(ns), legacy: within(legacy)}, nil
}

// storeSince reads the time a setting records, kept in cached once read.
// The first call in a store records it: now when the store holds decided
// outcomes (of an earlier build), the zero time when it holds none. Every
// process sharing the store reads the one recorded time.
func (e *Engine) storeSince(ctx context.Context, setting []byte, cached *atomic.Pointer[time.Time]) (time.Time, error) {
	if since := cached.Load(); since != nil {
		return *since, nil
	}
	var t time.Time
	err := e.store.Update(ctx, func(tx store.Tx) error {
		t = time.Time{}
		v, err := storage.Setting(tx, setting)
		if err == nil {
			return t.UnmarshalText(v)
		}
		if !isNotFound(err) {
			return err
		}
		decided, err := storage.AnyIdem(tx)
		if err != nil {
			return err
		}
		if decided {
			t = e.nowUTC()
		}
		text, err := t.MarshalText()
		if err != nil {
			return err
		}
		return storage.PutSetting(tx, setting, text)
	})
	if err != nil {
		return time.Time{}, err
	}
	cached.Store(&t)
	return t, nil
}

// pruneIdempotencyOfEngine is Work.PruneIdempotency.
func (e *Engine) pruneIdempotencyOfEngine(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	cutoff := e.now().Add(-e.limits.IdempotencyRetention)
	n := 0
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var err error
		n, err = storage.PruneIdem(tx, cutoff, batch)
		return err
	})
	return n, err
}

// deciding is the set of idempotency scopes a create is deciding in this
// process: a second request with the same key meanwhile is refused
// (errIdemInFlight) rather than queued behind the first. A map under a
// mutex, in shards so that concurrent creates rarely meet on one lock;
// entering and leaving allocate nothing once a shard's map has grown.
type deciding struct {
	shards [16]struct {
		mu     sync.Mutex
		scopes map[string]struct{}
	}
}

func (d *deciding) shard(scope string) int {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(scope); i++ {
		h = (h ^ uint32(scope[i])) * 16777619
	}
	return int(h % uint32(len(d.shards)))
}

// enter adds scope and reports true, or reports false when it is there.
func (d *deciding) enter(scope string) bool {
	s := &d.shards[d.shard(scope)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.scopes[scope]; ok {
		return false
	}
	if s.scopes == nil {
		s.scopes = make(map[string]struct{})
	}
	s.scopes[scope] = struct{}{}
	return true
}

// leave removes scope.
func (d *deciding) leave(scope string) {
	s := &d.shards[d.shard(scope)]
	s.mu.Lock()
	delete(s.scopes, scope)
	s.mu.Unlock()
}

// busy reports whether scope is being decided.
func (d *deciding) busy(scope string) bool {
	s := &d.shards[d.shard(scope)]
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.scopes[scope]
	return ok
}

// Page sizes of list endpoints.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// PageRequest asks for one page of a list, newest first.
type PageRequest struct {
	Limit    int    // 1..200; 0 means DefaultPageSize
	BeforeID string // cursor: the previous page's NextBeforeID
}

func (p PageRequest) check() (PageRequest, error) {
	if p.Limit == 0 {
		p.Limit = DefaultPageSize
	}
	if p.Limit < 1 || p.Limit > MaxPageSize {
		return p, errcode.Newf(errcode.ValidationError, "limit must be an integer from 1 to %d", MaxPageSize)
	}
	return p, nil
}

// Page is one page of a list. A page of a filtered list (a status, an
// asset, an organization) looks at a bounded number of records: it may
// hold fewer items than the limit, even none, with HasMore set; paging on
// with NextBeforeID until HasMore is false yields every match once.
type Page[T any] struct {
	Items        []T
	HasMore      bool
	NextBeforeID string // "" when there is no next page
}

// listPage reads one page of an owner's index and loads each item; keep,
// when set, filters ids before they count towards the page.
func listPage[T any](tx store.Tx, index []byte, owner string, p PageRequest,
	keep func(id string) (bool, error), load func(id string) (T, error)) (Page[T], error) {
	out := Page[T]{Items: []T{}}
	ids, next, err := listIDs(tx, index, owner, p, keep)
	if err != nil {
		return out, err
	}
	for _, id := range ids {
		item, err := load(id)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, item)
	}
	out.HasMore, out.NextBeforeID = next != "", next
	return out, nil
}

// listIDs reads one page of ids from an owner's index, newest first, and
// the next page's cursor ("" when there is none); see storage.PageIDs.
func listIDs(tx store.Tx, index []byte, owner string, p PageRequest, keep func(id string) (bool, error)) (ids []string, next string, err error) {
	p, err = p.check()
	if err != nil {
		return nil, "", err
	}
	return storage.PageIDs(tx, index, owner, p.Limit, p.BeforeID, keep)
}

// PruneIdempotency deletes decided outcomes older than the retention, at
// most batch of them per call, and reports how many it deleted. Run calls
// it every few minutes; a host that schedules its own loops calls it
// periodically.
func (u Work) PruneIdempotency(ctx context.Context, batch int) (int, error) {
	return u.x.pruneIdempotencyOfEngine(ctx, batch)
}
