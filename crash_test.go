package tambala_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
	"github.com/tambalapay/tambala/webhooks"
)

var (
	crashSeqs = flag.Int("crash.seqs", 200, "TestCrashRestart: how many random sequences to run")
	crashSeed = flag.Uint64("crash.seed", 0, "TestCrashRestart: run (and trace) only the sequence of this seed")
)

// The worker's timings in the simulation, and the provider's delays.
const (
	crPoll       = time.Second
	crLease      = 30 * time.Second
	crMaxBackoff = 2 * time.Minute
	crMaxDelay   = 5 * time.Second
	crHookURL    = "https://hooks.example.test/tambala"
)

// TestCrashRestart runs the whole engine on boltstore through random
// sequences of payouts, worker passes, webhook dispatches, clawbacks,
// fundings and clock moves, against a provider behind a network that
// fails, times out, and acknowledges submissions it then loses (a few
// references are lost forever), and kills the process at random: a
// FaultStore fails a random store operation or commit, from which point
// the incarnation commits nothing more (crStore), and the engine is
// abandoned without a shutdown, the bolt file closed with what was
// committed, and a new engine and a new sandbox provider opened over the
// same file. After every restart and at the end it checks that no
// acknowledged payout is lost, none is paid twice or released while the
// provider has it, the ledger checks out, money is conserved, and every
// payout emitted exactly the events of its status; at the end, with the
// network calm and the clock moved past every delay, that every payout is
// terminal and the ones lost forever failed with provider_unavailable,
// never paid.
//
// -crash.seqs=N runs more sequences; a failure names its seed, and
// -crash.seed=S reruns that one sequence with a trace of its steps. The
// test's own choices are a function of the seed; the engine's backoff
// jitter is not, so a replay may take payouts in another order.
func TestCrashRestart(t *testing.T) {
	for _, b := range crBackends {
		t.Run(b.name, func(t *testing.T) { testCrashRestart(t, b) })
	}
}

// crBackend is a persistent store the simulation crashes and reopens.
type crBackend struct {
	name string
	open func(path string) (store.Store, error)
	// share is the part of -crash.seqs it runs (pebble's open and close
	// cost more than a bbolt file's).
	share float64
}

var crBackends = []crBackend{
	{"boltstore", func(path string) (store.Store, error) {
		return boltstore.Open(path, &boltstore.Options{NoSync: true})
	}, 1},
	{"pebblestore", func(path string) (store.Store, error) {
		return pebblestore.Open(path, &pebblestore.Options{NoSync: true, CacheSize: 4 << 20, MemTableSize: 2 << 20})
	}, 0.3},
}

func testCrashRestart(t *testing.T, backend crBackend) {
	var seeds []uint64
	if *crashSeed != 0 {
		seeds = []uint64{*crashSeed}
	} else {
		base := rand.Uint64()
		for i := range max(1, int(float64(*crashSeqs)*backend.share)) {
			seeds = append(seeds, base+uint64(i)*0x9e3779b97f4a7c15|1)
		}
	}
	var trace func(string, ...any)
	if len(seeds) == 1 {
		trace = t.Logf
	}
	dir := t.TempDir()
	total := crStats{byStatus: map[payouts.Status]int{}, crashIn: map[string]int{}}
	start := time.Now()
	failed := 0
	for _, seed := range seeds {
		st, err := runCrashSequence(dir, backend, seed, trace)
		total.add(st)
		if err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("seed %d: %v\n\trerun: go test -race -run TestCrashRestart/%s -crash.seed=%d .", seed, err, backend.name, seed)
			}
		}
	}
	if failed > 5 {
		t.Errorf("... and %d more failing sequences (%d of %d failed)", failed-5, failed, len(seeds))
	}
	t.Logf("%d sequences (%d failed) in %v\n%s", len(seeds), failed, time.Since(start).Round(time.Millisecond), total)
}

// crStats are what the sequences did.
type crStats struct {
	seqs, steps, faultCrashes, kills, reopens                                int
	acked, retried, replayed, refused, lostForever, clawbacks, funds         int
	unknown, resubmits, lost, submitErrors, acceptTimeouts, scriptedTimeouts int
	statusErrors, sendFailures, deliveries, duplicates, finalRounds          int
	unavailable                                                              int // failed provider_unavailable at the end
	byStatus                                                                 map[payouts.Status]int
	crashIn                                                                  map[string]int // the step a crash came in
}

func (s *crStats) add(o crStats) {
	s.seqs += o.seqs
	s.steps += o.steps
	s.faultCrashes += o.faultCrashes
	s.kills += o.kills
	s.reopens += o.reopens
	s.acked += o.acked
	s.retried += o.retried
	s.replayed += o.replayed
	s.refused += o.refused
	s.lostForever += o.lostForever
	s.clawbacks += o.clawbacks
	s.funds += o.funds
	s.unknown += o.unknown
	s.resubmits += o.resubmits
	s.lost += o.lost
	s.submitErrors += o.submitErrors
	s.acceptTimeouts += o.acceptTimeouts
	s.scriptedTimeouts += o.scriptedTimeouts
	s.statusErrors += o.statusErrors
	s.sendFailures += o.sendFailures
	s.deliveries += o.deliveries
	s.duplicates += o.duplicates
	s.finalRounds += o.finalRounds
	s.unavailable += o.unavailable
	for k, v := range o.byStatus {
		s.byStatus[k] += v
	}
	for k, v := range o.crashIn {
		s.crashIn[k] += v
	}
}

func (s crStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "steps %d; crashes %d (a store fault fired: %d; killed between steps: %d); reopenings %d\n",
		s.steps, s.faultCrashes+s.kills, s.faultCrashes, s.kills, s.reopens)
	fmt.Fprintf(&b, "payouts acknowledged %d (of them after a client retry %d, replayed %d); refused %d; lost forever %d; clawbacks %d; fundings %d\n",
		s.acked, s.retried, s.replayed, s.refused, s.lostForever, s.clawbacks, s.funds)
	fmt.Fprintf(&b, "provider: unknown-reference answers %d; resubmissions %d; submissions acked but lost %d; submit errors %d; answers lost after accepting %d; scripted timeouts %d; status errors %d\n",
		s.unknown, s.resubmits, s.lost, s.submitErrors, s.acceptTimeouts, s.scriptedTimeouts, s.statusErrors)
	fmt.Fprintf(&b, "webhooks: deliveries %d (duplicates %d); 503 answers %d; final worker rounds %d\n",
		s.deliveries, s.duplicates, s.sendFailures, s.finalRounds)
	var parts []string
	for _, st := range []payouts.Status{payouts.Succeeded, payouts.Reversed, payouts.Failed, payouts.Held, payouts.Submitted, payouts.Pending} {
		parts = append(parts, fmt.Sprintf("%s %d", st, s.byStatus[st]))
	}
	fmt.Fprintf(&b, "payouts at the end: %s (failed provider_unavailable: %d)\n", strings.Join(parts, ", "), s.unavailable)
	parts = parts[:0]
	for _, k := range slices.Sorted(maps.Keys(s.crashIn)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.crashIn[k]))
	}
	fmt.Fprintf(&b, "crashes by step: %s", strings.Join(parts, ", "))
	return b.String()
}

// crFailure is a broken invariant; it ends its sequence.
type crFailure struct{ msg string }

func (f crFailure) Error() string { return f.msg }

// crPayout is a payout the client was acknowledged.
type crPayout struct {
	key, id string
	req     payouts.Request
}

// crCreate is a create the client got no answer to: it retries it with the
// same key.
type crCreate struct {
	key string
	req payouts.Request
}

// crFund is a funding the operator got no answer to.
type crFund struct {
	ref    string
	amount money.Amount
}

// crSeq is one sequence: the client's and operator's view, the network, and
// the engine incarnation of the moment.
type crSeq struct {
	ctx   context.Context
	seed  uint64
	rng   *rand.Rand
	trace func(string, ...any)
	path  string
	// backend opens the store at path: boltstore or pebblestore.
	backend crBackend
	clock   *crClock
	net     *crNet
	delay   time.Duration
	ids     atomic.Int64
	keyN    int

	// The incarnation.
	bolt  store.Store // the incarnation's store (bbolt or pebble), closed at a crash
	fault *storetest.FaultStore
	eng   *tambala.Engine
	prov  *sandbox.Provider
	p     tambala.Principal
	armed int // steps run since a fault was armed; 0 when none is

	orgID   string
	funded  money.Amount
	acked   map[string]crPayout // by idempotency key
	order   []string            // acknowledged keys, in order
	byID    map[string]string   // payout id → key
	unacked []crCreate
	unfunds []crFund
	scripts map[string]sandbox.Outcome // by payout id
	scriptN []string                   // scripted ids, in order
	seen    map[string]payouts.Payout  // last seen state, by id
	stats   crStats
	crashIn map[string]int // = stats.crashIn
}

func (q *crSeq) failf(format string, args ...any) {
	panic(crFailure{fmt.Sprintf(format, args...)})
}

func (q *crSeq) logf(format string, args ...any) {
	if q.trace != nil {
		q.trace("[%s] "+format, append([]any{q.clock.Now().Format("15:04:05")}, args...)...)
	}
}

// fired reports whether this incarnation's fault has fired: the process is
// dead, and errors are the crash's.
func (q *crSeq) fired() bool { return q.fault.Injected() > 0 }

func runCrashSequence(dir string, backend crBackend, seed uint64, trace func(string, ...any)) (stats crStats, err error) {
	q := &crSeq{
		ctx: context.Background(), seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x5deece66d)), trace: trace,
		path: filepath.Join(dir, fmt.Sprintf("seq-%d.%s", seed, backend.name)), backend: backend,
		clock: &crClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
		acked: map[string]crPayout{}, byID: map[string]string{}, scripts: map[string]sandbox.Outcome{},
		seen: map[string]payouts.Payout{}, stats: crStats{byStatus: map[payouts.Status]int{}, crashIn: map[string]int{}},
	}
	harsh := q.rng.Float64() // how unreliable this sequence's network is
	q.net = newCrNet(seed, crPolicy{
		submitError: 0.15 * harsh * q.rng.Float64(), lose: 0.3 * harsh * q.rng.Float64(),
		acceptTimeout: 0.2 * harsh * q.rng.Float64(), statusError: 0.2 * harsh * q.rng.Float64(),
		sendFail: 0.3 * harsh * q.rng.Float64(),
	})
	q.crashIn = q.stats.crashIn
	q.net.trace = trace
	q.delay = time.Duration(1+q.rng.IntN(int(crMaxDelay/time.Second))) * time.Second
	defer func() {
		if q.bolt != nil {
			_ = q.bolt.Close()
		}
		_ = os.RemoveAll(q.path)
		q.stats.seqs = 1
		n := q.net
		q.stats.unknown, q.stats.resubmits, q.stats.lost, q.stats.submitErrors = n.unknown, n.resubmits, n.lost, n.submitErrors
		q.stats.acceptTimeouts, q.stats.scriptedTimeouts, q.stats.statusErrors = n.acceptTimeouts, n.scriptedTimeouts, n.statusErrors
		q.stats.sendFailures, q.stats.deliveries, q.stats.duplicates = n.sendFailures, n.deliveries, n.duplicates
		stats = q.stats
		if r := recover(); r != nil {
			if f, ok := r.(crFailure); ok {
				err = f
			} else {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}
	}()
	q.logf("seed %d: policy %+v, provider delay %v", seed, q.net.policy, q.delay)
	q.open()
	q.setup()
	steps := 30 + q.rng.IntN(21)
	for range steps {
		q.step()
	}
	q.finish()
	return q.stats, nil
}

func (q *crSeq) newID() string { return fmt.Sprintf("po%014d", q.ids.Add(1)) }

// open starts an incarnation over the file: a new engine, a new sandbox
// provider over the same file, and the scripts the test decided for
// payouts the provider has not seen yet (scripts live in a provider's
// memory; what they decided at a submission is in its records).
func (q *crSeq) open() {
	b, err := q.backend.open(q.path)
	if err != nil {
		q.failf("open %s: %v", q.path, err)
	}
	q.bolt, q.fault = b, storetest.NewFaultStore(b)
	q.prov = sandbox.New(&sandbox.Options{Store: b, Clock: q.clock.Now, Delay: q.delay})
	for _, id := range q.scriptN {
		if !q.net.wasAccepted(id) {
			q.prov.ScriptPayout(id, q.scripts[id])
		}
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], q.seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(q.stats.reopens))
	q.eng, err = tambala.New(crStore{q.fault}, &tambala.Options{
		Clock: q.clock.Now, NewID: q.newID, Random: rand.NewChaCha8(key),
		Payouts: &crProvider{inner: q.prov, net: q.net}, Webhooks: crSender{q.net},
		Worker:     tambala.WorkerOptions{Poll: crPoll, Lease: crLease, MaxBackoff: crMaxBackoff, Concurrency: 1},
		Dispatcher: tambala.DispatcherOptions{Concurrency: 1},
	})
	if err != nil {
		q.failf("New: %v", err)
	}
	if q.orgID != "" {
		q.p = actFor(q.eng, q.orgID)
	}
}

func (q *crSeq) setup() {
	org, err := q.eng.Operator().CreateOrganization(q.ctx, tambala.NewOrganization{Name: "Crash"})
	if err != nil {
		q.failf("CreateOrganization: %v", err)
	}
	q.orgID, q.p = org.ID, actFor(q.eng, org.ID)
	q.funded = money.FromInt(money.MWK, int64(500_000+q.rng.IntN(1_500_000)))
	if err := q.eng.Operator().Fund(q.ctx, org.ID, q.funded, "start"); err != nil {
		q.failf("Fund: %v", err)
	}
	if _, _, err := q.eng.Operator().SetWebhookEndpoint(q.ctx, org.ID, crHookURL); err != nil {
		q.failf("SetWebhookEndpoint: %v", err)
	}
}

// step runs one random step, arming a crash first at random; once the
// fault has fired, or a while after it was armed, the process dies.
func (q *crSeq) step() {
	q.stats.steps++
	if q.armed == 0 && q.rng.IntN(8) == 0 {
		if q.rng.IntN(2) == 0 {
			n := 1 + q.rng.IntN(60)
			q.fault.FailOp(int64(n))
			q.logf("armed: fail store operation %d from now", n)
		} else {
			n := 1 + q.rng.IntN(8)
			q.fault.FailCommit(int64(n))
			q.logf("armed: fail commit %d from now", n)
		}
		q.armed = 1
	}
	var kind string
	switch u := q.rng.IntN(100); {
	case u < 28:
		kind = "create"
		q.create()
	case u < 55:
		kind = "worker pass"
		q.work()
	case u < 77:
		kind = "clock"
		q.tick()
	case u < 88:
		kind = "dispatch"
		q.dispatch()
	case u < 94:
		kind = "clawback"
		q.clawback()
	default:
		kind = "funding"
		q.fund()
	}
	if q.armed > 0 {
		switch {
		case q.fired():
			q.stats.faultCrashes++
			q.crashIn[kind]++
			q.restart("the store fault fired")
		case q.armed >= 12:
			q.stats.kills++
			q.crashIn["between steps"]++
			q.restart("killed between steps")
		default:
			q.armed++
		}
	}
}

// request draws a payout: momo to a sandbox wallet (now and then to a
// number the sandbox does not pay), or bank to a sandbox account.
func (q *crSeq) request() payouts.Request {
	if q.rng.IntN(3) == 0 {
		return payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, int64(1_000+q.rng.IntN(300_000))),
			Destination: payouts.Destination{InstitutionID: 1 + q.rng.IntN(5),
				AccountNumber: tambala.SandboxBankAccounts[q.rng.IntN(len(tambala.SandboxBankAccounts))], BeneficiaryName: "Crash Bank"}}
	}
	number := tambala.SandboxWallets[q.rng.IntN(len(tambala.SandboxWallets))]
	if q.rng.IntN(20) == 0 {
		number = "265991234567" // valid, but not a sandbox wallet: recipient_account_invalid
	}
	return payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, int64(100+q.rng.IntN(60_000))),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: number, BeneficiaryName: "Crash Wallet"}}
}

func (q *crSeq) create() {
	q.keyN++
	key := fmt.Sprintf("crash-%d-%d", q.seed, q.keyN)
	req := q.request()
	c, err := q.eng.Client(q.p).V1().CreatePayout(q.ctx, req, tambala.Idempotency{Key: key})
	switch {
	case err == nil && q.rng.IntN(16) == 0:
		// Committed, but the process dies before the answer reaches the
		// client, who retries after the restart and must get a replay.
		q.logf("create %s: committed payout %s, the answer lost", key, c.Resource.ID)
		q.unacked = append(q.unacked, crCreate{key, req})
		q.stats.kills++
		q.crashIn["create (after the commit)"]++
		q.restart("killed after a commit, before its answer")
	case err == nil:
		q.ack(key, req, c, false)
	case q.fired():
		q.logf("create %s: no answer (%v)", key, err)
		q.unacked = append(q.unacked, crCreate{key, req})
	default:
		q.refused(key, err)
	}
}

func (q *crSeq) refused(key string, err error) {
	switch errcode.Of(err) {
	case errcode.InsufficientFunds, errcode.OrgLimitExceeded:
		q.logf("create %s: refused: %v", key, err)
		q.stats.refused++
	default:
		q.failf("create %s: %v", key, err)
	}
}

// ack records an acknowledged payout and decides its fate at the provider.
func (q *crSeq) ack(key string, req payouts.Request, c tambala.Created[payouts.Payout], retry bool) {
	po := c.Resource
	if k, ok := q.byID[po.ID]; ok && k != key {
		q.failf("payout %s acknowledged for key %s and for key %s", po.ID, k, key)
	}
	if a, ok := q.acked[key]; ok {
		if a.id != po.ID {
			q.failf("key %s acknowledged with payout %s and then %s", key, a.id, po.ID)
		}
		return
	}
	if !po.Amount.Equal(req.Amount) || po.Rail != req.Rail || po.Destination != req.Destination {
		q.failf("payout %s acknowledged as %s %s %+v, asked %s %s %+v", po.ID, po.Rail, po.Amount, po.Destination, req.Rail, req.Amount, req.Destination)
	}
	q.acked[key] = crPayout{key, po.ID, req}
	q.order = append(q.order, key)
	q.byID[po.ID] = key
	q.stats.acked++
	if retry {
		q.stats.retried++
		if c.Replayed {
			q.stats.replayed++
		}
	}
	if q.net.submitCalls(po.ID) > 0 || q.net.wasAccepted(po.ID) {
		return // the worker had it before the client heard back: its fate is the sandbox's
	}
	var o sandbox.Outcome
	switch u := q.rng.IntN(100); {
	case u < 8:
		q.net.loseForever(po.ID)
		q.stats.lostForever++
		q.logf("create %s: payout %s (%s %s), lost forever", key, po.ID, req.Rail, req.Amount)
		return
	case u < 20:
		o.Fail = []string{"declined", "recipient_account_invalid", "temporarily_unavailable", "bank_on_fire"}[q.rng.IntN(4)]
	case u < 32:
		f, _ := po.HeldFee.Add(money.FromUnits(money.MWK, int64(1+q.rng.IntN(5_000_000))))
		o.Fee = &f // above the hold: the excess from available, or a shortfall
	case u < 38:
		units, _ := po.HeldFee.Units()
		f := money.FromUnits(money.MWK, q.rng.Int64N(max(units, 1)))
		o.Fee = &f // below the hold: the rest returns to available
	case u < 44:
		o.NoFee = true
	case u < 54:
		o.Clawback = true
	case u < 64:
		o.TimeoutSubmits = 1 + q.rng.IntN(2)
	default:
		q.logf("create %s: payout %s (%s %s)", key, po.ID, req.Rail, req.Amount)
		return
	}
	q.scripts[po.ID] = o
	q.scriptN = append(q.scriptN, po.ID)
	q.prov.ScriptPayout(po.ID, o)
	q.logf("create %s: payout %s (%s %s), scripted %+v", key, po.ID, req.Rail, req.Amount, o)
}

func (q *crSeq) work() {
	n, err := q.eng.Work().ProcessPayouts(q.ctx)
	if err != nil && !q.fired() {
		q.failf("ProcessPayouts: %v", err)
	}
	q.logf("worker pass: %d advanced (%v)", n, err)
}

func (q *crSeq) tick() {
	var d time.Duration
	switch u := q.rng.IntN(100); {
	case u < 60:
		d = time.Duration(1+q.rng.IntN(5)) * time.Second
	case u < 85:
		d = crLease + time.Duration(q.rng.IntN(30))*time.Second
	default:
		d = crMaxBackoff + time.Duration(q.rng.IntN(240))*time.Second
	}
	q.clock.Advance(d)
	q.logf("clock +%v", d)
}

func (q *crSeq) dispatch() {
	n, err := q.eng.Work().ProcessDeliveries(q.ctx)
	if err != nil && !q.fired() {
		q.failf("ProcessDeliveries: %v", err)
	}
	q.logf("dispatch: %d sent (%v)", n, err)
}

func (q *crSeq) clawback() {
	if len(q.order) == 0 {
		return
	}
	id := q.acked[q.order[q.rng.IntN(len(q.order))]].id
	err := q.eng.Operator().BackOffice().ClawbackPayout(q.ctx, id)
	switch {
	case err == nil:
		q.stats.clawbacks++
	case q.fired(), errcode.Of(err) == errcode.Conflict:
	default:
		q.failf("ClawbackPayout %s: %v", id, err)
	}
	q.logf("clawback %s: %v", id, err)
}

func (q *crSeq) fund() {
	f := crFund{fmt.Sprintf("top-up-%d", q.stats.steps), money.FromInt(money.MWK, int64(50_000+q.rng.IntN(250_000)))}
	err := q.eng.Operator().Fund(q.ctx, q.orgID, f.amount, f.ref)
	switch {
	case err == nil:
		q.funded, _ = q.funded.Add(f.amount)
		q.stats.funds++
	case q.fired():
		q.unfunds = append(q.unfunds, f)
	default:
		q.failf("Fund %s: %v", f.ref, err)
	}
	q.logf("fund %s %s: %v", f.ref, f.amount, err)
}

// restart kills the incarnation: the engine is abandoned without a
// shutdown (nothing of it runs in the background), the file closed with
// what was committed, and a new incarnation opened over it. The client and
// the operator retry what they got no answer to; then everything is
// checked.
func (q *crSeq) restart(why string) {
	q.logf("CRASH: %s; reopening", why)
	q.eng, q.prov, q.armed = nil, nil, 0
	if err := q.bolt.Close(); err != nil {
		q.failf("close the bolt file: %v", err)
	}
	q.bolt = nil
	q.stats.reopens++
	q.open()
	q.retry()
	q.check("after reopening " + fmt.Sprint(q.stats.reopens))
}

// retry sends again every create and funding that got no answer, with the
// same idempotency key or ref.
func (q *crSeq) retry() {
	for _, f := range q.unfunds {
		if err := q.eng.Operator().Fund(q.ctx, q.orgID, f.amount, f.ref); err != nil {
			q.failf("Fund %s again: %v", f.ref, err)
		}
		q.funded, _ = q.funded.Add(f.amount)
		q.stats.funds++
	}
	q.unfunds = nil
	for _, c := range q.unacked {
		out, err := q.eng.Client(q.p).V1().CreatePayout(q.ctx, c.req, tambala.Idempotency{Key: c.key})
		if err != nil {
			q.refused(c.key, err)
			continue
		}
		q.logf("create %s again: payout %s, replayed %v", c.key, out.Resource.ID, out.Replayed)
		q.ack(c.key, c.req, out, true)
	}
	q.unacked = nil
}

// finish ends the sequence: a last crash or not, then the network calms
// down and the clock moves past every delay until nothing is in flight,
// and webhooks are drained; then the final checks.
func (q *crSeq) finish() {
	if q.armed > 0 {
		if q.fired() {
			q.stats.faultCrashes++
		} else {
			q.stats.kills++
			q.crashIn["between steps"]++
		}
		q.restart("at the end")
	}
	q.net.setCalm()
	q.logf("calm")
	for range 40 {
		if len(q.inFlight()) == 0 {
			break
		}
		q.clock.Advance(crMaxBackoff + crLease + crMaxDelay + crPoll)
		if _, err := q.eng.Work().ProcessPayouts(q.ctx); err != nil {
			q.failf("ProcessPayouts: %v", err)
		}
		q.stats.finalRounds++
	}
	for range 10 {
		q.clock.Advance(4 * time.Hour)
		if _, err := q.eng.Work().ProcessDeliveries(q.ctx); err != nil {
			q.failf("ProcessDeliveries: %v", err)
		}
		pending := false
		for _, d := range q.deliveries() {
			pending = pending || d.State == webhooks.Pending
		}
		if !pending {
			break
		}
	}
	all := q.check("at the end")

	for _, id := range q.sortedIDs(all) {
		po := all[id]
		q.stats.byStatus[po.Status]++
		if po.Status == payouts.Failed && po.Failure.Code == payouts.ProviderUnavailable {
			q.stats.unavailable++
		}
		if !po.Status.Terminal() {
			q.failf("payout %s is still %s at the end (provider: accepted %v, submit calls %d)", id, po.Status, q.net.wasAccepted(id), q.net.submitCalls(id))
		}
	}
	for _, id := range q.sortedIDs(all) {
		po := all[id]
		if q.net.isLostForever(id) {
			if po.Status != payouts.Failed || po.Failure == nil || po.Failure.Code != payouts.ProviderUnavailable {
				q.failf("payout %s, whose reference the provider never accepted, is %s (failure %+v), want failed provider_unavailable", id, po.Status, po.Failure)
			}
			if q.prov.Payments(id) != 0 {
				q.failf("payout %s, lost forever, was paid", id)
			}
		}
	}
	for _, d := range q.deliveries() {
		if n := q.net.deliveredCount(d.ID); d.State != webhooks.Delivered || n == 0 {
			q.failf("event %s (%s) is %s at the end, delivered %d times", d.ID, d.EventType, d.State, n)
		}
	}
	if len(all) != len(q.acked) {
		q.failf("%d payouts in the engine, %d acknowledged", len(all), len(q.acked))
	}
}

// inFlight lists the payouts not terminal.
func (q *crSeq) inFlight() []string {
	var out []string
	for id, po := range q.payouts() {
		if !po.Status.Terminal() {
			out = append(out, id)
		}
	}
	return out
}

// payouts reads every payout of the organization, page by page.
func (q *crSeq) payouts() map[string]payouts.Payout {
	all := map[string]payouts.Payout{}
	page := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for {
		pg, err := q.eng.Client(q.p).V1().Payouts(q.ctx, page, tambala.PayoutFilter{})
		if err != nil {
			q.failf("Payouts: %v", err)
		}
		for _, po := range pg.Items {
			if _, dup := all[po.ID]; dup {
				q.failf("payout %s listed twice", po.ID)
			}
			all[po.ID] = po
		}
		if !pg.HasMore {
			return all
		}
		page.BeforeID = pg.NextBeforeID
	}
}

// deliveries reads every delivery of the organization.
func (q *crSeq) deliveries() []tambala.DeliveryView {
	var out []tambala.DeliveryView
	page := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for {
		pg, err := q.eng.Operator().Deliveries(q.ctx, q.orgID, page)
		if err != nil {
			q.failf("Deliveries: %v", err)
		}
		out = append(out, pg.Items...)
		if !pg.HasMore {
			return out
		}
		page.BeforeID = pg.NextBeforeID
	}
}

func (q *crSeq) sortedIDs(m map[string]payouts.Payout) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// check verifies the invariants over what the new incarnation reads, and
// returns every payout.
func (q *crSeq) check(where string) map[string]payouts.Payout {
	ctx := q.ctx
	if err := ledger.CheckStore(ctx, q.bolt); err != nil {
		q.failf("%s: ledger: %v", where, err)
	}
	all := q.payouts()

	// No acknowledged payout is lost, and nothing the client was not
	// acknowledged exists (every create without an answer was retried).
	for _, key := range q.order {
		a := q.acked[key]
		po, err := q.eng.Client(q.p).V1().Payout(ctx, a.id)
		if err != nil {
			q.failf("%s: acknowledged payout %s (key %s) is lost: %v", where, a.id, key, err)
		}
		if !po.Amount.Equal(a.req.Amount) || po.Rail != a.req.Rail || po.Destination != a.req.Destination {
			q.failf("%s: payout %s reads %s %s %+v, acknowledged %s %s %+v", where, a.id, po.Rail, po.Amount, po.Destination, a.req.Rail, a.req.Amount, a.req.Destination)
		}
	}
	for _, id := range q.sortedIDs(all) {
		if _, ok := q.byID[id]; !ok {
			q.failf("%s: payout %s exists, but no create was acknowledged with it", where, id)
		}
	}

	consumed, held := money.Zero(money.MWK), money.Zero(money.MWK)
	for _, id := range q.sortedIDs(all) {
		po := all[id]
		// Only the table's moves, and terminal_at never moves.
		if prev, ok := q.seen[id]; ok {
			if !slices.Contains(allowedMoves[string(prev.Status)], string(po.Status)) {
				q.failf("%s: payout %s moved %s -> %s", where, id, prev.Status, po.Status)
			}
			if prev.TerminalAt != nil && (po.TerminalAt == nil || !po.TerminalAt.Equal(*prev.TerminalAt)) {
				q.failf("%s: terminal_at of %s moved from %v to %v", where, id, prev.TerminalAt, po.TerminalAt)
			}
		}
		q.seen[id] = po

		// Paid at most once, never released while the provider has it,
		// and the provider's count the same through a new Provider.
		paid := q.prov.Payments(id)
		if want := q.net.wasAccepted(id); (paid == 1) != want || paid > 1 {
			q.failf("%s: the provider over the reopened file counts %d payments of %s; it accepted it: %v", where, paid, id, want)
		}
		switch po.Status {
		case payouts.Held:
			if paid != 0 {
				q.failf("%s: payout %s is held but the provider has it", where, id)
			}
		case payouts.Succeeded, payouts.Reversed:
			if paid != 1 {
				q.failf("%s: payout %s is %s but the provider never accepted it", where, id, po.Status)
			}
		case payouts.Failed:
			if po.Failure == nil {
				q.failf("%s: failed payout %s has no failure", where, id)
			}
			if po.Failure.Code == payouts.ProviderUnavailable && paid != 0 {
				q.failf("%s: payout %s failed provider_unavailable (its hold released) but the provider accepted it", where, id)
			}
			if po.Failure.Code != payouts.ProviderUnavailable && paid != 1 {
				q.failf("%s: payout %s failed %s but the provider never accepted it", where, id, po.Failure.Code)
			}
		}
		if paid == 1 {
			st, err := q.prov.Status(ctx, id) // the sandbox itself, past the network
			if err != nil {
				q.failf("%s: sandbox status of %s: %v", where, id, err)
			}
			switch st.State {
			case tambala.ProviderSucceeded, tambala.ProviderReversed:
				if po.Status == payouts.Failed {
					q.failf("%s: payout %s failed (%+v), its hold released, but the provider paid it", where, id, po.Failure)
				}
				if po.Status == payouts.Succeeded || po.Status == payouts.Reversed {
					if (po.Fee == nil) != !st.Fee.IsSet() || (po.Fee != nil && !po.Fee.Equal(st.Fee)) {
						q.failf("%s: payout %s has fee %v, the provider reported %v", where, id, po.Fee, st.Fee)
					}
				}
				if st.State == tambala.ProviderReversed && po.Status == payouts.Succeeded {
					q.failf("%s: payout %s is succeeded, the provider reported it reversed", where, id)
				}
			case tambala.ProviderFailed:
				if po.Status == payouts.Succeeded || po.Status == payouts.Reversed {
					q.failf("%s: payout %s is %s, the provider failed it (%s)", where, id, po.Status, st.FailureCode)
				}
				if po.Status == payouts.Failed && po.Failure.Code != payouts.FailureFor(st.FailureCode).Code {
					q.failf("%s: payout %s failed %s, the provider said %s", where, id, po.Failure.Code, st.FailureCode)
				}
			}
		}

		// What it consumed (docs/decisions.md, /v1 payouts (worker
		// side), as in TestPayoutsRapid): the amount and the charged fee
		// once succeeded, only the fee once reversed; and what it holds.
		switch po.Status {
		case payouts.Succeeded, payouts.Reversed:
			charged := po.HeldFee
			if po.Fee != nil {
				charged = *po.Fee
			}
			consumed, _ = consumed.Add(charged)
			if po.Status == payouts.Succeeded {
				consumed, _ = consumed.Add(po.Amount)
			}
		case payouts.Held, payouts.Submitted, payouts.Pending:
			held, _ = held.Add(po.Amount)
			held, _ = held.Add(po.HeldFee)
		}
	}

	b, err := q.eng.Client(q.p).V1().Balance(ctx)
	if err != nil {
		q.failf("%s: BalanceV1: %v", where, err)
	}
	have, _ := b.Available.Add(b.Held)
	have, _ = have.Sub(b.Shortfall)
	want, _ := q.funded.Sub(consumed)
	if !have.Equal(want) {
		q.failf("%s: available %s + held %s - shortfall %s = %s, want funded %s - consumed %s = %s",
			where, b.Available, b.Held, b.Shortfall, have, q.funded, consumed, want)
	}
	if !b.Held.Equal(held) {
		q.failf("%s: held %s, but the payouts in flight hold %s", where, b.Held, held)
	}

	// Each payout emitted exactly the events of its status, once.
	events := map[string]map[string][]string{} // payout id → event type → event ids
	for _, d := range q.deliveries() {
		var env envelope
		var data struct{ ID string }
		if err := json.Unmarshal([]byte(d.Body), &env); err != nil {
			q.failf("%s: delivery %s: %v", where, d.ID, err)
		}
		if err := json.Unmarshal(env.Data, &data); err != nil {
			q.failf("%s: delivery %s: %v", where, d.ID, err)
		}
		if env.ID != d.ID || env.EventType != d.EventType {
			q.failf("%s: delivery %s (%s) carries event %s (%s)", where, d.ID, d.EventType, env.ID, env.EventType)
		}
		if !strings.HasPrefix(d.EventType, "payout.") {
			continue
		}
		if events[data.ID] == nil {
			events[data.ID] = map[string][]string{}
		}
		events[data.ID][d.EventType] = append(events[data.ID][d.EventType], d.ID)
	}
	for id := range events {
		if _, ok := all[id]; !ok {
			q.failf("%s: events %v for a payout %s that does not exist", where, events[id], id)
		}
	}
	for _, id := range q.sortedIDs(all) {
		var want []string
		switch all[id].Status {
		case payouts.Succeeded:
			want = []string{webhooks.PayoutSucceeded}
		case payouts.Reversed:
			want = []string{webhooks.PayoutSucceeded, webhooks.PayoutReversed}
		case payouts.Failed:
			want = []string{webhooks.PayoutFailed}
		}
		got := events[id]
		ok := len(got) == len(want)
		for _, typ := range want {
			ok = ok && len(got[typ]) == 1
		}
		if !ok {
			q.failf("%s: payout %s is %s and emitted %v", where, id, all[id].Status, got)
		}
	}
	return all
}
