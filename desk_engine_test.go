package tambala_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The engine-level tests of the /v2 desk: corridors, quotes, order
// creation, both state machines through MoveOrder with their events and
// ledger movements, funding proofs and their links, the expiry sweep and
// the /v2 pause, on every store adapter. The rapid model is in
// desk_rapid_test.go and the races of order creation in desk_race_test.go.

var (
	deskT0      = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	deskOffRamp = money.MustRate("1750.5") // MWK per USDT, to-bank
	deskOnRamp  = money.MustRate("1800")   // MWK per USDT, from-bank
	deskPDF     = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n")
	deskPDF2    = []byte("%PDF-1.4\n% a second, corrected statement\n%%EOF\n")
	deskPNG     = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	deskRefRE   = regexp.MustCompile(`^TMB[0-9A-Z]{10}$`)
)

// deskTB is what the helpers need from a *testing.T or a *rapid.T.
type deskTB interface {
	require.TestingT
	Helper()
}

// deskEnv is an engine with one /v2 organization (MWK payout and
// collection, USDT payout, collection and convert), funded with 1000 USDT,
// a webhook endpoint (so every event is kept as a delivery), and the MWK
// corridor open at 1750.5 off-ramp and 1800 on-ramp with a 1000.00 MWK
// minimum.
type deskEnv struct {
	ctx   context.Context
	s     store.Store
	clock *fakeClock
	e     *tambala.Engine
	org   tambala.Organization
	p     tambala.Principal
	n     int // keys and refs drawn so far
}

func deskAssets() []tambala.AssetAccess {
	return []tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}},
		{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
	}
}

func deskCorridor() quotes.Corridor {
	off, on := deskOffRamp, deskOnRamp
	return quotes.Corridor{Asset: money.MWK, RateOffRamp: off, RateOnRamp: on, Min: money.FromInt(money.MWK, 1000), Open: true}
}

func newDeskEnv(t deskTB, s store.Store, tune func(*tambala.Options)) *deskEnv {
	t.Helper()
	ctx := context.Background()
	clock := &fakeClock{t: deskT0}
	opts := &tambala.Options{Clock: clock.Now}
	if tune != nil {
		tune(opts)
	}
	e, err := tambala.New(s, opts)
	require.NoError(t, err)
	d := &deskEnv{ctx: ctx, s: s, clock: clock, e: e}
	d.org = d.newOrg(t, "Desk", deskAssets())
	require.NoError(t, e.Operator().Fund(ctx, d.org.ID, money.FromInt(money.USDT, 1000), "start"))
	d.p = actFor(e, d.org.ID)
	_, err = e.Operator().Desk().SetCorridor(ctx, deskCorridor())
	require.NoError(t, err)
	return d
}

func (d *deskEnv) newOrg(t deskTB, name string, assets []tambala.AssetAccess) tambala.Organization {
	t.Helper()
	org, err := d.e.Operator().CreateOrganization(d.ctx, tambala.NewOrganization{Name: name, Assets: assets, V2Access: tambala.V2Enabled})
	require.NoError(t, err)
	_, _, err = d.e.Operator().SetWebhookEndpoint(d.ctx, org.ID, "https://hooks.example.com/"+strings.ToLower(name))
	require.NoError(t, err)
	return org
}

func (d *deskEnv) next(prefix string) string { d.n++; return fmt.Sprintf("%s-%d", prefix, d.n) }

func strp(s string) *string { return &s }

// optDecimal is the decimal of *s, absent when s is nil.
func optDecimal(s *string) money.Decimal {
	if s == nil {
		return money.Decimal{}
	}
	return money.DecimalText(*s)
}

func deskBeneficiary() *orders.Beneficiary {
	return &orders.Beneficiary{Name: "Chikondi Banda", BankName: "National Bank of Malawi", AccountNumber: "1001234567"}
}

func deskInstructions() orders.Instructions {
	return orders.Instructions{BankName: "Standard Bank Malawi", AccountName: "Tambala Desk Ltd", AccountNumber: "9100000123"}
}

func requireCode(t deskTB, want errcode.Code, err error, msgAndArgs ...any) {
	t.Helper()
	msg := ""
	if len(msgAndArgs) > 0 {
		if f, ok := msgAndArgs[0].(string); ok {
			msg = fmt.Sprintf(f, msgAndArgs[1:]...) + ": "
		}
	}
	require.Error(t, err, msg+"want "+string(want))
	require.Equal(t, want, errcode.Of(err), "%serror: %v", msg, err)
}

func (d *deskEnv) quoteFor(p tambala.Principal, from, to string, fromAmt, toAmt *string) (quotes.Quote, error) {
	return d.e.Client(p).QuoteOrder(d.ctx, quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: optDecimal(fromAmt), ToAmount: optDecimal(toAmt)})
}

// quote issues a quote fixing the from side.
func (d *deskEnv) quote(t deskTB, from, to, amount string) quotes.Quote {
	t.Helper()
	q, err := d.quoteFor(d.p, from, to, strp(amount), nil)
	require.NoError(t, err)
	return q
}

func (d *deskEnv) createFor(p tambala.Principal, qid, ref string, b *orders.Beneficiary, key string) (tambala.Created[orders.Order], error) {
	return d.e.Client(p).CreateOrder(d.ctx, tambala.NewOrder{QuoteID: qid, ClientRef: ref, Beneficiary: b}, tambala.Idempotency{Key: key})
}

func (d *deskEnv) create(t deskTB, qid string, b *orders.Beneficiary) orders.Order {
	t.Helper()
	c, err := d.createFor(d.p, qid, d.next("ref"), b, d.next("key"))
	require.NoError(t, err)
	require.False(t, c.Replayed)
	return c.Resource
}

// toBank quotes and creates a to-bank order of usdt USDT.
func (d *deskEnv) toBank(t deskTB, usdt string) orders.Order {
	t.Helper()
	return d.create(t, d.quote(t, "USDT", "MWK", usdt).ID, deskBeneficiary())
}

// fromBank quotes and creates a from-bank order of mwk MWK.
func (d *deskEnv) fromBank(t deskTB, mwk string) orders.Order {
	t.Helper()
	return d.create(t, d.quote(t, "MWK", "USDT", mwk).ID, nil)
}

// funded is a from-bank order of mwk MWK awaiting funds.
func (d *deskEnv) funded(t deskTB, mwk string) orders.Order {
	t.Helper()
	o := d.fromBank(t, mwk)
	return d.move(t, o.ID, deskInstructions())
}

func (d *deskEnv) move(t deskTB, id string, cmd orders.Command) orders.Order {
	t.Helper()
	o, err := d.e.Operator().Desk().MoveOrder(d.ctx, id, cmd)
	require.NoError(t, err, "move %s", cmd.Name())
	return o
}

func (d *deskEnv) upload(p tambala.Principal, id, contentType string, content []byte) (orders.Order, error) {
	return d.e.Client(p).UploadProof(d.ctx, id, tambala.ProofUpload{ContentType: contentType, Content: bytes.NewReader(content)})
}

func (d *deskEnv) order(t deskTB, id string) orders.Order {
	t.Helper()
	o, err := d.e.Operator().Desk().Order(d.ctx, id)
	require.NoError(t, err)
	return o
}

// balance reads the ledger directly, so it works while /v2 is paused.
func (d *deskEnv) balance(t deskTB, org string, a money.Asset) ledger.Balance {
	t.Helper()
	var b ledger.Balance
	require.NoError(t, d.s.View(d.ctx, func(tx store.Tx) error {
		var err error
		b, err = ledger.ReadBalance(tx, org, a)
		return err
	}))
	return b
}

func (d *deskEnv) requireUSDT(t deskTB, available, held string) {
	t.Helper()
	b := d.balance(t, d.org.ID, money.USDT)
	assert.Equal(t, available, b.Available.String(), "USDT available")
	assert.Equal(t, held, b.Held.String(), "USDT held")
	assert.True(t, b.Shortfall.IsZero(), "USDT shortfall %s", b.Shortfall)
}

func (d *deskEnv) check(t deskTB) {
	t.Helper()
	require.NoError(t, ledger.CheckStore(d.ctx, d.s))
}

type deskEvent struct {
	Type string
	Data map[string]any
	Raw  json.RawMessage
}

// events lists org's events oldest first.
func (d *deskEnv) events(t deskTB, org string) []deskEvent {
	t.Helper()
	var out []deskEvent
	page := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for {
		pg, err := d.e.Operator().Deliveries(d.ctx, org, page)
		require.NoError(t, err)
		for _, dv := range pg.Items {
			var env struct {
				EventType string          `json:"event_type"`
				Data      json.RawMessage `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(dv.Body), &env))
			ev := deskEvent{Type: env.EventType, Raw: env.Data}
			require.NoError(t, json.Unmarshal(env.Data, &ev.Data))
			out = append(out, ev)
		}
		if pg.NextBeforeID == "" {
			break
		}
		page.BeforeID = pg.NextBeforeID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// orderEvents lists the types of the events about order id, oldest first.
func (d *deskEnv) orderEvents(t deskTB, id string) []string {
	t.Helper()
	out := []string{}
	for _, ev := range d.events(t, d.org.ID) {
		if ev.Data["id"] == id || ev.Data["order_id"] == id {
			out = append(out, ev.Type)
		}
	}
	return out
}

func (d *deskEnv) setCorridor(t deskTB, tune func(*quotes.Corridor)) {
	t.Helper()
	c := deskCorridor()
	tune(&c)
	_, err := d.e.Operator().Desk().SetCorridor(d.ctx, c)
	require.NoError(t, err)
}

func readAllClose(t deskTB, rc io.ReadCloser) []byte {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// TestDeskToBankComplete: quote, create (hold), processing, coins-sent
// (capture), complete; the order's amounts are the quote's, the hold is
// captured once, and the ledger checks out.
func TestDeskToBankComplete(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		q := d.quote(t, "USDT", "MWK", "123.456789")
		assert.Equal(t, "123.456789", q.From.String())
		assert.Equal(t, "216111.10", q.To.String()) // 123.456789 × 1750.5, rounded down
		assert.Equal(t, "1750.5", q.Rate.String())
		assert.Equal(t, deskT0.Add(60*time.Second), q.ExpiresAt)
		d.requireUSDT(t, "1000.000000", "0.000000") // a quote holds nothing

		o := d.create(t, q.ID, deskBeneficiary())
		assert.Equal(t, orders.Accepted, o.Status)
		assert.Equal(t, orders.ToBank, o.Direction)
		assert.Equal(t, q.ID, o.QuoteID)
		assert.Equal(t, "123.456789", o.From.String())
		assert.Equal(t, "216111.10", o.To.String())
		assert.Equal(t, *deskBeneficiary(), *o.Beneficiary)
		d.requireUSDT(t, "876.543211", "123.456789")
		assert.Empty(t, d.orderEvents(t, o.ID), "no event on the caller's own create")

		d.clock.Advance(time.Second)
		o = d.move(t, o.ID, orders.StartProcessing{})
		assert.Equal(t, orders.Processing, o.Status)
		processingAt := o.UpdatedAt
		assert.Equal(t, deskT0.Add(time.Second), processingAt)
		d.clock.Advance(time.Second)
		o = d.move(t, o.ID, orders.CoinsSent{})
		assert.Equal(t, orders.Processing, o.Status)
		require.NotNil(t, o.CoinsLeftAt)
		assert.Equal(t, processingAt, o.UpdatedAt, "coins-sent is internal: updated_at does not move")
		d.requireUSDT(t, "876.543211", "0.000000")
		again := d.move(t, o.ID, orders.CoinsSent{}) // idempotent
		assert.Equal(t, o, again)
		d.requireUSDT(t, "876.543211", "0.000000")

		d.clock.Advance(time.Minute)
		o = d.move(t, o.ID, orders.Complete{})
		assert.Equal(t, orders.Completed, o.Status)
		assert.Nil(t, o.Failure)
		assert.Nil(t, o.Refund)
		assert.Equal(t, deskT0.Add(time.Minute+2*time.Second), o.UpdatedAt)
		d.requireUSDT(t, "876.543211", "0.000000")
		again = d.move(t, o.ID, orders.Complete{}) // a repeat: unchanged
		assert.Equal(t, o, again)
		assert.Equal(t, []string{orders.EventProcessing, orders.EventCompleted}, d.orderEvents(t, o.ID))
		// An event's data is the bytes of the order's own read after the move.
		evs := d.events(t, d.org.ID)
		last := evs[len(evs)-1]
		require.Equal(t, orders.EventCompleted, last.Type)
		assert.JSONEq(t, string(render.Order(o)), string(last.Raw))
		assert.Equal(t, "completed", last.Data["status"])

		// The caller reads what the desk sees.
		mine, err := d.e.Client(d.p).Order(d.ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, o, mine)
		for _, cmd := range []orders.Command{orders.StartProcessing{}, orders.CoinsSent{}, orders.Cancel{}, orders.Fail{Code: orders.Other}, orders.ReturnRefund{}} {
			_, err := d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, cmd)
			requireCode(t, errcode.Conflict, err, cmd.Name())
		}

		// Complete without coins-sent captures the hold itself.
		o2 := d.toBank(t, "10")
		d.requireUSDT(t, "866.543211", "10.000000")
		d.move(t, o2.ID, orders.StartProcessing{})
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o2.ID, orders.Complete{})
		require.NoError(t, err)
		d.requireUSDT(t, "866.543211", "0.000000")
		// The same quote at the order of to_amount: derived from rounded up.
		q3, err := d.quoteFor(d.p, "USDT", "MWK", nil, strp("100000.00"))
		require.NoError(t, err)
		assert.Equal(t, "57.126536", q3.From.String()) // 100000 / 1750.5 = 57.1265352..., up
		assert.Equal(t, "100000.00", q3.To.String())
		d.check(t)
	})
}

// TestDeskToBankFailAndRefund: a failure before the coins left releases
// the hold; after, the refund is pending, and refund-returned credits
// from_amount once (with its /v2 collection and event).
func TestDeskToBankFailAndRefund(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)

		// From processing, coins not sent: release.
		a := d.toBank(t, "100")
		d.move(t, a.ID, orders.StartProcessing{})
		d.requireUSDT(t, "900.000000", "100.000000")
		a = d.move(t, a.ID, orders.Fail{Code: orders.NotDelivered})
		assert.Equal(t, orders.Failed, a.Status)
		require.NotNil(t, a.Failure)
		assert.Equal(t, orders.NotDelivered, a.Failure.Code)
		msg, _ := orders.FailureMessage(orders.NotDelivered)
		assert.Equal(t, msg, a.Failure.Message)
		assert.Nil(t, a.Refund, "no refund when the coins never left")
		d.requireUSDT(t, "1000.000000", "0.000000")
		assert.Equal(t, a, d.move(t, a.ID, orders.Fail{Code: orders.NotDelivered}), "a repeat")
		_, err := d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, orders.Fail{Code: orders.Other})
		requireCode(t, errcode.Conflict, err, "another failure of a failed order")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, orders.ReturnRefund{})
		requireCode(t, errcode.Conflict, err, "no refund to return")
		assert.Equal(t, []string{orders.EventProcessing, orders.EventFailed}, d.orderEvents(t, a.ID))

		// From accepted: unable_to_fill or other, released, no refund;
		// the other to-bank codes are a conflict there, from-bank's a 400.
		b := d.toBank(t, "50")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, b.ID, orders.Fail{Code: orders.BeneficiaryRejected})
		requireCode(t, errcode.Conflict, err)
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, b.ID, orders.Fail{Code: orders.FundsNotReceived})
		requireCode(t, errcode.ValidationError, err)
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, b.ID, orders.Fail{Code: "made_up"})
		requireCode(t, errcode.ValidationError, err)
		b = d.move(t, b.ID, orders.Fail{Code: orders.UnableToFill})
		assert.Equal(t, orders.Failed, b.Status)
		assert.Nil(t, b.Refund)
		d.requireUSDT(t, "1000.000000", "0.000000")

		// After the coins left: refund pending, nothing posted.
		c := d.toBank(t, "200")
		d.move(t, c.ID, orders.StartProcessing{})
		d.move(t, c.ID, orders.CoinsSent{})
		d.requireUSDT(t, "800.000000", "0.000000")
		c = d.move(t, c.ID, orders.Fail{Code: orders.BeneficiaryRejected})
		assert.Equal(t, orders.Failed, c.Status)
		require.NotNil(t, c.Refund)
		assert.Equal(t, orders.RefundPending, c.Refund.Status)
		d.requireUSDT(t, "800.000000", "0.000000")
		failedAt := c.UpdatedAt

		d.clock.Advance(time.Hour)
		c = d.move(t, c.ID, orders.ReturnRefund{})
		assert.Equal(t, orders.Failed, c.Status)
		assert.Equal(t, orders.RefundReturned, c.Refund.Status)
		assert.True(t, c.UpdatedAt.After(failedAt), "updated_at moves on a refund change")
		d.requireUSDT(t, "1000.000000", "0.000000")
		again := d.move(t, c.ID, orders.ReturnRefund{})
		assert.Equal(t, c, again)
		d.requireUSDT(t, "1000.000000", "0.000000")

		evs := d.events(t, d.org.ID)
		var refunds, settled []deskEvent
		for _, ev := range evs {
			switch {
			case ev.Type == orders.EventRefundReturned && ev.Data["id"] == c.ID:
				refunds = append(refunds, ev)
			case ev.Type == tambala.EventCollectionV2Settled:
				settled = append(settled, ev)
			}
		}
		require.Len(t, refunds, 1)
		assert.Equal(t, map[string]any{"status": "returned"}, refunds[0].Data["refund"])
		require.Len(t, settled, 1, "one /v2 collection for the refund")
		col := settled[0].Data
		assert.Equal(t, "order_refund", col["source"])
		assert.Equal(t, c.ID, col["order_id"])
		assert.Equal(t, "USDT", col["asset"])
		assert.Equal(t, "200.000000", col["amount"])
		assert.Equal(t, "0.000000", col["fee"])
		assert.Equal(t, "200.000000", col["amount_credited"])
		assert.Equal(t, "settled", col["status"])
		got := d.orderEvents(t, c.ID)
		require.Len(t, got, 4)
		assert.Equal(t, []string{orders.EventProcessing, orders.EventFailed}, got[:2])
		// Both events of the refund, in one transaction, in either order.
		assert.ElementsMatch(t, []string{orders.EventRefundReturned, tambala.EventCollectionV2Settled}, got[2:])

		// The refund is the one credit of the order, from the desk.
		require.NoError(t, s.View(d.ctx, func(tx store.Tx) error {
			snap, err := ledger.ReadSnapshot(tx)
			if err != nil {
				return err
			}
			credits := 0
			for _, en := range snap.Entries {
				if en.Ref == c.ID && en.Kind == ledger.KindCredit {
					credits++
					assert.Equal(t, orders.EntryID(c.ID, "refund"), en.ID)
				}
			}
			assert.Equal(t, 1, credits)
			return nil
		}))
		d.check(t)
	})
}

// TestDeskToBankCancel: cancel from accepted and from processing releases
// the hold; after coins-sent it is a conflict (fail starts the refund).
func TestDeskToBankCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		a := d.toBank(t, "100")
		a = d.move(t, a.ID, orders.Cancel{})
		assert.Equal(t, orders.Cancelled, a.Status)
		d.requireUSDT(t, "1000.000000", "0.000000")
		assert.Equal(t, a, d.move(t, a.ID, orders.Cancel{}), "a repeat")
		_, err := d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, orders.StartProcessing{})
		requireCode(t, errcode.Conflict, err)
		assert.Equal(t, []string{orders.EventCancelled}, d.orderEvents(t, a.ID))

		b := d.toBank(t, "100")
		d.move(t, b.ID, orders.StartProcessing{})
		b = d.move(t, b.ID, orders.Cancel{})
		assert.Equal(t, orders.Cancelled, b.Status)
		d.requireUSDT(t, "1000.000000", "0.000000")

		c := d.toBank(t, "100")
		d.move(t, c.ID, orders.StartProcessing{})
		d.move(t, c.ID, orders.CoinsSent{})
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, c.ID, orders.Cancel{})
		requireCode(t, errcode.Conflict, err)
		assert.Equal(t, orders.Processing, d.order(t, c.ID).Status)
		d.requireUSDT(t, "900.000000", "0.000000")
		c = d.move(t, c.ID, orders.Fail{Code: orders.Other})
		require.NotNil(t, c.Refund)
		assert.Equal(t, orders.RefundPending, c.Refund.Status)

		// Moves of the other direction are conflicts.
		for _, cmd := range []orders.Command{deskInstructions(), orders.ConfirmFunds{ProofID: "x"}, orders.RejectProof{ProofID: "x", Reason: "no"}} {
			o := d.toBank(t, "1")
			_, err := d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, cmd)
			requireCode(t, errcode.Conflict, err, cmd.Name())
			assert.Equal(t, orders.Accepted, d.order(t, o.ID).Status)
		}
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, "0192d7f0-0000-7000-8000-000000000000", orders.Cancel{})
		requireCode(t, errcode.NotFound, err)
		d.check(t)
	})
}

// TestDeskFromBankFlow: create (nothing held), instructions (reference and
// default deadline), proof, rejection, a second proof, a stale
// confirmation, confirmation and completion (to_amount credited once).
func TestDeskFromBankFlow(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		q := d.quote(t, "MWK", "USDT", "100000.00")
		assert.Equal(t, "100000.00", q.From.String())
		assert.Equal(t, "55.555556", q.To.String()) // 100000 / 1800, rounded up
		assert.Equal(t, "1800", q.Rate.String())
		o := d.create(t, q.ID, nil)
		assert.Equal(t, orders.AwaitingInstructions, o.Status)
		assert.Equal(t, orders.FromBank, o.Direction)
		assert.Nil(t, o.Beneficiary)
		assert.Nil(t, o.Funding)
		_, ok := o.ExpiresAt()
		assert.False(t, ok)
		d.requireUSDT(t, "1000.000000", "0.000000") // nothing held

		_, err := d.upload(d.p, o.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err, "no proof before the instructions")

		d.clock.Advance(10 * time.Minute)
		issued := d.clock.Now()
		o = d.move(t, o.ID, deskInstructions())
		assert.Equal(t, orders.AwaitingFunds, o.Status)
		require.NotNil(t, o.Funding)
		assert.Regexp(t, deskRefRE, o.Funding.Reference)
		assert.Equal(t, "100000.00", o.Funding.Amount.String())
		assert.Equal(t, "Standard Bank Malawi", o.Funding.BankName)
		assert.Equal(t, issued.Add(72*time.Hour), o.Funding.Deadline)
		exp, ok := o.ExpiresAt()
		require.True(t, ok)
		assert.Equal(t, issued.Add(72*time.Hour), exp)
		assert.Equal(t, o, d.move(t, o.ID, deskInstructions()), "a repeat")
		other := deskInstructions()
		other.AccountNumber = "1"
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, other)
		requireCode(t, errcode.Conflict, err, "instructions are set once")

		o, err = d.upload(d.p, o.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		assert.Equal(t, orders.ProofSubmitted, o.Status)
		require.NotNil(t, o.Proof)
		first := o.Proof.ID
		assert.Equal(t, int64(len(deskPDF)), o.Proof.Size)
		assert.Equal(t, "application/pdf", o.Proof.ContentType)
		assert.Nil(t, o.Proof.RejectedReason)

		f, err := d.e.Operator().Desk().Proof(d.ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, "application/pdf", f.ContentType)
		assert.Equal(t, deskPDF, readAllClose(t, f.Content))

		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.RejectProof{ProofID: first, Reason: ""})
		requireCode(t, errcode.ValidationError, err, "a rejection needs a reason")
		o = d.move(t, o.ID, orders.RejectProof{ProofID: first, Reason: "The amount on the slip is 10,000.00."})
		assert.Equal(t, orders.AwaitingFunds, o.Status)
		require.NotNil(t, o.Proof.RejectedReason)
		assert.Equal(t, "The amount on the slip is 10,000.00.", *o.Proof.RejectedReason)
		exp2, _ := o.ExpiresAt()
		assert.Equal(t, exp, exp2, "expires_at never moves")
		var rendered map[string]any
		require.NoError(t, json.Unmarshal(render.Order(o), &rendered))
		assert.Equal(t, "The amount on the slip is 10,000.00.", rendered["proofs"].(map[string]any)["funding"].(map[string]any)["rejected_reason"])

		o, err = d.upload(d.p, o.ID, "application/pdf", deskPDF2)
		require.NoError(t, err)
		assert.Equal(t, orders.ProofSubmitted, o.Status)
		second := o.Proof.ID
		assert.NotEqual(t, first, second)
		assert.Nil(t, o.Proof.RejectedReason, "a new proof clears rejected_reason")

		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.ConfirmFunds{ProofID: first})
		requireCode(t, errcode.Conflict, err, "a stale proof id")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.RejectProof{ProofID: first, Reason: "stale"})
		requireCode(t, errcode.Conflict, err, "a stale proof id")
		assert.Equal(t, orders.ProofSubmitted, d.order(t, o.ID).Status)
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.Complete{})
		requireCode(t, errcode.Conflict, err, "complete before the funds are confirmed")

		o = d.move(t, o.ID, orders.ConfirmFunds{ProofID: second})
		assert.Equal(t, orders.FundsConfirmed, o.Status)
		assert.Equal(t, o, d.move(t, o.ID, orders.ConfirmFunds{ProofID: second}), "a repeat")
		_, err = d.upload(d.p, o.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err)
		d.requireUSDT(t, "1000.000000", "0.000000") // nothing until completed

		o = d.move(t, o.ID, orders.Complete{})
		assert.Equal(t, orders.Completed, o.Status)
		d.requireUSDT(t, "1055.555556", "0.000000")
		assert.Equal(t, o, d.move(t, o.ID, orders.Complete{}), "a repeat")
		d.requireUSDT(t, "1055.555556", "0.000000")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, o.ID, orders.Fail{Code: orders.Other})
		requireCode(t, errcode.Conflict, err)

		assert.Equal(t, []string{orders.EventAwaitingFunds, orders.EventAwaitingFunds, orders.EventFundsConfirmed, orders.EventCompleted},
			d.orderEvents(t, o.ID))
		// The desk reads the newest proof.
		f, err = d.e.Operator().Desk().Proof(d.ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, deskPDF2, readAllClose(t, f.Content))
		d.check(t)
	})
}

// TestDeskFromBankEndings: the failures and cancels a from-bank order
// allows in each state, none of which posts anything.
func TestDeskFromBankEndings(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		a := d.fromBank(t, "5000.00")
		_, err := d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, orders.Fail{Code: orders.FundsNotReceived})
		requireCode(t, errcode.Conflict, err, "funds_not_received before the instructions")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, orders.Fail{Code: orders.NotDelivered})
		requireCode(t, errcode.ValidationError, err, "a to-bank code")
		a = d.move(t, a.ID, orders.Fail{Code: orders.UnableToFill})
		assert.Equal(t, orders.Failed, a.Status)
		assert.Nil(t, a.Refund)

		b := d.funded(t, "5000.00")
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, b.ID, orders.Fail{Code: orders.UnableToFill})
		requireCode(t, errcode.Conflict, err, "unable_to_fill once awaiting funds")
		b = d.move(t, b.ID, orders.Fail{Code: orders.FundsNotReceived})
		assert.Equal(t, orders.Failed, b.Status)

		c := d.funded(t, "5000.00")
		c, err = d.upload(d.p, c.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		c = d.move(t, c.ID, orders.ConfirmFunds{ProofID: c.Proof.ID})
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, c.ID, orders.Fail{Code: orders.FundsNotReceived})
		requireCode(t, errcode.Conflict, err, "funds were confirmed")
		c = d.move(t, c.ID, orders.Fail{Code: orders.UnableToFill})
		assert.Equal(t, orders.Failed, c.Status)

		for _, prep := range []func() orders.Order{
			func() orders.Order { return d.fromBank(t, "5000.00") },
			func() orders.Order { return d.funded(t, "5000.00") },
			func() orders.Order {
				o := d.funded(t, "5000.00")
				o, err := d.upload(d.p, o.ID, "image/png", deskPNG)
				require.NoError(t, err)
				return o
			},
			func() orders.Order {
				o := d.funded(t, "5000.00")
				o, err := d.upload(d.p, o.ID, "image/jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 1, 2})
				require.NoError(t, err)
				return d.move(t, o.ID, orders.ConfirmFunds{ProofID: o.Proof.ID})
			},
		} {
			o := prep()
			o = d.move(t, o.ID, orders.Cancel{})
			assert.Equal(t, orders.Cancelled, o.Status)
			assert.Equal(t, orders.EventCancelled, d.orderEvents(t, o.ID)[len(d.orderEvents(t, o.ID))-1])
		}
		d.requireUSDT(t, "1000.000000", "0.000000")
		d.check(t)
	})
}

// TestDeskFundingInstructions: the desk's own reference and deadline, their
// bounds, and the reference's uniqueness across organizations.
func TestDeskFundingInstructions(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		in := deskInstructions()
		in.Reference = "ACME2026X1"
		soon := d.clock.Now().Add(time.Hour)
		in.Deadline = &soon
		a := d.fromBank(t, "5000.00")
		_, err := d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, in)
		requireCode(t, errcode.ValidationError, err, "a deadline exactly 1h ahead")
		later := d.clock.Now().Add(48 * time.Hour)
		in.Deadline = &later
		in.Reference = "acme-1"
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, a.ID, in)
		requireCode(t, errcode.ValidationError, err, "a reference outside ^[A-Z0-9]{6,18}$")
		in.Reference = "ACME2026X1"
		a = d.move(t, a.ID, in)
		assert.Equal(t, "ACME2026X1", a.Funding.Reference)
		exp, _ := a.ExpiresAt()
		assert.Equal(t, later, exp)

		// Another organization's order may not take the same reference.
		other := d.newOrg(t, "Other", deskAssets())
		po := actFor(d.e, other.ID)
		q, err := d.quoteFor(po, "MWK", "USDT", strp("5000.00"), nil)
		require.NoError(t, err)
		c, err := d.createFor(po, q.ID, "r", nil, "k")
		require.NoError(t, err)
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, c.Resource.ID, in)
		requireCode(t, errcode.Conflict, err)
		assert.Equal(t, orders.AwaitingInstructions, d.order(t, c.Resource.ID).Status)
		in.Reference = ""
		in.Deadline = nil
		b := d.move(t, c.Resource.ID, in)
		assert.Regexp(t, deskRefRE, b.Funding.Reference)

		// Generated references differ.
		seen := map[string]bool{a.Funding.Reference: true, b.Funding.Reference: true}
		for range 20 {
			o := d.funded(t, "5000.00")
			assert.Regexp(t, deskRefRE, o.Funding.Reference)
			assert.False(t, seen[o.Funding.Reference], "reference %s given twice", o.Funding.Reference)
			seen[o.Funding.Reference] = true
		}
	})
}

// TestDeskFundingWindowOption: Options.Orders.FundingWindow sets the
// default deadline.
func TestDeskFundingWindowOption(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.Orders.FundingWindow = 5 * time.Hour })
	o := d.funded(t, "5000.00")
	exp, ok := o.ExpiresAt()
	require.True(t, ok)
	assert.Equal(t, deskT0.Add(5*time.Hour), exp)
}

// TestDeskQuoteChecks: the answers of the quote's checks, in their order,
// through the engine.
func TestDeskQuoteChecks(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		quote := func(from, to, amount string) error {
			_, err := d.quoteFor(d.p, from, to, strp(amount), nil)
			return err
		}
		requireCode(t, errcode.UnsupportedAsset, quote("usdt", "MWK", "10"))
		requireCode(t, errcode.UnsupportedAsset, quote("USDT", "USDT-TRC20", "10"))
		requireCode(t, errcode.UnsupportedAsset, quote("usdt", "ZAR", "10"), "the code's form before the list")
		requireCode(t, errcode.CorridorNotEnabled, quote("USDT", "ZAR", "10"))
		err := quote("ZMW", "USDT", "10")
		requireCode(t, errcode.CorridorNotEnabled, err)
		assert.Contains(t, errcode.Message(err), "ZMW", "the message names the asset")
		requireCode(t, errcode.UnsupportedPair, quote("MWK", "MWK", "1000"))
		requireCode(t, errcode.UnsupportedPair, quote("USDT", "USDT", "10"))
		requireCode(t, errcode.ValidationError, quote("USDT", "MWK", "1.1234567"), "more decimals than USDT has")
		requireCode(t, errcode.ValidationError, quote("MWK", "USDT", "1000.001"), "more decimals than MWK has")
		requireCode(t, errcode.ValidationError, quote("USDT", "MWK", "0"))
		requireCode(t, errcode.ValidationError, quote("USDT", "MWK", "-5"))
		requireCode(t, errcode.ValidationError, quote("USDT", "MWK", "1e3"))
		_, err = d.quoteFor(d.p, "USDT", "MWK", strp("10"), strp("17505.00"))
		requireCode(t, errcode.ValidationError, err, "both amounts")
		_, err = d.quoteFor(d.p, "USDT", "MWK", nil, nil)
		requireCode(t, errcode.ValidationError, err, "no amount")

		// Below the corridor minimum (1000.00 MWK), on the fixed or the
		// derived side; a derived side of zero.
		requireCode(t, errcode.AmountBelowMinimum, quote("USDT", "MWK", "0.5")) // 875.25 MWK
		requireCode(t, errcode.AmountBelowMinimum, quote("MWK", "USDT", "999.99"))
		requireCode(t, errcode.AmountBelowMinimum, quote("USDT", "MWK", "0.000001")) // 0.00 MWK
		_, err = d.quoteFor(d.p, "MWK", "USDT", nil, strp("0.5"))                    // 900.00 MWK
		requireCode(t, errcode.AmountBelowMinimum, err)
		_, err = quoteOK(d, "MWK", "USDT", "1000.00")
		require.NoError(t, err, "the minimum itself")

		// A maximum (never rendered) gives limit_exceeded.
		d.setCorridor(t, func(c *quotes.Corridor) { m := money.FromInt(money.MWK, 1_000_000); c.Max = m })
		requireCode(t, errcode.LimitExceeded, quote("MWK", "USDT", "1000000.01"))
		require.NoError(t, quote("MWK", "USDT", "1000000.00"))

		// A null rate closes one direction; open:false (the only corridor)
		// closes the desk.
		d.setCorridor(t, func(c *quotes.Corridor) { c.RateOffRamp = money.Rate{} })
		requireCode(t, errcode.RateUnavailable, quote("USDT", "MWK", "10"))
		require.NoError(t, quote("MWK", "USDT", "5000.00"))
		d.setCorridor(t, func(c *quotes.Corridor) { c.RateOnRamp = money.Rate{} })
		requireCode(t, errcode.RateUnavailable, quote("MWK", "USDT", "5000.00"))
		d.setCorridor(t, func(c *quotes.Corridor) { c.Open = false })
		requireCode(t, errcode.ServiceMaintenance, quote("USDT", "MWK", "10"))
		requireCode(t, errcode.ServiceMaintenance, quote("MWK", "USDT", "5000.00"))
		requireCode(t, errcode.UnsupportedPair, quote("USDT", "USDT", "10"), "the pair before the desk")
		requireCode(t, errcode.ValidationError, quote("USDT", "MWK", "1.1234567"), "the amount before the desk")
		d.setCorridor(t, func(*quotes.Corridor) {})

		// The operation of the direction: payout on MWK for to-bank,
		// collection on MWK for from-bank.
		payOnly := d.newOrg(t, "PayOnly", []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{tambala.OpPayout}},
			{Asset: "USDT", Operations: []string{tambala.OpPayout}},
		})
		pp := actFor(d.e, payOnly.ID)
		_, err = d.quoteFor(pp, "USDT", "MWK", strp("10"), nil)
		require.NoError(t, err)
		_, err = d.quoteFor(pp, "MWK", "USDT", strp("5000.00"), nil)
		requireCode(t, errcode.CorridorNotEnabled, err)
		_, err = d.quoteFor(pp, "MWK", "USDT", strp("5"), nil)
		requireCode(t, errcode.CorridorNotEnabled, err, "the operation before the amount")

		// An organization without MWK sees no corridor: the pair is not
		// enabled for it.
		usdtOnly := d.newOrg(t, "UsdtOnly", []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}})
		pu := actFor(d.e, usdtOnly.ID)
		cs, err := d.e.Client(pu).Corridors(d.ctx)
		require.NoError(t, err)
		assert.Empty(t, cs)
		_, err = d.quoteFor(pu, "USDT", "MWK", strp("10"), nil)
		requireCode(t, errcode.CorridorNotEnabled, err)
		cs, err = d.e.Client(d.p).Corridors(d.ctx)
		require.NoError(t, err)
		require.Len(t, cs, 1)
		assert.Equal(t, money.MWK.Code, cs[0].Asset.Code)

		// /v2 paused: quotes are refused; /v2 access is checked.
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		requireCode(t, errcode.ServiceMaintenance, quote("USDT", "MWK", "10"))
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		_, err = d.e.Operator().SetV2Access(d.ctx, usdtOnly.ID, tambala.V2AccessSuspended)
		require.NoError(t, err)
		_, err = d.quoteFor(pu, "USDT", "MWK", strp("10"), nil)
		requireCode(t, errcode.AccessSuspended, err)
		d.requireUSDT(t, "1000.000000", "0.000000")
	})
}

func quoteOK(d *deskEnv, from, to, amount string) (quotes.Quote, error) {
	return d.quoteFor(d.p, from, to, strp(amount), nil)
}

// TestDeskQuoteTTLOption: Options.Orders.QuoteTTL sets expires_at.
func TestDeskQuoteTTLOption(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.Orders.QuoteTTL = 5 * time.Minute })
	q := d.quote(t, "USDT", "MWK", "10")
	assert.Equal(t, deskT0.Add(5*time.Minute), q.ExpiresAt)
}

// twoCorridorEnv adds a second fiat asset, ZMW, with its own corridor.
func twoCorridorEnv(t *testing.T, s store.Store) *deskEnv {
	zmw, err := money.NewAsset("ZMW", 2)
	require.NoError(t, err)
	d := newDeskEnv(t, s, func(o *tambala.Options) {
		o.Assets = money.DefaultAssets()
		o.Assets["ZMW"] = zmw
		o.AssetClasses = quotes.DefaultClasses()
		o.AssetClasses["ZMW"] = quotes.Fiat
	})
	_, err = d.e.Operator().SetAssets(d.ctx, d.org.ID, append(deskAssets(), tambala.AssetAccess{Asset: "ZMW", Operations: []string{tambala.OpPayout, tambala.OpCollection}}))
	require.NoError(t, err)
	r := money.MustRate("26.4")
	_, err = d.e.Operator().Desk().SetCorridor(d.ctx, quotes.Corridor{Asset: zmw, RateOffRamp: r, RateOnRamp: r, Min: money.FromInt(zmw, 10), Open: true})
	require.NoError(t, err)
	return d
}

// TestDeskOneCorridorClosed: with two corridors, one closed is
// rate_unavailable (not the desk closed), and an unexpired quote of it is
// still executed at its frozen terms; every corridor closed is
// the desk closed, and leaves the quote unused.
func TestDeskOneCorridorClosed(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := twoCorridorEnv(t, s)
		cs, err := d.e.Client(d.p).Corridors(d.ctx)
		require.NoError(t, err)
		require.Len(t, cs, 2)
		assert.Equal(t, []string{"MWK", "ZMW"}, []string{string(cs[0].Asset.Code), string(cs[1].Asset.Code)})

		q1 := d.quote(t, "USDT", "MWK", "10")
		q2 := d.quote(t, "USDT", "MWK", "20")
		d.setCorridor(t, func(c *quotes.Corridor) {
			c.Open = false
		})
		_, err = quoteOK(d, "USDT", "MWK", "10")
		requireCode(t, errcode.RateUnavailable, err, "one corridor closed is not the desk closed")
		_, err = quoteOK(d, "USDT", "ZMW", "10")
		require.NoError(t, err)
		o := d.create(t, q1.ID, deskBeneficiary())
		assert.Equal(t, "17505.00", o.To.String(), "the quote's frozen terms")
		assert.Equal(t, "1750.5", o.Rate.String())

		// Every corridor closed: the desk is closed; the quote stays unused.
		zmw, _ := d.e.Settings().Assets().Lookup("ZMW")
		r := money.MustRate("26.4")
		_, err = d.e.Operator().Desk().SetCorridor(d.ctx, quotes.Corridor{Asset: zmw, RateOffRamp: r, RateOnRamp: r, Min: money.FromInt(zmw, 10), Open: false})
		require.NoError(t, err)
		_, err = d.createFor(d.p, q2.ID, "q2", deskBeneficiary(), "k-q2")
		requireCode(t, errcode.ServiceMaintenance, err)
		d.requireUSDT(t, "990.000000", "10.000000")
		_, err = d.e.Operator().Desk().SetCorridor(d.ctx, quotes.Corridor{Asset: zmw, RateOffRamp: r, RateOnRamp: r, Min: money.FromInt(zmw, 10), Open: true})
		require.NoError(t, err)
		c, err := d.createFor(d.p, q2.ID, "q2", deskBeneficiary(), "k-q2")
		require.NoError(t, err, "the quote was left unused and the rejection stored nothing")
		assert.Equal(t, "20.000000", c.Resource.From.String())
		d.check(t)
	})
}

// TestDeskCreateOrderChecks: the answers of order creation's checks in
// their order; every rejection leaves nothing behind.
func TestDeskCreateOrderChecks(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		tb := d.quote(t, "USDT", "MWK", "10")
		fb := d.quote(t, "MWK", "USDT", "5000.00")
		mk := func(qid, ref string, b *orders.Beneficiary) error {
			_, err := d.createFor(d.p, qid, ref, b, d.next("key"))
			return err
		}

		// The quote: unknown, malformed, foreign.
		requireCode(t, errcode.NotFound, mk("0192d7f0-0000-7000-8000-000000000000", "a", deskBeneficiary()))
		requireCode(t, errcode.NotFound, mk("not-a-uuid", "a", deskBeneficiary()))
		requireCode(t, errcode.NotFound, mk("", "a", deskBeneficiary()))
		requireCode(t, errcode.NotFound, mk(strings.Repeat("7", 300), "a", deskBeneficiary()))
		other := d.newOrg(t, "Other", deskAssets())
		po := actFor(d.e, other.ID)
		require.NoError(t, d.e.Operator().Fund(d.ctx, other.ID, money.FromInt(money.USDT, 100), "start"))
		foreign, err := d.quoteFor(po, "USDT", "MWK", strp("10"), nil)
		require.NoError(t, err)
		requireCode(t, errcode.NotFound, mk(foreign.ID, "a", deskBeneficiary()))

		// The beneficiary's presence, then its fields.
		requireCode(t, errcode.BeneficiaryRequired, mk(tb.ID, "a", nil))
		requireCode(t, errcode.BeneficiaryNotAllowed, mk(fb.ID, "a", deskBeneficiary()))
		requireCode(t, errcode.BeneficiaryNotAllowed, mk(fb.ID, "a", &orders.Beneficiary{}), "any non-null beneficiary")
		bad := deskBeneficiary()
		bad.Name = ""
		requireCode(t, errcode.ValidationError, mk(tb.ID, "a", bad))
		bad = deskBeneficiary()
		bad.Branch = strp("")
		requireCode(t, errcode.ValidationError, mk(tb.ID, "a", bad))
		bad = deskBeneficiary()
		bad.AccountNumber = strings.Repeat("9", 201)
		requireCode(t, errcode.ValidationError, mk(tb.ID, "a", bad))
		requireCode(t, errcode.ValidationError, mk(tb.ID, strings.Repeat("r", 65), deskBeneficiary()), "client_ref over 64")
		requireCode(t, errcode.ValidationError, mk(tb.ID, "", deskBeneficiary()), "empty client_ref")
		requireCode(t, errcode.ValidationError, mk(tb.ID, "a\nb", deskBeneficiary()), "control character")
		d.requireUSDT(t, "1000.000000", "0.000000")

		// Exactly at expires_at the quote is good; its first use stands.
		d.clock.Advance(60 * time.Second)
		br := deskBeneficiary()
		br.Branch = strp("  Lilongwe  ")
		first, err := d.createFor(d.p, tb.ID, "order-1", br, "k1")
		require.NoError(t, err)
		assert.Equal(t, "  Lilongwe  ", *first.Resource.Beneficiary.Branch, "echoed exactly as sent")
		d.requireUSDT(t, "990.000000", "10.000000")
		requireCode(t, errcode.QuoteUsed, mk(tb.ID, "order-2", deskBeneficiary()))
		requireCode(t, errcode.QuoteUsed, mk(tb.ID, "order-2", nil), "used before the beneficiary")
		d.clock.Advance(time.Millisecond)
		requireCode(t, errcode.QuoteUsed, mk(tb.ID, "order-2", deskBeneficiary()), "used before expired")
		requireCode(t, errcode.QuoteExpired, mk(fb.ID, "order-2", nil))
		requireCode(t, errcode.QuoteExpired, mk(fb.ID, "order-2", deskBeneficiary()), "expired before the beneficiary")

		// client_ref: unique in the organization, terminal orders included,
		// compared exactly; another organization may use it.
		d.move(t, first.Resource.ID, orders.Cancel{})
		q := d.quote(t, "MWK", "USDT", "5000.00")
		requireCode(t, errcode.ClientRefUsed, mk(q.ID, "order-1", nil))
		requireCode(t, errcode.BeneficiaryNotAllowed, mk(q.ID, "order-1", deskBeneficiary()), "the beneficiary before client_ref")
		o2, err := d.createFor(d.p, q.ID, "ORDER-1", nil, d.next("key"))
		require.NoError(t, err, "client_ref is case-sensitive")
		qo, err := d.quoteFor(po, "USDT", "MWK", strp("10"), nil)
		require.NoError(t, err)
		_, err = d.createFor(po, qo.ID, "order-1", deskBeneficiary(), "k1")
		require.NoError(t, err, "another organization's client_ref and key")

		// Funds: 1000 USDT available; an order of 1000.000001 is short, and
		// leaves no order, no hold and its quote unused.
		big := d.quote(t, "USDT", "MWK", "1000.000001")
		before := d.listAll(t, tambala.OrderFilter{})
		err = mk(big.ID, "big", deskBeneficiary())
		requireCode(t, errcode.InsufficientFunds, err)
		assert.Contains(t, errcode.Message(err), "USDT", "the message names the asset")
		requireCode(t, errcode.ClientRefUsed, mk(big.ID, "ORDER-1", deskBeneficiary()), "client_ref before the funds")
		assert.Equal(t, before, d.listAll(t, tambala.OrderFilter{}))
		d.requireUSDT(t, "1000.000000", "0.000000")
		require.NoError(t, d.e.Operator().Fund(d.ctx, d.org.ID, money.FromUnits(money.USDT, 1), "one-more"))
		big2, err := d.createFor(d.p, big.ID, "big", deskBeneficiary(), d.next("key"))
		require.NoError(t, err, "the quote stayed unused")
		d.requireUSDT(t, "0.000000", "1000.000001")
		assert.Equal(t, orders.Accepted, big2.Resource.Status)
		assert.Equal(t, orders.AwaitingInstructions, o2.Resource.Status)

		// Enablement checked again at order time.
		q = d.quote(t, "MWK", "USDT", "5000.00")
		_, err = d.e.Operator().SetAssets(d.ctx, d.org.ID, []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{tambala.OpPayout}},
			{Asset: "USDT", Operations: []string{tambala.OpPayout}},
		})
		require.NoError(t, err)
		requireCode(t, errcode.CorridorNotEnabled, mk(q.ID, "late", nil))
		requireCode(t, errcode.CorridorNotEnabled, mk(q.ID, "ORDER-1", nil), "enablement (8) before client_ref (10)")
		d.check(t)
	})
}

// TestDeskCreateOrderCheckOrder: the order of order creation's checks
// where two fail at once.
func TestDeskCreateOrderCheckOrder(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	q := d.quote(t, "MWK", "USDT", "5000.00")
	// The desk before client_ref's uniqueness.
	d.create(t, d.quote(t, "MWK", "USDT", "5000.00").ID, nil)
	used := fmt.Sprintf("ref-%d", d.n-1)
	d.setCorridor(t, func(c *quotes.Corridor) { c.Open = false })
	_, err := d.createFor(d.p, q.ID, used, nil, "k2")
	requireCode(t, errcode.ServiceMaintenance, err, "the desk (9) before client_ref (10)")
	d.setCorridor(t, func(*quotes.Corridor) {})

	// The body's shape (client_ref a string of 1-64 characters) comes
	// before the quote's lookup.
	for _, ref := range []string{"", strings.Repeat("r", 65), "a\x00b"} {
		_, err = d.createFor(d.p, "0192d7f0-0000-7000-8000-000000000000", ref, nil, d.next("key"))
		requireCode(t, errcode.ValidationError, err, "2.4.2 step 2 (client_ref %q) before step 3 (quote lookup)", ref)
	}
}

func (d *deskEnv) listAll(t deskTB, f tambala.OrderFilter) []string {
	t.Helper()
	var ids []string
	page := tambala.PageRequest{Limit: 2}
	for {
		pg, err := d.e.Client(d.p).Orders(d.ctx, page, f)
		require.NoError(t, err)
		for _, o := range pg.Items {
			ids = append(ids, o.ID)
		}
		if pg.NextBeforeID == "" {
			return ids
		}
		page.BeforeID = pg.NextBeforeID
	}
}

// TestDeskCreateOrderIdempotency: a replay answers the first order;
// another request under the key is a conflict; a rejection stores nothing.
func TestDeskCreateOrderIdempotency(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		q := d.quote(t, "USDT", "MWK", "10")
		n := tambala.NewOrder{QuoteID: q.ID, ClientRef: "inv-1", Beneficiary: deskBeneficiary()}
		first, err := d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.False(t, first.Replayed)
		again, err := d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Resource, again.Resource)
		d.requireUSDT(t, "990.000000", "10.000000")

		// A replay after the order moved answers the order as created.
		d.move(t, first.Resource.ID, orders.StartProcessing{})
		again, err = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Resource.ID, again.Resource.ID)
		assert.Equal(t, orders.Accepted, again.Resource.Status)

		// Idempotency comes first: a replay answers even once the quote has
		// expired and the desk has closed.
		d.clock.Advance(2 * time.Minute)
		d.setCorridor(t, func(c *quotes.Corridor) { c.Open = false })
		again, err = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		d.setCorridor(t, func(*quotes.Corridor) {})

		other := n
		other.ClientRef = "inv-2"
		_, err = d.e.Client(d.p).CreateOrder(d.ctx, other, tambala.Idempotency{Key: "k"})
		requireCode(t, errcode.Conflict, err)
		_, err = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: "k", Fingerprint: bodyFingerprint([]byte("{}"))})
		requireCode(t, errcode.Conflict, err, "an explicit fingerprint that differs")
		_, err = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{})
		requireCode(t, errcode.ValidationError, err, "no key")
		_, err = d.e.Client(d.p).CreateOrder(d.ctx, n, tambala.Idempotency{Key: strings.Repeat("k", 256)})
		requireCode(t, errcode.ValidationError, err, "a key over 255")

		// A rejection under a key stores nothing: the key is free after it.
		q2 := d.quote(t, "USDT", "MWK", "2000")
		n2 := tambala.NewOrder{QuoteID: q2.ID, ClientRef: "inv-3", Beneficiary: deskBeneficiary()}
		_, err = d.e.Client(d.p).CreateOrder(d.ctx, n2, tambala.Idempotency{Key: "k2"})
		requireCode(t, errcode.InsufficientFunds, err)
		q3 := d.quote(t, "USDT", "MWK", "20")
		c, err := d.e.Client(d.p).CreateOrder(d.ctx, tambala.NewOrder{QuoteID: q3.ID, ClientRef: "inv-3", Beneficiary: deskBeneficiary()}, tambala.Idempotency{Key: "k2"})
		require.NoError(t, err)
		assert.False(t, c.Replayed)

		// Keys are scoped per organization.
		o2 := d.newOrg(t, "Other", deskAssets())
		p2 := actFor(d.e, o2.ID)
		fq, err := d.quoteFor(p2, "MWK", "USDT", strp("5000.00"), nil)
		require.NoError(t, err)
		c, err = d.e.Client(p2).CreateOrder(d.ctx, tambala.NewOrder{QuoteID: fq.ID, ClientRef: "inv-1"}, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.False(t, c.Replayed)
		d.requireUSDT(t, "970.000000", "30.000000")
		d.check(t)
	})
}

// TestDeskOrderLists: GET /v2/orders (newest first, status and client_ref
// filters, own orders only) and the desk's queue.
func TestDeskOrderLists(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		a := d.toBank(t, "10")
		b := d.fromBank(t, "5000.00")
		c := d.toBank(t, "20")
		d.move(t, c.ID, orders.StartProcessing{})
		e := d.funded(t, "7000.00")
		other := d.newOrg(t, "Other", deskAssets())
		po := actFor(d.e, other.ID)
		fq, err := d.quoteFor(po, "MWK", "USDT", strp("5000.00"), nil)
		require.NoError(t, err)
		foreign, err := d.createFor(po, fq.ID, "x", nil, "k")
		require.NoError(t, err)

		assert.Equal(t, []string{e.ID, c.ID, b.ID, a.ID}, d.listAll(t, tambala.OrderFilter{}))
		assert.Equal(t, []string{a.ID}, d.listAll(t, tambala.OrderFilter{Status: orders.Accepted}))
		assert.Equal(t, []string{c.ID}, d.listAll(t, tambala.OrderFilter{Status: orders.Processing}))
		assert.Equal(t, []string{e.ID}, d.listAll(t, tambala.OrderFilter{Status: orders.AwaitingFunds}))
		assert.Empty(t, d.listAll(t, tambala.OrderFilter{Status: orders.Completed}))
		assert.Equal(t, []string{b.ID}, d.listAll(t, tambala.OrderFilter{ClientRef: b.ClientRef}))
		assert.Equal(t, []string{b.ID}, d.listAll(t, tambala.OrderFilter{ClientRef: b.ClientRef, Status: orders.AwaitingInstructions}))
		assert.Empty(t, d.listAll(t, tambala.OrderFilter{ClientRef: b.ClientRef, Status: orders.Accepted}))
		assert.Empty(t, d.listAll(t, tambala.OrderFilter{ClientRef: "x"}), "another organization's client_ref")
		assert.Empty(t, d.listAll(t, tambala.OrderFilter{ClientRef: strings.ToUpper(b.ClientRef)}))
		_, err = d.e.Client(d.p).Orders(d.ctx, tambala.PageRequest{}, tambala.OrderFilter{Status: "bogus"})
		requireCode(t, errcode.ValidationError, err)
		_, err = d.e.Client(d.p).Order(d.ctx, foreign.Resource.ID)
		requireCode(t, errcode.NotFound, err)
		_, err = d.e.Client(d.p).Order(d.ctx, "nope")
		requireCode(t, errcode.NotFound, err)

		queue := func(q tambala.DeskQueue) []string {
			pg, err := d.e.Operator().Desk().Orders(d.ctx, q, tambala.PageRequest{})
			require.NoError(t, err)
			var ids []string
			for _, o := range pg.Items {
				ids = append(ids, o.ID)
			}
			return ids
		}
		assert.Equal(t, []string{foreign.Resource.ID, e.ID, c.ID, b.ID, a.ID}, queue(tambala.DeskQueue{}))
		assert.Equal(t, []string{foreign.Resource.ID, b.ID}, queue(tambala.DeskQueue{Status: orders.AwaitingInstructions}))
		assert.Equal(t, []string{b.ID}, queue(tambala.DeskQueue{Status: orders.AwaitingInstructions, OrgID: d.org.ID}))
		assert.Equal(t, []string{a.ID}, queue(tambala.DeskQueue{Status: orders.Accepted}))
		d.move(t, a.ID, orders.StartProcessing{})
		assert.Empty(t, queue(tambala.DeskQueue{Status: orders.Accepted}), "the queue follows the status")
		assert.Equal(t, []string{c.ID, a.ID}, queue(tambala.DeskQueue{Status: orders.Processing}))
		d.move(t, a.ID, orders.Complete{})
		assert.Equal(t, []string{a.ID}, queue(tambala.DeskQueue{Status: orders.Completed}))
		assert.Equal(t, []string{a.ID}, d.listAll(t, tambala.OrderFilter{Status: orders.Completed}))
		pg, err := d.e.Operator().Desk().Orders(d.ctx, tambala.DeskQueue{}, tambala.PageRequest{Limit: 2})
		require.NoError(t, err)
		assert.True(t, pg.HasMore)
		require.Len(t, pg.Items, 2)
		pg, err = d.e.Operator().Desk().Orders(d.ctx, tambala.DeskQueue{}, tambala.PageRequest{Limit: 2, BeforeID: pg.NextBeforeID})
		require.NoError(t, err)
		assert.Equal(t, []string{c.ID, b.ID}, []string{pg.Items[0].ID, pg.Items[1].ID})
		_, err = d.e.Operator().Desk().Orders(d.ctx, tambala.DeskQueue{Status: "bogus"}, tambala.PageRequest{})
		requireCode(t, errcode.ValidationError, err)
	})
}

// TestDeskProofUploadRules: the upload's checks in their order.
func TestDeskProofUploadRules(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		const maxProof = 64
		d := newDeskEnv(t, s, func(o *tambala.Options) { o.Orders.MaxProofBytes = maxProof })
		assert.Equal(t, int64(maxProof), tambala.GateOf(d.e).MaxProofBytes())
		o := d.funded(t, "5000.00")
		pdf := func(n int) []byte { return append([]byte("%PDF-1.4"), bytes.Repeat([]byte{'x'}, n-8)...) }

		for _, ct := range []string{"text/plain", "application/octet-stream", "", "image/gif", "application/pdfx"} {
			_, err := d.upload(d.p, o.ID, ct, deskPDF)
			requireCode(t, errcode.UnsupportedMediaType, err, ct)
		}
		_, err := d.upload(d.p, "0192d7f0-0000-7000-8000-000000000000", "text/plain", deskPDF)
		requireCode(t, errcode.UnsupportedMediaType, err, "the media type before the order")
		_, err = d.upload(d.p, "0192d7f0-0000-7000-8000-000000000000", "application/pdf", deskPDF)
		requireCode(t, errcode.NotFound, err)
		_, err = d.upload(d.p, o.ID, "application/pdf", deskPNG)
		requireCode(t, errcode.UnsupportedMediaType, err, "PNG bytes declared as PDF")
		_, err = d.upload(d.p, o.ID, "image/png", deskPDF)
		requireCode(t, errcode.UnsupportedMediaType, err, "PDF bytes declared as PNG")
		_, err = d.upload(d.p, o.ID, "application/pdf", nil)
		requireCode(t, errcode.ValidationError, err, "empty")
		_, err = d.upload(d.p, o.ID, "application/pdf", pdf(maxProof+1))
		requireCode(t, errcode.PayloadTooLarge, err)
		_, err = d.e.Client(d.p).UploadProof(d.ctx, o.ID, tambala.ProofUpload{ContentType: "application/pdf", Content: nil})
		requireCode(t, errcode.ValidationError, err, "no content")
		cur := d.order(t, o.ID)
		assert.Equal(t, orders.AwaitingFunds, cur.Status, "refused uploads change nothing")
		assert.Nil(t, cur.Proof)

		// Another organization's order is not_found.
		other := d.newOrg(t, "Other", deskAssets())
		_, err = d.upload(actFor(d.e, other.ID), o.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.NotFound, err)

		// Parameters and case of the media type are ignored; exactly the
		// cap is fine.
		up, err := d.upload(d.p, o.ID, "Application/PDF; charset=binary", pdf(maxProof))
		require.NoError(t, err)
		assert.Equal(t, orders.ProofSubmitted, up.Status)
		assert.Equal(t, "application/pdf", up.Proof.ContentType)
		assert.Equal(t, int64(maxProof), up.Proof.Size)

		// Another file while under review: proof_not_expected.
		_, err = d.upload(d.p, o.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err)
		assert.Equal(t, up, d.order(t, o.ID))

		// Orders that take no proof.
		tb := d.toBank(t, "10")
		_, err = d.upload(d.p, tb.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err, "a to-bank order")
		fb := d.fromBank(t, "5000.00")
		_, err = d.upload(d.p, fb.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err, "awaiting_instructions")
		_, err = d.upload(d.p, tb.ID, "application/pdf", nil)
		requireCode(t, errcode.ProofNotExpected, err, "the status before the content")

		// /v2 paused: refused.
		f2 := d.funded(t, "5000.00")
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Incident)
		require.NoError(t, err)
		_, err = d.upload(d.p, f2.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ServiceIncident, err)
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		_, err = d.upload(d.p, f2.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		assert.Empty(t, d.orderEvents(t, f2.ID)[1:], "no event on an upload")
	})
}

// TestDeskProofIdenticalReupload: the newest proof uploaded again while the
// order is proof_submitted answers the order unchanged (a safe retry).
func TestDeskProofIdenticalReupload(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		o := d.funded(t, "5000.00")
		up, err := d.upload(d.p, o.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		d.clock.Advance(time.Second)
		again, err := d.upload(d.p, o.ID, "application/pdf", deskPDF)
		require.NoError(t, err, "an identical re-upload while proof_submitted is a safe retry")
		assert.Equal(t, up, again)
		assert.Equal(t, up, d.order(t, o.ID))
	})
}

// TestDeskProofLinks: a signed link opens the newest proof; tampered,
// expired and paused links are refused.
func TestDeskProofLinks(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		o := d.funded(t, "5000.00")
		_, err := d.e.Client(d.p).ProofLink(d.ctx, o.ID)
		requireCode(t, errcode.NotFound, err, "no proof yet")
		tb := d.toBank(t, "10")
		_, err = d.e.Client(d.p).ProofLink(d.ctx, tb.ID)
		requireCode(t, errcode.NotFound, err, "a to-bank order")
		o, err = d.upload(d.p, o.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		other := d.newOrg(t, "Other", deskAssets())
		_, err = d.e.Client(actFor(d.e, other.ID)).ProofLink(d.ctx, o.ID)
		requireCode(t, errcode.NotFound, err, "another organization's order")

		link, err := d.e.Client(d.p).ProofLink(d.ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, d.clock.Now().Add(5*time.Minute), link.ExpiresAt)
		f, err := tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
		require.NoError(t, err)
		assert.Equal(t, "application/pdf", f.ContentType)
		assert.Equal(t, int64(len(deskPDF)), f.Size)
		assert.Equal(t, deskPDF, readAllClose(t, f.Content))

		// Tampering: every byte of the token matters.
		raw, err := base64.RawURLEncoding.DecodeString(link.Token)
		require.NoError(t, err)
		for _, i := range []int{0, len(raw) / 2, len(raw) - 41, len(raw) - 33, len(raw) - 1} {
			bad := bytes.Clone(raw)
			bad[i] ^= 0x01
			_, err := tambala.GateOf(d.e).OpenProofLink(d.ctx, base64.RawURLEncoding.EncodeToString(bad))
			requireCode(t, errcode.NotFound, err, "byte %d flipped", i)
		}
		for _, tok := range []string{"", "x", "!!!", link.Token + "A", link.Token[1:], strings.Repeat("A", 200)} {
			_, err := tambala.GateOf(d.e).OpenProofLink(d.ctx, tok)
			requireCode(t, errcode.NotFound, err, tok)
		}

		// /v2 paused: the pause's error, even for a good token.
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		_, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Client(d.p).ProofLink(d.ctx, o.ID)
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)

		// Good until expires_at, not after.
		d.clock.Advance(5 * time.Minute)
		f, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
		require.NoError(t, err)
		f.Content.Close()
		d.clock.Advance(time.Millisecond)
		_, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
		requireCode(t, errcode.NotFound, err, "expired")

		// A rejected proof still has a link; a new proof gets its own.
		o = d.move(t, o.ID, orders.RejectProof{ProofID: o.Proof.ID, Reason: "blurred"})
		link, err = d.e.Client(d.p).ProofLink(d.ctx, o.ID)
		require.NoError(t, err)
		f, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
		require.NoError(t, err)
		assert.Equal(t, deskPDF, readAllClose(t, f.Content))
		_, err = d.upload(d.p, o.ID, "image/png", deskPNG)
		require.NoError(t, err)
		link2, err := d.e.Client(d.p).ProofLink(d.ctx, o.ID)
		require.NoError(t, err)
		f, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link2.Token)
		require.NoError(t, err)
		assert.Equal(t, "image/png", f.ContentType)
		assert.Equal(t, deskPNG, readAllClose(t, f.Content))

		// A second engine over the same store agrees on the key.
		e2, err := tambala.New(s, &tambala.Options{Clock: d.clock.Now})
		require.NoError(t, err)
		f, err = tambala.GateOf(e2).OpenProofLink(d.ctx, link2.Token)
		require.NoError(t, err)
		f.Content.Close()
	})
}

// TestDeskProofLinkTokenIsCanonical: a token has one spelling. The last
// character of an unpadded base64url token can carry bits that decode to
// nothing; every other value of those bits is refused.
func TestDeskProofLinkTokenIsCanonical(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	o := d.funded(t, "5000.00")
	_, err := d.upload(d.p, o.ID, "application/pdf", deskPDF)
	require.NoError(t, err)
	link, err := d.e.Client(d.p).ProofLink(d.ctx, o.ID)
	require.NoError(t, err)
	f, err := tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
	require.NoError(t, err)
	f.Content.Close()

	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	unused := map[int]int{2: 4, 3: 2}[len(link.Token)%4] // bits of the last character that carry no data
	require.NotZero(t, unused, "the token's length leaves no unused bits; the test needs one that does")
	last := strings.IndexByte(alphabet, link.Token[len(link.Token)-1])
	require.GreaterOrEqual(t, last, 0)
	require.Zero(t, last&(1<<unused-1), "the engine issues the canonical spelling")
	for v := 1; v < 1<<unused; v++ {
		alt := link.Token[:len(link.Token)-1] + string(alphabet[last|v])
		_, err := tambala.GateOf(d.e).OpenProofLink(d.ctx, alt)
		requireCode(t, errcode.NotFound, err, "non-canonical spelling %s", alt[len(alt)-4:])
	}
}

// TestDeskProofLinkTTLOption: Options.Orders.ProofLinkTTL.
func TestDeskProofLinkTTLOption(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.Orders.ProofLinkTTL = time.Minute })
	o := d.funded(t, "5000.00")
	_, err := d.upload(d.p, o.ID, "application/pdf", deskPDF)
	require.NoError(t, err)
	link, err := d.e.Client(d.p).ProofLink(d.ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, deskT0.Add(time.Minute), link.ExpiresAt)
	d.clock.Advance(time.Minute + time.Millisecond)
	_, err = tambala.GateOf(d.e).OpenProofLink(d.ctx, link.Token)
	requireCode(t, errcode.NotFound, err)
}

// TestDeskExpirySweep: only a from-bank order that never had a proof
// expires, strictly after its deadline, by the sweep, with order.expired.
func TestDeskExpirySweep(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		unfunded := d.funded(t, "5000.00")
		rejected := d.funded(t, "5000.00")
		up, err := d.upload(d.p, rejected.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		d.move(t, rejected.ID, orders.RejectProof{ProofID: up.Proof.ID, Reason: "unreadable"})
		submitted := d.funded(t, "5000.00")
		_, err = d.upload(d.p, submitted.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		waiting := d.fromBank(t, "5000.00") // no instructions: no deadline
		exp, _ := unfunded.ExpiresAt()

		d.clock.Advance(72 * time.Hour)
		require.Equal(t, exp, d.clock.Now())
		n, err := d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "not expired at exactly expires_at")
		up, err = d.upload(d.p, unfunded.ID, "application/pdf", deskPDF)
		require.NoError(t, err, "an upload at exactly expires_at is on time")
		d.move(t, unfunded.ID, orders.RejectProof{ProofID: up.Proof.ID, Reason: "wrong account"})

		late := d.funded(t, "5000.00")
		lateExp, _ := late.ExpiresAt()
		d.clock.Advance(72*time.Hour + time.Millisecond)
		require.True(t, d.clock.Now().After(lateExp))
		_, err = d.upload(d.p, late.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err, "past the deadline with no proof, even before the sweep")
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		got := d.order(t, late.ID)
		assert.Equal(t, orders.Expired, got.Status)
		gotExp, _ := got.ExpiresAt()
		assert.Equal(t, lateExp, gotExp, "expires_at never moves")
		assert.Equal(t, []string{orders.EventAwaitingFunds, orders.EventExpired}, d.orderEvents(t, late.ID))
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "a second pass finds nothing")

		for _, id := range []string{unfunded.ID, rejected.ID} {
			o := d.order(t, id)
			assert.Equal(t, orders.AwaitingFunds, o.Status, "a rejected proof keeps the order open")
			_, err := d.upload(d.p, id, "image/png", deskPNG)
			require.NoError(t, err, "and it accepts a new proof past expires_at")
		}
		assert.Equal(t, orders.ProofSubmitted, d.order(t, submitted.ID).Status)
		assert.Equal(t, orders.AwaitingInstructions, d.order(t, waiting.ID).Status)
		_, err = d.e.Operator().Desk().MoveOrder(d.ctx, late.ID, orders.Cancel{})
		requireCode(t, errcode.Conflict, err, "expired is terminal")
		_, err = d.upload(d.p, late.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err)
		d.requireUSDT(t, "1000.000000", "0.000000")
		d.check(t)
	})
}

// TestDeskExpiryPause: while /v2 is paused nothing expires; a deadline that
// fell inside the pause is honoured, for uploads and the sweep, until the
// pause ended plus PauseGrace; one that passed before the pause is
// not.
func TestDeskExpiryPause(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, func(o *tambala.Options) { o.Orders.PauseGrace = 30 * time.Minute })
		before := d.funded(t, "5000.00") // deadline T0+72h
		d.clock.Advance(2 * time.Hour)
		inside := d.funded(t, "5000.00")  // T0+74h
		inside2 := d.funded(t, "5000.00") // T0+74h
		d.clock.Advance(2 * time.Hour)
		after := d.funded(t, "5000.00") // T0+76h
		expInside, _ := inside.ExpiresAt()

		// Paused from T0+73h to T0+75h.
		d.clock.Advance(69 * time.Hour) // T0+73h
		_, err := d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		d.clock.Advance(90 * time.Minute) // T0+74h30: inside's deadline has passed
		n, err := d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "nothing expires while /v2 is paused")
		for _, o := range []orders.Order{before, inside} {
			assert.Equal(t, orders.AwaitingFunds, d.order(t, o.ID).Status)
		}
		_, err = d.upload(d.p, inside.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ServiceMaintenance, err)
		d.clock.Advance(30 * time.Minute) // T0+75h
		resumed := d.clock.Now()
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		require.True(t, resumed.After(expInside))

		// The deadline before the pause is not honoured.
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, orders.Expired, d.order(t, before.ID).Status)
		assert.Equal(t, orders.AwaitingFunds, d.order(t, inside.ID).Status)

		// Within the grace: an upload is on time.
		d.clock.Advance(10 * time.Minute)
		_, err = d.upload(d.p, inside2.ID, "application/pdf", deskPDF)
		require.NoError(t, err, "a deadline inside the pause is honoured until the end plus the grace")
		d.clock.Advance(20 * time.Minute) // exactly resumed + grace
		require.Equal(t, resumed.Add(30*time.Minute), d.clock.Now())
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "not expired at exactly end + grace")
		d.clock.Advance(time.Millisecond)
		_, err = d.upload(d.p, inside.ID, "application/pdf", deskPDF)
		requireCode(t, errcode.ProofNotExpected, err)
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		got := d.order(t, inside.ID)
		assert.Equal(t, orders.Expired, got.Status)
		gotExp, _ := got.ExpiresAt()
		assert.Equal(t, expInside, gotExp, "expires_at never moves")
		assert.Equal(t, orders.ProofSubmitted, d.order(t, inside2.ID).Status)

		// A deadline after the pause ended is its own.
		assert.Equal(t, orders.AwaitingFunds, d.order(t, after.ID).Status)
		d.clock.Advance(time.Hour)
		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, orders.Expired, d.order(t, after.ID).Status)
		d.check(t)
	})
}

// TestDeskExpiryIndexAfterPause: orders whose deadline fell inside a pause
// and that the desk ended during the grace must not clog the sweep: a later
// order still expires on time (the sweep takes at most 100 due orders per
// pass).
func TestDeskExpiryIndexAfterPause(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	const clog = 101
	var ids []string
	for range clog {
		ids = append(ids, d.funded(t, "5000.00").ID) // deadline T0+72h
	}
	d.clock.Advance(71 * time.Hour)
	_, err := d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
	require.NoError(t, err)
	d.clock.Advance(2 * time.Hour) // T0+73h
	_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
	require.NoError(t, err)
	n, err := d.e.Work().ProcessOrders(d.ctx) // honoured until T0+74h: looks again then
	require.NoError(t, err)
	require.Equal(t, 0, n)
	for _, id := range ids {
		d.move(t, id, orders.Cancel{}) // the desk ends them within the grace
	}
	later := d.funded(t, "5000.00") // deadline T0+145h
	d.clock.Advance(73 * time.Hour) // T0+146h
	for range 3 {
		_, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, orders.Expired, d.order(t, later.ID).Status,
		"the cancelled orders' entries at their honoured deadline stay in the expiry index and starve the sweep")
}

// TestDeskMovesWhilePaused: desk moves go on while /v2 is paused; the
// caller's own calls are refused.
func TestDeskMovesWhilePaused(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)
		tb := d.toBank(t, "10")
		fb := d.funded(t, "5000.00")
		fb, err := d.upload(d.p, fb.ID, "application/pdf", deskPDF)
		require.NoError(t, err)
		q := d.quote(t, "USDT", "MWK", "10")
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		d.move(t, tb.ID, orders.StartProcessing{})
		d.move(t, tb.ID, orders.Complete{})
		d.move(t, fb.ID, orders.ConfirmFunds{ProofID: fb.Proof.ID})
		d.move(t, fb.ID, orders.Complete{})
		_, err = d.createFor(d.p, q.ID, "p", deskBeneficiary(), "kp")
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Client(d.p).Order(d.ctx, tb.ID)
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Client(d.p).Orders(d.ctx, tambala.PageRequest{}, tambala.OrderFilter{})
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Client(d.p).Corridors(d.ctx)
		requireCode(t, errcode.ServiceMaintenance, err)
		// /v1 paused does not touch /v2.
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv1, tambala.Maintenance)
		require.NoError(t, err)
		c, err := d.createFor(d.p, q.ID, "p", deskBeneficiary(), "kp")
		require.NoError(t, err, "the quote is still good and unused")
		// 1000 - 10 (completed) + 2.777778 (5000.00 / 1800, up) - 10 (held).
		d.requireUSDT(t, "982.777778", "10.000000")
		assert.Equal(t, orders.Accepted, c.Resource.Status)
		d.check(t)
	})
}

// TestDeskPruneQuotes: quotes are kept a day past expiry (a late use is
// quote_expired), then pruned (not_found).
func TestDeskPruneQuotes(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	q := d.quote(t, "USDT", "MWK", "10")
	used := d.quote(t, "USDT", "MWK", "10")
	d.create(t, used.ID, deskBeneficiary())
	d.clock.Advance(60*time.Second + 24*time.Hour)
	n, err := d.e.Work().PruneQuotes(d.ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "exactly a day past expiry: kept")
	_, err = d.createFor(d.p, q.ID, "late", deskBeneficiary(), "k-late")
	requireCode(t, errcode.QuoteExpired, err)
	fresh := d.quote(t, "USDT", "MWK", "10")
	d.clock.Advance(time.Millisecond)
	n, err = d.e.Work().PruneQuotes(d.ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = d.createFor(d.p, q.ID, "late", deskBeneficiary(), "k-late2")
	requireCode(t, errcode.NotFound, err)
	_, err = d.createFor(d.p, fresh.ID, "fresh", deskBeneficiary(), "k-fresh")
	require.NoError(t, err, "a young quote survives the prune")
}

// TestDeskExpiryTwoPauses: a deadline honoured after a first pause (until
// its end plus the grace) stays honoured for uploads when a second, short
// pause comes and goes within that grace, as it does for the sweep: one
// rule for uploads and the sweep.
func TestDeskExpiryTwoPauses(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newDeskEnv(t, s, nil)  // grace 1h
		a := d.funded(t, "5000.00") // deadline T0+72h
		b := d.funded(t, "5000.00")
		pause := func(mode tambala.PauseMode) {
			_, err := d.e.Operator().SetPause(d.ctx, tambala.APIv2, mode)
			require.NoError(t, err)
		}
		d.clock.Advance(71 * time.Hour)
		pause(tambala.Maintenance) // T0+71h
		d.clock.Advance(2 * time.Hour)
		pause(tambala.Live) // T0+73h: both honoured until T0+74h
		n, err := d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		require.Equal(t, 0, n)
		d.clock.Advance(10 * time.Minute)
		pause(tambala.Maintenance) // T0+73h10
		d.clock.Advance(10 * time.Minute)
		pause(tambala.Live)               // T0+73h20
		d.clock.Advance(10 * time.Minute) // T0+73h30, inside the first pause's grace

		n, err = d.e.Work().ProcessOrders(d.ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "the sweep still honours the deadline until T0+74h")
		assert.Equal(t, orders.AwaitingFunds, d.order(t, b.ID).Status)
		_, err = d.upload(d.p, a.ID, "application/pdf", deskPDF)
		assert.NoError(t, err, "the upload must honour the deadline the sweep honours (T0+74h), whatever pause came last")
	})
}

// TestDeskSetCorridor: the operator's corridor checks.
func TestDeskSetCorridor(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	bad := []func(*quotes.Corridor){
		func(c *quotes.Corridor) { c.Asset = money.USDT },                            // not fiat
		func(c *quotes.Corridor) { c.Asset = money.Asset{Code: "ZAR", Decimals: 2} }, // not configured
		func(c *quotes.Corridor) { c.Asset = money.Asset{Code: "MWK", Decimals: 3} }, // not as configured
		func(c *quotes.Corridor) { c.Min = money.FromInt(money.MWK, -1) },            // negative
		func(c *quotes.Corridor) { c.Min = money.FromInt(money.USDT, 1) },            // another asset
		func(c *quotes.Corridor) { m := money.FromInt(money.MWK, 999); c.Max = m },   // below min
	}
	for i, tune := range bad {
		c := deskCorridor()
		tune(&c)
		_, err := d.e.Operator().Desk().SetCorridor(d.ctx, c)
		requireCode(t, errcode.ValidationError, err, "case %d", i)
	}
	all, err := d.e.Operator().Desk().Corridors(d.ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "1750.5", all[0].RateOffRamp.String(), "refused updates change nothing")
	d.setCorridor(t, func(c *quotes.Corridor) { r := money.MustRate("1760.25"); c.RateOffRamp = r })
	q := d.quote(t, "USDT", "MWK", "10")
	assert.Equal(t, "17602.50", q.To.String(), "the new rate prices new quotes")
}

// TestDeskFiatWithoutCorridor: a fiat asset in the organization's list
// with no corridor is unsupported_pair (the pair's check), before the
// operation's check.
func TestDeskFiatWithoutCorridor(t *testing.T) {
	zmw, err := money.NewAsset("ZMW", 2)
	require.NoError(t, err)
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) {
		o.Assets = money.DefaultAssets()
		o.Assets["ZMW"] = zmw
		o.AssetClasses = quotes.DefaultClasses()
		o.AssetClasses["ZMW"] = quotes.Fiat
	})
	_, err = d.e.Operator().SetAssets(d.ctx, d.org.ID, append(deskAssets(), tambala.AssetAccess{Asset: "ZMW", Operations: []string{tambala.OpConvert}}))
	require.NoError(t, err)
	_, err = quoteOK(d, "USDT", "ZMW", "10")
	requireCode(t, errcode.UnsupportedPair, err)
	_, err = quoteOK(d, "ZMW", "MWK", "10")
	requireCode(t, errcode.UnsupportedPair, err, "two fiat assets")
}

// deskStuckRandom gives the same reference bytes to the next stuck draws
// of a funding reference, then real randomness.
type deskStuckRandom struct {
	mu    sync.Mutex
	stuck int
}

func (r *deskStuckRandom) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stuck > 0 && len(p) == orders.ReferenceRandomBytes {
		r.stuck--
		for i := range p {
			p[i] = 0x5a
		}
		return len(p), nil
	}
	return rand.Read(p)
}

// TestDeskGeneratedReferenceClash: a generated reference that meets
// another order's is drawn again.
func TestDeskGeneratedReferenceClash(t *testing.T) {
	random := &deskStuckRandom{}
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) { o.Random = random })
	a := d.fromBank(t, "5000.00")
	b := d.fromBank(t, "5000.00")
	random.stuck = 3
	a = d.move(t, a.ID, deskInstructions())
	b = d.move(t, b.ID, deskInstructions()) // draws a's reference twice, then a fresh one
	assert.Equal(t, 0, random.stuck)
	assert.Regexp(t, deskRefRE, b.Funding.Reference)
	assert.NotEqual(t, a.Funding.Reference, b.Funding.Reference)

	// Every draw clashing: an error, and the order unchanged.
	c := d.fromBank(t, "5000.00")
	random.stuck = 100
	_, err := d.e.Operator().Desk().MoveOrder(d.ctx, c.ID, deskInstructions())
	require.Error(t, err)
	random.stuck = 0
	assert.Equal(t, orders.AwaitingInstructions, d.order(t, c.ID).Status)
	c = d.move(t, c.ID, deskInstructions())
	assert.NotEqual(t, a.Funding.Reference, c.Funding.Reference)
}

// TestDeskQueueOrgFilterPages: the desk queue filtered by organization
// says has_more only when another item of that organization follows (as
// every other list does).
func TestDeskQueueOrgFilterPages(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	other := d.newOrg(t, "Other", deskAssets())
	po := actFor(d.e, other.ID)
	for i := range 3 {
		q, err := d.quoteFor(po, "MWK", "USDT", strp("5000.00"), nil)
		require.NoError(t, err)
		_, err = d.createFor(po, q.ID, fmt.Sprint("o", i), nil, fmt.Sprint("k", i))
		require.NoError(t, err)
	}
	mine := d.fromBank(t, "5000.00") // the newest
	pg, err := d.e.Operator().Desk().Orders(d.ctx, tambala.DeskQueue{OrgID: d.org.ID}, tambala.PageRequest{Limit: 1})
	require.NoError(t, err)
	require.Len(t, pg.Items, 1)
	assert.Equal(t, mine.ID, pg.Items[0].ID)
	assert.False(t, pg.HasMore, "no other order of this organization follows")
	assert.Empty(t, pg.NextBeforeID)
}
