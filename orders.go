package tambala

import (
	"bytes"
	"context"
	"encoding/binary"
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
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
)

var (
	bucketOrders          = []byte("orders")
	bucketOrdersByOrg     = []byte("orders.by_org")
	bucketOrderClientRefs = []byte("orders.client_ref")       // org NUL client_ref -> id
	bucketOrderFundingRef = []byte("orders.funding_ref")      // reference -> id, across organizations
	bucketOrderQueue      = []byte("orders.queue")            // status NUL id -> nil: the desk's queue
	bucketProofs          = []byte("orders.proofs")           // proof id -> proof record
	bucketOrderMovers     = []byte("orders.movers")           // id NUL move name -> who made it (moverOf)
	ordersExpiry          = storage.DueIndex("orders.expiry") // from-bank funding deadlines
)

func loadOrder(tx store.Tx, id string) (orders.Order, error) {
	if id == "" || len(id) > 64 {
		return orders.Order{}, errNotFound
	}
	v, err := tx.Get(bucketOrders, []byte(id))
	if isNotFound(err) {
		return orders.Order{}, errNotFound
	}
	if err != nil {
		return orders.Order{}, err
	}
	return codec.DecodeOrder(v)
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

func queueKey(s orders.Status, id string) []byte {
	return append(append([]byte(s), 0), id...)
}

// putOrder stores o, keeping the desk queue and the expiry index in step
// with prev (zero for a new order).
func putOrder(tx store.Tx, prev, o orders.Order) error {
	if prev.Status != o.Status {
		if prev.Status != "" {
			if err := tx.Delete(bucketOrderQueue, queueKey(prev.Status, o.ID)); err != nil {
				return err
			}
		}
		if err := tx.Put(bucketOrderQueue, queueKey(o.Status, o.ID), nil); err != nil {
			return err
		}
	}
	var next *time.Time
	if t, ok := o.ExpiresAt(); ok && o.Status == orders.AwaitingFunds && o.Proof == nil {
		next = &t
	}
	if _, had := prev.ExpiresAt(); had || next != nil {
		if err := moveExpiry(tx, o.ID, next); err != nil {
			return err
		}
	}
	return tx.Put(bucketOrders, []byte(o.ID), codec.EncodeOrder(o))
}

// bucketOrderExpiryAt keeps, per order, the time it is listed at in the
// expiry index (its deadline, or a later one a pause extended it to), so
// that every change of the listing removes the entry it replaces.
var bucketOrderExpiryAt = []byte("orders.expiry_at")

// moveExpiry lists order id in the expiry index at next (nil: unlisted),
// removing the entry it had.
func moveExpiry(tx store.Tx, id string, next *time.Time) error {
	var old *time.Time
	v, err := tx.Get(bucketOrderExpiryAt, []byte(id))
	switch {
	case err == nil && len(v) == 8:
		t := time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		old = &t
	case err != nil && !isNotFound(err):
		return err
	}
	if old == nil && next == nil {
		return nil
	}
	if err := ordersExpiry.Move(tx, id, old, next); err != nil {
		return err
	}
	if next == nil {
		return tx.Delete(bucketOrderExpiryAt, []byte(id))
	}
	return tx.Put(bucketOrderExpiryAt, []byte(id), binary.BigEndian.AppendUint64(nil, uint64(next.UnixNano())))
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
	if err := putOrder(tx, prev, o); err != nil {
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

// moveOrder is Operator.MoveOrder.
func (e *Engine) moveOrder(ctx context.Context, id string, cmd orders.Command) (orders.Order, error) {
	switch cmd.(type) {
	case orders.ProofUploaded, orders.Expire:
		return orders.Order{}, errcode.Newf(errcode.ValidationError, "%s is not a desk move.", cmd.Name())
	case nil:
		return orders.Order{}, errcode.Newf(errcode.ValidationError, "no move given.")
	}
	for try := 0; ; try++ {
		if in, ok := cmd.(orders.Instructions); ok {
			in.Window = e.orderOpts.FundingWindow
			if _, err := io.ReadFull(e.random, in.Random[:]); err != nil {
				return orders.Order{}, err
			}
			cmd = in
		}
		var o orders.Order
		var moved, clash bool
		var pending *Approval
		err := e.store.Update(ctx, func(tx store.Tx) error {
			clash, pending = false, nil
			if _, ok := cmd.(orders.ReturnRefund); ok {
				var err error
				if pending, err = e.gateRefund(ctx, tx, id); err != nil || pending != nil {
					return err
				}
			}
			m, err := e.applyOrder(tx, id, "", cmd, e.nowUTC())
			o, moved = m.Order, m.moved()
			if err != nil {
				return err
			}
			if !m.Changed {
				return checkRepeat(ctx, tx, id, cmd)
			}
			if err := e.auditAs(ctx, tx, o.Org, AuditOrderMoved, o.ID, orderMoveSummary(cmd, m)); err != nil {
				return err
			}
			if err := putMover(ctx, tx, id, cmd); err != nil {
				return err
			}
			if !moved || o.Funding == nil || o.Status != orders.AwaitingFunds {
				return nil
			}
			// The funding reference is unique across organizations.
			ref := []byte(o.Funding.Reference)
			if owner, err := tx.Get(bucketOrderFundingRef, ref); err == nil && string(owner) != o.ID {
				if in := cmd.(orders.Instructions); in.Reference != "" {
					return errcode.Newf(errcode.Conflict, "The funding reference %s is already used by another order.", in.Reference)
				}
				clash = true
				return errRetryReference
			} else if err != nil && !isNotFound(err) {
				return err
			}
			return tx.Put(bucketOrderFundingRef, ref, []byte(o.ID))
		})
		if clash && try < 5 {
			continue // a generated reference met another: draw again
		}
		if err != nil {
			return orders.Order{}, err
		}
		if pending != nil {
			return orders.Order{}, &ApprovalPendingError{Approval: *pending}
		}
		e.reportOrder(o, moved, "desk")
		return o, nil
	}
}

var errRetryReference = errors.New("tambala: generated funding reference already used")

// ErrOrderAlreadyMoved is the error of a desk move that another person
// already made: the order is as the move would leave it, nothing changed,
// and the caller is told so instead of "done" (code conflict). The
// same person repeating their own move (a retry) gets the order
// unchanged, with no error; so does any repeat when no person asked (the
// engine's own work, or a move made before movers were recorded).
var ErrOrderAlreadyMoved = errors.New("tambala: the order already moved")

// moverKey is the key of who made move of order id.
func moverKey(id string, cmd orders.Command) []byte {
	return []byte(id + "\x00" + cmd.Name())
}

// moverOf is how a mover is recorded: the actor's kind and id (a staff
// user's, or none for the automation), NUL, and the name shown.
func moverOf(a AuditActor) []byte {
	return []byte(string(a.Kind) + ":" + a.ID + "\x00" + a.name())
}

// putMover records who made cmd on order id, when ctx names someone.
func putMover(ctx context.Context, tx store.Tx, id string, cmd orders.Command) error {
	a, ok := ctx.Value(actorKey{}).(AuditActor)
	if !ok {
		return nil
	}
	return tx.Put(bucketOrderMovers, moverKey(id, cmd), moverOf(a))
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
	v, err := tx.Get(bucketOrderMovers, moverKey(id, cmd))
	if isNotFound(err) {
		return nil
	}
	if err != nil {
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

// deskOrder is Operator.DeskOrder.
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

// deskOrders is Operator.DeskOrders.
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
		bucket, opt, prefix := bucketOrders, store.ScanOptions{Reverse: true}, []byte(nil)
		if q.Status != "" {
			prefix = append([]byte(q.Status), 0)
			bucket, opt = bucketOrderQueue, store.ScanOptions{Reverse: true, Prefix: prefix}
		}
		if page.BeforeID != "" {
			if _, err := loadOrder(tx, page.BeforeID); err != nil {
				if errors.Is(err, errNotFound) {
					return errcode.Newf(errcode.ValidationError, "before_id is not a cursor of this list")
				}
				return err
			}
			opt.End = append(append([]byte(nil), prefix...), page.BeforeID...)
		}
		budget, examined, last := storage.ExamineBudget(page.Limit), 0, ""
		return tx.Scan(bucket, opt, func(k, v []byte) (bool, error) {
			if q.OrgID != "" && examined == budget { // more to look at, past the budget
				out.NextBeforeID = last
				return false, nil
			}
			examined++
			o, err := loadOrder(tx, string(k[len(prefix):]))
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

// ProcessOrders runs one pass of the expiry sweep: every from-bank order
// past its funding deadline that never had a proof is expired, each in its
// own transaction with its event. While /v2 is paused it expires nothing,
// and a deadline that fell inside the last pause is honoured until the
// pause ended plus the grace (OrderOptions.PauseGrace). Run calls it.
func (e *Engine) ProcessOrders(ctx context.Context) (int, error) {
	pause, err := e.pause(ctx)
	if err != nil {
		return 0, err
	}
	if pause.V2 != Live {
		return 0, nil
	}
	now := e.nowUTC()
	ids, err := ordersExpiry.Due(ctx, e.store, now, 100)
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
				return moveExpiry(tx, id, nil) // not the sweep's any more
			}
			effective := e.effectiveDeadline(pause, exp)
			if !orders.ExpiryDue(cur, now, effective) {
				if effective.After(now) { // honoured longer: look again then
					return moveExpiry(tx, id, &effective)
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

// deskProof is Operator.DeskProof.
func (e *Engine) deskProof(ctx context.Context, orderID string) (ProofFile, error) {
	o, err := e.deskOrder(ctx, orderID)
	if err != nil {
		return ProofFile{}, err
	}
	if o.Proof == nil {
		return ProofFile{}, errcode.Newf(errcode.NotFound, "This order has no funding proof.")
	}
	return e.openProof(ctx, o.Proof.ID)
}

func (e *Engine) openProof(ctx context.Context, id string) (ProofFile, error) {
	var rec proofRecord
	err := e.store.View(ctx, func(tx store.Tx) error { return storage.GetJSON(tx, bucketProofs, id, &rec, errNotFound) })
	if err != nil {
		return ProofFile{}, err
	}
	rc, err := e.proofs.Open(ctx, id)
	if err != nil {
		return ProofFile{}, err
	}
	return ProofFile{ContentType: rec.ContentType, Size: rec.Size, Content: rc}, nil
}

// ProofStore keeps the bytes of funding proofs (every proof is kept for
// audit). The default keeps them in the engine's store; a host may keep
// them in an object store. Put is called before the transaction that
// records the proof, so a failed upload may leave unreferenced bytes,
// never a record without bytes.
type ProofStore interface {
	Put(ctx context.Context, id, contentType string, content io.Reader) error
	Open(ctx context.Context, id string) (io.ReadCloser, error)
}

// kvProofs is the default ProofStore: a bucket of the engine's store.
type kvProofs struct{ s store.Store }

var bucketProofBytes = []byte("orders.proof_bytes")

func (p kvProofs) Put(ctx context.Context, id, _ string, content io.Reader) error {
	b, err := io.ReadAll(content)
	if err != nil {
		return err
	}
	return p.s.Update(ctx, func(tx store.Tx) error { return tx.Put(bucketProofBytes, []byte(id), b) })
}

func (p kvProofs) Open(ctx context.Context, id string) (io.ReadCloser, error) {
	var b []byte
	err := p.s.View(ctx, func(tx store.Tx) error {
		var err error
		b, err = tx.Get(bucketProofBytes, []byte(id))
		return err
	})
	if isNotFound(err) {
		return nil, errNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), err
}

func clientRefKey(org, ref string) []byte { return storage.IndexKey(org, ref) }

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
