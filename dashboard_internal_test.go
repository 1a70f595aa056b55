package tambala

import (
	"context"
	"testing"
	"time"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestOverviewBeforeCounters: a store whose balances moved before the
// counters existed (here: the counters removed) draws every day at the
// balance of now, not at zero.
func TestOverviewBeforeCounters(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e, err := New(memstore.New(), &Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	org, err := e.Operator().CreateOrganization(ctx, NewOrganization{Name: "Old"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 1234), "start"); err != nil {
		t.Fatal(err)
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var keys [][]byte
		if err := tx.Scan(storage.DayClose, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
			keys = append(keys, k)
			return true, nil
		}); err != nil {
			return err
		}
		if len(keys) != 1 {
			t.Errorf("%d day closes after one funding", len(keys))
		}
		for _, k := range keys {
			if err := tx.Delete(storage.DayClose, k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ov, err := e.orgOverview(ctx, org.ID, []money.AssetCode{"MWK", "USDT"}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ov.Balances["MWK"] {
		if d.Value != "1234.00" {
			t.Fatalf("MWK on %s: %s, want the balance of now", d.Day, d.Value)
		}
	}
	for _, d := range ov.Balances["USDT"] {
		if d.Value != "0.000000" {
			t.Fatalf("USDT on %s: %s", d.Day, d.Value)
		}
	}
}
