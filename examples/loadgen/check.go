package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tambalapay/tambala/money"
)

// payoutState is what GET /v1/payouts/{id} said of one accepted payout.
type payoutState struct {
	status string  // "" until read; "missing" for a 404; "error: ..." when unreadable
	amount string  // amount_mwk
	fee    *string // null while unknown
}

func (p payoutState) terminal() bool {
	return p.status == "succeeded" || p.status == "failed" || p.status == "reversed" || p.status == "missing"
}

// effect is what one accepted payout in state p does to the balance beyond
// its hold being taken from available: back is what returned to available,
// held what is still held for it.
func effect(p payoutState, hold money.Amount) (back, held money.Amount, err error) {
	zero := money.Zero(money.MWK)
	switch p.status {
	case "", "received", "validated", "held", "submitted", "pending":
		return zero, hold, nil
	case "failed": // the whole hold is released
		return hold, zero, nil
	case "succeeded", "reversed":
		amt, err := money.Parse(money.MWK, p.amount)
		if err != nil {
			return zero, zero, err
		}
		quoted, err := hold.Sub(amt)
		if err != nil {
			return zero, zero, err
		}
		fee := quoted // a provider that reports no fee is charged the quoted one
		if p.fee != nil {
			if fee, err = money.Parse(money.MWK, *p.fee); err != nil {
				return zero, zero, err
			}
		}
		// Captured: amount and fee leave, the rest of the hold returns; a
		// clawback returns the amount as well.
		back, err := quoted.Sub(fee)
		if err != nil {
			return zero, zero, err
		}
		if p.status == "reversed" {
			back, err = back.Add(amt)
		}
		return back, zero, err
	default:
		return zero, zero, fmt.Errorf("payout status %q", p.status)
	}
}

// totals sums the effects of every state.
func totals(states []payoutState, hold money.Amount) (back, held money.Amount, err error) {
	back, held = money.Zero(money.MWK), money.Zero(money.MWK)
	for _, s := range states {
		b, h, err := effect(s, hold)
		if err != nil {
			return back, held, err
		}
		if back, err = back.Add(b); err != nil {
			return back, held, err
		}
		if held, err = held.Add(h); err != nil {
			return back, held, err
		}
	}
	return back, held, nil
}

// parallel calls fn(i) for i in [0, n) on up to clients goroutines.
func parallel(n, clients int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(clients, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// readPayout reads one payout's state.
func readPayout(ctx context.Context, pub *endpoint, id string) payoutState {
	status, body, err := pub.getRetrying(ctx, "/v1/payouts/"+id)
	if err != nil {
		return payoutState{status: "error: " + err.Error()}
	}
	switch status {
	case http.StatusOK:
	case http.StatusNotFound:
		return payoutState{status: "missing"}
	default:
		return payoutState{status: "error: " + errKey(status, body)}
	}
	var p struct {
		Status    string  `json:"status"`
		AmountMWK string  `json:"amount_mwk"`
		Fee       *string `json:"fee"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Status == "" {
		return payoutState{status: "error: unreadable payout"}
	}
	return payoutState{status: p.Status, amount: p.AmountMWK, fee: p.Fee}
}

// checkBalance compares the end balance with the start balance less every
// accepted payout's hold, plus what settled payouts gave back, and prints
// PASS or FAIL. ok is false on FAIL; err only when the check could not run.
func checkBalance(ctx context.Context, pub *endpoint, clients int, start balance, hold money.Amount,
	res *result, out io.Writer) (ok bool, err error) {
	tw := newTable(out)
	defer tw.Flush()
	fail := func(format string, args ...any) (bool, error) {
		fmt.Fprintf(tw, "balance check\tFAIL: %s\n", fmt.Sprintf(format, args...))
		return false, nil
	}
	holds, err := mulInt(hold, int64(res.accepted))
	if err != nil {
		return false, err
	}
	expAvail, err := start.Available.Sub(holds)
	if err != nil {
		return false, err
	}
	expHeld, err := start.Held.Add(holds)
	if err != nil {
		return false, err
	}
	end, err := readBalance(ctx, pub)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(tw, "start available\t%s\n", start.Available)
	fmt.Fprintf(tw, "start held\t%s\n", start.Held)
	fmt.Fprintf(tw, "accepted holds\t%d × %s = %s\n", res.accepted, hold, holds)
	if res.unresolved > 0 {
		return fail("%d requests have no known outcome", res.unresolved)
	}
	if end.Available.Equal(expAvail) && end.Held.Equal(expHeld) {
		fmt.Fprintf(tw, "end available\t%s (expected %s)\n", end.Available, expAvail)
		fmt.Fprintf(tw, "end held\t%s (expected %s)\n", end.Held, expHeld)
		fmt.Fprintf(tw, "balance check\tPASS\n")
		return true, nil
	}
	fmt.Fprintf(tw, "end balance\tavailable %s, held %s: payouts settled, reading each\n", end.Available, end.Held)
	if len(res.ids) != res.accepted {
		return fail("%d accepted payouts have no readable id", res.accepted-len(res.ids))
	}

	// Each accepted payout was held when accepted, before the end balance
	// was read. Payouts only move forward (held → submitted → pending →
	// succeeded or failed → reversed) and what each gives back only grows
	// as it does, so a balance read between two readings of every payout
	// lies between the two readings' figures: equal figures make the check
	// exact. Payouts still moving are read again.
	states := make([]payoutState, len(res.ids))
	for i := range states {
		states[i].status = "held"
	}
	prevBack, prevHeld, err := totals(states, hold)
	if err != nil {
		return false, err
	}
	for round := 1; ; round++ {
		b, err := readBalance(ctx, pub)
		if err != nil {
			return false, err
		}
		var todo []int
		for i, s := range states {
			if !s.terminal() {
				todo = append(todo, i)
			}
		}
		parallel(len(todo), clients, func(j int) {
			i := todo[j]
			states[i] = readPayout(ctx, pub, res.ids[i])
		})
		counts := map[string]int{}
		for _, s := range states {
			counts[s.status]++
		}
		if counts["missing"] > 0 {
			return fail("%d accepted payouts are not found", counts["missing"])
		}
		for k, v := range counts {
			if strings.HasPrefix(k, "error") {
				return fail("%d payouts could not be read (%s)", v, k)
			}
		}
		back, held, err := totals(states, hold)
		if err != nil {
			return false, err
		}
		if !back.Equal(prevBack) {
			if round == 5 {
				return fail("payouts kept settling with refunds while being read; run the check again when they are done")
			}
			prevBack, prevHeld = back, held
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return false, err
			}
			continue
		}
		fmt.Fprintf(tw, "payouts\t%s\n", statusLine(counts))
		fmt.Fprintf(tw, "given back by settled\t%s\n", back)
		want, err := expAvail.Add(back)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(tw, "end available\t%s (expected %s)\n", b.Available, want)
		// What is still held: exact when no payout left flight between
		// the two readings, else between them.
		lo, err := start.Held.Add(held)
		if err != nil {
			return false, err
		}
		hi, err := start.Held.Add(prevHeld)
		if err != nil {
			return false, err
		}
		if lo.Equal(hi) {
			fmt.Fprintf(tw, "end held\t%s (expected %s)\n", b.Held, lo)
		} else {
			fmt.Fprintf(tw, "end held\t%s (expected %s to %s: payouts settling)\n", b.Held, lo, hi)
		}
		if !b.Available.Equal(want) {
			d, _ := b.Available.Sub(want)
			return fail("available is off by %s", d)
		}
		if b.Held.Cmp(lo) < 0 || b.Held.Cmp(hi) > 0 {
			return fail("held is outside the expected range")
		}
		fmt.Fprintf(tw, "balance check\tPASS\n")
		return true, nil
	}
}

func statusLine(counts map[string]int) string {
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// verify reads every payout id in path and reports how many are found;
// with settle > 0 it then polls the ones not terminal until every one is,
// or settle has passed.
func verify(ctx context.Context, pub *endpoint, path string, clients int, settle time.Duration, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			ids = append(ids, id)
		}
	}
	f.Close()
	if err := sc.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	states := make([]payoutState, len(ids))
	parallel(len(ids), clients, func(i int) { states[i] = readPayout(ctx, pub, ids[i]) })
	counts := map[string]int{}
	found := 0
	for _, s := range states {
		switch {
		case s.status == "missing":
		case strings.HasPrefix(s.status, "error"):
		default:
			found++
		}
		counts[s.status]++
	}
	tw := newTable(out)
	fmt.Fprintf(tw, "ids\t%d (%s)\n", len(ids), path)
	fmt.Fprintf(tw, "found\t%d\n", found)
	fmt.Fprintf(tw, "missing\t%d\n", counts["missing"])
	fmt.Fprintf(tw, "statuses\t%s\n", statusLine(counts))
	fmt.Fprintf(tw, "time\t%s\n", time.Since(t0).Round(time.Millisecond))
	tw.Flush()
	if found != len(ids) {
		return fmt.Errorf("%d of %d payouts not found", len(ids)-found, len(ids))
	}
	if settle <= 0 {
		return nil
	}
	deadline := time.Now().Add(settle)
	for {
		var todo []int
		for i, s := range states {
			if !s.terminal() {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			counts = map[string]int{}
			for _, s := range states {
				counts[s.status]++
			}
			tw := newTable(out)
			fmt.Fprintf(tw, "terminal\t%d of %d after %s\n", len(ids)-len(todo), len(ids), time.Since(t0).Round(time.Millisecond))
			fmt.Fprintf(tw, "statuses\t%s\n", statusLine(counts))
			tw.Flush()
			if len(todo) > 0 {
				return fmt.Errorf("%d of %d payouts not terminal after %s", len(todo), len(ids), settle)
			}
			return nil
		}
		time.Sleep(250 * time.Millisecond)
		parallel(len(todo), clients, func(j int) { states[todo[j]] = readPayout(ctx, pub, ids[todo[j]]) })
	}
}

// checkOrgs runs the balance check of every organization, a few at a time,
// over what all runs (runs[k].orgs[j] is run k's tally of organization j)
// accepted from it. It prints every failing organization's check and a
// summary.
func checkOrgs(ctx context.Context, orgs []*endpoint, clients int, starts []balance, holds []money.Amount,
	runs []*result, out io.Writer) (ok bool, err error) {
	n := len(orgs)
	conc := min(n, 16)
	per := max(1, clients/conc)
	outs := make([]bytes.Buffer, n)
	oks := make([]bool, n)
	accepted := 0
	for _, r := range runs {
		for _, t := range r.orgs {
			accepted += t.accepted
		}
	}
	if err := forEach(n, conc, func(j int) error {
		var r result
		for _, run := range runs {
			t := run.orgs[j]
			r.accepted += t.accepted
			r.ids = append(r.ids, t.ids...)
			r.unresolved += t.unresolved
		}
		var err error
		oks[j], err = checkBalance(ctx, orgs[j], per, starts[j], holds[j], &r, &outs[j])
		if err != nil {
			return fmt.Errorf("organization %d (%s): %w", j+1, orgs[j].org, err)
		}
		return nil
	}); err != nil {
		return false, err
	}
	failed := 0
	for j := range orgs {
		if !oks[j] {
			failed++
			fmt.Fprintf(out, "%-*s%d of %d, %s\n", labelWidth, "organization", j+1, n, orgs[j].org)
			out.Write(outs[j].Bytes())
		}
	}
	tw := newTable(out)
	defer tw.Flush()
	fmt.Fprintf(tw, "accepted holds\t%d payouts over %d organizations\n", accepted, n)
	if failed > 0 {
		fmt.Fprintf(tw, "balance check\tFAIL: %d of %d organizations\n", failed, n)
		return false, nil
	}
	fmt.Fprintf(tw, "balance check\tPASS (%d organizations)\n", n)
	return true, nil
}
