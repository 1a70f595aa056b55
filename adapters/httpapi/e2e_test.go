package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// The end-to-end journeys of a sandbox client, through the real HTTP
// handler, with the sandbox payout provider and the payout worker.

const sandboxWallet = "111100000112"

// payoutSteps is the order a payout moves through on success.
var payoutSteps = []string{"held", "submitted", "pending", "succeeded"}

type feeQuoteJSON struct {
	TotalFee   string  `json:"total_fee"`
	TotalDebit *string `json:"total_debit"`
}

func quotePayout(t testing.TB, e *testEnv, key, rail, amount string) feeQuoteJSON {
	t.Helper()
	var q feeQuoteJSON
	e.do(t, "POST", "/v1/fees/quote", feeBody("payout", rail, amount), hdr(key)).want(t, 200, "").decode(t, &q)
	if q.TotalDebit == nil {
		t.Fatalf("payout quote without total_debit: %+v", q)
	}
	return q
}

type balanceV1JSON struct {
	Available string `json:"available"`
	Held      string `json:"held"`
	Shortfall string `json:"shortfall"`
	Currency  string `json:"currency"`
}

func balanceV1(t testing.TB, e *testEnv, key string) balanceV1JSON {
	t.Helper()
	var b balanceV1JSON
	e.do(t, "GET", "/v1/balance", nil, hdr(key)).want(t, 200, "").decode(t, &b)
	return b
}

// wantAvailable compares the available balance with want exactly, as
// decimals.
func wantAvailable(t testing.TB, step string, b balanceV1JSON, want string) {
	t.Helper()
	if mwk(t, b.Available).Cmp(mwk(t, want)) != 0 || b.Available != mwk(t, want).String() {
		t.Errorf("%s: available %s, want %s", step, b.Available, want)
	}
}

// firstMomoInstitution reads GET /v1/institutions.
func firstMomoInstitution(t testing.TB, e *testEnv, key string) int {
	t.Helper()
	var list institutionList
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 200, "").decode(t, &list)
	for _, in := range list.Institutions {
		if in.Rail == "momo" {
			return in.ID
		}
	}
	t.Fatalf("no momo institution in %+v", list)
	return 0
}

func getPayout(t testing.TB, e *testEnv, key, id string) (payoutJSON, *resp) {
	t.Helper()
	var p payoutJSON
	r := e.do(t, "GET", "/v1/payouts/"+id, nil, hdr(key)).want(t, 200, "")
	r.decode(t, &p)
	return p, r
}

type failureJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (p payoutJSON) failure(t testing.TB) *failureJSON {
	t.Helper()
	if p.Failure == nil {
		return nil
	}
	var f failureJSON
	if err := json.Unmarshal(*p.Failure, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func isTerminal(status string) bool {
	return status == "succeeded" || status == "failed" || status == "reversed"
}

// startWorker runs the engine's payout worker in the background until the
// test ends.
func startWorker(t testing.TB, e *testEnv) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Engine.Work().RunPayoutWorker(ctx, 2*time.Millisecond) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunPayoutWorker: %v", err)
		}
	})
}

// pollUntilTerminal polls GET /v1/payouts/{id}, advancing the fake clock
// between reads, until the payout is terminal. With drive set it runs one
// worker pass per read itself; otherwise a background worker does. It
// returns the terminal payout, its body, and the statuses seen in order.
func pollUntilTerminal(t testing.TB, e *testEnv, key, id string, drive bool) (payoutJSON, *resp, []string) {
	t.Helper()
	var seen []string
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		if drive {
			if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
				t.Fatalf("ProcessPayouts: %v", err)
			}
		}
		p, r := getPayout(t, e, key, id)
		if len(seen) == 0 || seen[len(seen)-1] != p.Status {
			seen = append(seen, p.Status)
		}
		if isTerminal(p.Status) {
			return p, r, seen
		}
		if i > 200 || time.Now().After(deadline) {
			t.Fatalf("payout %s still %s after %d polls (seen %v)", id, p.Status, i, seen)
		}
		e.Clock.Advance(250 * time.Millisecond)
		if !drive {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func TestE2E_SandboxMomoPayout(t *testing.T) {
	e := newEnv(t, withSandboxProvider(2*time.Second))
	_, key := e.newOrg(t, orgSpec{name: "E2E Org"})

	// 1. The key works.
	ping := e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "").obj(t)
	if ping["org"] != "E2E Org" || ping["mode"] != "live" || ping["key_prefix"] != key[:16] {
		t.Errorf("ping = %v", ping)
	}
	// 2. What the payout will cost.
	const amount = "25000"
	quote := quotePayout(t, e, key, "momo", amount)
	// 3. Money in: a simulated collection credits the organization.
	col, _ := simulate(t, e, key, `{"amount_mwk":100000}`)
	before := balanceV1(t, e, key)
	wantAvailable(t, "after the collection", before, col.AmountCredited)
	if before.Held != "0.00" || before.Shortfall != "0.00" || before.Currency != "MWK" {
		t.Errorf("balance before the payout = %+v", before)
	}
	// 4. Where to: a momo institution; the sandbox test wallet.
	inst := firstMomoInstitution(t, e, key)
	body := fmt.Sprintf(`{"amount_mwk":"%s","institution_id":%d,"mobile_number":"%s","beneficiary_name":"Sandbox Wallet"}`, amount, inst, sandboxWallet)

	// 5. The payout, and a replay of it.
	idem := hdr(key, "Idempotency-Key", "e2e-momo-1")
	created := e.do(t, "POST", "/v1/payouts/momo", body, idem).want(t, 202, "")
	var p payoutJSON
	created.decode(t, &p)
	if p.Status != "held" || p.AmountMWK != "25000.00" || p.Fee != nil || p.TerminalAt != nil || p.Failure != nil ||
		p.Destination["mobile_number"] != sandboxWallet || p.Destination["institution_id"] != float64(inst) {
		t.Errorf("created payout = %+v", p)
	}
	replay := e.do(t, "POST", "/v1/payouts/momo", body, idem).want(t, 202, "")
	if !bytes.Equal(replay.Body, created.Body) {
		t.Errorf("replay body differs:\n%s\n%s", replay.Body, created.Body)
	}
	held := balanceV1(t, e, key)
	wantAvailable(t, "while held", held, mwkSub(t, before.Available, *quote.TotalDebit))
	if held.Held != *quote.TotalDebit {
		t.Errorf("held %s, want the quoted total_debit %s", held.Held, *quote.TotalDebit)
	}

	// 6. The worker pays it; the client polls.
	startWorker(t, e)
	done, doneBody, seen := pollUntilTerminal(t, e, key, p.ID, false)
	t.Logf("statuses seen while polling: %v", seen)
	if done.Status != "succeeded" {
		t.Fatalf("payout ended %s: %s", done.Status, doneBody.Body)
	}
	if !isOrderedSubsequence(seen, payoutSteps) {
		t.Errorf("statuses %v are not in the order %v", seen, payoutSteps)
	}
	if done.Fee == nil || *done.Fee != quote.TotalFee {
		t.Errorf("fee %v, want the quoted total_fee %s", done.Fee, quote.TotalFee)
	}
	if done.TerminalAt == nil || done.Failure != nil || done.ID != p.ID || done.CreatedAt != p.CreatedAt {
		t.Fatalf("succeeded payout = %s", doneBody.Body)
	}
	createdAt, err1 := time.Parse(time.RFC3339Nano, done.CreatedAt)
	terminalAt, err2 := time.Parse(time.RFC3339Nano, *done.TerminalAt)
	if err1 != nil || err2 != nil || terminalAt.Sub(createdAt) < 2*time.Second {
		t.Errorf("created_at %s, terminal_at %s: want the provider's 2s delay between them", done.CreatedAt, *done.TerminalAt)
	}
	if n, calls := e.Provider.Payments(p.ID), e.Provider.SubmitCalls(p.ID); n != 1 || calls != 1 {
		t.Errorf("the provider paid %d times over %d submissions, want once over one", n, calls)
	}
	// The list shows the same bytes; the replay still answers the original 202.
	var page payoutPage
	e.do(t, "GET", "/v1/payouts?status=succeeded", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Payouts) != 1 || !bytes.Equal(page.Payouts[0], doneBody.Body) {
		t.Errorf("succeeded list = %s", page.Payouts)
	}
	if again := e.do(t, "POST", "/v1/payouts/momo", body, idem).want(t, 202, ""); !bytes.Equal(again.Body, created.Body) {
		t.Errorf("replay after success answered %s, want the original %s", again.Body, created.Body)
	}

	// 7. The balance moved by exactly the quoted total_debit.
	after := balanceV1(t, e, key)
	wantAvailable(t, "after success", after, mwkSub(t, before.Available, *quote.TotalDebit))
	if after.Held != "0.00" || after.Shortfall != "0.00" {
		t.Errorf("balance after success = %+v", after)
	}
	// Nothing more happens however long the worker runs.
	e.Clock.Advance(time.Hour)
	time.Sleep(10 * time.Millisecond)
	if again, r := getPayout(t, e, key, p.ID); !bytes.Equal(r.Body, doneBody.Body) {
		t.Errorf("the payout changed after it was terminal: %+v", again)
	}
	checkLedger(t, e)
}

func TestE2E_SandboxPayoutToAnUnknownWalletFails(t *testing.T) {
	e := newEnv(t, withSandboxProvider(time.Second))
	_, key := e.newOrg(t, orgSpec{})
	simulate(t, e, key, `{"amount_mwk":"50000.00"}`)
	before := balanceV1(t, e, key)
	quote := quotePayout(t, e, key, "momo", "10000")

	// A well-formed number that is not a sandbox test wallet: accepted by
	// the API, refused by the sandbox provider.
	var p payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("10000"), hdr(key, "Idempotency-Key", "e2e-fail")).want(t, 202, "").decode(t, &p)
	if _, held := balance(t, e, key); held != *quote.TotalDebit {
		t.Errorf("held %s, want %s", held, *quote.TotalDebit)
	}
	done, doneBody, seen := pollUntilTerminal(t, e, key, p.ID, true)
	if done.Status != "failed" {
		t.Fatalf("payout ended %s (seen %v): %s", done.Status, seen, doneBody.Body)
	}
	f := done.failure(t)
	if f == nil || f.Code != "recipient_account_invalid" || f.Message == "" {
		t.Errorf("failure = %+v", f)
	}
	if done.Fee == nil || *done.Fee != "0.00" || done.TerminalAt == nil {
		t.Errorf("failed payout = %s", doneBody.Body)
	}
	after := balanceV1(t, e, key)
	wantAvailable(t, "after the failure", after, before.Available)
	if after.Held != "0.00" || after.Shortfall != "0.00" {
		t.Errorf("balance after the failure = %+v, want nothing held", after)
	}
	if n := e.Provider.Payments(p.ID); n != 1 {
		t.Errorf("the provider saw %d payments, want 1 (never retried automatically)", n)
	}
	checkLedger(t, e)
}

func TestE2E_SandboxClawback(t *testing.T) {
	e := newEnv(t, withSandboxProvider(time.Second))
	_, key := e.newOrg(t, orgSpec{})
	simulate(t, e, key, `{"amount_mwk":200000,"rail":"bank"}`)
	before := balanceV1(t, e, key)
	quote := quotePayout(t, e, key, "bank", "150000")

	var p payoutJSON
	bank := `{"amount_mwk":150000,"institution_id":1,"account_number":"3333888801","beneficiary_name":"Sandbox Account"}`
	e.do(t, "POST", "/v1/payouts/bank", bank, hdr(key, "Idempotency-Key", "e2e-claw")).want(t, 202, "").decode(t, &p)
	done, doneBody, _ := pollUntilTerminal(t, e, key, p.ID, true)
	if done.Status != "succeeded" || done.Fee == nil || *done.Fee != quote.TotalFee || done.TerminalAt == nil {
		t.Fatalf("payout before the clawback = %s", doneBody.Body)
	}
	paid := balanceV1(t, e, key)
	wantAvailable(t, "after success", paid, mwkSub(t, before.Available, *quote.TotalDebit))

	// Only a succeeded payout can be clawed back.
	var held payoutJSON
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "e2e-held")).want(t, 202, "").decode(t, &held)
	e.admin(t, "POST", "/admin/payouts/"+held.ID+"/clawback", nil).want(t, 409, "conflict")
	e.admin(t, "POST", "/admin/payouts/0190c4d2-7f3a-7b1e-8a2b-000000000000/clawback", nil).want(t, 404, "not_found")
	withHold := balanceV1(t, e, key)

	// The provider claws the first back, an hour later.
	e.Clock.Advance(time.Hour)
	e.admin(t, "POST", "/admin/payouts/"+p.ID+"/clawback", nil).want(t, 200, "")
	rev, revBody := getPayout(t, e, key, p.ID)
	if rev.Status != "reversed" || rev.Fee == nil || *rev.Fee != quote.TotalFee || rev.Failure != nil {
		t.Errorf("reversed payout = %s", revBody.Body)
	}
	if rev.TerminalAt == nil || *rev.TerminalAt != *done.TerminalAt {
		t.Errorf("terminal_at moved from %s to %v", *done.TerminalAt, rev.TerminalAt)
	}
	e.admin(t, "POST", "/admin/payouts/"+p.ID+"/clawback", nil).want(t, 409, "conflict")

	// The amount comes back; the fee stays charged; the other hold is untouched.
	after := balanceV1(t, e, key)
	back, err := mwk(t, withHold.Available).Add(mwk(t, "150000.00"))
	if err != nil {
		t.Fatal(err)
	}
	wantAvailable(t, "after the clawback", after, back.String())
	if after.Held != withHold.Held || after.Shortfall != "0.00" {
		t.Errorf("balance after the clawback = %+v, held before %s", after, withHold.Held)
	}
	// Net effect of the journey on available: the fee and the second hold.
	spent, err := mwk(t, quote.TotalFee).Add(mwk(t, withHold.Held))
	if err != nil {
		t.Fatal(err)
	}
	wantAvailable(t, "net", after, mwkSub(t, before.Available, spent.String()))

	// The worker leaves a reversed payout alone.
	for range 5 {
		if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Second)
	}
	if _, r := getPayout(t, e, key, p.ID); !bytes.Equal(r.Body, revBody.Body) {
		t.Errorf("the reversed payout changed: %s", r.Body)
	}
	var page payoutPage
	e.do(t, "GET", "/v1/payouts?status=reversed", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Payouts) != 1 || !bytes.Equal(page.Payouts[0], revBody.Body) {
		t.Errorf("reversed list = %s", page.Payouts)
	}
	checkLedger(t, e)
}

// isOrderedSubsequence reports whether seen lists distinct steps in the
// order of steps.
func isOrderedSubsequence(seen, steps []string) bool {
	i := 0
	for _, s := range seen {
		for i < len(steps) && steps[i] != s {
			i++
		}
		if i == len(steps) {
			return false
		}
		i++
	}
	return true
}
