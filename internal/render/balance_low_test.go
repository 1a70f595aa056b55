package render

import (
	"testing"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

func TestBalanceLowBytes(t *testing.T) {
	b := ledger.Balance{Asset: money.MWK, Available: money.FromInt(money.MWK, 5), Held: money.FromInt(money.MWK, 2), Shortfall: money.Zero(money.MWK)}
	pin(t, BalanceLow(b, money.FromInt(money.MWK, 10)),
		`{"balance":{"available":"5.00","held":"2.00","shortfall":"0.00","currency":"MWK"},"floor_mwk":"10.00"}`)
}
