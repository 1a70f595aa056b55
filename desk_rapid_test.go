package tambala_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The rapid model of the desk through the engine: both directions, random
// quotes, creates (replays, reused keys and client_refs, used and expired
// quotes, wrong beneficiaries, short funds), every desk move in any order
// (valid or not), uploads (fresh, identical, late), confirmations and
// rejections with fresh or stale proof ids, cancels, refunds, clock moves,
// expiry sweeps, one /v2 pause and the desk closing. A small independent
// model predicts each answer (creation's checks, both state machines,
// proofs, expiry and the pause) and, after every step, the engine's state
// is compared with it and the ledger invariants are checked (invariants).

const (
	rdWindow = 70 * time.Minute // Options.Orders.FundingWindow
	rdGrace  = 20 * time.Minute
	rdTTL    = time.Minute
)

var rdContents = [][]byte{
	[]byte("%PDF-1.4\nslip A\n%%EOF\n"),
	[]byte("%PDF-1.7\nslip B\n%%EOF\n"),
	[]byte("%PDF-1.4\nslip C, resent\n%%EOF\n"),
}

// rdOrder is the model of one order.
type rdOrder struct {
	id, quoteID, ref string
	dir              orders.Direction
	from, to         money.Amount
	status           orders.Status
	coins            bool
	refund           orders.RefundStatus // "" for none
	failCode         orders.FailureCode
	instructed       bool
	deadline         time.Time
	proof, sha       string // the newest proof; "" before any
	proofs           []string
	rejected         *string
	events           []string
	created          orders.Order // as created: what a replay answers
}

type rdQuote struct {
	q      quotes.Quote
	usedBy string
}

type rdKey struct {
	req tambala.NewOrder
	id  string // the order it created
}

type rdModel struct {
	rt      *rapid.T
	d       *deskEnv
	foreign tambala.Principal

	orders       []*rdOrder
	byID         map[string]*rdOrder
	quotes       []*rdQuote
	foreignQuote string
	keys         map[string]rdKey
	keyNames     []string
	refs         map[string]string // client_ref -> order id
	funded       money.Amount      // USDT funded so far

	paused, pausedOnce  bool
	pausedAt, resumedAt time.Time
	deskClosed          bool
	n                   int
	stats               map[string]int // what the run reached, for the log
}

func (m *rdModel) now() time.Time { return m.d.clock.Now().UTC().Truncate(time.Millisecond) }

func (m *rdModel) fatalf(format string, args ...any) { m.rt.Helper(); m.rt.Fatalf(format, args...) }

// expect compares an error with the predicted code ("" for none).
func (m *rdModel) expect(what string, want errcode.Code, err error) {
	m.rt.Helper()
	if got := rdCode(err); got != want {
		m.fatalf("%s: got %q (%v), the model says %q", what, got, err, want)
	}
}

func rdCode(err error) errcode.Code {
	if err == nil {
		return ""
	}
	return errcode.Of(err)
}

// available is the model's USDT available balance.
func (m *rdModel) available() money.Amount {
	a := m.funded
	for _, o := range m.orders {
		switch {
		case o.dir == orders.ToBank:
			if !(o.status == orders.Cancelled || (o.status == orders.Failed && o.refund == "")) {
				a, _ = a.Sub(o.from) // held, captured, or failed after the coins left
			}
			if o.refund == orders.RefundReturned {
				a, _ = a.Add(o.from)
			}
		case o.status == orders.Completed:
			a, _ = a.Add(o.to)
		}
	}
	return a
}

func (m *rdModel) held() money.Amount {
	h := money.Zero(money.USDT)
	for _, o := range m.orders {
		if o.dir == orders.ToBank && (o.status == orders.Accepted || (o.status == orders.Processing && !o.coins)) {
			h, _ = h.Add(o.from)
		}
	}
	return h
}

// effective is the deadline honoured for d (the pause's end plus the
// grace when d fell inside the one pause a run may have).
func (m *rdModel) effective(d time.Time) time.Time {
	if !m.pausedOnce || m.paused || d.Before(m.pausedAt) || d.After(m.resumedAt) {
		return d
	}
	return m.resumedAt.Add(rdGrace)
}

func (m *rdModel) quote(rt *rapid.T) {
	toBank := rapid.Bool().Draw(rt, "to_bank")
	var req quotes.Request
	if toBank {
		units := rapid.Int64Range(1_000000, 900_000000).Draw(rt, "usdt_units")
		if avail, _ := m.available().Units(); avail > 2_000000 && rapid.IntRange(0, 3).Draw(rt, "boundary") == 0 {
			units = avail + rapid.Int64Range(-1, 1).Draw(rt, "off_by") // at the edge of the funds
		}
		req = quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText(money.FromUnits(money.USDT, units).String())}
	} else {
		cents := rapid.Int64Range(1000_00, 500000_00).Draw(rt, "mwk_cents")
		req = quotes.Request{FromAsset: "MWK", ToAsset: "USDT", FromAmount: money.DecimalText(money.FromUnits(money.MWK, cents).String())}
	}
	q, err := m.d.e.Client(m.d.p).QuoteOrder(m.d.ctx, req)
	var want errcode.Code
	if m.paused || m.deskClosed {
		want = errcode.ServiceMaintenance
	}
	m.expect("quote", want, err)
	if err != nil {
		return
	}
	if !q.ExpiresAt.Equal(m.now().Add(rdTTL)) {
		m.fatalf("quote expires at %s, want now + TTL", q.ExpiresAt)
	}
	m.quotes = append(m.quotes, &rdQuote{q: q})
}

// wantCreate is the model's answer to a create (creation's checks in
// order).
func (m *rdModel) wantCreate(n tambala.NewOrder, key string) (errcode.Code, *rdOrder) {
	if m.paused {
		return errcode.ServiceMaintenance, nil
	}
	if k, ok := m.keys[key]; ok {
		if k.req.QuoteID != n.QuoteID || k.req.ClientRef != n.ClientRef || (k.req.Beneficiary == nil) != (n.Beneficiary == nil) {
			return errcode.Conflict, nil
		}
		return "", m.byID[k.id] // a replay
	}
	var q *rdQuote
	for _, c := range m.quotes {
		if c.q.ID == n.QuoteID {
			q = c
		}
	}
	switch {
	case q == nil:
		return errcode.NotFound, nil
	case q.usedBy != "":
		return errcode.QuoteUsed, nil
	case m.now().After(q.q.ExpiresAt):
		return errcode.QuoteExpired, nil
	case q.q.Direction == quotes.ToBank && n.Beneficiary == nil:
		return errcode.BeneficiaryRequired, nil
	case q.q.Direction == quotes.FromBank && n.Beneficiary != nil:
		return errcode.BeneficiaryNotAllowed, nil
	case m.deskClosed:
		return errcode.ServiceMaintenance, nil
	case m.refs[n.ClientRef] != "":
		return errcode.ClientRefUsed, nil
	case q.q.Direction == quotes.ToBank && m.available().Cmp(q.q.From) < 0:
		return errcode.InsufficientFunds, nil
	}
	return "", nil
}

// order quotes and at once creates an order of the quote: the usual flow.
func (m *rdModel) order(rt *rapid.T) {
	before := len(m.quotes)
	m.quote(rt)
	if len(m.quotes) == before {
		return
	}
	q := m.quotes[len(m.quotes)-1]
	m.n++
	n := tambala.NewOrder{QuoteID: q.q.ID, ClientRef: fmt.Sprintf("ref-%d", rapid.IntRange(0, 60).Draw(rt, "ref"))}
	if q.q.Direction == quotes.ToBank {
		n.Beneficiary = deskBeneficiary()
	}
	m.createWith(n, fmt.Sprintf("k%d", m.n))
}

func (m *rdModel) create(rt *rapid.T) {
	var n tambala.NewOrder
	var key string
	if len(m.keyNames) > 0 && rapid.IntRange(0, 4).Draw(rt, "reuse_key") == 0 {
		key = rapid.SampledFrom(m.keyNames).Draw(rt, "key")
		n = m.keys[key].req
		if rapid.Bool().Draw(rt, "other_request") {
			n.ClientRef += "-other"
		}
	} else {
		m.n++
		key = fmt.Sprintf("k%d", m.n)
		if len(m.quotes) == 0 {
			rt.Skip("no quote yet")
		}
		q := rapid.SampledFrom(m.quotes).Draw(rt, "quote")
		n.QuoteID = q.q.ID
		switch rapid.IntRange(0, 19).Draw(rt, "quote_id") {
		case 0:
			n.QuoteID = "0192d7f0-0000-7000-8000-00000000dead"
		case 1:
			n.QuoteID = "malformed"
		case 2:
			n.QuoteID = m.foreignQuote
		case 3, 4, 5, 6, 7, 8, 9, 10, 11:
			q = m.quotes[len(m.quotes)-1] // the newest: the usual flow
			n.QuoteID = q.q.ID
		}
		n.ClientRef = fmt.Sprintf("ref-%d", rapid.IntRange(0, 40).Draw(rt, "ref"))
		withBen := q.q.Direction == quotes.ToBank
		if rapid.IntRange(0, 9).Draw(rt, "wrong_beneficiary") == 0 {
			withBen = !withBen
		}
		if withBen {
			n.Beneficiary = deskBeneficiary()
		}
	}
	m.createWith(n, key)
}

func (m *rdModel) createWith(n tambala.NewOrder, key string) {
	want, replay := m.wantCreate(n, key)
	c, err := m.d.e.Client(m.d.p).CreateOrder(m.d.ctx, n, tambala.Idempotency{Key: key})
	m.expect("create", want, err)
	m.stats["create "+string(want)]++
	if err != nil {
		return
	}
	if replay != nil {
		if !c.Replayed || c.Resource.ID != replay.id || c.Resource.Status != replay.created.Status {
			m.fatalf("replay of %s answered %+v, want order %s as created", key, c, replay.id)
		}
		return
	}
	if c.Replayed {
		m.fatalf("a first create answered as a replay")
	}
	o := c.Resource
	var q *rdQuote
	for _, x := range m.quotes {
		if x.q.ID == n.QuoteID {
			q = x
		}
	}
	q.usedBy = o.ID
	st := orders.Accepted
	dir := orders.ToBank
	if q.q.Direction == quotes.FromBank {
		st, dir = orders.AwaitingInstructions, orders.FromBank
	}
	if o.Status != st || o.Direction != dir || !o.From.Equal(q.q.From) || !o.To.Equal(q.q.To) || o.QuoteID != q.q.ID || o.ClientRef != n.ClientRef {
		m.fatalf("created %+v from quote %+v", o, q.q)
	}
	mo := &rdOrder{id: o.ID, quoteID: q.q.ID, ref: n.ClientRef, dir: dir, from: o.From, to: o.To, status: st, created: o}
	m.orders = append(m.orders, mo)
	m.byID[o.ID] = mo
	m.refs[n.ClientRef] = o.ID
	m.keys[key] = rdKey{req: n, id: o.ID}
	m.keyNames = append(m.keyNames, key)
}

// wantMove is the model of one desk move: the order after it and the error
// code ("" for a move made or a repeat).
func wantMove(o rdOrder, cmd orders.Command, now time.Time) (rdOrder, errcode.Code) {
	terminal := o.status.Terminal()
	next := o
	next.proofs = slices.Clone(o.proofs)
	next.events = slices.Clone(o.events)
	moveTo := func(s orders.Status, ev ...string) {
		next.status = s
		next.events = append(next.events, ev...)
	}
	switch c := cmd.(type) {
	case orders.StartProcessing:
		switch o.status {
		case orders.Processing:
		case orders.Accepted:
			moveTo(orders.Processing, orders.EventProcessing)
		default:
			return o, errcode.Conflict
		}
	case orders.CoinsSent:
		if o.status != orders.Processing {
			return o, errcode.Conflict
		}
		next.coins = true
	case orders.Complete:
		switch {
		case o.status == orders.Completed:
		case o.dir == orders.ToBank && o.status == orders.Processing, o.dir == orders.FromBank && o.status == orders.FundsConfirmed:
			moveTo(orders.Completed, orders.EventCompleted)
		default:
			return o, errcode.Conflict
		}
	case orders.Fail:
		if !slices.Contains(orders.FailureCodes(o.dir), c.Code) {
			return o, errcode.ValidationError
		}
		if o.status == orders.Failed {
			if o.failCode == c.Code {
				return o, ""
			}
			return o, errcode.Conflict
		}
		allowed := map[orders.Status][]orders.FailureCode{
			orders.Accepted:             {orders.UnableToFill, orders.Other},
			orders.Processing:           {orders.UnableToFill, orders.BeneficiaryRejected, orders.NotDelivered, orders.Other},
			orders.AwaitingInstructions: {orders.UnableToFill, orders.Other},
			orders.AwaitingFunds:        {orders.FundsNotReceived, orders.Other},
			orders.ProofSubmitted:       {orders.FundsNotReceived, orders.Other},
			orders.FundsConfirmed:       {orders.UnableToFill, orders.Other},
		}[o.status]
		if !slices.Contains(allowed, c.Code) {
			return o, errcode.Conflict
		}
		next.failCode = c.Code
		if o.dir == orders.ToBank && o.coins {
			next.refund = orders.RefundPending
		}
		moveTo(orders.Failed, orders.EventFailed)
	case orders.Cancel:
		switch {
		case o.status == orders.Cancelled:
		case o.dir == orders.ToBank && o.status == orders.Processing && o.coins:
			return o, errcode.Conflict
		case o.dir == orders.ToBank && (o.status == orders.Accepted || o.status == orders.Processing), o.dir == orders.FromBank && !terminal:
			moveTo(orders.Cancelled, orders.EventCancelled)
		default:
			return o, errcode.Conflict
		}
	case orders.ReturnRefund:
		switch {
		case o.dir != orders.ToBank || o.status != orders.Failed || o.refund == "":
			return o, errcode.Conflict
		case o.refund == orders.RefundReturned:
		default:
			next.refund = orders.RefundReturned
			next.events = append(next.events, orders.EventRefundReturned, tambala.EventCollectionV2Settled)
		}
	case orders.Instructions:
		switch {
		case o.instructed && o.status == orders.AwaitingFunds:
		case o.status != orders.AwaitingInstructions:
			return o, errcode.Conflict
		default:
			next.instructed = true
			next.deadline = now.Add(rdWindow)
			moveTo(orders.AwaitingFunds, orders.EventAwaitingFunds)
		}
	case orders.RejectProof:
		switch {
		case o.dir != orders.FromBank || o.proof == "" || c.ProofID != o.proof:
			return o, errcode.Conflict
		case o.rejected != nil && o.status == orders.AwaitingFunds:
			if *o.rejected != c.Reason {
				return o, errcode.Conflict
			}
		case o.status != orders.ProofSubmitted:
			return o, errcode.Conflict
		default:
			r := c.Reason
			next.rejected = &r
			moveTo(orders.AwaitingFunds, orders.EventAwaitingFunds)
		}
	case orders.ConfirmFunds:
		switch {
		case o.dir != orders.FromBank || o.proof == "" || c.ProofID != o.proof:
			return o, errcode.Conflict
		case o.status == orders.FundsConfirmed:
		case o.status == orders.ProofSubmitted:
			moveTo(orders.FundsConfirmed, orders.EventFundsConfirmed)
		default:
			return o, errcode.Conflict
		}
	default:
		panic(fmt.Sprintf("no model for %T", cmd))
	}
	return next, ""
}

func (m *rdModel) pickOrder(rt *rapid.T) *rdOrder {
	if len(m.orders) == 0 {
		rt.Skip("no order yet")
	}
	return rapid.SampledFrom(m.orders).Draw(rt, "order")
}

// forward lists the moves that make progress from o's state.
func forward(o *rdOrder) []orders.Command {
	switch o.status {
	case orders.Accepted:
		return []orders.Command{orders.StartProcessing{}, orders.StartProcessing{}, orders.StartProcessing{}, orders.Cancel{}, orders.Fail{Code: orders.UnableToFill}}
	case orders.Processing:
		return []orders.Command{orders.CoinsSent{}, orders.CoinsSent{}, orders.Complete{}, orders.Complete{},
			orders.Fail{Code: orders.NotDelivered}, orders.Fail{Code: orders.BeneficiaryRejected}, orders.Cancel{}}
	case orders.Failed:
		if o.refund == orders.RefundPending {
			return []orders.Command{orders.ReturnRefund{}}
		}
	case orders.AwaitingInstructions:
		return []orders.Command{deskInstructions(), deskInstructions(), deskInstructions(), orders.Cancel{}, orders.Fail{Code: orders.Other}}
	case orders.ProofSubmitted:
		return []orders.Command{orders.RejectProof{ProofID: o.proof, Reason: "blurred"}, orders.RejectProof{ProofID: o.proof, Reason: "blurred"},
			orders.ConfirmFunds{ProofID: o.proof}, orders.ConfirmFunds{ProofID: o.proof}, orders.ConfirmFunds{ProofID: o.proof},
			orders.Fail{Code: orders.FundsNotReceived}}
	case orders.FundsConfirmed:
		return []orders.Command{orders.Complete{}, orders.Complete{}, orders.Complete{}, orders.Fail{Code: orders.UnableToFill}, orders.Cancel{}}
	}
	return nil // awaiting_funds waits for a proof (or a random move); terminal
}

// step makes a forward move of a live order.
func (m *rdModel) step(rt *rapid.T) {
	var live []*rdOrder
	for _, o := range m.orders {
		if len(forward(o)) > 0 {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		rt.Skip("nothing to move")
	}
	o := rapid.SampledFrom(live).Draw(rt, "live")
	for k := rapid.IntRange(1, 3).Draw(rt, "burst"); k > 0 && len(forward(o)) > 0; k-- {
		m.apply(o, rapid.SampledFrom(forward(o)).Draw(rt, "forward"))
	}
}

func (m *rdModel) move(rt *rapid.T) {
	o := m.pickOrder(rt)
	proofID := func() string {
		switch {
		case len(o.proofs) > 1 && rapid.IntRange(0, 3).Draw(rt, "stale") == 0:
			return rapid.SampledFrom(o.proofs[:len(o.proofs)-1]).Draw(rt, "stale_proof")
		case o.proof == "" || rapid.IntRange(0, 9).Draw(rt, "bogus") == 0:
			return "0192d7f0-0000-7000-8000-00000000beef"
		}
		return o.proof
	}
	var cmd orders.Command
	switch rapid.IntRange(0, 9).Draw(rt, "move") {
	case 0:
		cmd = orders.StartProcessing{}
	case 1:
		cmd = orders.CoinsSent{}
	case 2:
		cmd = orders.Complete{}
	case 3:
		cmd = orders.Fail{Code: rapid.SampledFrom([]orders.FailureCode{orders.UnableToFill, orders.BeneficiaryRejected,
			orders.FundsNotReceived, orders.NotDelivered, orders.Other}).Draw(rt, "code")}
	case 4:
		cmd = orders.Cancel{}
	case 5:
		cmd = orders.ReturnRefund{}
	case 6:
		cmd = deskInstructions()
	case 7:
		cmd = orders.RejectProof{ProofID: proofID(), Reason: rapid.SampledFrom([]string{"blurred", "wrong amount"}).Draw(rt, "reason")}
	default:
		cmd = orders.ConfirmFunds{ProofID: proofID()}
	}
	m.apply(o, cmd)
}

func (m *rdModel) apply(o *rdOrder, cmd orders.Command) {
	next, want := wantMove(*o, cmd, m.now())
	got, err := m.d.e.Operator().Desk().MoveOrder(m.d.ctx, o.id, cmd)
	m.expect(fmt.Sprintf("%s of a %s order in %s (coins %v, refund %q)", cmd.Name(), o.dir, o.status, o.coins, o.refund), want, err)
	if err != nil {
		return
	}
	if o.status != next.status || o.coins != next.coins || o.refund != next.refund {
		m.stats[fmt.Sprintf("%s %s -> %s", o.dir, cmd.Name(), next.status)]++
	}
	*o = next
	m.compare(got, o, cmd.Name())
}

func (m *rdModel) upload(rt *rapid.T) {
	o := m.pickOrder(rt)
	var waiting, review []*rdOrder
	for _, c := range m.orders {
		switch c.status {
		case orders.AwaitingFunds:
			waiting = append(waiting, c)
		case orders.ProofSubmitted:
			review = append(review, c)
		}
	}
	switch pick := rapid.IntRange(0, 7).Draw(rt, "upload_to"); {
	case pick < 5 && len(waiting) > 0:
		o = rapid.SampledFrom(waiting).Draw(rt, "waiting")
	case pick < 7 && len(review) > 0:
		o = rapid.SampledFrom(review).Draw(rt, "review")
	case pick < 7:
		rt.Skip("no order waits for a proof")
	}
	content := rapid.SampledFrom(rdContents).Draw(rt, "content")
	sum := sha256.Sum256(content)
	sha := hex.EncodeToString(sum[:])
	var want errcode.Code
	identical := false
	switch {
	case m.paused:
		want = errcode.ServiceMaintenance
	case o.status == orders.ProofSubmitted && o.sha == sha:
		identical = true // the order unchanged (a safe retry)
	case o.dir != orders.FromBank || o.status != orders.AwaitingFunds:
		want = errcode.ProofNotExpected
	case o.proof == "" && m.now().After(m.effective(o.deadline)):
		want = errcode.ProofNotExpected
	}
	got, err := m.d.upload(m.d.p, o.id, "application/pdf", content)
	if identical {
		// The engine answers proof_not_expected here (see
		// TestDeskProofIdenticalReupload); either way nothing may change.
		if err != nil && rdCode(err) != errcode.ProofNotExpected {
			m.fatalf("identical re-upload: %v", err)
		}
		if err == nil {
			m.compare(got, o, "identical re-upload")
		}
		return
	}
	m.expect(fmt.Sprintf("upload to a %s order in %s", o.dir, o.status), want, err)
	m.stats["upload "+string(want)]++
	if err != nil {
		return
	}
	if got.Proof == nil || got.Proof.SHA256 != sha || slices.Contains(o.proofs, got.Proof.ID) {
		m.fatalf("upload recorded %+v", got.Proof)
	}
	if o.proof == "" && m.now().After(o.deadline) {
		m.stats["upload past expires_at, inside the pause's grace"]++
	}
	o.proof, o.sha, o.rejected = got.Proof.ID, sha, nil
	o.proofs = append(o.proofs, got.Proof.ID)
	o.status = orders.ProofSubmitted
	m.compare(got, o, "upload")
}

func (m *rdModel) sweep(rt *rapid.T) {
	var due []*rdOrder
	if !m.paused {
		for _, o := range m.orders {
			if o.dir == orders.FromBank && o.status == orders.AwaitingFunds && o.proof == "" && m.now().After(m.effective(o.deadline)) {
				due = append(due, o)
			}
		}
	}
	n, err := m.d.e.Work().ProcessOrders(m.d.ctx)
	if err != nil {
		m.fatalf("sweep: %v", err)
	}
	if n != len(due) {
		m.fatalf("the sweep expired %d orders, the model %d", n, len(due))
	}
	for _, o := range due {
		m.stats["expired"]++
		if !m.effective(o.deadline).Equal(o.deadline) {
			m.stats["expired after a deadline inside the pause"]++
		}
		o.status = orders.Expired
		o.events = append(o.events, orders.EventExpired)
	}
}

func (m *rdModel) tick(rt *rapid.T) {
	var d time.Duration
	switch rapid.IntRange(0, 4).Draw(rt, "scale") {
	case 0, 1:
		d = time.Duration(rapid.IntRange(1, 90_000).Draw(rt, "ms")) * time.Millisecond
	case 2, 3:
		d = time.Duration(rapid.IntRange(1, 90).Draw(rt, "minutes")) * time.Minute
	default:
		d = time.Duration(rapid.IntRange(1, 3).Draw(rt, "hours")) * time.Hour
	}
	m.d.clock.Advance(d)
}

func (m *rdModel) pause(rt *rapid.T) {
	if !m.paused && rapid.IntRange(0, 2).Draw(rt, "pause_now") != 0 {
		rt.Skip("pauses are rare")
	}
	switch {
	case m.paused:
		if _, err := m.d.e.Operator().SetPause(m.d.ctx, tambala.APIv2, tambala.Live); err != nil {
			m.fatalf("resume: %v", err)
		}
		m.paused, m.resumedAt = false, m.now()
	case !m.pausedOnce:
		if _, err := m.d.e.Operator().SetPause(m.d.ctx, tambala.APIv2, tambala.Maintenance); err != nil {
			m.fatalf("pause: %v", err)
		}
		m.paused, m.pausedOnce, m.pausedAt = true, true, m.now()
	default:
		rt.Skip("one pause per run")
	}
}

func (m *rdModel) desk(rt *rapid.T) {
	if !m.deskClosed && rapid.IntRange(0, 2).Draw(rt, "close") != 0 {
		rt.Skip("the desk closes rarely")
	}
	m.deskClosed = !m.deskClosed
	c := deskCorridor()
	c.Open = !m.deskClosed
	if _, err := m.d.e.Operator().Desk().SetCorridor(m.d.ctx, c); err != nil {
		m.fatalf("corridor: %v", err)
	}
}

func (m *rdModel) fund(rt *rapid.T) {
	if rapid.IntRange(0, 2).Draw(rt, "fund_now") != 0 {
		rt.Skip("funding is rare")
	}
	amt := money.FromInt(money.USDT, int64(rapid.IntRange(1, 300).Draw(rt, "fund")))
	m.n++
	if err := m.d.e.Operator().Fund(m.d.ctx, m.d.org.ID, amt, fmt.Sprintf("top-up-%d", m.n)); err != nil {
		m.fatalf("fund: %v", err)
	}
	m.funded, _ = m.funded.Add(amt)
}

// compare checks the engine's order against the model's.
func (m *rdModel) compare(got orders.Order, o *rdOrder, where string) {
	m.rt.Helper()
	bad := func(field string, g, w any) {
		m.fatalf("%s: order %s: %s is %v, the model says %v", where, o.id, field, g, w)
	}
	if got.ID != o.id || got.Direction != o.dir || !got.From.Equal(o.from) || !got.To.Equal(o.to) || got.QuoteID != o.quoteID || got.ClientRef != o.ref {
		bad("identity", got, *o)
	}
	if got.Status != o.status {
		bad("status", got.Status, o.status)
	}
	if (got.CoinsLeftAt != nil) != o.coins {
		bad("coins_left_at", got.CoinsLeftAt, o.coins)
	}
	refund := orders.RefundStatus("")
	if got.Refund != nil {
		refund = got.Refund.Status
	}
	if refund != o.refund {
		bad("refund", refund, o.refund)
	}
	code := orders.FailureCode("")
	if got.Failure != nil {
		code = got.Failure.Code
	}
	if code != o.failCode {
		bad("failure", code, o.failCode)
	}
	if (got.Funding != nil) != o.instructed {
		bad("funding", got.Funding, o.instructed)
	}
	if o.instructed {
		if exp, _ := got.ExpiresAt(); !exp.Equal(o.deadline) {
			bad("expires_at", exp, o.deadline)
		}
	}
	proof, sha := "", ""
	var rejected *string
	if got.Proof != nil {
		proof, sha, rejected = got.Proof.ID, got.Proof.SHA256, got.Proof.RejectedReason
	}
	if proof != o.proof || sha != o.sha {
		bad("proof", proof, o.proof)
	}
	if (rejected == nil) != (o.rejected == nil) || (rejected != nil && *rejected != *o.rejected) {
		bad("rejected_reason", rejected, o.rejected)
	}
	if (got.Beneficiary != nil) != (o.dir == orders.ToBank) {
		bad("beneficiary", got.Beneficiary, o.dir)
	}
}

// invariants runs after every step.
func (m *rdModel) invariants() {
	m.rt.Helper()
	d := m.d
	if err := ledger.CheckStore(d.ctx, d.s); err != nil {
		m.fatalf("ledger: %v", err)
	}
	quoteUsed := map[string]string{}
	for _, o := range m.orders {
		got, err := d.e.Operator().Desk().Order(d.ctx, o.id)
		if err != nil {
			m.fatalf("read %s: %v", o.id, err)
		}
		m.compare(got, o, "invariants")
		if prev, ok := quoteUsed[got.QuoteID]; ok {
			m.fatalf("quote %s used by %s and %s", got.QuoteID, prev, got.ID)
		}
		quoteUsed[got.QuoteID] = got.ID
	}
	err := d.s.View(d.ctx, func(tx store.Tx) error {
		snap, err := ledger.ReadSnapshot(tx)
		if err != nil {
			return err
		}
		entries := map[string]ledger.Entry{}
		credits := map[string]int{}
		for _, en := range snap.Entries {
			entries[en.ID] = en
			if en.Kind == ledger.KindCredit && en.Ref != "" {
				credits[en.Ref]++
			}
		}
		has := func(o *rdOrder, step string) bool { _, ok := entries[orders.EntryID(o.id, step)]; return ok }
		captured := money.Zero(money.USDT)
		returned := money.Zero(money.USDT)
		bought := money.Zero(money.USDT)
		for _, o := range m.orders {
			if credits[o.id] > 1 {
				m.fatalf("order %s credited %d times", o.id, credits[o.id])
			}
			if o.dir == orders.FromBank {
				if has(o, "hold") || has(o, "capture") || has(o, "release") || has(o, "refund") {
					m.fatalf("from-bank order %s moved a hold", o.id)
				}
				if has(o, "credit") != (o.status == orders.Completed) {
					m.fatalf("from-bank order %s in %s: credit entry %v", o.id, o.status, has(o, "credit"))
				}
				if o.status == orders.Completed {
					bought, _ = bought.Add(o.to)
				}
				continue
			}
			open := o.status == orders.Accepted || (o.status == orders.Processing && !o.coins)
			wantCapture := o.coins || o.status == orders.Completed
			wantRelease := o.status == orders.Cancelled || (o.status == orders.Failed && o.refund == "")
			wantRefund := o.refund == orders.RefundReturned
			if !has(o, "hold") || has(o, "capture") != wantCapture || has(o, "release") != wantRelease || has(o, "refund") != wantRefund || has(o, "credit") {
				m.fatalf("to-bank order %s in %s (coins %v, refund %q): entries hold %v capture %v release %v refund %v",
					o.id, o.status, o.coins, o.refund, has(o, "hold"), has(o, "capture"), has(o, "release"), has(o, "refund"))
			}
			if wantRefund && !has(o, "capture") {
				m.fatalf("order %s refunded without a capture", o.id)
			}
			h, err := ledger.GetHold(tx, orders.HoldID(o.id))
			if err != nil {
				return err
			}
			if h.Open != open || !h.Amount.Equal(o.from) {
				m.fatalf("order %s in %s: hold open %v amount %s", o.id, o.status, h.Open, h.Amount)
			}
			if o.status.Terminal() && h.Open {
				m.fatalf("terminal order %s has an open hold", o.id)
			}
			if wantCapture {
				captured, _ = captured.Add(o.from)
			}
			if wantRefund {
				returned, _ = returned.Add(o.from)
			}
		}
		b, err := ledger.ReadBalance(tx, d.org.ID, money.USDT)
		if err != nil {
			return err
		}
		if !b.Held.Equal(m.held()) {
			m.fatalf("USDT held %s, the open to-bank orders hold %s", b.Held, m.held())
		}
		if !b.Available.Equal(m.available()) {
			m.fatalf("USDT available %s, the model says %s", b.Available, m.available())
		}
		have, _ := b.Available.Add(b.Held)
		have, _ = have.Sub(b.Shortfall)
		want, _ := m.funded.Sub(captured)
		want, _ = want.Add(returned)
		want, _ = want.Add(bought)
		if !have.Equal(want) {
			m.fatalf("USDT: available+held-shortfall = %s, want funded - captured + refunds + bought = %s", have, want)
		}
		mwk, err := ledger.ReadBalance(tx, d.org.ID, money.MWK)
		if err != nil {
			return err
		}
		if mwk.Available.String() != "5000.00" || !mwk.Held.IsZero() || !mwk.Shortfall.IsZero() {
			m.fatalf("MWK moved: %+v", mwk)
		}
		return nil
	})
	if err != nil {
		m.fatalf("snapshot: %v", err)
	}
}

// finish compares every order's events with the model's, once per run.
func (m *rdModel) finish() {
	canon := func(evs []string) []string {
		out := slices.Clone(evs)
		for i := 0; i+1 < len(out); i++ {
			if out[i] == tambala.EventCollectionV2Settled && out[i+1] == orders.EventRefundReturned {
				out[i], out[i+1] = out[i+1], out[i]
			}
		}
		return out
	}
	got := map[string][]string{}
	for _, ev := range m.d.events(m.rt, m.d.org.ID) {
		id, _ := ev.Data["id"].(string)
		if ev.Type == tambala.EventCollectionV2Settled {
			id, _ = ev.Data["order_id"].(string)
		}
		got[id] = append(got[id], ev.Type)
	}
	for _, o := range m.orders {
		if g, w := canon(got[o.id]), canon(o.events); !slices.Equal(g, w) {
			m.fatalf("events of %s: %v, the model says %v", o.id, g, w)
		}
	}
}

func runDeskModel(rt *rapid.T, s store.Store, stats map[string]int) {
	d := newDeskEnv(rt, s, func(o *tambala.Options) {
		o.Orders.FundingWindow = rdWindow
		o.Orders.PauseGrace = rdGrace
		o.Orders.QuoteTTL = rdTTL
	})
	if err := d.e.Operator().Fund(d.ctx, d.org.ID, money.FromInt(money.MWK, 5000), "mwk"); err != nil {
		rt.Fatal(err)
	}
	m := &rdModel{rt: rt, d: d, byID: map[string]*rdOrder{}, keys: map[string]rdKey{}, refs: map[string]string{},
		funded: money.FromInt(money.USDT, 1000), stats: stats}
	other := d.newOrg(rt, "Foreign", deskAssets())
	fq, err := d.quoteFor(actFor(d.e, other.ID), "USDT", "MWK", strp("10"), nil)
	if err != nil {
		rt.Fatal(err)
	}
	m.foreignQuote = fq.ID
	actions := map[string]func(*rapid.T){
		"quote":   m.quote,
		"order":   m.order,
		"order2":  m.order, // weights: orders and their moves are the point
		"create":  m.create,
		"move":    m.move,
		"step":    m.step,
		"step2":   m.step,
		"step3":   m.step,
		"upload":  m.upload,
		"upload2": m.upload,
		"sweep":   m.sweep,
		"tick":    m.tick,
		"tick2":   m.tick,
		"pause":   m.pause,
		"desk":    m.desk,
		"fund":    m.fund,
		"":        func(*rapid.T) { m.invariants() },
	}
	// Two rounds: twice rapid's default number of steps, so that orders
	// get deep into both machines.
	rt.Repeat(actions)
	rt.Repeat(actions)
	m.finish()
}

// TestDeskRapid runs the model on memstore.
func TestDeskRapid(t *testing.T) {
	stats := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) { runDeskModel(rt, memstore.New(), stats) })
	logDeskStats(t, stats)
}

// TestDeskRapidBolt runs the model on boltstore, on about half of the
// checks (each opens a file).
func TestDeskRapidBolt(t *testing.T) {
	dir := t.TempDir()
	n := 0
	stats := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		if rapid.IntRange(0, 1).Draw(rt, "sample") != 0 {
			return
		}
		n++
		s, err := boltstore.Open(filepath.Join(dir, fmt.Sprintf("db%d", n)), &boltstore.Options{NoSync: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		runDeskModel(rt, s, stats)
	})
	logDeskStats(t, stats)
}

func logDeskStats(t *testing.T, stats map[string]int) {
	keys := make([]string, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("%6d  %s", stats[k], k)
	}
}
