package payouts

import (
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
)

// Hold is the ledger hold a payout places when it is accepted: Amount
// (principal and fee, in the source asset) held from the organization's
// available balance under HoldID, posted as entry EntryID.
type Hold struct {
	EntryID string
	HoldID  string
	Org     string
	Amount  money.Amount
	Ref     string
	At      time.Time
}

// HoldID is the ledger hold of payout id.
func HoldID(payoutID string) string { return "payout:" + payoutID }

// holdOf is the hold of the accepted payout p, of total.
func holdOf(p Payout, total money.Amount) Hold {
	return Hold{EntryID: "payout:" + p.ID + ":hold", HoldID: HoldID(p.ID), Org: p.Org, Amount: total, Ref: p.ID, At: p.CreatedAt}
}

// Held is what p holds: its amount plus the fee held at accept.
func (p Payout) Held() (money.Amount, error) {
	if !p.HeldFee.IsSet() {
		return p.Amount, nil
	}
	return p.Amount.Add(p.HeldFee)
}

// V1Terms are what a validated /v1 payout request is accepted against, as
// the engine loaded them: the new payout's id source (called once the
// payout is accepted), organization and time, the organization's
// per-payout maximum, the rail's pause switch, the reference data (or why
// there is none yet), the sandbox wallets, the organization's rolling
// window and the fee quoted.
type V1Terms struct {
	NewID        func() string
	Org          string
	Now          time.Time
	MaxPerPayout money.Amount
	RailPaused   bool
	Institutions []Institution
	// NoReference is why no reference data is available (service_unavailable
	// in production before the first sync); nil when Institutions hold it.
	NoReference error
	Wallets     map[string]bool
	Window      Window
	Fee         FeeQuote
}

// AcceptV1 accepts the validated /v1 request req under t, checking in this
// order: the per-payout maximum (amount_limit_exceeded), the rail's switch
// (rail_disabled), the reference data, the destination's institution and
// the organization's rolling window (Window.Check). It returns the held
// payout and its hold; counting it in the window is the engine's.
func AcceptV1(req Request, t V1Terms) (Payout, Hold, error) {
	if req.Amount.Cmp(t.MaxPerPayout) > 0 {
		return Payout{}, Hold{}, errcode.Newf(errcode.AmountLimitExceeded, "amount_mwk is above this organization's per-payout maximum of %s.", t.MaxPerPayout)
	}
	if t.RailPaused {
		return Payout{}, Hold{}, RailPaused(req.Rail)
	}
	if t.NoReference != nil {
		return Payout{}, Hold{}, t.NoReference
	}
	if _, err := CheckInstitution(req, t.Institutions, t.Wallets); err != nil {
		return Payout{}, Hold{}, err
	}
	if err := t.Window.Check(req.Amount); err != nil {
		return Payout{}, Hold{}, err
	}
	p := Payout{ID: t.NewID(), Org: t.Org, Rail: req.Rail, Amount: req.Amount, HeldFee: t.Fee.Total,
		Status: Held, Destination: req.Destination, CreatedAt: t.Now, UpdatedAt: t.Now}
	return p, holdOf(p, *t.Fee.TotalDebit), nil
}

// RailPaused is the refusal of a payout on a paused rail.
func RailPaused(rail Rail) error {
	return errcode.Newf(errcode.RailDisabled, "The %s rail is paused.", rail)
}

// Window is an organization's rolling payout window: how many payouts it
// made in the last hour and their volume over the last 24 hours, and its
// limits of both.
type Window struct {
	HourCount   uint64
	DayVolume   money.Amount
	HourlyCount int
	DailyVolume money.Amount
}

// Check refuses one more payout of amount that would take the window
// above a limit (org_limit_exceeded): first the hourly count, then the
// 24-hour volume.
func (w Window) Check(amount money.Amount) error {
	if w.HourCount+1 > uint64(w.HourlyCount) {
		return errcode.Newf(errcode.OrgLimitExceeded, "This organization reached its limit of %d payouts per hour.", w.HourlyCount)
	}
	if after, _ := w.DayVolume.Add(amount); after.Cmp(w.DailyVolume) > 0 {
		return errcode.Newf(errcode.OrgLimitExceeded, "This payout would take the organization above its 24-hour volume of %s.", w.DailyVolume)
	}
	return nil
}

// V2Terms are what a checked /v2 payout is accepted with: the new payout's
// id source (called once the payout is priced), organization and time, its rail, amount (in the delivered asset),
// the fee priced (in the delivered asset) and the frozen rate of an FX
// payout (nil on a same-asset one).
type V2Terms struct {
	NewID  func() string
	Org    string
	Now    time.Time
	Rail   Rail
	Amount money.Amount
	Fee    money.Amount
	FX     *FX
}

// AcceptV2 prices a /v2 payout in its source asset (PriceV2) and returns
// the held payout, whose amounts are the principal and fee in the source
// asset, and its hold of both.
func AcceptV2(t V2Terms) (Payout, Hold, error) {
	price, err := PriceV2(t.Amount, t.Fee, t.FX)
	if err != nil {
		return Payout{}, Hold{}, err
	}
	total, err := price.Total()
	if err != nil {
		return Payout{}, Hold{}, err
	}
	p := Payout{ID: t.NewID(), Org: t.Org, Rail: t.Rail, Amount: price.Principal, HeldFee: price.Fee,
		Status: Held, CreatedAt: t.Now, UpdatedAt: t.Now}
	return p, holdOf(p, total), nil
}

// Resolution is the operator's verdict on a payout in flight (the
// engine's Resolution): Outcome Succeeded (with the provider's observed
// Fee, the zero Amount for the fee held) or Failed (with FailureCode), the
// Reason found and the provider's Reference.
type Resolution struct {
	Outcome     Status
	Fee         money.Amount
	FailureCode FailureCode
	Reason      string
	Reference   string
}

// MaxResolutionReference bounds Resolution.Reference, in bytes.
const MaxResolutionReference = 100

// Check returns r with Reason and Reference trimmed, or why it is not a
// verdict (validation_error): a reason of 1 to 500 bytes and a reference
// of at most MaxResolutionReference, neither with a control or invisible
// format character; a succeeded outcome's fee, if any, a non-negative MWK
// amount within money.Max; a failed one's code of the vocabulary.
func (r Resolution) Check() (Resolution, error) {
	r.Reason = strings.TrimSpace(r.Reason)
	if r.Reason == "" || len(r.Reason) > 500 {
		return r, errcode.Newf(errcode.ValidationError, "reason must be 1 to 500 characters.")
	}
	if err := textrule.CheckChars("reason", r.Reason); err != nil {
		return r, err
	}
	r.Reference = strings.TrimSpace(r.Reference)
	if len(r.Reference) > MaxResolutionReference {
		return r, errcode.Newf(errcode.ValidationError, "reference must be at most %d characters.", MaxResolutionReference)
	}
	if err := textrule.CheckChars("reference", r.Reference); err != nil {
		return r, err
	}
	return r, r.checkOutcome()
}

func (r Resolution) checkOutcome() error {
	switch r.Outcome {
	case Succeeded:
		if r.Fee.IsSet() && (r.Fee.Asset() != money.MWK || r.Fee.Sign() < 0) {
			return errcode.Newf(errcode.ValidationError, "fee must be a non-negative MWK amount.")
		}
		if r.Fee.IsSet() {
			return money.CheckMax("fee", r.Fee)
		}
		return nil
	case Failed:
		if FailureFor(string(r.FailureCode)).Code != r.FailureCode {
			return errcode.Newf(errcode.ValidationError,
				"failure_code must be recipient_account_invalid, declined, provider_unavailable or temporarily_unavailable.")
		}
		return nil
	default:
		return errcode.Newf(errcode.ValidationError, "outcome must be succeeded or failed.")
	}
}

// CheckResolvable refuses to resolve a payout in status s unless it is
// submitted or pending (conflict).
func CheckResolvable(s Status) error {
	if s != Submitted && s != Pending {
		return errcode.Newf(errcode.Conflict, "Only a submitted or pending payout can be resolved; this one is %s.", s)
	}
	return nil
}

// Resolve applies r (checked) to p, in flight, at now: a submitted payout
// is marked pending first, the state machine finishing from pending. The
// engine then finishes it as r.Outcome says.
func (r Resolution) Resolve(p Payout, now time.Time) (Payout, error) {
	if err := CheckResolvable(p.Status); err != nil {
		return p, err
	}
	if p.Status == Submitted {
		return p.MarkPending(now)
	}
	return p, nil
}
