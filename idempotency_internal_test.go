package tambala

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// Outcomes stored by versions that scoped idempotency by method and path
// and kept the response bytes (version 1 records, and the JSON before
// them) still replay after the upgrade: the same body gets the same
// payout back, rendered byte for byte as it was first answered, and a
// different body is conflict.
func TestIdempotency_LegacyRecordsReplay(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	e, err := New(s, nil)
	require.NoError(t, err)
	org, err := e.CreateOrganization(ctx, NewOrganization{Name: "Legacy"})
	require.NoError(t, err)
	require.NoError(t, e.Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "seed"))
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)

	body := []byte(`{"amount_mwk":"100.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"W"}`)
	at := time.Date(2026, 11, 20, 8, 0, 0, 123e6, time.UTC)
	fee := money.FromInt(money.MWK, 282)
	old := payouts.Payout{ID: "0190a000-0000-7000-8000-000000000001", Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 100),
		Fee: &fee, Status: payouts.Succeeded, CreatedAt: at, TerminalAt: &at,
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "W"}}
	rendered := payouts.Render(old)
	sum := sha256.Sum256(body)
	v1 := (&codec.IdemRecord{Status: 202, Body: rendered, CreatedAt: at}).EncodeV1(sum)
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		return tx.Put(bucketIdem, []byte(legacyIdemScope(org.ID, "POST\x00/v1/payouts/momo", "old-key")), v1)
	}))

	req, err := payouts.DecodeRequest(payouts.Momo, body)
	require.NoError(t, err)
	idem := Idempotency{Key: "old-key", Fingerprint: BodyFingerprint(body)}
	got, err := e.CreatePayout(ctx, p, req, idem)
	require.NoError(t, err)
	assert.True(t, got.Replayed)
	assert.Equal(t, string(rendered), string(payouts.Render(got.Resource)), "byte for byte as first answered")
	assert.Equal(t, org.ID, got.Resource.Org)

	other := []byte(`{"amount_mwk":"101.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"W"}`)
	req2, err := payouts.DecodeRequest(payouts.Momo, other)
	require.NoError(t, err)
	_, err = e.CreatePayout(ctx, p, req2, Idempotency{Key: "old-key", Fingerprint: BodyFingerprint(other)})
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	// A body that no longer decodes, under a key decided for another body.
	err = e.RefuseCreate(ctx, p, CreateMomoPayout, Idempotency{Key: "old-key", Fingerprint: BodyFingerprint([]byte("{"))}, errcode.New(errcode.ValidationError))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	// The other rail's legacy scope is another operation.
	bank, err := payouts.DecodeRequest(payouts.Bank, []byte(`{"amount_mwk":"100.00","institution_id":1,"account_number":"3333888800","beneficiary_name":"W"}`))
	require.NoError(t, err)
	c, err := e.CreatePayout(ctx, p, bank, Idempotency{Key: "old-key"})
	require.NoError(t, err)
	assert.False(t, c.Replayed)
	// Nothing was held for the replays.
	b, err := e.BalanceV1(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, c.Resource.HeldFee.String(), mustSub(t, b.Held, c.Resource.Amount).String())
}

func mustSub(t *testing.T, a, b money.Amount) money.Amount {
	d, err := a.Sub(b)
	require.NoError(t, err)
	return d
}
