package tambala_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// readsRecorder is a store whose read-write transactions read ahead
// (store.Prefetcher) and record the keys named to Prefetch and those
// read by Get.
type readsRecorder struct {
	store.Store
	mu         sync.Mutex
	prefetched []string
	got        map[string]bool
	named      []string // on the contexts of Updates (store.WithReadsAhead)
}

// ReadsAhead says the recorder reads the keys named on contexts
// (store.AheadReader), so that the engine names them.
func (s *readsRecorder) ReadsAhead() bool { return true }

func (s *readsRecorder) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.mu.Lock()
	for _, k := range store.ReadsAhead(ctx) {
		s.named = append(s.named, fmt.Sprintf("%s/%q", k.Bucket, k.Key))
	}
	s.mu.Unlock()
	return s.Store.Update(ctx, func(tx store.Tx) error { return fn(&recordingTx{Tx: tx, s: s}) })
}

func (s *readsRecorder) View(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.View(ctx, func(tx store.Tx) error { return fn(&recordingTx{Tx: tx, s: s}) })
}

func (s *readsRecorder) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefetched, s.got, s.named = nil, map[string]bool{}, nil
}

type recordingTx struct {
	store.Tx
	s *readsRecorder
}

func (t *recordingTx) Get(bucket, key []byte) ([]byte, error) {
	t.s.mu.Lock()
	t.s.got[fmt.Sprintf("%s/%q", bucket, key)] = true
	t.s.mu.Unlock()
	return t.Tx.Get(bucket, key)
}

func (t *recordingTx) Prefetch(keys []store.KeyRef) bool {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	for _, k := range keys {
		t.s.prefetched = append(t.s.prefetched, fmt.Sprintf("%s/%q", k.Bucket, k.Key))
	}
	return true
}

// TestPayoutNamesWhatItReads: a /v1 payout names to a store that reads
// ahead (store.Prefetch) only keys its transaction reads, so that the
// hint costs no read, and no serializable read lock, that the payout
// would not take anyway; and it names the keys of its organization that
// one after the other would cost a round trip each.
func TestPayoutNamesWhatItReads(t *testing.T) {
	rec := &readsRecorder{Store: memstore.New(), got: map[string]bool{}}
	e, err := tambala.New(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Reads"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 1_000_000), "reads"); err != nil {
		t.Fatal(err)
	}
	v1 := e.Client(actFor(e, org.ID)).V1()
	for i, rail := range []payouts.Rail{payouts.Momo, payouts.Bank} {
		req := payouts.Request{Rail: rail, Amount: mustParse(money.MWK, "1500.00"),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Reads"}}
		if rail == payouts.Bank {
			req.Destination = payouts.Destination{InstitutionID: 1, AccountNumber: "1234567890", BeneficiaryName: "Reads"}
		}
		for j := range 2 { // the first payout of the organization, then one after it
			rec.reset()
			key := fmt.Sprintf("reads-%d-%d", i, j)
			if _, err := v1.CreatePayout(ctx, req, tambala.Idempotency{Key: key}); err != nil {
				t.Fatalf("%s payout %d: %v", rail, j, err)
			}
			rec.mu.Lock()
			if len(rec.prefetched) < 8 {
				t.Errorf("%s payout %d named %d keys, want its outcome, record, floor, window and balances: %q", rail, j, len(rec.prefetched), rec.prefetched)
			}
			for _, k := range rec.prefetched {
				if !rec.got[k] {
					t.Errorf("%s payout %d named %s to Prefetch and never read it", rail, j, k)
				}
			}
			rec.mu.Unlock()
		}
	}
}

// TestAuthenticateNamesWhatItReads: Authenticate names to a store that
// reads ahead the authentication epoch and, from the second call with a
// key on, the key's record that the last call found, and only keys it
// reads; a hint gone stale (the key revoked) changes no answer.
func TestAuthenticateNamesWhatItReads(t *testing.T) {
	rec := &readsRecorder{Store: memstore.New(), got: map[string]bool{}}
	e, err := tambala.New(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Auth"})
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := e.Operator().CreateKey(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 2, 2} {
		rec.reset()
		if _, err := e.Authenticate(ctx, full); err != nil {
			t.Fatalf("authenticate %d: %v", i, err)
		}
		rec.mu.Lock()
		if len(rec.prefetched) != want {
			t.Errorf("authenticate %d named %d keys, want %d: %q", i, len(rec.prefetched), want, rec.prefetched)
		}
		for _, k := range rec.prefetched {
			if !rec.got[k] {
				t.Errorf("authenticate %d named %s to Prefetch and never read it", i, k)
			}
		}
		rec.mu.Unlock()
	}
	if _, err := e.Operator().RevokeKey(ctx, org.ID, full[:16]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Authenticate(ctx, full); err == nil {
		t.Fatal("a revoked key authenticated")
	}
}

// TestCreatesNameOnTheContextWhatTheyRead: the creates name, on their
// Update's context (store.WithReadsAhead), keys they know before their
// transaction starts, for a store that reads those of a whole batch in one
// round trip: only keys the transaction reads, and for an order or a
// conversion the quote, which the quote wrote moments before and no batch
// has read yet.
func TestCreatesNameOnTheContextWhatTheyRead(t *testing.T) {
	rec := &readsRecorder{Store: memstore.New(), got: map[string]bool{}}
	e, err := tambala.New(rec, &tambala.Options{Payouts: sandbox.New(nil), Converter: sandbox.NewConverter(nil)})
	require.NoError(t, err)
	ctx := context.Background()
	op := e.Operator()
	org, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Named", Assets: convAssets(), V2Access: tambala.V2Enabled})
	require.NoError(t, err)
	_, err = op.Desk().SetCorridor(ctx, deskCorridor())
	require.NoError(t, err)
	require.NoError(t, op.Fund(ctx, org.ID, money.FromInt(money.USDT, 1_000), "named-usdt"))
	require.NoError(t, op.Fund(ctx, org.ID, money.FromInt(money.MWK, 10_000_000), "named-mwk"))
	c := e.Client(actFor(e, org.ID))
	quoteKey := func(id string) string { return fmt.Sprintf("%s/%q", "quotes", id) }

	for _, tc := range []struct {
		name  string
		quote func() string // the quote's id, or ""
		run   func(quoteID string) error
	}{
		{"v1 payout", nil, func(string) error {
			_, err := c.V1().CreatePayout(ctx, payouts.Request{Rail: payouts.Momo, Amount: mustParse(money.MWK, "1500.00"),
				Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Named"}}, tambala.Idempotency{Key: "named-v1"})
			return err
		}},
		{"order", func() string {
			q, err := c.QuoteOrder(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("1")})
			require.NoError(t, err)
			return q.ID
		}, func(id string) error {
			_, err := c.CreateOrder(ctx, tambala.NewOrder{QuoteID: id, ClientRef: "named-order", Beneficiary: deskBeneficiary()}, tambala.Idempotency{Key: "named-order"})
			return err
		}},
		{"conversion", func() string {
			q, err := c.QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("1")})
			require.NoError(t, err)
			return q.ID
		}, func(id string) error {
			_, err := c.CreateConversion(ctx, tambala.NewConversion{QuoteID: id}, tambala.Idempotency{Key: "named-conversion"})
			return err
		}},
		{"v2 payout", nil, func(string) error {
			_, err := c.CreatePayout(ctx, benchWalletReq, tambala.Idempotency{Key: "named-v2"})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var id string
			if tc.quote != nil {
				id = tc.quote()
			}
			rec.reset()
			require.NoError(t, tc.run(id))
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.NotEmpty(t, rec.named)
			for _, k := range rec.named {
				assert.True(t, rec.got[k], "named %s and never read it", k)
			}
			assert.Contains(t, rec.named, fmt.Sprintf("%s/%q", "orgs", org.ID), "the organization's record")
			if id != "" {
				assert.Contains(t, rec.named, quoteKey(id))
			}
		})
	}
	// A malformed quote id is named nowhere: the create reads no quote.
	rec.reset()
	_, err = c.CreateOrder(ctx, tambala.NewOrder{QuoteID: strings.Repeat("q", 65), ClientRef: "named-bad", Beneficiary: deskBeneficiary()}, tambala.Idempotency{Key: "named-bad"})
	require.Error(t, err)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, k := range rec.named {
		assert.True(t, rec.got[k], "named %s and never read it", k)
	}
}
