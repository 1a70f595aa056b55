package tambala

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// tradeRecord is a trade as stored.
type tradeRecord = codec.TradeRecord

// toTradeRecord is the stored form of t: its figures as decimal text, its
// times as rendered (payouts.FormatTime).
func toTradeRecord(t Trade) tradeRecord {
	return tradeRecord{Org: t.Org, Ref: t.Ref, ID: t.ID, USDTAmount: t.USDTAmount.String(), ClientRate: t.ClientRate.String(),
		MWKAmount: t.MWKAmount, Status: string(t.Status), CreatedAt: payouts.FormatTime(t.CreatedAt), SettledAt: payouts.FormatTime(t.SettledAt)}
}

// fromTradeRecord reads a stored trade back.
func fromTradeRecord(r tradeRecord) (Trade, error) {
	rate, err := money.ParseRate(r.ClientRate)
	if err != nil {
		return Trade{}, err
	}
	amt, err := money.Parse(money.USDT, r.USDTAmount)
	if err != nil {
		return Trade{}, err
	}
	created, err := parseWireTime(r.CreatedAt)
	if err != nil {
		return Trade{}, err
	}
	settled, err := parseWireTime(r.SettledAt)
	if err != nil {
		return Trade{}, err
	}
	return Trade{ID: r.ID, Org: r.Org, Ref: r.Ref, USDTAmount: amt, ClientRate: rate, MWKAmount: r.MWKAmount, Status: TradeStatus(r.Status), CreatedAt: created, SettledAt: settled}, nil
}

// parseWireTime reads a time a record keeps as its wire text
// (payouts.FormatTime: UTC, milliseconds).
func parseWireTime(s string) (time.Time, error) {
	t, err := time.Parse(payouts.TimeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("tambala: stored time %q: %w", s, err)
	}
	return t, nil
}
