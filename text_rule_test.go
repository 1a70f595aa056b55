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
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
)

// The engine's side of issue #20: text a person reads refuses invisible
// format characters (and every control character) in every use case that
// takes it, with validation_error and nothing created or held; a bank
// account number is checked against its institution (invalid_account_number)
// on /v1 and /v2.

// invisible are characters a reader does not see, one from each refused
// family, and a C1 control, which /v1 payouts accepted before.
var invisible = map[string]string{
	"RLO":                "\u202E",
	"isolate":            "\u2067",
	"zero width space":   "\u200B",
	"word joiner":        "\u2060",
	"BOM":                "\uFEFF",
	"Arabic letter mark": "\u061C",
	"soft hyphen":        "\u00AD",
	"C1 control":         "\u0085",
	// Default-ignorable code points that are not format characters
	// (issue #33): they render as nothing.
	"combining grapheme joiner": "\u034F",
	"Hangul filler":             "\u3164",
}

func bankRequest(account, name string) payouts.Request {
	return payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 1000),
		Destination: payouts.Destination{InstitutionID: 1, AccountNumber: account, BeneficiaryName: name}}
}

// requireNothingV1 checks the organization has no payout and holds nothing.
func requireNothingV1(t *testing.T, e *tambala.Engine, p tambala.Principal) {
	t.Helper()
	ctx := context.Background()
	page, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{Limit: 10}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "a refused payout creates nothing")
	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.True(t, b.Held.IsZero(), "a refused payout holds nothing: held %s", b.Held)
}

func TestInvisibleTextV1Payouts(t *testing.T) {
	s := memstore.New()
	e, err := tambala.New(s, nil)
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "100000.00")
	ctx := context.Background()
	for what, c := range invisible {
		for field, r := range map[string]payouts.Request{
			"beneficiary_name": bankRequest("3333888800", "Chikondi"+c+"Banda"),
			"account_number":   bankRequest("33338888"+c+"00", "Chikondi Banda"), // the text rule before the account number's format: 400, not 422
			"beneficiary_name ": {Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 1000),
				Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: c + "Chikondi Banda"}},
		} {
			_, err := e.Client(p).V1().CreatePayout(ctx, r, tambala.Idempotency{Key: "k-" + what})
			requireCode(t, errcode.ValidationError, err, "%s in %s", what, field)
			assert.Contains(t, errcode.Message(err), strings.TrimSpace(field))
		}
		// Through a body, as the HTTP binding decodes it.
		body := fmt.Sprintf(`{"amount_mwk":1000,"institution_id":1,"account_number":"3333888800","beneficiary_name":%q}`, "Chikondi"+c+"Banda")
		_, err := createFromBody(ctx, e, p, payouts.Bank, "body-"+what, []byte(body))
		requireCode(t, errcode.ValidationError, err, "%s in a body", what)
	}
	requireNothingV1(t, e, p)
	// The key of a refused request is free; names of other scripts pass.
	for i, name := range []string{"Chikondi Banda", "Łukasz Żółkiewski", "Ŵongani Mhango", "محمد بن علي"} {
		c, err := e.Client(p).V1().CreatePayout(ctx, bankRequest("3333888800", name), tambala.Idempotency{Key: fmt.Sprint("k-RLO", i)})
		require.NoError(t, err, name)
		assert.Equal(t, name, c.Resource.Destination.BeneficiaryName)
	}
	require.NoError(t, ledger.CheckStore(ctx, s))
}

func TestInvisibleTextV2Payouts(t *testing.T) {
	d := newPV2Env(t, memstore.New(), nil)
	for what, c := range invisible {
		bank := bankDest()
		bank.BeneficiaryName = "Chikondi " + c + "Banda"
		acct := bankDest()
		acct.AccountNumber = c + pv2Bank
		mm := momoDest()
		mm.BeneficiaryName += c
		for _, dest := range []tambala.PayoutV2Destination{bank, acct, mm} {
			_, err := d.payFor(d.p, "MWK", "MWK", "1000", dest)
			requireCode(t, errcode.ValidationError, err, "%s in %+v", what, dest)
			_, err = d.payFor(d.p, "USDT", "MWK", "1000", dest)
			requireCode(t, errcode.ValidationError, err, "%s in an FX payout", what)
		}
	}
	page, err := d.e.Client(d.p).Payouts(d.ctx, tambala.PageRequest{Limit: 10}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.True(t, d.balance(t, d.org.ID, money.MWK).Held.IsZero())
	d.requireUSDT(t, "1000.000000", "0.000000")
	d.check(t)
}

func TestInvisibleTextDeskOrders(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	q := d.quote(t, "USDT", "MWK", "10")
	for what, c := range invisible {
		edits := map[string]func(*orders.Beneficiary){
			"name":           func(b *orders.Beneficiary) { b.Name = "Chikondi" + c + " Banda" },
			"bank_name":      func(b *orders.Beneficiary) { b.BankName += c },
			"account_number": func(b *orders.Beneficiary) { b.AccountNumber = c + b.AccountNumber },
			"branch":         func(b *orders.Beneficiary) { b.Branch = strp("Lilongwe" + c) },
		}
		for field, edit := range edits {
			b := deskBeneficiary()
			edit(b)
			_, err := d.createFor(d.p, q.ID, d.next("ref"), b, d.next("key"))
			requireCode(t, errcode.ValidationError, err, "%s in beneficiary.%s", what, field)
			assert.Contains(t, errcode.Message(err), "beneficiary."+field)
		}
		_, err := d.createFor(d.p, q.ID, "inv"+c+"-1001", deskBeneficiary(), d.next("key"))
		requireCode(t, errcode.ValidationError, err, "%s in client_ref", what)
	}
	assert.Empty(t, d.listAll(t, tambala.OrderFilter{}), "a refused order creates nothing")
	d.requireUSDT(t, "1000.000000", "0.000000")
	o := d.create(t, q.ID, &orders.Beneficiary{Name: "محمد بن علي", BankName: "National Bank of Malawi", AccountNumber: "1001234567"})
	assert.Equal(t, orders.Accepted, o.Status, "the quote stayed unused; Arabic letters pass")

	// The desk's own text: funding instructions and a proof's rejection.
	fb := d.fromBank(t, "5000.00")
	for what, c := range invisible {
		for _, in := range []orders.Instructions{
			{BankName: "Standard Bank" + c, AccountName: "Tambala Desk Ltd", AccountNumber: "9100000123"},
			{BankName: "Standard Bank Malawi", AccountName: c + "Tambala Desk Ltd", AccountNumber: "9100000123"},
			{BankName: "Standard Bank Malawi", AccountName: "Tambala Desk Ltd", AccountNumber: "91000" + c + "00123"},
		} {
			_, err := d.e.Operator().Desk().MoveOrder(d.ctx, fb.ID, in)
			requireCode(t, errcode.ValidationError, err, "%s in instructions", what)
		}
	}
	assert.Equal(t, orders.AwaitingInstructions, d.order(t, fb.ID).Status)
	assert.Nil(t, d.order(t, fb.ID).Funding)
	d.move(t, fb.ID, deskInstructions())
	up, err := d.upload(d.p, fb.ID, "application/pdf", deskPDF)
	require.NoError(t, err)
	for what, c := range invisible {
		_, err := d.e.Operator().Desk().MoveOrder(d.ctx, fb.ID, orders.RejectProof{ProofID: up.Proof.ID, Reason: "Amount does not match" + c})
		requireCode(t, errcode.ValidationError, err, "%s in a rejection reason", what)
	}
	cur := d.order(t, fb.ID)
	assert.Equal(t, orders.ProofSubmitted, cur.Status)
	assert.Nil(t, cur.Proof.RejectedReason)
	d.check(t)
}

func TestInvisibleTextOperatorInput(t *testing.T) {
	d := newDeskEnv(t, memstore.New(), nil)
	before, err := d.e.Operator().Organizations(d.ctx)
	require.NoError(t, err)
	mwkBefore := d.balance(t, d.org.ID, money.MWK)
	usdtBefore := d.balance(t, d.org.ID, money.USDT)
	for what, c := range invisible {
		_, err := d.e.Operator().CreateOrganization(d.ctx, tambala.NewOrganization{Name: "Acme" + c + " Ltd"})
		requireCode(t, errcode.ValidationError, err, "%s in an organization name", what)
		requireCode(t, errcode.ValidationError,
			d.e.Operator().Fund(d.ctx, d.org.ID, money.FromInt(money.MWK, 100), "opening"+c), "%s in a funding ref", what)
		_, err = d.e.Operator().Desk().RecordTrade(d.ctx, d.org.ID, tambala.NewTrade{Ref: "TRD" + c + "-1", USDTAmount: money.FromInt(money.USDT, 1), ClientRate: money.MustRate("1750")})
		requireCode(t, errcode.ValidationError, err, "%s in a trade ref", what)
		_, err = d.e.Operator().Desk().RecordDeposit(d.ctx, d.org.ID, tambala.Deposit{Network: "tron", Asset: "USDT", Amount: money.FromInt(money.USDT, 5), TxRef: "0xabc" + c})
		requireCode(t, errcode.ValidationError, err, "%s in a deposit's tx_ref", what)
	}
	after, err := d.e.Operator().Organizations(d.ctx)
	require.NoError(t, err)
	assert.Len(t, after, len(before), "no organization created")
	assert.Equal(t, mwkBefore, d.balance(t, d.org.ID, money.MWK), "nothing funded or traded")
	assert.Equal(t, usdtBefore, d.balance(t, d.org.ID, money.USDT), "nothing deposited")
	trades, err := d.e.Client(d.p).Trades(d.ctx, tambala.PageRequest{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, trades.Items)
	cols, err := d.e.Client(d.p).Collections(d.ctx, tambala.PageRequest{Limit: 10}, tambala.CollectionV2Filter{})
	require.NoError(t, err)
	assert.Empty(t, cols.Items)
	org, err := d.e.Operator().CreateOrganization(d.ctx, tambala.NewOrganization{Name: "Łukasz & Chikondi Ltd"})
	require.NoError(t, err)
	assert.Equal(t, "Łukasz & Chikondi Ltd", org.Name)
	d.check(t)
}

func TestInvisibleTextResolutionReason(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	id := w.payout(t, payouts.Momo, momo("111100000112", 100))
	w.run(t, 1, 0) // submitted, then pending: in flight
	ctx := context.Background()
	for what, c := range invisible {
		_, err := w.engine.Operator().BackOffice().ResolvePayout(ctx, id, tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined, Reason: "bounced" + c + " twice"}) // in the middle: the reason is trimmed
		requireCode(t, errcode.ValidationError, err, "%s in a resolution reason", what)
	}
	po, err := w.engine.Client(w.p).V1().Payout(ctx, id)
	require.NoError(t, err)
	assert.False(t, po.Status.Terminal(), "the payout is still in flight: %s", po.Status)
}

// TestAccountNumberV1: a bank payout's account number is digits only, as
// many as its institution takes, else 422 invalid_account_number with
// nothing created or held; the check comes after the institution's.
func TestAccountNumberV1(t *testing.T) {
	s := memstore.New()
	e, err := tambala.New(s, nil)
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "1000000.00")
	ctx := context.Background()
	req := func(inst int, account string) payouts.Request {
		r := bankRequest(account, "Chikondi Banda")
		r.Destination.InstitutionID = inst
		return r
	}
	for _, c := range []struct {
		inst    int
		account string
		code    errcode.Code
	}{
		{1, "12345", errcode.InvalidAccountNumber},          // National Bank of Malawi: 6 to 13
		{1, "12345678901234", errcode.InvalidAccountNumber}, // 14
		{1, "3333-888800", errcode.InvalidAccountNumber},
		{1, "3333 888800", errcode.InvalidAccountNumber},
		{1, "33338888OO", errcode.InvalidAccountNumber},    // letters O
		{1, "٣٣٣٣٨٨٨٨٠٠", errcode.InvalidAccountNumber},    // Arabic-Indic digits
		{1, "３３３３８８８８００", errcode.InvalidAccountNumber},    // fullwidth digits
		{2, "123456789", errcode.InvalidAccountNumber},     // Standard Bank Malawi: 10 to 13
		{4, "1234567890123", errcode.InvalidAccountNumber}, // NBS Bank: 6 to 12
		{5, "1234567", errcode.InvalidAccountNumber},       // First Capital Bank: 8 to 14
		{999, "abc", errcode.UnknownInstitution},           // the institution first
		{101, "abc", errcode.UnknownInstitution},           // a momo institution on the bank rail
	} {
		_, err := e.Client(p).V1().CreatePayout(ctx, req(c.inst, c.account), tambala.Idempotency{Key: "k"})
		requireCode(t, c.code, err, "institution %d account %q", c.inst, c.account)
		if c.code == errcode.InvalidAccountNumber {
			assert.Regexp(t, `\d+ to \d+ digits`, errcode.Message(err), "the message gives the range")
			assert.NotContains(t, errcode.Message(err), c.account, "the message never quotes the number")
		}
	}
	// Through a body: the same answer.
	_, err = createFromBody(ctx, e, p, payouts.Bank, "k", []byte(`{"amount_mwk":1000,"institution_id":3,"account_number":"12-34567890","beneficiary_name":"A"}`))
	requireCode(t, errcode.InvalidAccountNumber, err)
	requireNothingV1(t, e, p)

	// Every sandbox test account at every bank, and each bank's bounds.
	n := 0
	pay := func(inst int, account string) {
		t.Helper()
		n++
		_, err := e.Client(p).V1().CreatePayout(ctx, req(inst, account), tambala.Idempotency{Key: fmt.Sprint("ok-", n)})
		require.NoError(t, err, "institution %d account %q", inst, account)
	}
	for _, in := range payouts.DefaultInstitutions() {
		if in.Rail != payouts.Bank {
			continue
		}
		for _, a := range tambala.SandboxBankAccounts {
			pay(in.ID, a)
		}
		lo, hi := in.AccountNumberDigits()
		pay(in.ID, fmt.Sprintf("%0*d", lo, 7))
		pay(in.ID, fmt.Sprintf("%0*d", hi, 7))
	}
	require.NoError(t, ledger.CheckStore(ctx, s))
}

// TestAccountNumberV2: /v2 bank payouts follow the same rule, same-asset
// and FX alike, after the institution's check and before the limits.
func TestAccountNumberV2(t *testing.T) {
	d := newPV2Env(t, memstore.New(), nil)
	for _, c := range []struct {
		inst    int
		account string
		code    errcode.Code
	}{
		{1, "3333-888801", errcode.InvalidAccountNumber},
		{1, "12345", errcode.InvalidAccountNumber},
		{3, "123456789", errcode.InvalidAccountNumber},
		{999, "x", errcode.UnknownInstitution},
	} {
		dest := bankDest()
		dest.InstitutionID, dest.AccountNumber = c.inst, c.account
		_, err := d.payFor(d.p, "MWK", "MWK", "1000", dest)
		requireCode(t, c.code, err, "%+v", dest)
		_, err = d.payFor(d.p, "USDT", "MWK", "1000", dest)
		requireCode(t, c.code, err, "FX %+v", dest)
	}
	page, err := d.e.Client(d.p).Payouts(d.ctx, tambala.PageRequest{Limit: 10}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.True(t, d.balance(t, d.org.ID, money.MWK).Held.IsZero())
	d.requireUSDT(t, "1000.000000", "0.000000")
	for _, a := range tambala.SandboxBankAccounts[:3] {
		dest := bankDest()
		dest.AccountNumber = a
		d.pay(t, "MWK", "MWK", "1000", dest)
	}
}

// TestAccountNumberSyncedRanges: synced reference data carries each bank's
// range (zero: 6 to 16 digits); a list that breaks the rules replaces
// nothing.
func TestAccountNumberSyncedRanges(t *testing.T) {
	s := memstore.New()
	clock := &fakeClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Environment: tambala.Production, Clock: clock.Now})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "100000.00")
	ctx := context.Background()
	good := []payouts.Institution{
		{ID: 7, Name: "Exact Eight Bank", Rail: payouts.Bank, AccountNumberMinDigits: 8, AccountNumberMaxDigits: 8},
		{ID: 8, Name: "Default Bank", Rail: payouts.Bank},
		{ID: 9, Name: "Low Bank", Rail: payouts.Bank, AccountNumberMinDigits: 2},
		{ID: 101, Name: "Airtel Money", Rail: payouts.Momo, Network: "9"},
	}
	require.NoError(t, e.Operator().SyncInstitutions(ctx, good))
	for i, bad := range [][]payouts.Institution{
		{{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMinDigits: 9, AccountNumberMaxDigits: 8}},
		{{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMinDigits: 17}}, // above the default max
		{{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMaxDigits: 35}},
		{{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMinDigits: -1}},
		{{ID: 101, Name: "Airtel", Rail: payouts.Momo, Network: "9", AccountNumberMaxDigits: 10}},
		{{ID: 7, Name: "Bank\u202E", Rail: payouts.Bank}},
		{{ID: 7, Name: "", Rail: payouts.Bank}},
		{{ID: 0, Name: "B", Rail: payouts.Bank}},
		{{ID: 7, Name: "B", Rail: "card"}},
		{{ID: 101, Name: "Airtel", Rail: payouts.Momo}},
	} {
		err := e.Operator().SyncInstitutions(ctx, bad)
		requireCode(t, errcode.ValidationError, err, "list %d", i)
	}
	list, _, err := e.Client(p).Institutions(ctx)
	require.NoError(t, err)
	assert.Len(t, list, len(good), "a refused sync replaces nothing")

	for _, c := range []struct {
		inst    int
		account string
		ok      bool
	}{
		{7, "12345678", true}, {7, "1234567", false}, {7, "123456789", false},
		{8, "123456", true}, {8, "1234567890123456", true}, {8, "12345", false}, {8, "12345678901234567", false},
		{9, "12", true}, {9, "1", false},
	} {
		r := bankRequest(c.account, "A")
		r.Destination.InstitutionID = c.inst
		_, err := e.Client(p).V1().CreatePayout(ctx, r, tambala.Idempotency{Key: fmt.Sprint(c.inst, "-", c.account)})
		if c.ok {
			require.NoError(t, err, "institution %d account %s", c.inst, c.account)
		} else {
			requireCode(t, errcode.InvalidAccountNumber, err, "institution %d account %s", c.inst, c.account)
		}
	}
	// A new engine over the same store reads the synced ranges back.
	e2, err := tambala.New(s, &tambala.Options{Environment: tambala.Production, Clock: clock.Now})
	require.NoError(t, err)
	r := bankRequest("1234567", "A")
	r.Destination.InstitutionID = 7
	_, err = e2.Client(actFor(e2, p.Org.ID)).V1().CreatePayout(ctx, r, tambala.Idempotency{Key: "again"})
	requireCode(t, errcode.InvalidAccountNumber, err)
	require.NoError(t, ledger.CheckStore(ctx, s))
}
