package tambala

import (
	"context"
	"errors"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// PayoutSubmission is what the engine hands a payout rail. Reference is the
// payout id: a provider must treat a second submission with the same
// reference as the same payout, never as a second one.
//
// The port is asset-generic. A /v1 payout has Rail bank or momo, Amount in
// MWK and the Destination; the /v2 fields are zero. A /v2 payout has Rail
// bank, momo or RailWallet; Amount is what the destination receives, in
// the payout's asset (MWK on bank and momo); SourceAmount is what the
// organization is debited for it (principal and fee, in the source asset);
// a wallet payout has Network and Address instead of Destination.
type PayoutSubmission struct {
	Reference   string
	Rail        payouts.Rail
	Amount      money.Amount
	Destination payouts.Destination
	// V2 says the payout was made through /v2.
	V2 bool
	// SourceAmount is the amount held in the source asset (/v2 only).
	SourceAmount money.Amount
	// Network and Address are a wallet payout's destination (/v2 only).
	Network string
	Address string
}

// RailWallet is the rail of a /v2 payout to a blockchain wallet.
const RailWallet = payouts.Wallet

// ProviderState is where a provider says a payout is.
type ProviderState string

const (
	ProviderPending   ProviderState = "pending"
	ProviderSucceeded ProviderState = "succeeded"
	ProviderFailed    ProviderState = "failed"
	ProviderReversed  ProviderState = "reversed" // clawed back after success
)

// ProviderStatus is a provider's report on one payout.
type ProviderStatus struct {
	State ProviderState
	// Fee is the provider's observed charge; the zero Amount when it
	// reported none.
	Fee money.Amount
	// FailureCode is the provider's reason when failed; codes outside the
	// payout failure vocabulary become declined.
	FailureCode string
}

// ErrUnknownReference is returned by a provider's Status for a reference it
// never accepted.
var ErrUnknownReference = errors.New("provider: unknown reference")

// PayoutProvider is the port of a payout rail.
type PayoutProvider interface {
	// Submit hands a payout to the provider. It is idempotent per
	// Reference. An error means the outcome is unknown: the engine submits
	// again later with the same reference.
	Submit(ctx context.Context, s PayoutSubmission) error
	// Status reports on a submitted payout.
	Status(ctx context.Context, reference string) (ProviderStatus, error)
}

// observedFee is a fee reported as an optional Amount, nil when none.
func observedFee(f money.Amount) *money.Amount {
	if !f.IsSet() {
		return nil
	}
	return &f
}
