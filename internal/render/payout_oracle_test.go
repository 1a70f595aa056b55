package render

import (
	"encoding/json"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// The shape Payout renders, as encoding/json would write it: the oracle
// the hand-written rendering is held to.
type payoutDestination struct {
	InstitutionID   int     `json:"institution_id"`
	AccountNumber   *string `json:"account_number,omitempty"`
	MobileNumber    *string `json:"mobile_number,omitempty"`
	BeneficiaryName string  `json:"beneficiary_name"`
}

type payoutShape struct {
	ID          string            `json:"id"`
	AmountMWK   money.Amount      `json:"amount_mwk"`
	Fee         *money.Amount     `json:"fee"`
	Rail        payouts.Rail      `json:"rail"`
	Status      payouts.Status    `json:"status"`
	Destination payoutDestination `json:"destination"`
	Failure     *Failure          `json:"failure"`
	CreatedAt   string            `json:"created_at"`
	TerminalAt  *string           `json:"terminal_at"`
}

func payoutByReflection(p payouts.Payout) []byte {
	r := payoutShape{
		ID: p.ID, AmountMWK: p.Amount, Fee: p.Fee, Rail: p.Rail, Status: p.Status, Failure: PayoutFailure(p.Failure),
		CreatedAt:   Time(p.CreatedAt),
		Destination: payoutDestination{InstitutionID: p.Destination.InstitutionID, BeneficiaryName: p.Destination.BeneficiaryName},
	}
	if p.Rail == payouts.Bank {
		r.Destination.AccountNumber = &p.Destination.AccountNumber
	} else {
		r.Destination.MobileNumber = &p.Destination.MobileNumber
	}
	if p.TerminalAt != nil {
		s := Time(*p.TerminalAt)
		r.TerminalAt = &s
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// Payout writes what encoding/json writes for its shape, for any payout:
// any text, amount, fee, failure, rail and time zone.
func TestPayoutMatchesEncodingJSON(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune{'"', '\\', '<', '&', '\u2028', 0, '\n', 'a', 'é'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))
	amount := rapid.Custom(func(t *rapid.T) money.Amount {
		return money.FromUnits(money.MWK, rapid.Int64Range(-1<<62, 1<<62).Draw(t, "units"))
	})
	at := rapid.Custom(func(t *rapid.T) time.Time {
		return time.Unix(rapid.Int64Range(0, 250_000_000_000).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")).
			In(rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("CAT", 7200)}).Draw(t, "zone"))
	})
	rapid.Check(t, func(t *rapid.T) {
		p := payouts.Payout{ID: text.Draw(t, "id"), Org: text.Draw(t, "org"), Amount: amount.Draw(t, "amount"),
			Rail:   rapid.SampledFrom([]payouts.Rail{payouts.Momo, payouts.Bank, payouts.Rail(text.Draw(t, "rail"))}).Draw(t, "railkind"),
			Status: payouts.Status(text.Draw(t, "status")), CreatedAt: at.Draw(t, "created"),
			Destination: payouts.Destination{InstitutionID: rapid.Int().Draw(t, "inst"), AccountNumber: text.Draw(t, "acct"),
				MobileNumber: text.Draw(t, "msisdn"), BeneficiaryName: text.Draw(t, "name")}}
		if rapid.Bool().Draw(t, "fee") {
			f := amount.Draw(t, "feeamount")
			p.Fee = &f
		}
		if rapid.Bool().Draw(t, "failed") {
			p.Failure = &payouts.Failure{Code: payouts.FailureCode(text.Draw(t, "code")), Message: text.Draw(t, "message")}
		}
		if rapid.Bool().Draw(t, "terminal") {
			end := at.Draw(t, "terminalat")
			p.TerminalAt = &end
		}
		if got, want := Payout(p), payoutByReflection(p); string(got) != string(want) {
			t.Fatalf("Payout wrote\n%s\nencoding/json\n%s", got, want)
		}
	})
}
