package tambala_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/manualrail"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
	"github.com/tambalapay/tambala/store"
)

// reconEnv is an engine on the manual rail with an organization, momo
// payouts of 100 (ok, short, bounced, gone) resolved succeeded, two in
// flight (open of 100, big of 4000), and a momo collection of 500 with
// RTP reference RTP77.
type reconEnv struct {
	ctx                                 context.Context
	s                                   store.Store
	clock                               *fakeClock
	e                                   *tambala.Engine
	op                                  *tambala.BackOffice
	ok, short, bounced, gone, open, big string
	collection                          string
	at                                  time.Time // when the payouts resolved
}

func newReconEnv(t *testing.T, s store.Store) *reconEnv {
	t.Helper()
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Clock: clock.Now, Payouts: manualrail.New(nil)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ledger.CheckStore(context.Background(), s)) })
	p := fundedPrincipal(t, e, "100000.00")
	r := &reconEnv{ctx: ctx, s: s, clock: clock, e: e, op: e.Operator().BackOffice()}
	pay := func(key, amount string) string {
		c, err := e.Client(p).V1().CreatePayout(ctx, momoRequest(amount), tambala.Idempotency{Key: key})
		require.NoError(t, err)
		return c.Resource.ID
	}
	r.ok, r.short, r.bounced, r.gone, r.open, r.big = pay("a", "100"), pay("b", "100"), pay("c", "100"), pay("d", "100"), pay("e", "100"), pay("f", "4000")
	for range 3 {
		_, err := e.Work().ProcessPayouts(ctx)
		require.NoError(t, err)
		clock.Advance(time.Second)
	}
	r.at = clock.Now().UTC().Truncate(time.Millisecond)
	for _, id := range []string{r.ok, r.short, r.bounced, r.gone} {
		got, err := e.Operator().BackOffice().ResolvePayout(ctx, id, tambala.Resolution{Outcome: payouts.Succeeded, Reason: "paid"})
		require.NoError(t, err)
		require.Equal(t, payouts.Succeeded, got.Status)
	}
	c, err := e.Operator().RecordCollection(ctx, p.Org.ID, tambala.NewCollection{Amount: money.FromInt(money.MWK, 500),
		Rail: payouts.Momo, RTPReferenceNumber: "RTP77"})
	require.NoError(t, err)
	r.collection = c.ID
	for _, id := range []string{r.open, r.big} {
		list, err := e.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
		require.NoError(t, err)
		require.True(t, func() bool {
			for _, f := range list {
				if f.Payout.ID == id && f.Payout.Status == payouts.Pending {
					return true
				}
			}
			return false
		}(), id)
	}
	return r
}

// file is a settlement file in the default mapping, every line at r.at
// plus its hour offset.
func (r *reconEnv) file(number int, lines ...string) string {
	var b strings.Builder
	b.WriteString("reference,amount,currency,status,time,file_number\n")
	for _, l := range lines {
		f := strings.Split(l, " ")
		h := 0
		if len(f) > 3 {
			fmt.Sscan(f[3], &h)
		}
		num := ""
		if number != 0 {
			num = fmt.Sprint(number)
		}
		fmt.Fprintf(&b, "%s,%s,MWK,%s,%s,%s\n", f[0], f[1], f[2], r.at.Add(time.Duration(h)*time.Hour).Format(time.RFC3339), num)
	}
	return b.String()
}

func (r *reconEnv) audit(t *testing.T, action tambala.AuditAction) []tambala.AuditEntry {
	t.Helper()
	page, err := r.e.People().AuditTrail(r.ctx, tambala.PageRequest{Limit: 100}, tambala.AuditFilter{Action: action})
	require.NoError(t, err)
	return page.Items
}

func groups(rep tambala.SettlementReport) []string {
	var out []string
	for _, l := range rep.Lines {
		out = append(out, fmt.Sprintf("%d %s %s", l.Line.Number, l.Group, strings.Join(l.Items, "+")))
	}
	return out
}

// TestReconciliationGroups: on every store, an imported file's lines land
// in the matched, amount-differs, status-differs and file-only groups,
// and a terminal payout of the window that no line names in the fifth;
// the import is audited and kept with every line.
func TestReconciliationGroups(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		r := newReconEnv(t, k.Open(t))
		imp, err := r.op.Import(r.ctx, tambala.SettlementFile{Rail: payouts.Momo, Name: "momo-7.csv", Content: r.file(7,
			r.ok+" 100.00 settled -1", r.short+" 99 settled", r.bounced+" 100 failed", r.open+" 100 settled 1",
			"RTP77 500 paid", "stranger 5 settled")})
		require.NoError(t, err)
		assert.False(t, imp.Repeated)
		assert.Equal(t, 7, imp.FileNumber)
		assert.Equal(t, 6, imp.Lines)
		rep, err := r.op.Report(r.ctx, imp.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"2 matched " + r.ok, "3 amount_differs " + r.short, "4 status_differs " + r.bounced,
			"5 matched " + r.open, "6 matched " + r.collection, "7 file_only "}, groups(rep))
		assert.Equal(t, []string{r.open}, rep.Lines[3].InFlight)
		assert.Empty(t, rep.Lines[0].InFlight)
		require.Len(t, rep.Missing, 1)
		assert.Equal(t, r.gone, rep.Missing[0].ID, "terminal in the window, in no line")
		assert.Equal(t, reconcile.Payout, rep.Missing[0].Kind)
		a := r.audit(t, tambala.AuditSettlementImported)
		require.Len(t, a, 1)
		assert.Equal(t, imp.ID, a[0].Target)
		assert.Contains(t, a[0].Summary, `momo file "momo-7.csv", number 7, 6 lines, sha256 `+imp.SHA256)

		// A batch: one line naming two payouts by the provider's
		// reference their resolutions share.
		for _, id := range []string{r.open, r.big} {
			_, err := r.e.Operator().BackOffice().ResolvePayout(r.ctx, id, tambala.Resolution{Outcome: payouts.Succeeded, Reason: "batch", Reference: "BATCH-1"})
			require.NoError(t, err)
		}
		imp2, err := r.op.Import(r.ctx, tambala.SettlementFile{Rail: payouts.Momo, Name: "momo-8.csv", Content: r.file(8, "BATCH-1 4100 settled")})
		require.NoError(t, err)
		rep, err = r.op.Report(r.ctx, imp2.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"2 matched " + strings.Join(sortedPair(r.open, r.big), "+")}, groups(rep))
	})
}

func sortedPair(a, b string) []string {
	if a > b {
		return []string{b, a}
	}
	return []string{a, b}
}

// TestReconciliationImportTwiceAndMalformed: on every store, the same
// file again changes nothing (same import, Repeated, no second audit
// entry); a file with malformed lines is refused with their numbers and
// nothing is kept.
func TestReconciliationImportTwiceAndMalformed(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		r := newReconEnv(t, k.Open(t))
		f := tambala.SettlementFile{Rail: payouts.Momo, Name: "a.csv", Content: r.file(1, r.ok+" 100 settled")}
		first, err := r.op.Import(r.ctx, f)
		require.NoError(t, err)
		f.Name = "renamed.csv"
		again, err := r.op.Import(r.ctx, f)
		require.NoError(t, err)
		assert.True(t, again.Repeated)
		again.Repeated = false
		assert.Equal(t, first, again)
		assert.Len(t, r.audit(t, tambala.AuditSettlementImported), 1)

		bad := "reference,amount,currency,status,time\n" + r.ok + ",100,MWK,settled,2026-11-21\n" +
			"x,-5,MWK,settled,2026-11-21\n" + "y,5,MWK,lost,2026-11-21\n" + "z,5,MWK,settled,never\n"
		_, err = r.op.Import(r.ctx, tambala.SettlementFile{Rail: payouts.Momo, Name: "bad.csv", Content: bad})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		for _, n := range []string{"line 3:", "line 4:", "line 5:"} {
			assert.Contains(t, err.Error(), n)
		}
		assert.NotContains(t, err.Error(), "line 2:")
		list, _, _, err := r.op.Imports(r.ctx, payouts.Momo)
		require.NoError(t, err)
		require.Len(t, list, 1, "nothing kept of the refused file")
		assert.Equal(t, first.ID, list[0].ID)
		assert.Len(t, r.audit(t, tambala.AuditSettlementImported), 1)
	})
}

// TestReconciliationBulkResolve: on every store, payouts in flight that a
// file settles are resolved in bulk from the matched group through the
// resolution use case, a failed one above the threshold waits for a
// second staff member; a payout not in flight in the matched group is
// refused; the bulk and each explained line are audited.
func TestReconciliationBulkResolve(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		r := newReconEnv(t, k.Open(t))
		require.NoError(t, r.e.Operator().Approvals().SetThreshold(r.ctx, "MWK", money.FromInt(money.MWK, 1000)))
		imp, err := r.op.Import(r.ctx, tambala.SettlementFile{Rail: payouts.Momo, Name: "f.csv", Content: r.file(0,
			r.ok+" 100 settled", r.short+" 1 settled", r.open+" 100 settled", r.big+" 4000 failed")})
		require.NoError(t, err)
		done, err := r.op.ResolveMatched(r.ctx, imp.ID, tambala.BulkResolution{Payouts: []string{r.open, r.big, r.short, r.ok}, Reason: "statement 7"})
		require.NoError(t, err)
		assert.Equal(t, []string{r.open}, done.Resolved)
		require.Len(t, done.Pending, 1)
		assert.Equal(t, r.big, done.Pending[0].Key)
		assert.Equal(t, errcode.Conflict, errcode.Of(done.Refused[r.short]), "amount differs: not matched")
		assert.Equal(t, errcode.Conflict, errcode.Of(done.Refused[r.ok]), "already succeeded")
		list, err := r.e.Operator().BackOffice().PayoutsInFlight(r.ctx, tambala.InFlightFilter{})
		require.NoError(t, err)
		require.Len(t, list, 1, "open resolved, big waits for a second staff member")
		assert.Equal(t, r.big, list[0].Payout.ID)
		a := r.audit(t, tambala.AuditSettlementResolved)
		require.Len(t, a, 1)
		assert.Contains(t, a[0].Summary, "resolved "+r.open)
		res := r.audit(t, tambala.AuditPayoutResolved)
		assert.Contains(t, res[0].Summary, `statement 7 (settlement file \"f.csv\" line 4)`)

		_, err = r.op.ResolveMatched(r.ctx, imp.ID, tambala.BulkResolution{})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "nothing resolved without naming each payout")
		_, err = r.op.ResolveMatched(r.ctx, imp.ID, tambala.BulkResolution{Payouts: []string{r.big}, Reason: strings.Repeat("r", 251)})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))

		require.NoError(t, r.op.Explain(r.ctx, imp.ID, 3, "bank fee taken at source"))
		assert.Equal(t, errcode.NotFound, errcode.Of(r.op.Explain(r.ctx, imp.ID, 99, "x")))
		assert.Equal(t, errcode.ValidationError, errcode.Of(r.op.Explain(r.ctx, imp.ID, 3, " ")))
		rep, err := r.op.Report(r.ctx, imp.ID)
		require.NoError(t, err)
		require.NotNil(t, rep.Lines[1].Explained)
		assert.Equal(t, "bank fee taken at source", rep.Lines[1].Explained.Reason)
		assert.Len(t, r.audit(t, tambala.AuditSettlementExplained), 1)

		// A support staff member reads but neither imports, resolves nor
		// explains.
		_, tok := enrolStaff(t, r.e, r.ctx, r.clock, "sam@operator.example", accounts.StaffSupport)
		staff, err := r.e.StaffSessions().Operator(r.ctx, tok)
		require.NoError(t, err)
		_, err = staff.BackOffice().Report(r.ctx, imp.ID)
		require.NoError(t, err)
		_, err = staff.BackOffice().Import(r.ctx, tambala.SettlementFile{Rail: payouts.Momo, Name: "g.csv", Content: r.file(0, "q 1 settled")})
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		_, err = staff.BackOffice().ResolveMatched(r.ctx, imp.ID, tambala.BulkResolution{Payouts: []string{r.big}})
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		assert.Equal(t, errcode.Forbidden, errcode.Of(staff.BackOffice().Explain(r.ctx, imp.ID, 2, "x")))
	})
}

// TestReconciliationFileNumbers: a rail's mapping is configured, and a
// missing or repeated file number shows.
func TestReconciliationFileNumbers(t *testing.T) {
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		r := newReconEnv(t, k.Open(t))
		m := reconcile.Mapping{Reference: "PSP Reference", Amount: "Net", Currency: "Ccy", Status: "Type", Time: "Booked", FileNumber: "Batch"}
		require.NoError(t, r.op.SetMapping(r.ctx, payouts.Bank, m))
		got, err := r.op.Mapping(r.ctx, payouts.Bank)
		require.NoError(t, err)
		assert.Equal(t, m, got)
		got, err = r.op.Mapping(r.ctx, payouts.Momo)
		require.NoError(t, err)
		assert.Equal(t, reconcile.DefaultMapping(), got)
		assert.Len(t, r.audit(t, tambala.AuditSettlementMappingSet), 1)
		assert.Equal(t, errcode.ValidationError, errcode.Of(r.op.SetMapping(r.ctx, payouts.Bank, reconcile.Mapping{Reference: "r"})))

		for i, n := range []int{1, 3, 3} {
			_, err := r.op.Import(r.ctx, tambala.SettlementFile{Rail: payouts.Bank, Name: fmt.Sprintf("b%d", i),
				Content: fmt.Sprintf("Booked,PSP Reference,Net,Ccy,Type,Batch\n2026-11-21,ref%d,1,MWK,settled,%d\n", i, n)})
			require.NoError(t, err)
		}
		list, missing, repeated, err := r.op.Imports(r.ctx, payouts.Bank)
		require.NoError(t, err)
		assert.Len(t, list, 3)
		assert.Equal(t, []int{2}, missing)
		assert.Equal(t, []int{3}, repeated)
		rep, err := r.op.Report(r.ctx, list[0].ID)
		require.NoError(t, err)
		assert.Equal(t, []int{2}, rep.MissingNumbers)
		assert.Equal(t, []int{3}, rep.RepeatedNumbers)
	})
}
