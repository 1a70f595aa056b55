package sandbox

import (
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// Ports are every port of the engine the sandbox simulates: with them an
// engine has all it needs beyond its store for every flow, /v1 and /v2.
// Set puts them in tambala.Options.
type Ports struct {
	Payouts       *Provider  // Options.Payouts
	Converter     *Converter // Options.Converter
	DepositIssuer *Issuer    // Options.DepositIssuer
}

// PortsOptions configure NewPorts; nil takes the defaults.
type PortsOptions struct {
	// Clock is the ports' clock; give them the engine's Options.Clock.
	// Default time.Now.
	Clock func() time.Time
	// Delay is how long a payout or a conversion takes to reach its
	// outcome. Default 2s.
	Delay time.Duration
	// Fees is the provider's fee schedule; give it the engine's
	// Options.Fees. Default payouts.DefaultFeeSchedule.
	Fees *payouts.FeeSchedule
	// Networks is the issuer's table; give it the engine's
	// Options.Networks. Default networks.Default.
	Networks networks.Table
}

// NewPorts returns every sandbox port over st, the engine's store, so
// that ports made again over the same store after a restart go on where
// these stopped: the provider keeps its submissions (Bucket), the
// converter its conversions (ConversionsBucket), the issuer the count of
// addresses it issued (IssuerBucket), each in its own bucket. A nil st
// keeps them in memory, and a restart loses them.
func NewPorts(st store.Store, o *PortsOptions) Ports {
	var opts PortsOptions
	if o != nil {
		opts = *o
	}
	issuer := NewIssuer(opts.Networks)
	issuer.store = st
	return Ports{
		Payouts:       New(&Options{Clock: opts.Clock, Delay: opts.Delay, Fees: opts.Fees, Store: st}),
		Converter:     NewConverter(&ConverterOptions{Clock: opts.Clock, Delay: opts.Delay, Store: st}),
		DepositIssuer: issuer,
	}
}

// Set puts every port in o (Payouts, Converter, DepositIssuer) and
// returns o; a nil o is a new Options. The other fields are left as they
// are.
func (p Ports) Set(o *tambala.Options) *tambala.Options {
	if o == nil {
		o = &tambala.Options{}
	}
	o.Payouts, o.Converter, o.DepositIssuer = p.Payouts, p.Converter, p.DepositIssuer
	return o
}

// Organization is a new organization ready for every flow in the
// sandbox, for Operator.CreateOrganization or Bootstrap.Organization:
// /v2 access (a new organization has none by default), and MWK and USDT
// each with every operation (payout, collection, convert; by default an
// organization has MWK only).
func Organization(name string) tambala.NewOrganization {
	every := []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}
	return tambala.NewOrganization{
		Name:     name,
		V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{
			{Asset: money.MWK.Code, Operations: every},
			{Asset: money.USDT.Code, Operations: every},
		},
	}
}

// Corridor is the sandbox's MWK corridor, open, for Desk.SetCorridor
// or Bootstrap.Corridors: 1750.5 MWK per USDT off-ramp (USDT sold for
// MWK), 1800 on-ramp, from 1000.00 MWK. The desk, conversions and FX
// payouts price with it; without a corridor they are refused.
func Corridor() quotes.Corridor {
	return quotes.Corridor{
		Asset:       money.MWK,
		RateOffRamp: money.RateFromUnits(17505, 1),
		RateOnRamp:  money.RateFromInt(1800),
		Min:         money.FromInt(money.MWK, 1000),
		Open:        true,
	}
}
