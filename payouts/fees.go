package payouts

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Direction is what a fee quote prices.
type Direction string

const (
	DirPayout     Direction = "payout"
	DirCollection Direction = "collection"
)

// FeeSchedule is the provider's fee schedule: configuration, since the
// provider sets it. Pricing depends on the rail, never the institution.
type FeeSchedule struct {
	TransactionRate   money.Rate            // of the amount
	Convenience       map[Rail]money.Amount // flat, per rail
	LevyRate          money.Rate            // of the amount above LevyThreshold
	LevyThreshold     money.Amount
	VATRate           money.Rate // on transaction and convenience fees
	CollectionRateAll money.Rate // collections: all-in
}

// DefaultFeeSchedule is the default of docs/decisions.md: transaction fee
// 0.8%, convenience fee 200 (momo) or 500 (bank), levy 0.05% of the amount
// above 100,000, VAT 17.5% on transaction and convenience fees;
// collections 1.5% all-in.
func DefaultFeeSchedule() FeeSchedule {
	return FeeSchedule{
		TransactionRate:   money.MustRate("0.008"),
		Convenience:       map[Rail]money.Amount{Momo: money.FromInt(money.MWK, 200), Bank: money.FromInt(money.MWK, 500)},
		LevyRate:          money.MustRate("0.0005"),
		LevyThreshold:     money.FromInt(money.MWK, 100_000),
		VATRate:           money.MustRate("0.175"),
		CollectionRateAll: money.MustRate("0.015"),
	}
}

// FeeQuote is an itemised fee. Each line is rounded half-up to the tambala
// on its own; Total is their sum.
type FeeQuote struct {
	Direction      Direction
	Rail           Rail
	Amount         money.Amount
	Convenience    money.Amount
	Transaction    money.Amount
	Levy           money.Amount
	VAT            money.Amount
	Total          money.Amount
	TotalDebit     *money.Amount // payouts: amount + total, what is held
	AmountReceived *money.Amount // collections: amount - total, what is credited
}

// Quote prices amount for direction and rail.
func (s FeeSchedule) Quote(dir Direction, rail Rail, amount money.Amount) (FeeQuote, error) {
	zero := money.Zero(money.MWK)
	q := FeeQuote{Direction: dir, Rail: rail, Amount: amount, Convenience: zero, Transaction: zero, Levy: zero, VAT: zero}
	line := func(base money.Amount, r money.Rate) (money.Amount, error) {
		return money.Mul(base, r, money.MWK, money.RoundHalfUp)
	}
	var err error
	switch dir {
	case DirCollection:
		if q.Transaction, err = line(amount, s.CollectionRateAll); err != nil {
			return FeeQuote{}, err
		}
	case DirPayout:
		conv, ok := s.Convenience[rail]
		if !ok {
			return FeeQuote{}, errcode.New(errcode.RateUnavailable)
		}
		q.Convenience = conv
		if q.Transaction, err = line(amount, s.TransactionRate); err != nil {
			return FeeQuote{}, err
		}
		if amount.Cmp(s.LevyThreshold) > 0 {
			above, _ := amount.Sub(s.LevyThreshold)
			if q.Levy, err = line(above, s.LevyRate); err != nil {
				return FeeQuote{}, err
			}
		}
		base, _ := q.Transaction.Add(q.Convenience)
		if q.VAT, err = line(base, s.VATRate); err != nil {
			return FeeQuote{}, err
		}
	default:
		return FeeQuote{}, errcode.Newf(errcode.ValidationError, "direction must be payout or collection.")
	}
	q.Total = zero
	for _, l := range []money.Amount{q.Convenience, q.Transaction, q.Levy, q.VAT} {
		q.Total, _ = q.Total.Add(l)
	}
	if dir == DirPayout {
		d, _ := amount.Add(q.Total)
		q.TotalDebit = &d
	} else {
		r, _ := amount.Sub(q.Total)
		q.AmountReceived = &r
	}
	return q, nil
}
