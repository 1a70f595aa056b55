package tambala

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/fingerprint"
	"github.com/tambalapay/tambala/internal/loop"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/work"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The /v2 conversions: a quote of kind conversion, executed
// into a Conversion that holds its from_amount, driven by a worker through
// the Converter port to completed (the hold captured to the desk, the
// to_amount credited from it) or failed (the hold released).

// conversionRecord is a conversion as stored, with the worker's
// bookkeeping (storage.ConversionRecord, storage.ConversionOf).
type conversionRecord = codec.ConversionRecord

// CreateConversion is the idempotent create of a conversion.
const CreateConversion Operation = "conversions.create"

func init() {
	operationInfo[CreateConversion] = operationFacts{api: APIv2}
}

// Events of a conversion's end; their data is the Conversion's
// rendering.
const (
	EventConversionCompleted = conversions.EventCompleted
	EventConversionFailed    = conversions.EventFailed
)

// ConversionStatus is where a conversion is: processing, then completed or
// failed (both terminal). The rules are package conversions'.
type ConversionStatus = conversions.Status

const (
	ConversionProcessing = conversions.Processing
	ConversionCompleted  = conversions.Completed
	ConversionFailed     = conversions.Failed
)

// Failure codes of a failed conversion.
const (
	ConversionProviderDeclined = conversions.FailureProviderDeclined
	ConversionOther            = conversions.FailureOther
)

// ConversionFailure says why a conversion failed.
type ConversionFailure = conversions.Failure

// Conversion is an organization's conversion of From into To at Rate
// (package conversions); its one rendering is internal/render's.
type Conversion = conversions.Conversion

// ConverterState is a converter's view of a conversion.
type ConverterState string

const (
	ConverterPending   ConverterState = "pending"
	ConverterCompleted ConverterState = "completed"
	ConverterFailed    ConverterState = "failed"
)

// conversionOf reads a stored conversion back.
func (e *Engine) conversionOf(r conversionRecord) (Conversion, error) {
	return storage.ConversionOf(r, e.assets)
}

func loadConversionRecord(tx store.Tx, id string) (conversionRecord, error) {
	return storage.LoadConversion(tx, id, errNotFound)
}

func (e *Engine) loadOwnConversion(tx store.Tx, org, id string) (Conversion, error) {
	r, err := loadConversionRecord(tx, id)
	if err != nil {
		return Conversion{}, err
	}
	if r.Org != org {
		return Conversion{}, errNotFound
	}
	return e.conversionOf(r)
}

// corridorRate is the default ConversionPricer's rate of pair, read in
// tx: the rate of the corridor of its fiat asset in its direction, when
// there is one.
func corridorRate(tx store.Tx, pair quotes.Pair) (money.Rate, bool, error) {
	cor, found, err := storage.LoadCorridor(tx, pair.Fiat().Code)
	if !found || err != nil {
		return money.Rate{}, false, err
	}
	r, err := cor.Rate(pair.Direction)
	if err != nil {
		return money.Rate{}, false, nil
	}
	return r, true, nil
}

// usableRate is a pricer's answer as the quote takes it: a positive rate,
// or the zero Rate (none, rate_unavailable).
func usableRate(r money.Rate, ok bool) money.Rate {
	if ok && !r.IsZero() && r.Decimal().Sign() > 0 {
		return r
	}
	return money.Rate{}
}

// priceOutside is what quoteConversion learns of req's rate before its
// transaction: the rate of a pricer given in the Options (the zero Rate
// for none), or, for the default pricer, the pair whose corridor rate the
// transaction reads itself (priced), which saves a View of its own.
// Neither when req's assets or pair are unknown: the transaction answers
// those.
func (e *Engine) priceOutside(ctx context.Context, req quotes.Request) (rate money.Rate, priced *quotes.Pair, err error) {
	fa, ok1 := e.assets.Lookup(req.FromAsset)
	ta, ok2 := e.assets.Lookup(req.ToAsset)
	if !ok1 || !ok2 {
		return money.Rate{}, nil, nil
	}
	pair, err := quotes.PairOf(fa, ta, e.classes)
	if err != nil {
		return money.Rate{}, nil, nil
	}
	if e.pricer == nil {
		return money.Rate{}, &pair, nil
	}
	r, ok, err := e.pricer.ConversionRate(ctx, pair)
	if err != nil {
		return money.Rate{}, nil, err
	}
	return usableRate(r, ok), nil, nil
}

// quoteConversion is Client.QuoteConversion.
func (e *Engine) quoteConversion(ctx context.Context, p Principal, req quotes.Request) (quotes.Quote, error) {
	if err := req.Check(); err != nil {
		return quotes.Quote{}, err
	}
	rate, priced, err := e.priceOutside(ctx, req)
	if err != nil {
		return quotes.Quote{}, err
	}
	var q quotes.Quote
	// A quote commits lazily: a crash may lose it (see quoteOrder).
	err = store.UpdateLazy(ctx, e.store, func(tx store.Tx) error {
		if priced != nil {
			r, ok, err := corridorRate(tx, *priced)
			if err != nil {
				return err
			}
			rate = usableRate(r, ok)
		}
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		from, err := e.assetOf(org, req.FromAsset, OpConvert)
		if err != nil {
			return err
		}
		to, err := e.assetOf(org, req.ToAsset, OpConvert)
		if err != nil {
			return err
		}
		pair, err := quotes.PairOf(from, to, e.classes)
		if err != nil {
			return err
		}
		if e.converter == nil {
			return errNoConverterCoded
		}
		limits, err := e.assetLimits(tx, from, OpConvert)
		if err != nil {
			return err
		}
		q, err = quotes.NewConversion(req, pair, rate, limits, quotes.Issue{Org: org.ID, Now: e.nowUTC(), TTL: e.orderOpts.QuoteTTL, ID: e.newID()})
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

// NewConversion is what Client.CreateConversion takes: the quote to
// execute.
type NewConversion struct {
	QuoteID string
}

// Fingerprint is the default idempotency fingerprint of n.
func (n NewConversion) Fingerprint() Fingerprint {
	return fingerprint.Of("tambala.NewConversion/v1", n.QuoteID)
}

// createConversion is Client.CreateConversion: the quote loaded and spent
// (newConversion), the hold posted, the quote and the conversion stored,
// due to the worker at once, in the idempotent create's transaction.
func (e *Engine) createConversion(ctx context.Context, p Principal, n NewConversion, idem Idempotency) (Created[Conversion], error) {
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = n.Fingerprint()
	}
	ctx = e.namingQuote(ctx, n.QuoteID)
	created, err := create(ctx, e, p, CreateConversion, idem, fp, e.conversionCodec(), func(tx store.Tx, org *Organization) (Conversion, []byte, error) {
		now := e.nowUTC()
		c, q, postings, err := e.newConversion(tx, org, n, now)
		if err != nil {
			return Conversion{}, nil, err
		}
		if err := postDesk(tx, postings, now); err != nil {
			return Conversion{}, nil, err
		}
		if c.From.Asset() == money.MWK {
			if err := e.checkBalanceLow(tx, org.ID); err != nil {
				return Conversion{}, nil, err
			}
		}
		if err := storage.SaveQuote(tx, q); err != nil {
			return Conversion{}, nil, err
		}
		b, err := storeNewConversion(tx, c, now)
		return c, b, err
	})
	if err == nil && !created.Replayed {
		e.reportConversion(created.Resource, "api")
	}
	return created, err
}

// conversionCodec reads a conversion an idempotent create kept.
func (e *Engine) conversionCodec() resourceCodec[Conversion] {
	return resourceCodec[Conversion]{
		decode: func(_ string, stored []byte) (Conversion, error) {
			r, err := cache.DecodeJSON[conversionRecord](stored)
			if err != nil {
				return Conversion{}, err
			}
			return e.conversionOf(r)
		},
		decodeLegacy: func(string, []byte) (Conversion, error) { return Conversion{}, errcode.New(errcode.InternalError) },
	}
}

// newConversion is the conversion n makes for org at now, the quote it
// spends and the conversion's postings (conversions.New).
func (e *Engine) newConversion(tx store.Tx, org *Organization, n NewConversion, now time.Time) (Conversion, quotes.Quote, []orders.Posting, error) {
	q, err := loadQuote(tx, org.ID, n.QuoteID)
	if err != nil {
		return Conversion{}, q, nil, err
	}
	if e.converter == nil {
		return Conversion{}, q, nil, errNoConverterCoded
	}
	id := e.newID()
	if q, err = q.Use(id, quotes.KindConversion, now); err != nil {
		return Conversion{}, q, nil, err
	}
	for _, code := range []money.AssetCode{q.From.Asset().Code, q.To.Asset().Code} {
		if _, err := e.enabledAsset(org, code, OpConvert); err != nil {
			return Conversion{}, q, nil, err
		}
	}
	c, postings := conversions.New(id, org.ID, q, now)
	return c, q, postings, nil
}

// storeNewConversion stores new conversion c, due to the worker at now and
// listed under its organization, and returns the record an idempotent
// create keeps (with no worker bookkeeping).
func storeNewConversion(tx store.Tx, c Conversion, now time.Time) ([]byte, error) {
	rec := storage.ConversionRecord(c)
	if err := storage.ConversionsDue.Move(tx, c.ID, nil, &now); err != nil {
		return nil, err
	}
	rec.DueAt = &now
	if err := storage.SaveConversion(tx, rec); err != nil {
		return nil, err
	}
	if err := storage.IndexConversion(tx, c.Org, c.ID); err != nil {
		return nil, err
	}
	rec.DueAt = nil
	return storage.Encode(rec)
}

// reportConversion logs and counts a conversion's committed acceptance or
// finish.
func (e *Engine) reportConversion(c Conversion, by string) {
	if e.log.Enabled(context.Background(), slog.LevelInfo) {
		e.log.Info("conversion", slog.String("conversion", c.ID), slog.String("org", c.Org),
			slog.String("status", string(c.Status)), slog.String("by", by))
	}
	e.metrics.ConversionMoved(c.Status, by)
}

// conversion is Client.Conversion.
func (e *Engine) conversion(ctx context.Context, p Principal, id string) (Conversion, error) {
	var c Conversion
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv2); err != nil {
			return err
		}
		var err error
		c, err = e.loadOwnConversion(tx, p.Org.ID, id)
		return err
	})
	return c, err
}

// ConversionFilter narrows a list of conversions.
type ConversionFilter struct {
	// Asset keeps the conversions into or out of this asset; "" keeps
	// every one. An asset not in the organization's list is
	// corridor_not_enabled. (A transport refuses an empty `asset`
	// parameter with validation_error before the engine.)
	Asset money.AssetCode
}

// conversions is Client.Conversions.
func (e *Engine) conversions(ctx context.Context, p Principal, page PageRequest, f ConversionFilter) (Page[Conversion], error) {
	var out Page[Conversion]
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		if f.Asset != "" {
			if _, err := e.enabledAsset(org, f.Asset, ""); err != nil {
				return err
			}
		}
		loaded := map[string]Conversion{}
		keep := func(id string) (bool, error) {
			c, err := e.loadOwnConversion(tx, org.ID, id)
			loaded[id] = c
			return err == nil && (f.Asset == "" || c.From.Asset().Code == f.Asset || c.To.Asset().Code == f.Asset), err
		}
		out, err = listPage(tx, storage.ConversionsByOrg, org.ID, page, keep, func(id string) (Conversion, error) { return loaded[id], nil })
		return err
	})
	return out, err
}

// ErrNoConverter is returned by the conversion worker's calls when the
// engine has no Options.Converter, and is the cause of the
// service_unavailable that QuoteConversion and CreateConversion answer
// then (errors.Is finds it).
var ErrNoConverter = errors.New("tambala: no converter configured (Options.Converter)")

// errNoConverterCoded answers a conversion quote or create on an engine
// without a converter, which would otherwise hold the money and leave the
// conversion processing. Its cause, ErrNoConverter, names the option to
// set; the public message stays the API's.
var errNoConverterCoded = &errcode.Error{Code: errcode.ServiceUnavailable, Message: "Conversions are not available.", Err: ErrNoConverter}

// processConversionsOfEngine is Work.ProcessConversions.
func (e *Engine) processConversionsOfEngine(ctx context.Context) (int, error) {
	n, _, err := e.processConversions(ctx)
	return n, err
}

func (e *Engine) processConversions(ctx context.Context) (int, bool, error) {
	if e.converter == nil {
		return 0, false, ErrNoConverter
	}
	ids, err := storage.ConversionsDue.Due(ctx, e.store, e.now(), e.convOpts.Batch)
	if err != nil {
		return 0, false, err
	}
	n := work.Pass(ctx, e.store, e.log, e.convOpts.Concurrency, ids, e.conversionJob())
	return n, len(ids) == e.convOpts.Batch, ctx.Err()
}

// conversionJob is the conversion worker's work: a due conversion claimed
// under a lease, handed to the converter (once) and polled, the outcome
// recorded.
func (e *Engine) conversionJob() work.Job[conversionRecord, converterCall] {
	return work.Job[conversionRecord, converterCall]{
		Name: "conversion worker", Item: "conversion",
		ID:     func(r conversionRecord) string { return r.ID },
		Claim:  e.claimConversion,
		Call:   e.callConverter,
		Record: e.recordConverterCall,
	}
}

// runConversionWorkerOfEngine is Work.RunConversionWorker.
func (e *Engine) runConversionWorkerOfEngine(ctx context.Context, interval time.Duration) error {
	if e.converter == nil {
		return ErrNoConverter
	}
	if interval <= 0 {
		return errors.New("tambala: the conversion worker's interval must be positive")
	}
	loop.Run(ctx, interval, func(ctx context.Context) (bool, error) {
		_, full, err := e.processConversions(ctx)
		return full, err
	}, func(err error) { e.log.Error("conversion worker pass", slog.Any("error", err)) })
	return nil
}

func moveConversionDue(tx store.Tx, r *conversionRecord, next *time.Time) error {
	if err := storage.ConversionsDue.Move(tx, r.ID, r.DueAt, next); err != nil {
		return err
	}
	r.DueAt = next
	return nil
}

// claimConversion takes a due conversion under a lease inside tx; a
// terminal one still listed is unlisted.
func (e *Engine) claimConversion(tx store.Tx, id string) (conversionRecord, bool, error) {
	r, err := loadConversionRecord(tx, id)
	if err != nil {
		return r, false, err
	}
	now := e.nowUTC()
	if r.DueAt == nil || r.DueAt.After(now) {
		return r, false, nil
	}
	if r.Status != ConversionProcessing { // terminal but listed: unlist
		if err := moveConversionDue(tx, &r, nil); err != nil {
			return r, false, err
		}
		return r, false, storage.SaveConversion(tx, r)
	}
	if err := moveConversionDue(tx, &r, at(now.Add(e.convOpts.Lease))); err != nil {
		return r, false, err
	}
	return r, true, storage.SaveConversion(tx, r)
}

// converterCall is the outcome of the converter's calls for a claimed
// conversion.
type converterCall struct {
	err        error // a failure before any call: nothing is recorded
	convertErr error // Convert's answer, when it was called and failed
	status     ConverterStatus
	statusErr  error
}

// callConverter hands the conversion to the converter unless it was
// already, then asks for its status, with no transaction open.
func (e *Engine) callConverter(ctx context.Context, r conversionRecord) (converterCall, bool) {
	c, err := e.conversionOf(r)
	if err != nil {
		return converterCall{err: err}, true
	}
	if !r.Submitted {
		if callErr := e.converterConvert(ctx, ConversionRequest{Reference: c.ID, From: c.From, To: c.To}); callErr != nil {
			return converterCall{convertErr: callErr}, true
		}
	}
	st, callErr := e.converterStatus(ctx, c.ID)
	return converterCall{status: st, statusErr: callErr}, true
}

// recordConverterCall records the converter's answers.
func (e *Engine) recordConverterCall(ctx context.Context, r conversionRecord, out converterCall) (bool, error) {
	id := r.ID
	if out.err != nil {
		return false, out.err
	}
	if out.convertErr != nil {
		return true, e.settleConversion(ctx, id, func(tx store.Tx, r *conversionRecord, _ Conversion, now time.Time) error {
			return e.conversionRetry(tx, r, now, out.convertErr)
		})
	}
	st, callErr := out.status, out.statusErr
	return true, e.settleConversion(ctx, id, func(tx store.Tx, r *conversionRecord, c Conversion, now time.Time) error {
		r.Submitted = true
		if errors.Is(callErr, ErrUnknownReference) {
			r.Submitted, r.Attempts = false, 0
			return moveConversionDue(tx, r, at(now))
		}
		if callErr != nil {
			return e.conversionRetry(tx, r, now, callErr)
		}
		r.Attempts = 0
		switch st.State {
		case ConverterCompleted:
			return e.completeConversion(tx, r, c, now)
		case ConverterFailed:
			return e.failConversion(tx, r, c, st.FailureCode, now)
		default:
			return moveConversionDue(tx, r, at(now.Add(e.convOpts.Poll)))
		}
	})
}

func (e *Engine) conversionRetry(tx store.Tx, r *conversionRecord, now time.Time, cause error) error {
	r.Attempts++
	wait := e.worker.backoff(r.Attempts)
	e.log.Warn("converter call failed; retrying", slog.String("conversion", r.ID),
		slog.Int("attempts", r.Attempts), slog.Duration("wait", wait), slog.Any("error", cause))
	return moveConversionDue(tx, r, at(now.Add(wait)))
}

// settleConversion reloads the conversion and, while it is processing,
// applies fn and stores the result; a terminal one is left alone, so a
// conversion ends once.
func (e *Engine) settleConversion(ctx context.Context, id string, fn func(tx store.Tx, r *conversionRecord, c Conversion, now time.Time) error) error {
	var end *Conversion
	err := e.store.Update(ctx, func(tx store.Tx) error {
		end = nil
		r, err := loadConversionRecord(tx, id)
		if err != nil {
			return err
		}
		if r.Status != ConversionProcessing {
			return nil
		}
		c, err := e.conversionOf(r)
		if err != nil {
			return err
		}
		if err := fn(tx, &r, c, e.nowUTC()); err != nil {
			return err
		}
		if r.Status != ConversionProcessing {
			done, err := e.conversionOf(r)
			if err != nil {
				return err
			}
			end = &done
		}
		return storage.SaveConversion(tx, r)
	})
	if err == nil && end != nil {
		e.reportConversion(*end, "worker")
	}
	return err
}

// completeConversion captures the hold to the desk and credits to_amount
// from the desk, with the event.
func (e *Engine) completeConversion(tx store.Tx, r *conversionRecord, c Conversion, now time.Time) error {
	c, postings, event, err := conversions.Complete(c, now)
	if err != nil {
		return err
	}
	if err := postDesk(tx, postings, now); err != nil {
		return err
	}
	return e.endConversion(tx, r, c, event)
}

// failConversion releases the hold and sets the failure, with the event.
func (e *Engine) failConversion(tx store.Tx, r *conversionRecord, c Conversion, code string, now time.Time) error {
	c, postings, event, err := conversions.Fail(c, code, now)
	if err != nil {
		return err
	}
	if err := postDesk(tx, postings, now); err != nil {
		return err
	}
	return e.endConversion(tx, r, c, event)
}

func (e *Engine) endConversion(tx store.Tx, r *conversionRecord, c Conversion, event string) error {
	due, submitted := r.DueAt, r.Submitted
	*r = storage.ConversionRecord(c)
	r.DueAt, r.Submitted = due, submitted
	if err := moveConversionDue(tx, r, nil); err != nil {
		return err
	}
	return e.emit(tx, c.Org, event, render.Conversion(c), jsonResource(eventConversion, storage.ConversionRecord(c)))
}

// ProcessConversions runs one pass of the conversion worker: every
// conversion due now (up to Batch) is handed to the Converter, polled, or
// finished, up to Concurrency at once, and it returns how many it
// advanced. Each is claimed under a lease in a transaction before the
// converter is called, outside any transaction; its end is one
// transaction with its ledger entries and event. A /v2 pause does not stop
// it: accepted conversions reach their result.
func (u Work) ProcessConversions(ctx context.Context) (int, error) {
	return u.x.processConversionsOfEngine(ctx)
}

// RunConversionWorker runs ProcessConversions every interval until ctx
// ends. Without a converter it returns ErrNoConverter at once.
func (u Work) RunConversionWorker(ctx context.Context, interval time.Duration) error {
	return u.x.runConversionWorkerOfEngine(ctx, interval)
}
