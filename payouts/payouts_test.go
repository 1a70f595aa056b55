package payouts_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func mwk(s string) money.Amount {
	a, err := money.Parse(money.MWK, s)
	if err != nil {
		panic(err)
	}
	return a
}

func TestValidateTypedRequest(t *testing.T) {
	ok := payouts.Request{Rail: payouts.Bank, Amount: mwk("100"), Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "1", BeneficiaryName: "A"}}
	require.NoError(t, ok.Validate(nil))
	cases := []struct {
		name string
		edit func(*payouts.Request)
		code errcode.Code
	}{
		{"no rail", func(r *payouts.Request) { r.Rail = "" }, errcode.ValidationError},
		{"zero amount", func(r *payouts.Request) { r.Amount = mwk("0") }, errcode.ValidationError},
		{"unset amount", func(r *payouts.Request) { r.Amount = money.Amount{} }, errcode.ValidationError},
		{"USDT amount", func(r *payouts.Request) { r.Amount = money.FromInt(money.USDT, 1) }, errcode.ValidationError},
		{"above the maximum", func(r *payouts.Request) { r.Amount = money.FromInt(money.MWK, 1_000_000_000_001) }, errcode.ValidationError},
		{"no institution", func(r *payouts.Request) { r.Destination.InstitutionID = 0 }, errcode.ValidationError},
		{"no name", func(r *payouts.Request) { r.Destination.BeneficiaryName = "" }, errcode.ValidationError},
		{"name too long", func(r *payouts.Request) { r.Destination.BeneficiaryName = strings.Repeat("a", 201) }, errcode.ValidationError},
		{"no account", func(r *payouts.Request) { r.Destination.AccountNumber = "" }, errcode.ValidationError},
		{"bank with mobile number", func(r *payouts.Request) { r.Destination.MobileNumber = "265991234567" }, errcode.ValidationError},
		{"momo without number", func(r *payouts.Request) { r.Rail, r.Destination.AccountNumber = payouts.Momo, "" }, errcode.ValidationError},
		{"momo bad number", func(r *payouts.Request) {
			r.Rail, r.Destination.AccountNumber, r.Destination.MobileNumber = payouts.Momo, "", "0991234567"
		}, errcode.InvalidMobileNumber},
		{"momo with account", func(r *payouts.Request) { r.Rail, r.Destination.MobileNumber = payouts.Momo, "265991234567" }, errcode.ValidationError},
	}
	for _, c := range cases {
		r := ok
		c.edit(&r)
		assert.Equal(t, c.code, errcode.Of(r.Validate(nil)), c.name)
	}
}

func TestRequestFingerprint(t *testing.T) {
	a := payouts.Request{Rail: payouts.Bank, Amount: mwk("100"), Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "12", BeneficiaryName: "A"}}
	b := a
	assert.Equal(t, a.Fingerprint(), b.Fingerprint())
	b.Amount = mwk("100.00") // the same amount written otherwise is the same request
	assert.Equal(t, a.Fingerprint(), b.Fingerprint())
	for _, edit := range []func(*payouts.Request){
		func(r *payouts.Request) { r.Amount = mwk("100.01") },
		func(r *payouts.Request) { r.Rail = payouts.Momo },
		func(r *payouts.Request) { r.Destination.InstitutionID = 2 },
		func(r *payouts.Request) { r.Destination.AccountNumber = "1"; r.Destination.BeneficiaryName = "2A" }, // length-prefixed
		func(r *payouts.Request) { r.Destination.BeneficiaryName = "B" },
	} {
		c := a
		edit(&c)
		assert.NotEqual(t, a.Fingerprint(), c.Fingerprint())
	}
}

func TestCheckInstitution(t *testing.T) {
	insts := payouts.DefaultInstitutions()
	req := func(rail payouts.Rail, id int, number string) payouts.Request {
		return payouts.Request{Rail: rail, Amount: mwk("1"), Destination: payouts.Destination{InstitutionID: id, MobileNumber: number, AccountNumber: "3333888800"}}
	}
	_, err := payouts.CheckInstitution(req(payouts.Bank, 1, ""), insts, nil)
	assert.NoError(t, err)
	_, err = payouts.CheckInstitution(req(payouts.Bank, 999, ""), insts, nil)
	assert.Equal(t, errcode.UnknownInstitution, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "not a known institution")
	_, err = payouts.CheckInstitution(req(payouts.Bank, 101, ""), insts, nil)
	assert.Equal(t, errcode.UnknownInstitution, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "momo institution")
	_, err = payouts.CheckInstitution(req(payouts.Momo, 1, "265991234567"), insts, nil)
	assert.Contains(t, errcode.Message(err), "bank institution")
	_, err = payouts.CheckInstitution(req(payouts.Momo, 101, "265991234567"), insts, nil)
	assert.NoError(t, err)
	_, err = payouts.CheckInstitution(req(payouts.Momo, 102, "265881234567"), insts, nil)
	assert.NoError(t, err)
	_, err = payouts.CheckInstitution(req(payouts.Momo, 102, "265991234567"), insts, nil)
	assert.Equal(t, errcode.MobileNumberInstitutionMismatch, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "Airtel Money (institution_id 101)")
	_, err = payouts.CheckInstitution(req(payouts.Momo, 101, "265881234567"), insts, nil)
	assert.Contains(t, errcode.Message(err), "TNM Mpamba (institution_id 102)")
	_, err = payouts.CheckInstitution(req(payouts.Momo, 102, "111100000112"), insts, map[string]bool{"111100000112": true})
	assert.NoError(t, err)
}

func TestFeeQuote(t *testing.T) {
	s := payouts.DefaultFeeSchedule()
	cases := []struct {
		dir                               payouts.Direction
		rail                              payouts.Rail
		amount                            string
		conv, tx, levy, vat, total, final string
	}{
		// 5000 momo: 0.8% = 40.00, conv 200, VAT 17.5% of 240 = 42.00.
		{payouts.DirPayout, payouts.Momo, "5000", "200.00", "40.00", "0.00", "42.00", "282.00", "5282.00"},
		// bank: conv 500, 0.8% of 12345.67 = 98.76536 -> 98.77, VAT of 598.77 = 104.78475 -> 104.78.
		{payouts.DirPayout, payouts.Bank, "12345.67", "500.00", "98.77", "0.00", "104.78", "703.55", "13049.22"},
		// Levy 0.05% above 100,000: 150,000 -> 50,000 * 0.0005 = 25.00.
		{payouts.DirPayout, payouts.Momo, "150000", "200.00", "1200.00", "25.00", "245.00", "1670.00", "151670.00"},
		// Exactly at the threshold: no levy.
		{payouts.DirPayout, payouts.Momo, "100000", "200.00", "800.00", "0.00", "175.00", "1175.00", "101175.00"},
		// Half-up on a tie: 0.8% of 0.63 = 0.00504 -> 0.01; VAT 17.5% of 200.01 = 35.00175 -> 35.00.
		{payouts.DirPayout, payouts.Momo, "0.63", "200.00", "0.01", "0.00", "35.00", "235.01", "235.64"},
		// Collections: 1.5% all-in; 1000 -> 15.00 received 985.00.
		{payouts.DirCollection, payouts.Momo, "1000", "0.00", "15.00", "0.00", "0.00", "15.00", "985.00"},
		// 1.5% of 33.33 = 0.49995 -> 0.50 half-up.
		{payouts.DirCollection, payouts.Bank, "33.33", "0.00", "0.50", "0.00", "0.00", "0.50", "32.83"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.dir, c.rail, c.amount), func(t *testing.T) {
			q, err := s.Quote(c.dir, c.rail, mwk(c.amount))
			require.NoError(t, err)
			assert.Equal(t, c.conv, q.Convenience.String())
			assert.Equal(t, c.tx, q.Transaction.String())
			assert.Equal(t, c.levy, q.Levy.String())
			assert.Equal(t, c.vat, q.VAT.String())
			assert.Equal(t, c.total, q.Total.String())
			if c.dir == payouts.DirPayout {
				require.NotNil(t, q.TotalDebit)
				assert.Nil(t, q.AmountReceived)
				assert.Equal(t, c.final, q.TotalDebit.String())
			} else {
				require.NotNil(t, q.AmountReceived)
				assert.Nil(t, q.TotalDebit)
				assert.Equal(t, c.final, q.AmountReceived.String())
			}
		})
	}
	_, err := s.Quote("sideways", payouts.Bank, mwk("1"))
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
}

func TestFailureFor(t *testing.T) {
	for _, c := range []payouts.FailureCode{payouts.RecipientAccountInvalid, payouts.Declined, payouts.ProviderUnavailable, payouts.TemporarilyUnavailable} {
		f := payouts.FailureFor(string(c))
		assert.Equal(t, c, f.Code)
		assert.NotEmpty(t, f.Message)
	}
	assert.Equal(t, payouts.Declined, payouts.FailureFor("insufficient_float_at_bank").Code)
	assert.Equal(t, payouts.FailureFor("declined").Message, payouts.FailureFor("").Message)
}

// TestStateMachine drives random moves and checks that only the
// table's transitions happen, terminal_at is set once and never moves, a
// failed payout reads fee 0.00 with a failure, a reversed one keeps its fee
// and has no failure.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		p := payouts.Payout{ID: "p", Rail: payouts.Bank, Amount: mwk("100"), HeldFee: mwk("5"), Status: payouts.Held, CreatedAt: now}
		allowed := map[payouts.Status][]payouts.Status{
			payouts.Held:      {payouts.Submitted},
			payouts.Submitted: {payouts.Pending},
			payouts.Pending:   {payouts.Succeeded, payouts.Failed},
			payouts.Succeeded: {payouts.Reversed},
		}
		var terminalAt *time.Time
		for i := 0; i < 12; i++ {
			now = now.Add(time.Minute)
			before := p
			var next payouts.Payout
			var err error
			switch rapid.IntRange(0, 4).Draw(t, "move") {
			case 0:
				next, err = p.Submit(now)
			case 1:
				next, err = p.MarkPending(now)
			case 2:
				var fee *money.Amount
				if rapid.Bool().Draw(t, "fee reported") {
					f := money.FromUnits(money.MWK, rapid.Int64Range(0, 1000).Draw(t, "fee"))
					fee = &f
				}
				next, err = p.Succeed(fee, now)
			case 3:
				next, err = p.Fail(payouts.FailureFor(rapid.SampledFrom([]string{"declined", "recipient_account_invalid", "weird"}).Draw(t, "code")), now)
			case 4:
				next, err = p.Reverse(now)
			}
			if err != nil {
				assert.ErrorIs(t, err, payouts.ErrTransition)
				continue // the payout value is unchanged
			}
			assert.Contains(t, allowed[before.Status], next.Status, "%s -> %s", before.Status, next.Status)
			p = next
			if p.Status.Terminal() && terminalAt == nil {
				require.NotNil(t, p.TerminalAt)
				tt := *p.TerminalAt
				terminalAt = &tt
			}
			if terminalAt != nil {
				require.NotNil(t, p.TerminalAt)
				assert.True(t, p.TerminalAt.Equal(*terminalAt), "terminal_at moved")
			} else {
				assert.Nil(t, p.TerminalAt)
			}
			switch p.Status {
			case payouts.Failed:
				require.NotNil(t, p.Fee)
				assert.Equal(t, "0.00", p.Fee.String())
				require.NotNil(t, p.Failure)
			case payouts.Reversed:
				assert.Nil(t, p.Failure)
				assert.Equal(t, before.Fee, p.Fee)
			default:
				assert.Nil(t, p.Failure)
			}
		}
	})
}

func ExampleFeeSchedule_Quote() {
	q, _ := payouts.DefaultFeeSchedule().Quote(payouts.DirPayout, payouts.Momo, money.FromInt(money.MWK, 5000))
	fmt.Println(q.Transaction, q.Convenience, q.VAT, q.Total, *q.TotalDebit)
	// Output: 40.00 200.00 42.00 282.00 5282.00
}

// TestTextRefusesInvisibleCharacters: a destination's text fields refuse
// control and invisible format characters with validation_error; the
// mobile number keeps its own pattern. adapters/httpapi checks the same
// of a body it decodes (TestPayoutBodyRefusesInvisibleCharacters).
func TestTextRefusesInvisibleCharacters(t *testing.T) {
	for _, c := range []string{"\u202A", "\u202E", "\u2066", "\u2069", "\u200B", "\u200F", "\u2060", "\u2064", "\uFEFF", "\u061C", "\u00AD", "\u0085", "\u009F"} {
		bank := payouts.Request{Rail: payouts.Bank, Amount: mwk("100"), Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "Chikondi" + c + "Banda"}}
		err := bank.Validate(nil)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%U in beneficiary_name", []rune(c)[0])
		assert.Contains(t, errcode.Message(err), "beneficiary_name")
		bank.Destination.BeneficiaryName, bank.Destination.AccountNumber = "Chikondi Banda", "3333"+c+"888800"
		err = bank.Validate(nil)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%U in account_number: 400 before the format's 422", []rune(c)[0])
		assert.Contains(t, errcode.Message(err), "account_number")
		momo := payouts.Request{Rail: payouts.Momo, Amount: mwk("100"), Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: c}}
		assert.Equal(t, errcode.ValidationError, errcode.Of(momo.Validate(nil)), "%U alone", []rune(c)[0])
	}
	for _, name := range []string{"Chikondi Banda", "Łukasz Żółkiewski", "Ŵongani Mhango", "محمد بن علي", "O'Neil-Phiri", "Zoë\u00A0Banda"} {
		r := payouts.Request{Rail: payouts.Bank, Amount: mwk("100"), Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: name}}
		assert.NoError(t, r.Validate(nil), name)
	}
}

// TestCheckAccountNumber: digits only, as many as the institution takes;
// each bank of the reference data takes the sandbox's test accounts.
func TestCheckAccountNumber(t *testing.T) {
	insts := payouts.DefaultInstitutions()
	bank := func(id int) payouts.Institution {
		for _, in := range insts {
			if in.ID == id {
				return in
			}
		}
		t.Fatalf("no institution %d", id)
		return payouts.Institution{}
	}
	for _, in := range insts {
		if in.Rail != payouts.Bank {
			continue
		}
		lo, hi := in.AccountNumberDigits()
		assert.True(t, lo >= 1 && lo <= 10 && hi >= 10 && hi <= payouts.MaxAccountNumberDigits, "%s: %d to %d", in.Name, lo, hi)
		for i := range 10 {
			assert.NoError(t, in.CheckAccountNumber(fmt.Sprintf("333388880%d", i)), in.Name)
		}
		assert.NoError(t, in.CheckAccountNumber(strings.Repeat("0", lo)), "%s at its minimum", in.Name)
		assert.NoError(t, in.CheckAccountNumber(strings.Repeat("9", hi)), "%s at its maximum", in.Name)
		for _, n := range []string{strings.Repeat("1", lo-1), strings.Repeat("1", hi+1), ""} {
			err := in.CheckAccountNumber(n)
			assert.Equal(t, errcode.InvalidAccountNumber, errcode.Of(err), "%s %q", in.Name, n)
			assert.Contains(t, errcode.Message(err), fmt.Sprintf("%d to %d digits for %s (institution_id %d)", lo, hi, in.Name, in.ID))
		}
	}
	nbm := bank(1)
	for _, n := range []string{"3333-888800", "3333 888800", " 3333888800", "3333888800 ", "33338888OO", "+3333888800",
		"٣٣٣٣٨٨٨٨٠٠", "３３３３８８８８００", "3333888800\u200B", "0x33388880"} {
		assert.Equal(t, errcode.InvalidAccountNumber, errcode.Of(nbm.CheckAccountNumber(n)), "%q", n)
	}
	// A synced bank with no bounds takes 6 to 16 digits; one bound alone
	// keeps the other's default.
	def := payouts.Institution{ID: 7, Name: "Bank Seven", Rail: payouts.Bank}
	lo, hi := def.AccountNumberDigits()
	assert.Equal(t, [2]int{payouts.DefaultAccountNumberMinDigits, payouts.DefaultAccountNumberMaxDigits}, [2]int{lo, hi})
	assert.Equal(t, [2]int{6, 16}, [2]int{lo, hi})
	def.AccountNumberMaxDigits = 8
	lo, hi = def.AccountNumberDigits()
	assert.Equal(t, [2]int{6, 8}, [2]int{lo, hi})

	// CheckInstitution: the institution and its rail first, then the
	// account number (422 invalid_account_number).
	req := func(id int, account string) payouts.Request {
		return payouts.Request{Rail: payouts.Bank, Amount: mwk("1"), Destination: payouts.Destination{InstitutionID: id, AccountNumber: account, BeneficiaryName: "A"}}
	}
	_, err := payouts.CheckInstitution(req(999, "x"), insts, nil)
	assert.Equal(t, errcode.UnknownInstitution, errcode.Of(err))
	_, err = payouts.CheckInstitution(req(101, "x"), insts, nil)
	assert.Equal(t, errcode.UnknownInstitution, errcode.Of(err))
	_, err = payouts.CheckInstitution(req(2, "123456789"), insts, nil)
	assert.Equal(t, errcode.InvalidAccountNumber, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "Standard Bank Malawi")
	_, err = payouts.CheckInstitution(req(2, "1234567890"), insts, nil)
	assert.NoError(t, err)
	// A momo payout has no account number to check.
	_, err = payouts.CheckInstitution(payouts.Request{Rail: payouts.Momo, Amount: mwk("1"),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567"}}, insts, nil)
	assert.NoError(t, err)
}

func TestCheckInstitutions(t *testing.T) {
	assert.NoError(t, payouts.CheckInstitutions(payouts.DefaultInstitutions()))
	assert.NoError(t, payouts.CheckInstitutions(nil))
	ok := payouts.Institution{ID: 7, Name: "Bank Seven", Rail: payouts.Bank}
	for name, edit := range map[string]func(*payouts.Institution){
		"no id":              func(in *payouts.Institution) { in.ID = 0 },
		"no name":            func(in *payouts.Institution) { in.Name = "" },
		"name too long":      func(in *payouts.Institution) { in.Name = strings.Repeat("ŵ", 201) },
		"bidi in name":       func(in *payouts.Institution) { in.Name = "Bank \u202ESeven" },
		"control in name":    func(in *payouts.Institution) { in.Name = "Bank\nSeven" },
		"no rail":            func(in *payouts.Institution) { in.Rail = "" },
		"min above max":      func(in *payouts.Institution) { in.AccountNumberMinDigits, in.AccountNumberMaxDigits = 9, 8 },
		"min above default":  func(in *payouts.Institution) { in.AccountNumberMinDigits = 17 },
		"max above 34":       func(in *payouts.Institution) { in.AccountNumberMaxDigits = 35 },
		"negative min":       func(in *payouts.Institution) { in.AccountNumberMinDigits = -1 },
		"momo without net":   func(in *payouts.Institution) { in.Rail = payouts.Momo },
		"momo with a range":  func(in *payouts.Institution) { in.Rail, in.Network, in.AccountNumberMaxDigits = payouts.Momo, "9", 10 },
		"momo other network": func(in *payouts.Institution) { in.Rail, in.Network = payouts.Momo, "7" },
	} {
		in := ok
		edit(&in)
		err := payouts.CheckInstitutions([]payouts.Institution{payouts.DefaultInstitutions()[0], in})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), name)
		assert.Contains(t, errcode.Message(err), "institutions[1]", name)
	}
	for _, in := range []payouts.Institution{
		ok,
		{ID: 7, Name: "Łódź Bank", Rail: payouts.Bank, AccountNumberMinDigits: 1, AccountNumberMaxDigits: 34},
		{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMinDigits: 16},
		{ID: 7, Name: "B", Rail: payouts.Bank, AccountNumberMaxDigits: 6},
	} {
		assert.NoError(t, payouts.CheckInstitutions([]payouts.Institution{in}), "%+v", in)
	}
}
