package tambala_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// fataler is what the model needs of a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// dashModel is what a full scan gives: the available balance seen after
// every step, by UTC day (the last one of each day is its close), and the
// ids of every payout made.
type dashModel struct {
	ctx   context.Context
	e     *tambala.Engine
	p     tambala.Principal
	prov  *sandbox.Provider
	clock *fakeClock
	close map[string]string
	ids   []string
	n     int
}

func newDashModel(t fataler, s store.Store) *dashModel {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 1, 22, 0, 0, 0, time.UTC)}
	prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: time.Second})
	e, err := tambala.New(s, &tambala.Options{Clock: clock.Now, Payouts: prov})
	if err != nil {
		t.Fatal(err)
	}
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "D"})
	if err != nil {
		t.Fatal(err)
	}
	m := &dashModel{ctx: ctx, e: e, prov: prov, clock: clock, p: actFor(e, org.ID), close: map[string]string{}}
	m.observe(t)
	return m
}

// observe records the balance now as today's close so far.
func (m *dashModel) observe(t fataler) {
	b, err := m.e.Client(m.p).V1().Balance(m.ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.close[m.clock.Now().UTC().Format("2006-01-02")] = b.Available.String()
}

func (m *dashModel) fund(t fataler, units int64) {
	m.n++
	if err := m.e.Operator().Fund(m.ctx, m.p.Org.ID, money.FromInt(money.MWK, units), fmt.Sprint("f", m.n)); err != nil {
		t.Fatal(err)
	}
	m.observe(t)
}

// create makes a momo payout of amount MWK, failing it when fail is set.
func (m *dashModel) create(t fataler, amount int, fail bool) {
	m.n++
	body := fmt.Sprintf(`{"amount_mwk":%d,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"D"}`, amount)
	out, err := createFromBody(m.ctx, m.e, m.p, payouts.Momo, fmt.Sprint("k", m.n), []byte(body))
	if err == nil {
		var po struct{ ID string }
		_ = json.Unmarshal(out.Body, &po)
		m.ids = append(m.ids, po.ID)
		if fail {
			m.prov.ScriptPayout(po.ID, sandbox.Outcome{Fail: "declined"})
		}
	}
	m.observe(t)
}

func (m *dashModel) work(t fataler) {
	if _, err := m.e.Work().ProcessPayouts(m.ctx); err != nil {
		t.Fatal(err)
	}
	m.observe(t)
}

func (m *dashModel) tick(t fataler, d time.Duration) {
	m.clock.Advance(d)
	m.observe(t)
}

// check compares the counters' charts with the full scan.
func (m *dashModel) check(t fataler) {
	now := m.clock.Now().UTC()
	ov, err := m.e.Client(m.p).Overview(m.ctx, []money.AssetCode{money.MWK.Code})
	if err != nil {
		t.Fatal(err)
	}
	series := ov.Balances[money.MWK.Code]
	if len(series) != tambala.ChartDays || len(ov.Succeeded) != tambala.ChartDays || len(ov.Failed) != tambala.ChartDays {
		t.Fatalf("series lengths %d %d %d", len(series), len(ov.Succeeded), len(ov.Failed))
	}
	// The full scan: every observed close, the last one at or before each
	// day carried forward; every payout's outcome on its terminal day.
	succeeded, failed, accepted := map[string]int{}, map[string]int{}, map[string]int{}
	var inFlight tambala.AgeBuckets
	for _, id := range m.ids {
		po, err := m.e.Client(m.p).V1().Payout(m.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		accepted[po.CreatedAt.UTC().Format("2006-01-02")]++
		switch {
		case po.TerminalAt == nil:
			age := now.Sub(po.CreatedAt)
			inFlight[ageBucket(age)]++
		case po.Status == payouts.Failed:
			failed[po.TerminalAt.UTC().Format("2006-01-02")]++
		default: // succeeded, or reversed after success
			succeeded[po.TerminalAt.UTC().Format("2006-01-02")]++
		}
	}
	for i, dv := range series {
		day := now.AddDate(0, 0, i-(tambala.ChartDays-1)).Format("2006-01-02")
		if dv.Day != day {
			t.Fatalf("day %d is %s, want %s", i, dv.Day, day)
		}
		want := "0.00"
		if d := latestBefore(m.close, day); d != "" {
			want = m.close[d]
		}
		got, err := money.Parse(money.MWK, dv.Value)
		if err != nil || got.String() != want {
			t.Fatalf("balance on %s: counters %q, full scan %q", day, dv.Value, want)
		}
		if ov.Succeeded[i].Value != fmt.Sprint(succeeded[day]) || ov.Failed[i].Value != fmt.Sprint(failed[day]) {
			t.Fatalf("outcomes on %s: counters %s/%s, full scan %d/%d", day, ov.Succeeded[i].Value, ov.Failed[i].Value, succeeded[day], failed[day])
		}
	}
	h, err := m.e.Operator().BackOffice().Home(m.ctx)
	if err != nil {
		t.Fatal(err)
	}
	today := now.Format("2006-01-02")
	if h.Today != today || h.RailsToday[payouts.Momo] != int64(accepted[today]) {
		t.Fatalf("accepted today: counters %s %v, full scan %d", h.Today, h.RailsToday, accepted[today])
	}
	if h.InFlight != inFlight {
		t.Fatalf("in flight by age: %v, full scan %v", h.InFlight, inFlight)
	}
}

// latestBefore is the latest day of closes at or before day, "" for none.
func latestBefore(closes map[string]string, day string) string {
	best := ""
	for d := range closes {
		if d <= day && d > best {
			best = d
		}
	}
	return best
}

func ageBucket(d time.Duration) int {
	switch {
	case d < time.Hour:
		return 0
	case d < 24*time.Hour:
		return 1
	case d < 72*time.Hour:
		return 2
	}
	return 3
}

// TestDashboardCountersRapid: after any sequence of fundings, payouts,
// worker passes and clock moves (over days, past the 30-day window), the
// counters give what a full scan gives.
func TestDashboardCountersRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := newDashModel(rt, memstore.New())
		rt.Repeat(map[string]func(*rapid.T){
			"fund": func(rt *rapid.T) { m.fund(rt, rapid.Int64Range(1, 5000).Draw(rt, "units")) },
			"create": func(rt *rapid.T) {
				m.create(rt, rapid.IntRange(1, 4000).Draw(rt, "amount"), rapid.Bool().Draw(rt, "fail"))
			},
			"work": func(rt *rapid.T) { m.work(rt) },
			"tick": func(rt *rapid.T) {
				m.tick(rt, time.Duration(rapid.IntRange(1, 24*12).Draw(rt, "hours"))*time.Hour/2)
			},
			"": func(rt *rapid.T) { m.check(rt) },
		})
	})
}

// TestDashboardCountersStores: one scripted sequence on every store: the
// counters equal the full scan, a day without a change carries the close
// before it, and the window's first day carries a close from before it.
func TestDashboardCountersStores(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		m := newDashModel(t, open())
		steps := []struct {
			name string
			do   func()
		}{
			{"fund", func() { m.fund(t, 10000) }},
			{"two payouts, one fails", func() { m.create(t, 1000, false); m.create(t, 500, true) }},
			{"work", func() { m.tick(t, 2*time.Second); m.work(t); m.tick(t, 2*time.Second); m.work(t) }},
			{"next day", func() { m.tick(t, 3*time.Hour); m.create(t, 700, false) }},
			{"quiet days", func() { m.tick(t, 5*24*time.Hour) }},
			{"finish", func() { m.work(t); m.tick(t, 2*time.Second); m.work(t) }},
			{"past the window", func() { m.tick(t, 40*24*time.Hour); m.fund(t, 3) }},
		}
		for _, s := range steps {
			s.do()
			m.check(t)
		}
	})
}

// TestDashboardDeadLetters: the home's dead-lettered count follows the
// deliveries' states on every store: one delivery dies, is re-delivered,
// dies again while a second one dies too.
func TestDashboardDeadLetters(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		ctx := context.Background()
		rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		})
		env := newWHEnv(t, open(), rc)
		exhaust := func() {
			env.dispatch(t)
			for _, wait := range webhooks.DefaultSchedule {
				env.clock.Advance(wait + wait/10)
				env.dispatch(t)
			}
		}
		check := func(step string) {
			t.Helper()
			want := int64(0)
			for _, d := range env.deliveries(t) { // the full scan
				if d.State == webhooks.Dead {
					want++
				}
			}
			h, err := env.engine.Operator().BackOffice().Home(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if h.DeadLettered != want {
				t.Fatalf("%s: home counts %d dead-lettered, the deliveries %d", step, h.DeadLettered, want)
			}
		}
		check("none yet")
		env.collect(t, 1000)
		exhaust()
		check("one dead")
		dead := env.only(t)
		if _, err := env.engine.Operator().Redeliver(ctx, env.p.Org.ID, dead.ID); err != nil {
			t.Fatal(err)
		}
		check("re-delivered")
		env.collect(t, 500)
		exhaust()
		check("both dead")
	})
}
