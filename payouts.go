package tambala

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

var (
	bucketPayouts      = []byte("payouts")
	bucketPayoutsByOrg = []byte("payouts.by_org")
	bucketPayoutWindow = []byte("payouts.window")
	// bucketPayoutWindowSum holds each organization's codec.WindowSum.
	bucketPayoutWindowSum = []byte("payouts.window.sum")
	bucketRefData         = []byte("refdata")
)

// SandboxBankAccounts and SandboxWallets are the sandbox provider's test
// destinations (docs/decisions.md). The wallets are exempt from the
// mobile-number pattern in the sandbox only.
var (
	SandboxBankAccounts = func() []string {
		out := make([]string, 10)
		for i := range out {
			out[i] = "333388880" + string(rune('0'+i))
		}
		return out
	}()
	SandboxWallets = []string{
		"111100000112", "111100000221", "111100000330", "111100000445", "111100000553",
		"111100000662", "111100000778", "111100000889", "111100000990", "111100000498",
	}
)

// sandboxWalletSet is SandboxWallets as a set; never modified.
var sandboxWalletSet = func() map[string]bool {
	m := make(map[string]bool, len(SandboxWallets))
	for _, w := range SandboxWallets {
		m[w] = true
	}
	return m
}()

func (e *Engine) sandboxWallets() map[string]bool {
	if e.env != Sandbox {
		return nil
	}
	return sandboxWalletSet
}

// holdID is the ledger hold of a payout.
func holdID(payoutID string) string { return "payout:" + payoutID }

// PayoutOperation is the idempotent create of a payout on rail.
func PayoutOperation(rail payouts.Rail) Operation {
	if rail == payouts.Bank {
		return CreateBankPayout
	}
	return CreateMomoPayout
}

// payoutCodec reads the payout a decided create stored: the payout record
// (version 2), or the rendering earlier versions stored.
var payoutCodec = resourceCodec[payouts.Payout]{
	decode: func(_ string, stored []byte) (payouts.Payout, error) {
		rec, err := cache.DecodeJSON[payoutRecord](stored)
		if err != nil {
			return payouts.Payout{}, err
		}
		return rec.payout()
	},
	decodeLegacy: func(org string, body []byte) (payouts.Payout, error) {
		p, err := codec.PayoutFromRendering(body)
		p.Org = org
		return p, err
	},
}

// createPayout is Client.CreatePayout.
func (e *Engine) createPayout(ctx context.Context, p Principal, req payouts.Request, idem Idempotency) (Created[payouts.Payout], error) {
	wallets := e.sandboxWallets()
	fp := idem.Fingerprint
	if fp == (Fingerprint{}) {
		fp = req.Fingerprint()
	}
	// The checks that read nothing stored (the request and the fee) run
	// before the transaction, so they hold no lock and keep the store's
	// serial section short. Their verdict is only delivered inside the
	// idempotent transaction, after the stored outcome is looked up, like
	// every other check: a replay returns the original payout even if a
	// rule changed since, and a key reused with a different request is
	// conflict even when that request is invalid.
	var quote payouts.FeeQuote
	early := req.Validate(wallets)
	if early == nil {
		var err error
		if quote, err = e.fees.Quote(payouts.DirPayout, req.Rail, req.Amount); err != nil {
			early = errcode.Wrap(errcode.RateUnavailable, err)
		}
	}
	op := PayoutOperation(req.Rail)
	created, err := create(ctx, e, p, op, idem, fp, payoutCodec, func(tx store.Tx, org *Organization) (payouts.Payout, []byte, error) {
		if early != nil {
			return payouts.Payout{}, nil, early
		}
		if _, err := e.enabledAsset(org, money.MWK.Code, OpPayout); err != nil {
			return payouts.Payout{}, nil, err
		}
		limits := org.PayoutLimitsInForce()
		max := limits.MaxPerPayoutMWK
		if req.Amount.Cmp(max) > 0 {
			return payouts.Payout{}, nil, errcode.Newf(errcode.AmountLimitExceeded, "amount_mwk is above this organization's per-payout maximum of %s.", max)
		}
		if err := e.checkRail(tx, req.Rail); err != nil {
			return payouts.Payout{}, nil, err
		}
		insts, _, err := e.institutions(tx)
		if err != nil {
			return payouts.Payout{}, nil, err
		}
		if _, err := payouts.CheckInstitution(req, insts, wallets); err != nil {
			return payouts.Payout{}, nil, err
		}
		now := e.nowUTC()
		if err := e.checkAndCountWindow(tx, org.ID, limits, req.Amount, now); err != nil {
			return payouts.Payout{}, nil, err
		}
		po := payouts.Payout{
			ID: e.newID(), Org: org.ID, Rail: req.Rail, Amount: req.Amount, HeldFee: quote.Total,
			Status: payouts.Held, Destination: req.Destination, CreatedAt: now, UpdatedAt: now,
		}
		if _, err := postLedger(tx, ledger.PlaceHold{
			EntryID: "payout:" + po.ID + ":hold", HoldID: holdID(po.ID), Org: po.Org,
			Amount: *quote.TotalDebit, Ref: po.ID, At: now,
		}); err != nil {
			return payouts.Payout{}, nil, err
		}
		rec := toPayoutRecord(po)
		if err := schedule(tx, &rec, at(now)); err != nil {
			return payouts.Payout{}, nil, err
		}
		stored, err := storage.Encode(rec)
		if err != nil {
			return payouts.Payout{}, nil, err
		}
		if err := tx.Put(bucketPayouts, []byte(po.ID), stored); err != nil {
			return payouts.Payout{}, nil, err
		}
		if err := tx.Put(bucketPayoutsByOrg, storage.IndexKey(po.Org, po.ID), nil); err != nil {
			return payouts.Payout{}, nil, err
		}
		if err := countAccepted(tx, po.Rail, now); err != nil {
			return payouts.Payout{}, nil, err
		}
		if err := e.checkBalanceLow(tx, po.Org); err != nil {
			return payouts.Payout{}, nil, err
		}
		return po, stored, nil
	})
	switch {
	case err != nil:
	case created.Replayed:
		e.metrics.IdempotentReplay(op)
	default:
		e.metrics.PayoutAccepted(req.Rail)
		po := created.Resource
		e.reportPayout(stateChange{id: po.ID, org: po.Org, rail: po.Rail, to: po.Status, by: "api"})
	}
	return created, err
}

func windowKey(org string, minute int64) []byte {
	return binary.BigEndian.AppendUint64(storage.IndexPrefix(org), uint64(minute))
}

// checkAndCountWindow enforces the rolling 24-hour volume and 1-hour count
// over per-minute cells, then counts this payout. A running sum per
// organization (codec.WindowSum) holds the cells' totals, so that a payout
// reads two records rather than a day of cells; the first payout of each
// minute moves the sum past the cells that left the windows, deleting those
// older than a day.
func (e *Engine) checkAndCountWindow(tx store.Tx, org string, l PayoutLimits, amount money.Amount, now time.Time) error {
	cap := l.DailyVolumeMWK
	minute := now.Unix() / 60
	sum, err := windowSum(tx, org, minute)
	if err != nil {
		return err
	}
	if sum.HourCount+1 > uint64(l.HourlyCount) {
		return errcode.Newf(errcode.OrgLimitExceeded, "This organization reached its limit of %d payouts per hour.", l.HourlyCount)
	}
	if after, _ := sum.DayVolume.Add(amount); after.Cmp(cap) > 0 {
		return errcode.Newf(errcode.OrgLimitExceeded, "This payout would take the organization above its 24-hour volume of %s.", cap)
	}
	current := codec.WindowCell{Volume: money.Zero(money.MWK)}
	switch v, err := tx.Get(bucketPayoutWindow, windowKey(org, minute)); {
	case err == nil:
		if current, err = codec.DecodeWindowCell(v); err != nil {
			return err
		}
	case !isNotFound(err):
		return err
	}
	current.Count++
	sum.HourCount++
	if current.Volume, err = current.Volume.Add(amount); err != nil {
		return err
	}
	if sum.DayVolume, err = sum.DayVolume.Add(amount); err != nil {
		return err
	}
	if err := tx.Put(bucketPayoutWindow, windowKey(org, minute), current.Encode()); err != nil {
		return err
	}
	return tx.Put(bucketPayoutWindowSum, []byte(org), sum.Encode())
}

// windowSum returns org's window sum at minute: the volume of its cells of
// the last 24 hours and the count of those of the last hour (minute
// included). It moves the stored sum forward, subtracting the cells that
// left either window and deleting those older than a day, or builds it
// from every cell when there is none (a store written before sums) or the
// clock went back.
func windowSum(tx store.Tx, org string, minute int64) (codec.WindowSum, error) {
	dayStart, hourStart := minute-24*60+1, minute-60+1
	var sum codec.WindowSum
	v, err := tx.Get(bucketPayoutWindowSum, []byte(org))
	switch {
	case isNotFound(err):
		return rebuildWindowSum(tx, org, dayStart, hourStart)
	case err != nil:
		return sum, err
	}
	if sum, err = codec.DecodeWindowSum(v); err != nil {
		return sum, err
	}
	if dayStart < sum.DayFrom || hourStart < sum.HourFrom {
		return rebuildWindowSum(tx, org, dayStart, hourStart)
	}
	// The hour first: the day's deletions would hide cells it subtracts.
	if hourStart > sum.HourFrom {
		err := scanCells(tx, org, sum.HourFrom, hourStart, func(_ []byte, c codec.WindowCell) error {
			if c.Count > sum.HourCount {
				return errWindowSum(org)
			}
			sum.HourCount -= c.Count
			return nil
		})
		if err != nil {
			return sum, err
		}
		sum.HourFrom = hourStart
	}
	if dayStart > sum.DayFrom {
		var gone [][]byte
		err := scanCells(tx, org, sum.DayFrom, dayStart, func(k []byte, c codec.WindowCell) error {
			left, err := sum.DayVolume.Sub(c.Volume)
			if err != nil || left.Sign() < 0 {
				return errWindowSum(org)
			}
			sum.DayVolume = left
			gone = append(gone, k)
			return nil
		})
		if err != nil {
			return sum, err
		}
		if err := deleteCells(tx, gone); err != nil {
			return sum, err
		}
		sum.DayFrom = dayStart
	}
	return sum, nil
}

// rebuildWindowSum sums every cell of org, deleting those before dayStart.
func rebuildWindowSum(tx store.Tx, org string, dayStart, hourStart int64) (codec.WindowSum, error) {
	sum := codec.WindowSum{DayFrom: dayStart, HourFrom: hourStart, DayVolume: money.Zero(money.MWK)}
	var gone [][]byte
	err := scanCells(tx, org, 0, -1, func(k []byte, c codec.WindowCell) error {
		m := int64(binary.BigEndian.Uint64(k[len(org)+1:]))
		if m < dayStart {
			gone = append(gone, k)
			return nil
		}
		var err error
		if sum.DayVolume, err = sum.DayVolume.Add(c.Volume); err != nil {
			return err
		}
		if m >= hourStart {
			sum.HourCount += c.Count
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	return sum, deleteCells(tx, gone)
}

// deleteCells deletes the window cells under keys.
func deleteCells(tx store.Tx, keys [][]byte) error {
	for _, k := range keys {
		if err := tx.Delete(bucketPayoutWindow, k); err != nil {
			return err
		}
	}
	return nil
}

// scanCells visits org's cells of the minutes from (inclusive) to to
// (exclusive; -1: every later one).
func scanCells(tx store.Tx, org string, from, to int64, fn func(k []byte, c codec.WindowCell) error) error {
	opt := store.ScanOptions{Prefix: storage.IndexPrefix(org), Start: windowKey(org, from)}
	if to >= 0 {
		opt.End = windowKey(org, to)
	}
	return tx.Scan(bucketPayoutWindow, opt, func(k, v []byte) (bool, error) {
		c, err := codec.DecodeWindowCell(v)
		if err != nil {
			return false, err
		}
		return true, fn(k, c)
	})
}

func errWindowSum(org string) error {
	return fmt.Errorf("tambala: the payout window sum of organization %s is below its cells", org)
}

// payout is Client.Payout.
func (e *Engine) payout(ctx context.Context, p Principal, id string) (payouts.Payout, error) {
	var out payouts.Payout
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		out, err = loadPayout(tx, p.Org.ID, id)
		return err
	})
	return out, err
}

func loadPayout(tx store.Tx, org, id string) (payouts.Payout, error) {
	if id == "" || len(id) > 64 {
		return payouts.Payout{}, errNotFound
	}
	var r payoutRecord
	if err := storage.GetJSON(tx, bucketPayouts, id, &r, errNotFound); err != nil {
		return payouts.Payout{}, err
	}
	if r.Org != org || r.V2 != nil { // a /v2 payout is not a /v1 resource
		return payouts.Payout{}, errNotFound
	}
	return r.payout()
}

// PayoutFilter narrows a list of payouts.
type PayoutFilter struct {
	Status payouts.Status // "" for every status
}

// payouts is Client.Payouts.
func (e *Engine) payouts(ctx context.Context, p Principal, page PageRequest, f PayoutFilter) (Page[payouts.Payout], error) {
	var out Page[payouts.Payout]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		cache := map[string]payouts.Payout{}
		keep := func(id string) (bool, error) {
			po, err := loadPayout(tx, p.Org.ID, id)
			if err != nil {
				return false, err
			}
			cache[id] = po
			return f.Status == "" || po.Status == f.Status, nil
		}
		var err error
		out, err = listPage(tx, bucketPayoutsByOrg, p.Org.ID, page, keep, func(id string) (payouts.Payout, error) {
			return cache[id], nil
		})
		return err
	})
	return out, err
}

// quoteFee is Client.QuoteFee.
func (e *Engine) quoteFee(ctx context.Context, p Principal, dir payouts.Direction, rail payouts.Rail, amount money.Amount) (payouts.FeeQuote, error) {
	if err := e.admitNow(ctx, p, APIv1); err != nil {
		return payouts.FeeQuote{}, err
	}
	if dir != payouts.DirPayout && dir != payouts.DirCollection {
		return payouts.FeeQuote{}, errcode.Newf(errcode.ValidationError, "direction must be payout or collection.")
	}
	if err := payouts.CheckAmount(amount); err != nil {
		return payouts.FeeQuote{}, err
	}
	if rail != payouts.Bank && rail != payouts.Momo {
		return payouts.FeeQuote{}, errcode.Newf(errcode.ValidationError, "rail must be momo or bank.")
	}
	q, err := e.fees.Quote(dir, rail, amount)
	var coded *errcode.Error
	if err != nil && !errors.As(err, &coded) {
		return q, errcode.Wrap(errcode.RateUnavailable, err)
	}
	return q, err
}

// syncInstitutions is Operator.SyncInstitutions.
func (e *Engine) syncInstitutions(ctx context.Context, list []payouts.Institution) error {
	if err := payouts.CheckInstitutions(list); err != nil {
		return err
	}
	rec := storage.ToInstitutionsRecord(list, e.nowUTC())
	return e.store.Update(ctx, func(tx store.Tx) error {
		if err := e.auditAs(ctx, tx, "", AuditInstitutionsSynced, "institutions", fmt.Sprintf("%d institutions", len(list))); err != nil {
			return err
		}
		return storage.PutJSON(tx, bucketRefData, "institutions", rec)
	})
}

// institutions returns the reference data: the last sync, or in the
// sandbox the built-in list until one happens. Production with no sync
// yet is service_unavailable.
func (e *Engine) institutions(tx store.Tx) ([]payouts.Institution, time.Time, error) {
	raw, err := tx.Get(bucketRefData, []byte("institutions"))
	if errors.Is(err, store.ErrNotFound) {
		if e.env == Sandbox {
			return e.sandboxInstitutions, e.started, nil
		}
		return nil, time.Time{}, errcode.Newf(errcode.ServiceUnavailable, "Institution reference data has not been synced yet.")
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	rec, err := e.cachedInstitutions.Decode(raw, storage.DecodeInstitutions)
	return rec.Institutions, rec.SyncedAt, err
}

// ReferenceDataReady reports whether payouts can be priced against
// reference data, for readiness probes: nil in the sandbox (it ships its
// own) and in production once SyncInstitutions has run; otherwise
// service_unavailable, the answer payouts get meanwhile. A store that
// does not answer gives its error.
func (e *Engine) ReferenceDataReady(ctx context.Context) error {
	return e.store.View(ctx, func(tx store.Tx) error {
		_, _, err := e.institutions(tx)
		return err
	})
}

// listInstitutions is Client.Institutions.
func (e *Engine) listInstitutions(ctx context.Context, p Principal) ([]payouts.Institution, time.Time, error) {
	var list []payouts.Institution
	var at time.Time
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		list, at, err = e.institutions(tx)
		return err
	})
	return slices.Clone(list), at, err // the engine's copy is shared
}

// Rails holds the rail pause switches.
type Rails struct {
	BankDisabled bool
	MomoDisabled bool
}

func (e *Engine) checkRail(tx store.Tx, rail payouts.Rail) error {
	var r Rails
	raw, err := storage.Setting(tx, []byte("rails"))
	switch {
	case err == nil:
		if r, err = e.cachedRails.Decode(raw, func(b []byte) (Rails, error) { r, err := storage.DecodeRails(b); return Rails(r), err }); err != nil {
			return err
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	if (rail == payouts.Bank && r.BankDisabled) || (rail == payouts.Momo && r.MomoDisabled) {
		return errcode.Newf(errcode.RailDisabled, "The %s rail is paused.", rail)
	}
	return nil
}

// setRailDisabled is Operator.SetRailDisabled.
func (e *Engine) setRailDisabled(ctx context.Context, rail payouts.Rail, disabled bool) (Rails, error) {
	var r Rails
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var rec codec.RailsRecord
		if err := storage.SettingJSON(tx, "rails", &rec, nil); err != nil {
			return err
		}
		r = Rails(rec)
		var was bool
		switch rail {
		case payouts.Bank:
			was, r.BankDisabled = r.BankDisabled, disabled
		case payouts.Momo:
			was, r.MomoDisabled = r.MomoDisabled, disabled
		default:
			return errcode.Newf(errcode.ValidationError, "rail must be bank or momo.")
		}
		if err := e.auditAs(ctx, tx, "", AuditRailChanged, string(rail), fmt.Sprintf("%s disabled %t -> %t", rail, was, disabled)); err != nil {
			return err
		}
		return storage.PutSettingJSON(tx, "rails", codec.RailsRecord(r))
	})
	return r, err
}
