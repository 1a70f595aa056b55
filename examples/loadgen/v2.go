package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
)

// The load modes (-mode). payout is the /v1 payout load; the others each
// drive one /v2 create, as BenchmarkV2Create does through the engine.
const (
	modePayout     = "payout"     // POST /v1/payouts/{rail}
	modeOrder      = "order"      // POST /v2/orders/quotes, then POST /v2/orders (to-bank)
	modeConversion = "conversion" // POST /v2/conversions/quotes, then POST /v2/conversions
	modePayoutV2   = "payout-v2"  // POST /v2/payouts, USDT to a sandbox tron wallet
	modePayoutFX   = "payout-fx"  // POST /v2/payouts, MWK to a momo wallet from USDT
	modeDeskMove   = "desk-move"  // POST /admin/orders/{id}/processing on orders made first
)

var modes = []string{modePayout, modeOrder, modeConversion, modePayoutV2, modePayoutFX, modeDeskMove}

// The amounts of the /v2 modes (-amount is payout-fx's MWK amount, as it
// is the /v1 payout's): those of BenchmarkV2Create.
const (
	orderUSDT      = "1" // to-bank: 1750.50 MWK at the corridor loadgen opens, above its 1000.00 minimum
	conversionUSDT = "1" // USDT to MWK
	walletUSDT     = "5" // USDT to a sandbox tron wallet, same asset
	// usdtPerOp bounds what one /v2 create holds in USDT, fee included,
	// for the funding.
	usdtPerOp = 10
)

// The MWK corridor loadgen opens when none is open: the engine tests'
// desk corridor (1750.5 MWK per USDT off-ramp, 1800 on-ramp, 1000.00 MWK
// minimum).
var loadCorridor = map[string]any{"rate_off_ramp": "1750.5", "rate_on_ramp": "1800", "min": "1000.00", "open": true}

// The beneficiary of every to-bank order.
var loadBeneficiary = map[string]any{"name": "Load Test", "bank_name": "National Bank of Malawi", "account_number": "1001234567"}

// v2Item is one accepted /v2 create: what it holds and where to read it.
type v2Item struct {
	kind string       // "order", "conversion" or "payout"
	id   string       // its id
	hold money.Amount // what it holds (from_amount, or a payout's source_amount)
	to   money.Amount // a conversion's to_amount, credited when it completes
	fx   bool         // a payout in another asset than its source
	// A settled same-asset payout's amount and fee, read from the API.
	amount, fee money.Amount
}

// v2Resp is the fields of the /v2 bodies loadgen reads.
type v2Resp struct {
	ID           string  `json:"id"`
	QuoteID      string  `json:"quote_id"`
	Status       string  `json:"status"`
	FromAsset    string  `json:"from_asset"`
	FromAmount   string  `json:"from_amount"`
	ToAsset      string  `json:"to_asset"`
	ToAmount     string  `json:"to_amount"`
	SourceAsset  string  `json:"source_asset"`
	SourceAmount string  `json:"source_amount"`
	Asset        string  `json:"asset"`
	Amount       string  `json:"amount"`
	Fee          *string `json:"fee"`
	Order        *v2Resp `json:"order"` // the admin API's desk order
}

// assetOf is the asset of a rendered code: the two the modes use.
func assetOf(code string) (money.Asset, error) {
	switch code {
	case "MWK":
		return money.MWK, nil
	case "USDT":
		return money.USDT, nil
	}
	return money.Asset{}, fmt.Errorf("unexpected asset %q", code)
}

// item reads the accepted create of kind from its response body.
func (r *v2Resp) item(kind string) (v2Item, error) {
	it := v2Item{kind: kind, id: r.ID}
	if r.ID == "" {
		return it, errors.New("no id")
	}
	holdAsset, holdAmount := r.FromAsset, r.FromAmount
	if kind == "payout" {
		holdAsset, holdAmount = r.SourceAsset, r.SourceAmount
		it.fx = r.SourceAsset != r.Asset
	}
	a, err := assetOf(holdAsset)
	if err != nil {
		return it, err
	}
	if it.hold, err = money.Parse(a, holdAmount); err != nil {
		return it, err
	}
	if kind == "conversion" {
		if a, err = assetOf(r.ToAsset); err != nil {
			return it, err
		}
		if it.to, err = money.Parse(a, r.ToAmount); err != nil {
			return it, err
		}
	}
	return it, nil
}

// setupV2 opens the organization to the /v2 mode: /v2 access enabled,
// payout, collection and convert on MWK and USDT, the MWK corridor open
// (loadCorridor, unless one is open already) and USDT for every create of
// the run plus a margin. The MWK funding and payout limits are
// setupOrg's.
func setupV2(ctx context.Context, adm *endpoint, org string, c config, out io.Writer) error {
	if err := adm.call(ctx, http.MethodPut, "/admin/orgs/"+org+"/v2-access", map[string]any{"v2_access": "enabled"}, http.StatusOK, nil); err != nil {
		return fmt.Errorf("enabling /v2: %w", err)
	}
	ops := []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}
	assets := []map[string]any{{"asset": "MWK", "operations": ops}, {"asset": "USDT", "operations": ops}}
	if err := adm.call(ctx, http.MethodPut, "/admin/orgs/"+org+"/assets", map[string]any{"assets": assets}, http.StatusOK, nil); err != nil {
		return fmt.Errorf("setting the assets: %w", err)
	}
	var cs struct {
		Corridors []struct {
			Asset string `json:"asset"`
			Open  bool   `json:"open"`
		} `json:"corridors"`
	}
	if err := adm.call(ctx, http.MethodGet, "/admin/corridors", nil, http.StatusOK, &cs); err != nil {
		return fmt.Errorf("reading the corridors: %w", err)
	}
	if !slices.ContainsFunc(cs.Corridors, func(c struct {
		Asset string `json:"asset"`
		Open  bool   `json:"open"`
	}) bool {
		return c.Asset == "MWK" && c.Open
	}) {
		if err := adm.call(ctx, http.MethodPut, "/admin/corridors/MWK", loadCorridor, http.StatusOK, nil); err != nil {
			return fmt.Errorf("opening the MWK corridor: %w", err)
		}
		fmt.Fprintf(out, "%-*sMWK opened (off-ramp %s, on-ramp %s, min %s)\n", labelWidth, "corridor",
			loadCorridor["rate_off_ramp"], loadCorridor["rate_on_ramp"], loadCorridor["min"])
	}
	count := int64(c.N)
	if c.Duration > 0 {
		count = max(count, int64(math.Ceil(c.Duration.Seconds()*fundRatePerSecond)))
	}
	usdt := money.FromInt(money.USDT, usdtPerOp*(count+count/10+10))
	if err := adm.call(ctx, http.MethodPost, "/admin/orgs/"+org+"/funding",
		map[string]any{"asset": "USDT", "amount": usdt.String(), "ref": "loadgen-" + uuid.NewString()}, http.StatusOK, nil); err != nil {
		return fmt.Errorf("funding USDT: %w", err)
	}
	fmt.Fprintf(out, "%-*s%s USDT, /v2 enabled\n", labelWidth, "also funded with", usdt)
	return nil
}

// v2Op is one request of a mode: a POST with its own Idempotency-Key,
// answered with want.
type v2Op struct {
	path string
	body []byte
	want int
}

// v2Bodies are the fixed bodies of a mode, one per sandbox destination.
func v2Bodies(mode string, amount money.Amount) [][]byte {
	var out [][]byte
	switch mode {
	case modeOrder, modeDeskMove:
		b, _ := json.Marshal(map[string]any{"from_asset": "USDT", "to_asset": "MWK", "from_amount": orderUSDT})
		out = append(out, b)
	case modeConversion:
		b, _ := json.Marshal(map[string]any{"from_asset": "USDT", "to_asset": "MWK", "from_amount": conversionUSDT})
		out = append(out, b)
	case modePayoutV2:
		for _, a := range sandbox.TestWalletAddresses["tron"] {
			b, _ := json.Marshal(map[string]any{"source_asset": "USDT", "asset": "USDT", "amount": walletUSDT,
				"destination": map[string]any{"type": "wallet", "network": "tron", "address": a}})
			out = append(out, b)
		}
	case modePayoutFX:
		for _, w := range tambala.SandboxWallets {
			b, _ := json.Marshal(map[string]any{"source_asset": "USDT", "asset": "MWK", "amount": amount.String(),
				"destination": map[string]any{"type": "momo", "institution_id": momoInstitution, "mobile_number": w, "beneficiary_name": "Load Test"}})
			out = append(out, b)
		}
	}
	return out
}

// v2Pending is a create (or a desk move) whose outcome is not known: it
// is replayed with the same key and body after the run.
type v2Pending struct {
	op  v2Op
	key string
}

// v2Worker is one client's bookkeeping in a /v2 run.
type v2Worker struct {
	lat      []time.Duration
	items    []v2Item
	moved    int
	errs     map[string]int
	unknown  []v2Pending
	firstErr string
	keys     keygen
	buf      bytes.Buffer
}

// v2Run is a /v2 run's shared parameters.
type v2Run struct {
	hc     *http.Client
	mode   string
	bases  []string // public API bases, client i sends to base i modulo their number
	auth   []string // the organization's
	admin  string   // admin API base, for desk moves
	adminA []string // the admin token
	bodies [][]byte
	n      int
	dur    time.Duration
	orders []string // desk-move: the orders to move, made first
}

// post sends one request with a fresh Idempotency-Key; the body read into
// w.buf is valid until the next. Requests are not tied to the run's ctx:
// an interrupted run lets those in flight finish.
func (w *v2Worker) post(hc *http.Client, url string, auth []string, key string, body []byte) (int, []byte, error) {
	header := http.Header{"Authorization": auth, "Idempotency-Key": {key}}
	if body != nil {
		header["Content-Type"] = []string{"application/json"}
	}
	return postInto(hc, &w.buf, url, header, body)
}

// fail counts a request that did not get its answer; a create whose
// outcome is unknown (a transport error or a 5xx) is kept for replay.
func (w *v2Worker) fail(step string, status int, body []byte, err error, replay *v2Pending) {
	switch {
	case err != nil:
		w.errs[step+"transport error"]++
		if w.firstErr == "" {
			w.firstErr = err.Error()
		}
	default:
		w.errs[step+errKey(status, body)]++
	}
	if replay != nil && (err != nil || status >= 500) {
		w.unknown = append(w.unknown, *replay)
	}
}

// once does one operation of the mode: the quote and the create of an
// order or a conversion, a /v2 payout, or the desk move of order i.
func (w *v2Worker) once(r *v2Run, base string, i int64) {
	switch r.mode {
	case modeOrder, modeConversion:
		kind, create := "order", "/v2/orders"
		if r.mode == modeConversion {
			kind, create = "conversion", "/v2/conversions"
		}
		status, b, err := w.post(r.hc, base+create+"/quotes", r.auth, w.keys.next(), r.bodies[i%int64(len(r.bodies))])
		if err != nil || status != http.StatusCreated {
			w.fail("quote ", status, b, err, nil)
			return
		}
		var q v2Resp
		if json.Unmarshal(b, &q) != nil || q.QuoteID == "" {
			w.errs["quote 201 unreadable body"]++
			return
		}
		in := map[string]any{"quote_id": q.QuoteID}
		key := w.keys.next()
		if kind == "order" {
			in["client_ref"], in["beneficiary"] = key, loadBeneficiary
		}
		body, _ := json.Marshal(in)
		op := v2Op{path: create, body: body, want: http.StatusCreated}
		w.create(r, base, kind, op, key)
	case modePayoutV2, modePayoutFX:
		op := v2Op{path: "/v2/payouts", body: r.bodies[i%int64(len(r.bodies))], want: http.StatusAccepted}
		w.create(r, base, "payout", op, w.keys.next())
	case modeDeskMove:
		op := v2Op{path: "/admin/orders/" + r.orders[i] + "/processing", want: http.StatusOK}
		key := w.keys.next()
		status, b, err := w.post(r.hc, r.admin+op.path, r.adminA, key, nil)
		if err != nil || status != op.want {
			w.fail("", status, b, err, &v2Pending{op, key})
			return
		}
		var d v2Resp
		if json.Unmarshal(b, &d) != nil || d.Order == nil || d.Order.Status != "processing" {
			w.errs["200 order not processing"]++
			return
		}
		w.moved++
	}
}

// create sends a create and records the item it made.
func (w *v2Worker) create(r *v2Run, base, kind string, op v2Op, key string) {
	status, b, err := w.post(r.hc, base+op.path, r.auth, key, op.body)
	if err != nil || status != op.want {
		w.fail("", status, b, err, &v2Pending{op, key})
		return
	}
	var resp v2Resp
	if json.Unmarshal(b, &resp) != nil {
		w.errs[strconv.Itoa(status)+" unreadable body"]++
		return
	}
	it, err := resp.item(kind)
	if err != nil {
		w.errs[strconv.Itoa(status)+" unreadable body"]++
		return
	}
	w.items = append(w.items, it)
}

// v2Result is a /v2 run: the report's figures, and the items it made.
type v2Result struct {
	*result
	items []v2Item
}

// runV2Load runs clients workers until n operations were done (n > 0),
// dur has passed (dur > 0) or, for desk moves, every order was moved.
func runV2Load(ctx context.Context, r *v2Run, clients int) *v2Result {
	n := r.n
	if r.mode == modeDeskMove {
		n = len(r.orders)
	}
	workers := make([]*v2Worker, clients)
	for i := range workers {
		workers[i] = &v2Worker{errs: map[string]int{}}
	}
	var next atomic.Int64
	t0 := time.Now()
	var deadline time.Time
	if r.dur > 0 {
		deadline = t0.Add(r.dur)
	}
	var wg sync.WaitGroup
	for i, w := range workers {
		base := r.bases[i%len(r.bases)]
		wg.Go(func() {
			for ctx.Err() == nil {
				j := next.Add(1) - 1
				if (n > 0 || r.mode == modeDeskMove) && j >= int64(n) {
					return
				}
				if !deadline.IsZero() && !time.Now().Before(deadline) {
					return
				}
				s := time.Now()
				w.once(r, base, j)
				w.lat = append(w.lat, time.Since(s))
			}
		})
	}
	wg.Wait()
	res := &v2Result{result: &result{wall: time.Since(t0), errors: map[string]int{}, replayed: map[string]int{}, stopped: ctx.Err() != nil}}
	var unknown []v2Pending
	for _, w := range workers {
		res.latencies = append(res.latencies, w.lat...)
		res.items = append(res.items, w.items...)
		res.accepted += len(w.items) + w.moved
		for k, v := range w.errs {
			res.errors[k] += v
		}
		unknown = append(unknown, w.unknown...)
		if res.firstErr == "" {
			res.firstErr = w.firstErr
		}
	}
	slices.Sort(res.latencies)
	res.resolve(context.WithoutCancel(ctx), r, unknown, clients)
	return res
}

// resolve replays every request whose outcome is unknown with the same
// key and body until the server decides it, as resolveUnknown does for
// /v1 payouts (a desk move is repeated: a repeat of the move is no
// change).
func (res *v2Result) resolve(ctx context.Context, r *v2Run, unknown []v2Pending, clients int) {
	outcomes := make([]string, len(unknown))
	items := make([]*v2Item, len(unknown))
	parallel(len(unknown), clients, func(i int) {
		p := unknown[i]
		outcomes[i] = "still unknown"
		base, auth := r.bases[0], r.auth
		if r.mode == modeDeskMove {
			base, auth = r.admin, r.adminA
		}
		var w v2Worker
		for try := 0; try < 10; try++ {
			status, b, err := w.post(r.hc, base+p.op.path, auth, p.key, p.op.body)
			if err == nil {
				if status == p.op.want {
					outcomes[i] = "accepted"
					if r.mode != modeDeskMove {
						kind := map[string]string{"/v2/orders": "order", "/v2/conversions": "conversion", "/v2/payouts": "payout"}[p.op.path]
						var resp v2Resp
						if json.Unmarshal(b, &resp) == nil {
							if it, err := resp.item(kind); err == nil {
								items[i] = &it
								return
							}
						}
						outcomes[i] = "accepted, unreadable"
					}
					return
				}
				if status < 500 && status != http.StatusTooManyRequests && status != http.StatusConflict {
					outcomes[i] = "rejected " + errKey(status, b)
					return
				}
			}
			if sleep(ctx, time.Duration(try+1)*100*time.Millisecond) != nil {
				return
			}
		}
	})
	for i, o := range outcomes {
		res.replayed[o]++
		switch {
		case o == "accepted":
			res.accepted++
			if items[i] != nil {
				res.items = append(res.items, *items[i])
			}
		case o == "accepted, unreadable", o == "still unknown":
			res.unresolved++
		}
	}
}

// runV2 is a load run of a /v2 mode on the organization org (pub holds its
// key): the setup, the load, the report and the money check.
func runV2(ctx context.Context, c config, hc *http.Client, bases []string, pub, adm *endpoint, amount money.Amount, out io.Writer) error {
	if err := setupV2(ctx, adm, pub.org, c, out); err != nil {
		return err
	}
	r := &v2Run{hc: hc, mode: c.mode(), bases: bases, auth: []string{"Bearer " + pub.token},
		admin: adm.base, adminA: []string{"Bearer " + adm.token}, bodies: v2Bodies(c.mode(), amount), n: c.N, dur: c.Duration}
	starts, err := readBalancesV2(ctx, pub)
	if err != nil {
		return err
	}
	baseline, tps, err := c.pgbenchBaseline(ctx)
	if err != nil {
		return err
	}
	bare, err := c.bareBaseline(ctx, amount)
	if err != nil {
		return err
	}
	var made *v2Result // desk-move: the orders, made first
	if r.mode == modeDeskMove {
		mk := *r
		mk.mode = modeOrder
		made = runV2Load(ctx, &mk, c.Clients)
		tw := newTable(out)
		fmt.Fprintf(tw, "orders made first\t%d in %s (%.1f/s), %d errors\n", len(made.items), made.wall.Round(time.Millisecond),
			float64(len(made.items))/max(made.wall.Seconds(), 1e-9), errCount(made.result))
		tw.Flush()
		for _, it := range made.items {
			r.orders = append(r.orders, it.id)
		}
		if len(r.orders) == 0 {
			return errors.New("desk-move: no order was made to move")
		}
	}
	fmt.Fprintf(out, "%-*s%s, %d clients, %s\n", labelWidth, "target", describeV2(c, bases, adm.base, len(r.orders)), c.Clients, bounds(c))
	res := runV2Load(ctx, r, c.Clients)
	ctx = context.WithoutCancel(ctx)
	printReport(out, res.result)
	if c.PGBench != "" {
		printBaseline(out, tps, baseline, res.accepted, res.wall)
	}
	if c.BareBaseline {
		printBare(out, bare, res.accepted, res.wall)
	}
	items, unresolved := res.items, res.unresolved
	if made != nil {
		items, unresolved = made.items, unresolved+made.unresolved
	}
	ok, err := checkV2(ctx, pub, c.Clients, starts, items, unresolved, out)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("balance check failed")
	}
	return nil
}

func errCount(r *result) int {
	n := 0
	for _, v := range r.errors {
		n += v
	}
	return n
}

// describeV2 is the report's target line of a /v2 mode.
func describeV2(c config, bases []string, admin string, orders int) string {
	join := func(path string) string {
		urls := make([]string, len(bases))
		for i, b := range bases {
			urls[i] = b + path
		}
		return strings.Join(urls, " and ")
	}
	switch c.mode() {
	case modeOrder:
		return fmt.Sprintf("%s then %s (to-bank, %s USDT each)", join("/v2/orders/quotes"), join("/v2/orders"), orderUSDT)
	case modeConversion:
		return fmt.Sprintf("%s then %s (USDT to MWK, %s USDT each)", join("/v2/conversions/quotes"), join("/v2/conversions"), conversionUSDT)
	case modePayoutV2:
		return fmt.Sprintf("%s (%s USDT to a tron wallet, from USDT)", join("/v2/payouts"), walletUSDT)
	case modePayoutFX:
		return fmt.Sprintf("%s (%s MWK to a momo wallet, from USDT)", join("/v2/payouts"), c.Amount)
	case modeDeskMove:
		return fmt.Sprintf("%s/admin/orders/{id}/processing (%d orders)", admin, orders)
	}
	return c.mode()
}

// ---------------------------------------------------------------------------
// The money check of the /v2 modes.

// assetBalance is one asset's line of GET /v2/balances.
type assetBalance struct {
	Available, Held money.Amount
}

// readBalancesV2 reads GET /v2/balances: every asset the organization
// may use, MWK and USDT at least (zero when absent).
func readBalancesV2(ctx context.Context, pub *endpoint) (map[string]assetBalance, error) {
	status, body, err := pub.getRetrying(ctx, "/v2/balances")
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, &apiError{Method: "GET", Path: "/v2/balances", Status: status, Code: errorCode(body), Body: string(body)}
	}
	var b struct {
		Balances []struct {
			Asset     string `json:"asset"`
			Available string `json:"available"`
			Held      string `json:"held"`
		} `json:"balances"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("GET /v2/balances: %w", err)
	}
	out := map[string]assetBalance{
		"MWK": {money.Zero(money.MWK), money.Zero(money.MWK)}, "USDT": {money.Zero(money.USDT), money.Zero(money.USDT)},
	}
	for _, l := range b.Balances {
		a, err := assetOf(l.Asset)
		if err != nil {
			continue // an asset the modes do not use
		}
		var ab assetBalance
		if ab.Available, err = money.ParseSigned(a, l.Available); err != nil {
			return nil, fmt.Errorf("GET /v2/balances: %w", err)
		}
		if ab.Held, err = money.ParseSigned(a, l.Held); err != nil {
			return nil, fmt.Errorf("GET /v2/balances: %w", err)
		}
		out[l.Asset] = ab
	}
	return out, nil
}

// v2State is what the API says of one item now: "" until read.
type v2State struct {
	status      string
	amount, fee string // a payout's, once settled
}

// terminal: an item that will not move again on its own.
func (s v2State) terminal(kind string) bool {
	switch kind {
	case "conversion":
		return s.status == "completed" || s.status == "failed"
	case "payout":
		return s.status == "succeeded" || s.status == "failed" || s.status == "reversed"
	}
	return false // an order moves only by the desk
}

// readItem reads one item's state.
func readItem(ctx context.Context, pub *endpoint, it v2Item) v2State {
	path := map[string]string{"order": "/v2/orders/", "conversion": "/v2/conversions/", "payout": "/v2/payouts/"}[it.kind] + it.id
	status, body, err := pub.getRetrying(ctx, path)
	switch {
	case err != nil:
		return v2State{status: "error: " + err.Error()}
	case status == http.StatusNotFound:
		return v2State{status: "missing"}
	case status != http.StatusOK:
		return v2State{status: "error: " + errKey(status, body)}
	}
	var r v2Resp
	if json.Unmarshal(body, &r) != nil || r.Status == "" {
		return v2State{status: "error: unreadable " + it.kind}
	}
	s := v2State{status: r.Status, amount: r.Amount}
	if r.Fee != nil {
		s.fee = *r.Fee
	}
	return s
}

// moneyFlow is the balance change of one asset: minus from available
// into held (holds), back from held to available (released), out of held
// (captured), in to available (credited).
type moneyFlow struct {
	holds, released, captured, credited money.Amount
}

func newFlows() map[string]*moneyFlow {
	out := map[string]*moneyFlow{}
	for _, a := range []money.Asset{money.MWK, money.USDT} {
		z := money.Zero(a)
		out[string(a.Code)] = &moneyFlow{z, z, z, z}
	}
	return out
}

// flows sums what items in states did to each asset (states nil: every
// item still holds).
func flows(items []v2Item, states []v2State) (map[string]*moneyFlow, error) {
	f := newFlows()
	add := func(dst *money.Amount, a money.Amount) error {
		s, err := dst.Add(a)
		*dst = s
		return err
	}
	for i, it := range items {
		fl := f[string(it.hold.Asset().Code)]
		if err := add(&fl.holds, it.hold); err != nil {
			return nil, err
		}
		status := "held"
		if states != nil {
			status = states[i].status
		}
		switch {
		case status == "held" || it.kind == "order" && (status == "accepted" || status == "processing"),
			it.kind == "conversion" && status == "processing",
			it.kind == "payout" && slices.Contains([]string{"received", "validated", "submitted", "pending"}, status):
			// still held
		case status == "failed" && it.kind != "order":
			if err := add(&fl.released, it.hold); err != nil {
				return nil, err
			}
		case it.kind == "conversion" && status == "completed":
			if err := add(&fl.captured, it.hold); err != nil {
				return nil, err
			}
			if err := add(&f[string(it.to.Asset().Code)].credited, it.to); err != nil {
				return nil, err
			}
		case it.kind == "payout" && status == "succeeded" && !it.fx:
			// Amount and fee (in the source asset) leave; the rest of the
			// hold returns.
			a := it.hold.Asset()
			amt, err := money.Parse(a, states[i].amount)
			if err != nil {
				return nil, err
			}
			fee, err := money.Parse(a, states[i].fee)
			if err != nil {
				return nil, fmt.Errorf("payout %s: fee %q: %w", it.id, states[i].fee, err)
			}
			gone, err := amt.Add(fee)
			if err != nil {
				return nil, err
			}
			back, err := it.hold.Sub(gone)
			if err != nil {
				return nil, err
			}
			if err := add(&fl.captured, gone); err != nil {
				return nil, err
			}
			if err := add(&fl.released, back); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s %s is %s, which the check cannot account for (run the server with -worker=false, and no desk)", it.kind, it.id, status)
		}
	}
	return f, nil
}

// expect is each asset's expected end balance from its start and flows.
func expect(starts map[string]assetBalance, f map[string]*moneyFlow) (map[string]assetBalance, error) {
	out := map[string]assetBalance{}
	for code, fl := range f {
		s := starts[code]
		avail, err := s.Available.Sub(fl.holds)
		if err == nil {
			avail, err = avail.Add(fl.released)
		}
		if err == nil {
			avail, err = avail.Add(fl.credited)
		}
		held, err2 := s.Held.Add(fl.holds)
		if err2 == nil {
			held, err2 = held.Sub(fl.released)
		}
		if err2 == nil {
			held, err2 = held.Sub(fl.captured)
		}
		if err = errors.Join(err, err2); err != nil {
			return nil, err
		}
		out[code] = assetBalance{avail, held}
	}
	return out, nil
}

func sameBalances(a, b map[string]assetBalance) bool {
	for _, code := range []string{"MWK", "USDT"} {
		if !a[code].Available.Equal(b[code].Available) || !a[code].Held.Equal(b[code].Held) {
			return false
		}
	}
	return true
}

// checkV2 compares the MWK and USDT balances at the end with those at the
// start and what every accepted create holds (an order's or conversion's
// from_amount, a payout's source_amount), and prints PASS or FAIL. When
// they differ (conversions completed: the conversion worker runs even
// with -worker=false) it reads every item between two balance reads and
// accounts for each by status; creates settling meanwhile make the
// expected figures a range.
func checkV2(ctx context.Context, pub *endpoint, clients int, starts map[string]assetBalance, items []v2Item, unresolved int, out io.Writer) (bool, error) {
	tw := newTable(out)
	defer tw.Flush()
	fail := func(format string, args ...any) (bool, error) {
		fmt.Fprintf(tw, "balance check\tFAIL: %s\n", fmt.Sprintf(format, args...))
		return false, nil
	}
	all, err := flows(items, nil)
	if err != nil {
		return false, err
	}
	for _, code := range []string{"MWK", "USDT"} {
		fmt.Fprintf(tw, "start %s\tavailable %s, held %s\n", code, starts[code].Available, starts[code].Held)
	}
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.kind]++
	}
	fmt.Fprintf(tw, "accepted holds\t%s: %s USDT, %s MWK\n", statusLine(kinds), all["USDT"].holds, all["MWK"].holds)
	if unresolved > 0 {
		return fail("%d requests have no known outcome", unresolved)
	}
	want, err := expect(starts, all)
	if err != nil {
		return false, err
	}
	end, err := readBalancesV2(ctx, pub)
	if err != nil {
		return false, err
	}
	printEnd := func(end, want map[string]assetBalance) {
		for _, code := range []string{"MWK", "USDT"} {
			fmt.Fprintf(tw, "end %s\tavailable %s (expected %s), held %s (expected %s)\n", code,
				end[code].Available, want[code].Available, end[code].Held, want[code].Held)
		}
	}
	if sameBalances(end, want) {
		printEnd(end, want)
		fmt.Fprintf(tw, "balance check\tPASS\n")
		return true, nil
	}
	fmt.Fprintf(tw, "end balances\tdiffer from every create holding: reading each\n")
	// Creates only move forward, and as they settle held only falls and
	// available only grows: the balances read between two readings of
	// every create lie between what the two readings explain, exactly
	// what they explain when the readings agree.
	readAll := func(states []v2State) (map[string]assetBalance, []v2State, error) {
		next := slices.Clone(states)
		var todo []int
		for i, s := range next {
			if !s.terminal(items[i].kind) {
				todo = append(todo, i)
			}
		}
		parallel(len(todo), clients, func(j int) { next[todo[j]] = readItem(ctx, pub, items[todo[j]]) })
		for i, s := range next {
			if s.status == "missing" || strings.HasPrefix(s.status, "error") {
				return nil, nil, fmt.Errorf("%s %s: %s", items[i].kind, items[i].id, s.status)
			}
		}
		f, err := flows(items, next)
		if err != nil {
			return nil, nil, err
		}
		want, err := expect(starts, f)
		return want, next, err
	}
	lo, states, err := readAll(make([]v2State, len(items)))
	if err != nil {
		return fail("%v", err)
	}
	b, err := readBalancesV2(ctx, pub)
	if err != nil {
		return false, err
	}
	hi, states, err := readAll(states)
	if err != nil {
		return fail("%v", err)
	}
	counts := map[string]int{}
	for i, s := range states {
		counts[items[i].kind+" "+s.status]++
	}
	fmt.Fprintf(tw, "states\t%s\n", statusLine(counts))
	ok := true
	for _, code := range []string{"MWK", "USDT"} {
		got, l, h := b[code], lo[code], hi[code]
		if l.Available.Equal(h.Available) && l.Held.Equal(h.Held) {
			fmt.Fprintf(tw, "end %s\tavailable %s (expected %s), held %s (expected %s)\n", code, got.Available, l.Available, got.Held, l.Held)
		} else {
			fmt.Fprintf(tw, "end %s\tavailable %s (expected %s to %s), held %s (expected %s to %s: creates settling)\n", code,
				got.Available, l.Available, h.Available, got.Held, h.Held, l.Held)
		}
		ok = ok && got.Available.Cmp(l.Available) >= 0 && got.Available.Cmp(h.Available) <= 0 &&
			got.Held.Cmp(h.Held) >= 0 && got.Held.Cmp(l.Held) <= 0
	}
	if !ok {
		return fail("the balances are not what the creates explain")
	}
	fmt.Fprintf(tw, "balance check\tPASS\n")
	return true, nil
}
