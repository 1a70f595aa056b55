package manualrail

import (
	"context"
	"errors"
	"log/slog"

	"github.com/tambalapay/tambala"
)

// Provider is the manual rail. It holds no state: see the package
// documentation. The zero value is not usable; call New.
type Provider struct {
	log *slog.Logger
}

var _ tambala.PayoutProvider = (*Provider)(nil)

// Options configure a Provider; nil takes the defaults.
type Options struct {
	// Logger receives one line per submission (at Info), naming the payout
	// to pay by hand. Default: no log.
	Logger *slog.Logger
}

// New returns a manual rail.
func New(o *Options) *Provider {
	p := &Provider{log: slog.New(slog.DiscardHandler)}
	if o != nil && o.Logger != nil {
		p.log = o.Logger
	}
	return p
}

// errNoReference refuses a submission without a reference. The engine
// always gives one (the payout id); an error here only makes the engine
// submit again later.
var errNoReference = errors.New("manualrail: a submission needs a reference")

// Submit accepts the payout for the staff to pay by hand. It is idempotent
// per reference: it records nothing, so a second submission of a
// reference is the same payout on the engine's list in flight, never a
// second one. It refuses only a submission without a reference.
func (p *Provider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	if s.Reference == "" {
		return errNoReference
	}
	p.log.InfoContext(ctx, "payout to pay by hand", slog.String("payout", s.Reference),
		slog.String("rail", string(s.Rail)), slog.String("amount", s.Amount.String()))
	return nil
}

// Status reports the payout pending: the staff finish it through
// BackOffice.ResolvePayout, and the engine, which records that outcome,
// stops polling it. It never reports an outcome of its own.
func (p *Provider) Status(context.Context, string) (tambala.ProviderStatus, error) {
	return tambala.ProviderStatus{State: tambala.ProviderPending}, nil
}
