package ledger_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// The model: a deliberately simple ledger over int64 minor units, against
// which the real one is compared.

type mPosting struct {
	acct  ledger.Account
	units int64
}

type mHold struct {
	org   string
	asset money.Asset
	units int64
	open  bool
}

type mEntry struct {
	key      string // the command, canonically, without At
	kind     ledger.Kind
	holdID   string
	postings []mPosting
}

type model struct {
	bal      map[ledger.Account]int64
	holds    map[string]*mHold
	entries  map[string]*mEntry
	reversed map[string]string
}

func newModel() *model {
	return &model{
		bal:      map[ledger.Account]int64{},
		holds:    map[string]*mHold{},
		entries:  map[string]*mEntry{},
		reversed: map[string]string{},
	}
}

// units is an amount in minor units of its asset.
func units(a money.Amount) int64 {
	if a.Asset().Code == "" {
		return 0
	}
	n, err := strconv.ParseInt(strings.Replace(a.String(), ".", "", 1), 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

func avail(org string, a money.Asset) ledger.Account {
	return ledger.OrgAccount(org, ledger.Available, a)
}
func held(org string, a money.Asset) ledger.Account { return ledger.OrgAccount(org, ledger.Held, a) }
func sysAcct(b ledger.Bucket, a money.Asset) ledger.Account {
	return ledger.SystemAccount(b, a)
}

// cmdKey is the command's entry id and canonical text, defaults spelled out.
func cmdKey(cmd ledger.Command) (id, key string) {
	ra := renderAmount
	switch c := cmd.(type) {
	case ledger.Credit:
		from := c.From
		if from == "" {
			from = ledger.External
		}
		return c.EntryID, fmt.Sprintf("credit|%s|%s|%s|%s|%s", c.Org, ra(c.Amount), ra(c.Fee), from, c.Ref)
	case ledger.PlaceHold:
		return c.EntryID, fmt.Sprintf("hold|%s|%s|%s|%s", c.HoldID, c.Org, ra(c.Amount), c.Ref)
	case ledger.ReleaseHold:
		return c.EntryID, fmt.Sprintf("release|%s|%s", c.HoldID, c.Ref)
	case ledger.CaptureHold:
		to := c.To
		if to == "" {
			to = ledger.Provider
		}
		return c.EntryID, fmt.Sprintf("capture|%s|%s|%s|%s|%s", c.HoldID, ra(c.Amount), ra(c.Fee), to, c.Ref)
	case ledger.Reverse:
		return c.EntryID, fmt.Sprintf("reverse|%s|%s", c.Of, c.Ref)
	case ledger.Convert:
		return c.EntryID, fmt.Sprintf("convert|%s|%s|%s|%s", c.Org, ra(c.From), ra(c.To), c.Ref)
	}
	panic(fmt.Sprintf("unknown command %T", cmd))
}

// apply is the model's decision on cmd: whether it is a replay, or the
// sentinel it fails with. On success the model's state moves on.
//
// The model only knows the malformed commands the generator makes: zero
// amounts, a fee above the amount, a conversion within one asset.
func (m *model) apply(cmd ledger.Command) (replayed bool, err error) {
	id, key := cmdKey(cmd)
	if e, ok := m.entries[id]; ok {
		if e.key == key {
			return true, nil
		}
		return false, ledger.ErrEntryIDReused
	}
	e := &mEntry{key: key}
	var after func()
	switch c := cmd.(type) {
	case ledger.Credit:
		a, fee, asset := units(c.Amount), units(c.Fee), c.Amount.Asset()
		if a <= 0 || fee < 0 || fee > a {
			return false, ledger.ErrInvalidCommand
		}
		from := c.From
		if from == "" {
			from = ledger.External
		}
		e.kind = ledger.KindCredit
		e.postings = []mPosting{{sysAcct(from, asset), -a}}
		if a-fee > 0 {
			e.postings = append(e.postings, mPosting{avail(c.Org, asset), a - fee})
		}
		if fee > 0 {
			e.postings = append(e.postings, mPosting{sysAcct(ledger.Fees, asset), fee})
		}
	case ledger.PlaceHold:
		a, asset := units(c.Amount), c.Amount.Asset()
		if a <= 0 {
			return false, ledger.ErrInvalidCommand
		}
		if _, ok := m.holds[c.HoldID]; ok {
			return false, ledger.ErrHoldExists
		}
		e.kind, e.holdID = ledger.KindHold, c.HoldID
		e.postings = []mPosting{{avail(c.Org, asset), -a}, {held(c.Org, asset), a}}
		after = func() { m.holds[c.HoldID] = &mHold{org: c.Org, asset: asset, units: a, open: true} }
	case ledger.ReleaseHold:
		h, err := m.openHold(c.HoldID)
		if err != nil {
			return false, err
		}
		e.kind, e.holdID = ledger.KindRelease, c.HoldID
		e.postings = []mPosting{{held(h.org, h.asset), -h.units}, {avail(h.org, h.asset), h.units}}
		after = func() { h.open = false }
	case ledger.CaptureHold:
		h, err := m.openHold(c.HoldID)
		if err != nil {
			return false, err
		}
		a, fee := units(c.Amount), units(c.Fee)
		if a+fee > h.units {
			return false, ledger.ErrCaptureExceedsHold
		}
		to := c.To
		if to == "" {
			to = ledger.Provider
		}
		e.kind, e.holdID = ledger.KindCapture, c.HoldID
		e.postings = []mPosting{{held(h.org, h.asset), -h.units}}
		if a > 0 {
			e.postings = append(e.postings, mPosting{sysAcct(to, h.asset), a})
		}
		if fee > 0 {
			e.postings = append(e.postings, mPosting{sysAcct(ledger.Fees, h.asset), fee})
		}
		if rest := h.units - a - fee; rest > 0 {
			e.postings = append(e.postings, mPosting{avail(h.org, h.asset), rest})
		}
		after = func() { h.open = false }
	case ledger.Reverse:
		orig, ok := m.entries[c.Of]
		if !ok {
			return false, ledger.ErrEntryNotFound
		}
		if _, ok := m.reversed[c.Of]; ok {
			return false, ledger.ErrAlreadyReversed
		}
		e.kind = ledger.KindReverse
		switch orig.kind {
		case ledger.KindCredit, ledger.KindConvert:
			for _, p := range orig.postings {
				e.postings = append(e.postings, mPosting{p.acct, -p.units})
			}
		case ledger.KindCapture:
			h := m.holds[orig.holdID]
			for _, p := range orig.postings {
				if p.acct.Bucket == ledger.Provider || p.acct.Bucket == ledger.Desk {
					e.postings = append(e.postings, mPosting{p.acct, -p.units}, mPosting{avail(h.org, h.asset), p.units})
				}
			}
			if len(e.postings) == 0 {
				return false, ledger.ErrNotReversible
			}
		default:
			return false, ledger.ErrNotReversible
		}
		after = func() { m.reversed[c.Of] = id }
	case ledger.Convert:
		f, t := units(c.From), units(c.To)
		fa, ta := c.From.Asset(), c.To.Asset()
		if f <= 0 || t <= 0 || fa == ta {
			return false, ledger.ErrInvalidCommand
		}
		e.kind = ledger.KindConvert
		e.postings = []mPosting{
			{avail(c.Org, fa), -f}, {sysAcct(ledger.Desk, fa), f},
			{sysAcct(ledger.Desk, ta), -t}, {avail(c.Org, ta), t},
		}
	default:
		panic(fmt.Sprintf("unknown command %T", cmd))
	}
	next := map[ledger.Account]int64{}
	for _, p := range e.postings {
		if _, ok := next[p.acct]; !ok {
			next[p.acct] = m.bal[p.acct]
		}
		next[p.acct] += p.units
	}
	for a, v := range next {
		if a.Bucket.IsCustomer() && v < 0 {
			return false, ledger.ErrInsufficientFunds
		}
	}
	for a, v := range next {
		m.bal[a] = v
	}
	if after != nil {
		after()
	}
	m.entries[id] = e
	return false, nil
}

func (m *model) openHold(id string) (*mHold, error) {
	h, ok := m.holds[id]
	if !ok {
		return nil, ledger.ErrHoldNotFound
	}
	if !h.open {
		return nil, ledger.ErrHoldClosed
	}
	return h, nil
}

// verify compares everything s holds with the model, and runs Check.
func (m *model) verify(t require.TestingT, s store.Store) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	var snap ledger.Snapshot
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		var err error
		snap, err = ledger.ReadSnapshot(tx)
		if err != nil {
			return err
		}
		// ReadBalance agrees with the snapshot for every org and asset.
		for _, o := range genOrgs {
			for _, a := range genAssets {
				b, err := ledger.ReadBalance(tx, o, a)
				if err != nil {
					return err
				}
				require.Equal(t, m.bal[avail(o, a)], units(b.Available), "available %s %s", o, a)
				require.Equal(t, m.bal[held(o, a)], units(b.Held), "held %s %s", o, a)
			}
		}
		return nil
	}))
	got := map[ledger.Account]int64{}
	for _, bc := range snap.Balances {
		got[bc.Account] = units(bc.Balance)
	}
	require.Equal(t, m.bal, got, "balances")

	gotHolds := map[string]mHold{}
	for _, h := range snap.Holds {
		gotHolds[h.ID] = mHold{org: h.Org, asset: h.Amount.Asset(), units: units(h.Amount), open: h.Open}
	}
	wantHolds := map[string]mHold{}
	for id, h := range m.holds {
		wantHolds[id] = *h
	}
	require.Equal(t, wantHolds, gotHolds, "holds")

	gotEntries := map[string]ledger.Kind{}
	for _, e := range snap.Entries {
		gotEntries[e.ID] = e.Kind
	}
	wantEntries := map[string]ledger.Kind{}
	for id, e := range m.entries {
		wantEntries[id] = e.kind
	}
	require.Equal(t, wantEntries, gotEntries, "entries")
	require.Equal(t, m.reversed, snap.Reversals, "reversals")
	require.NoError(t, ledger.Check(snap))
}

// The generator of commands: random draws from rapid or from a seeded
// math/rand, guided by the model so that many commands succeed and the
// rejections are the interesting ones.

type drawer interface {
	// Int returns a number in [lo, hi].
	Int(lo, hi int64, label string) int64
}

type rapidDrawer struct{ t *rapid.T }

func (d rapidDrawer) Int(lo, hi int64, label string) int64 {
	return rapid.Int64Range(lo, hi).Draw(d.t, label)
}

type randDrawer struct{ r *rand.Rand }

func (d randDrawer) Int(lo, hi int64, _ string) int64 { return lo + d.r.Int64N(hi-lo+1) }

var (
	genOrgs   = []string{"org-a", "org-b", "org-c"}
	genAssets = []money.Asset{mwk, usdt}
	genRefs   = []string{"", "ref-1", "ref-2"}
)

type gen struct {
	m         *model
	n         int // ids issued
	clock     time.Time
	posted    []ledger.Command // accepted, not replays
	entryIDs  []string         // of accepted commands
	holdIDs   []string         // of accepted holds
	failedIDs []string         // of rejected commands, never accepted since
}

func newGen() *gen { return &gen{m: newModel(), clock: t0} }

func pick[T any](d drawer, label string, xs []T) T { return xs[d.Int(0, int64(len(xs)-1), label)] }

func (g *gen) at() time.Time {
	g.clock = g.clock.Add(time.Second)
	return g.clock
}

func (g *gen) fresh(prefix string) string {
	g.n++
	return prefix + "-" + strconv.Itoa(g.n)
}

// entryID is usually fresh, sometimes that of a rejected command.
func (g *gen) entryID(d drawer) string {
	if len(g.failedIDs) > 0 && d.Int(0, 9, "reuse-failed-id") == 0 {
		return pick(d, "failed-id", g.failedIDs)
	}
	return g.fresh("e")
}

// upTo is an amount of at most about twice what the account has, so that
// some commands exceed it.
func (g *gen) upTo(d drawer, a ledger.Account, label string) int64 {
	return d.Int(1, max(2*g.m.bal[a], 10), label)
}

func (g *gen) credit(d drawer) ledger.Command {
	o, asset := pick(d, "org", genOrgs), pick(d, "asset", genAssets)
	a := d.Int(1, 100_000, "amount")
	var fee int64
	switch d.Int(0, 9, "fee-kind") {
	case 4, 5, 6:
		fee = d.Int(0, a, "fee")
	case 7:
		fee = a
	case 8:
		fee = a + 1 // invalid
	case 9:
		a, fee = 0, 0 // invalid
	}
	return ledger.Credit{
		EntryID: g.entryID(d), Org: o, Amount: money.FromUnits(asset, a), Fee: money.FromUnits(asset, fee),
		From: pick(d, "from", []ledger.Bucket{"", ledger.External, ledger.Float, ledger.Desk}),
		Ref:  pick(d, "ref", genRefs), At: g.at(),
	}
}

func (g *gen) hold(d drawer) ledger.Command {
	o, asset := pick(d, "org", genOrgs), pick(d, "asset", genAssets)
	hid := g.fresh("hold")
	if len(g.holdIDs) > 0 && d.Int(0, 9, "reuse-hold-id") == 0 {
		hid = pick(d, "hold-id", g.holdIDs)
	}
	return ledger.PlaceHold{
		EntryID: g.entryID(d), HoldID: hid, Org: o,
		Amount: money.FromUnits(asset, g.upTo(d, avail(o, asset), "amount")),
		Ref:    pick(d, "ref", genRefs), At: g.at(),
	}
}

// holdID is one of the holds placed (open or closed), or a missing one.
func (g *gen) holdID(d drawer) string {
	if len(g.holdIDs) == 0 || d.Int(0, 9, "missing-hold") == 0 {
		return "hold-missing"
	}
	// Prefer recent holds: they are more often still open.
	if d.Int(0, 1, "recent") == 0 {
		return g.holdIDs[len(g.holdIDs)-1]
	}
	return pick(d, "hold-id", g.holdIDs)
}

func (g *gen) release(d drawer) ledger.Command {
	return ledger.ReleaseHold{EntryID: g.entryID(d), HoldID: g.holdID(d), Ref: pick(d, "ref", genRefs), At: g.at()}
}

func (g *gen) capture(d drawer) ledger.Command {
	hid := g.holdID(d)
	asset, size := mwk, int64(1000)
	if h, ok := g.m.holds[hid]; ok {
		asset, size = h.asset, h.units
	}
	a := d.Int(0, size, "amount")
	fee := d.Int(0, size-a, "fee")
	if d.Int(0, 4, "exceed") == 0 {
		fee = size - a + d.Int(1, 100, "excess")
	}
	return ledger.CaptureHold{
		EntryID: g.entryID(d), HoldID: hid, Amount: money.FromUnits(asset, a), Fee: money.FromUnits(asset, fee),
		To:  pick(d, "to", []ledger.Bucket{"", ledger.Provider, ledger.Desk}),
		Ref: pick(d, "ref", genRefs), At: g.at(),
	}
}

func (g *gen) reverse(d drawer) ledger.Command {
	of := "entry-missing"
	if len(g.entryIDs) > 0 && d.Int(0, 9, "missing-entry") != 0 {
		// Prefer recent entries: reversing an old credit mostly fails for
		// lack of funds.
		if d.Int(0, 1, "recent") == 0 {
			of = g.entryIDs[len(g.entryIDs)-1-int(d.Int(0, min(int64(len(g.entryIDs)-1), 3), "back"))]
		} else {
			of = pick(d, "of", g.entryIDs)
		}
	}
	return ledger.Reverse{EntryID: g.entryID(d), Of: of, Ref: pick(d, "ref", genRefs), At: g.at()}
}

func (g *gen) convert(d drawer) ledger.Command {
	o := pick(d, "org", genOrgs)
	i := d.Int(0, 1, "from-asset")
	fa, ta := genAssets[i], genAssets[1-i]
	if d.Int(0, 19, "same-asset") == 0 {
		ta = fa // invalid
	}
	return ledger.Convert{
		EntryID: g.entryID(d), Org: o,
		From: money.FromUnits(fa, g.upTo(d, avail(o, fa), "from")),
		To:   money.FromUnits(ta, d.Int(1, 100_000, "to")),
		Ref:  pick(d, "ref", genRefs), At: g.at(),
	}
}

// replay is an accepted command again, with a later At.
func (g *gen) replay(d drawer) ledger.Command {
	if len(g.posted) == 0 {
		return g.credit(d)
	}
	return withAt(pick(d, "replay", g.posted), g.at())
}

// reuse is a new command under a used entry id.
func (g *gen) reuse(d drawer) ledger.Command {
	if len(g.entryIDs) == 0 {
		return g.credit(d)
	}
	id := pick(d, "used-id", g.entryIDs)
	var c ledger.Command
	switch d.Int(0, 3, "reuse-kind") {
	case 0:
		c = g.credit(d)
	case 1:
		c = g.hold(d)
	case 2:
		c = g.capture(d)
	default:
		c = g.reverse(d)
	}
	return withEntryID(c, id)
}

// next is a random command of any kind.
func (g *gen) next(d drawer) ledger.Command {
	switch d.Int(0, 15, "action") {
	case 0, 1, 2:
		return g.credit(d)
	case 3, 4, 5:
		return g.hold(d)
	case 6, 7:
		return g.release(d)
	case 8, 9:
		return g.capture(d)
	case 10, 11:
		return g.reverse(d)
	case 12, 13:
		return g.convert(d)
	case 14:
		return g.replay(d)
	default:
		return g.reuse(d)
	}
}

// apply runs cmd through the model and books its outcome.
func (g *gen) apply(cmd ledger.Command) (replayed bool, err error) {
	replayed, err = g.m.apply(cmd)
	id, _ := cmdKey(cmd)
	switch {
	case err == nil && !replayed:
		g.posted = append(g.posted, cmd)
		g.entryIDs = append(g.entryIDs, id)
		if h, ok := cmd.(ledger.PlaceHold); ok {
			g.holdIDs = append(g.holdIDs, h.HoldID)
		}
		for i, f := range g.failedIDs {
			if f == id {
				g.failedIDs = append(g.failedIDs[:i], g.failedIDs[i+1:]...)
				break
			}
		}
	case err != nil && !errors.Is(err, ledger.ErrEntryIDReused):
		g.failedIDs = append(g.failedIDs, id)
	}
	return replayed, err
}

func withAt(c ledger.Command, at time.Time) ledger.Command {
	switch c := c.(type) {
	case ledger.Credit:
		c.At = at
		return c
	case ledger.PlaceHold:
		c.At = at
		return c
	case ledger.ReleaseHold:
		c.At = at
		return c
	case ledger.CaptureHold:
		c.At = at
		return c
	case ledger.Reverse:
		c.At = at
		return c
	case ledger.Convert:
		c.At = at
		return c
	}
	panic(fmt.Sprintf("unknown command %T", c))
}

func withEntryID(c ledger.Command, id string) ledger.Command {
	switch c := c.(type) {
	case ledger.Credit:
		c.EntryID = id
		return c
	case ledger.PlaceHold:
		c.EntryID = id
		return c
	case ledger.ReleaseHold:
		c.EntryID = id
		return c
	case ledger.CaptureHold:
		c.EntryID = id
		return c
	case ledger.Reverse:
		c.EntryID = id
		return c
	case ledger.Convert:
		c.EntryID = id
		return c
	}
	panic(fmt.Sprintf("unknown command %T", c))
}

// checkOutcome asserts that the ledger's result is the model's.
func checkOutcome(t require.TestingT, cmd ledger.Command, wantReplayed bool, wantErr error, eff ledger.Effect, err error) {
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr, "%s", describe(cmd))
		if errors.Is(wantErr, ledger.ErrInsufficientFunds) {
			var ife *ledger.InsufficientFundsError
			require.ErrorAs(t, err, &ife)
		}
		return
	}
	require.NoError(t, err, "%s", describe(cmd))
	require.Equal(t, wantReplayed, eff.Replayed, "%s", describe(cmd))
	id, _ := cmdKey(cmd)
	require.Equal(t, id, eff.Entry.ID)
}

func describe(cmd ledger.Command) string {
	id, key := cmdKey(cmd)
	return id + " " + key
}

// TestModel is the state-machine test: random commands on memstore, each
// decision and every balance compared with the model, Check after every
// step.
func TestModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := memstore.New()
		defer s.Close()
		g := newGen()
		run := func(cmd ledger.Command) {
			wantReplayed, wantErr := g.apply(cmd)
			eff, err := post(s, cmd)
			checkOutcome(rt, cmd, wantReplayed, wantErr, eff, err)
		}
		action := func(mk func(drawer) ledger.Command) func(*rapid.T) {
			return func(rt *rapid.T) { run(mk(rapidDrawer{rt})) }
		}
		rt.Repeat(map[string]func(*rapid.T){
			"credit":  action(g.credit),
			"hold":    action(g.hold),
			"release": action(g.release),
			"capture": action(g.capture),
			"reverse": action(g.reverse),
			"convert": action(g.convert),
			"replay":  action(g.replay),
			"reuse":   action(g.reuse),
			"": func(rt *rapid.T) {
				g.m.verify(rt, s)
				require.NoError(rt, ledger.CheckStore(bg, s))
			},
		})
	})
}

// TestModelLong runs longer seeded sequences than rapid's default steps,
// to reach states with many holds and entries.
func TestModelLong(t *testing.T) {
	seeds, steps := 8, 400
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		s := newMem(t)
		g := newGen()
		d := randDrawer{rand.New(rand.NewPCG(uint64(seed), 42))}
		outcomes := map[string]int{}
		for i := range steps {
			cmd := g.next(d)
			wantReplayed, wantErr := g.apply(cmd)
			eff, err := post(s, cmd)
			checkOutcome(t, cmd, wantReplayed, wantErr, eff, err)
			outcomes[outcomeClass(wantReplayed, wantErr)]++
			if i%50 == 49 {
				g.m.verify(t, s)
			}
		}
		g.m.verify(t, s)
		if seed == 0 {
			t.Logf("seed 0 outcomes: %v", outcomes)
		}
	}
}

func outcomeClass(replayed bool, err error) string {
	switch {
	case replayed:
		return "replayed"
	case err == nil:
		return "ok"
	}
	for _, e := range []error{
		ledger.ErrInsufficientFunds, ledger.ErrEntryIDReused, ledger.ErrHoldExists, ledger.ErrHoldNotFound,
		ledger.ErrHoldClosed, ledger.ErrCaptureExceedsHold, ledger.ErrEntryNotFound, ledger.ErrAlreadyReversed,
		ledger.ErrNotReversible, ledger.ErrInvalidCommand,
	} {
		if errors.Is(err, e) {
			return strings.TrimPrefix(e.Error(), "ledger: ")
		}
	}
	return "other: " + err.Error()
}
