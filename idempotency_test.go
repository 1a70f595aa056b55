package tambala_test

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
)

func bankPayout(amount string) []byte {
	return []byte(`{"amount_mwk":"` + amount + `","institution_id":1,"account_number":"3333888800","beneficiary_name":"A"}`)
}

func create(t *testing.T, e *tambala.Engine, p tambala.Principal, key string, body []byte) bodyOutcome {
	t.Helper()
	out, err := createFromBody(context.Background(), e, p, payouts.Bank, key, body)
	require.NoError(t, err)
	require.Equal(t, 202, out.Status)
	return out
}

func TestIdempotency_PruneAfterRetention(t *testing.T) {
	ctx := context.Background()
	e, c := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 1_000_000)
	first := create(t, e, p, "K", bankPayout("100"))
	assert.False(t, first.Replayed)

	// Within the retention the record stays and replays.
	c.Advance(72*time.Hour - time.Millisecond)
	n, err := e.Work().PruneIdempotency(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	again := create(t, e, p, "K", bankPayout("100"))
	assert.True(t, again.Replayed)
	assert.Equal(t, first.Body, again.Body)
	_, err = createFromBody(ctx, e, p, payouts.Bank, "K", bankPayout("101"))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))

	// Past it the record is pruned, once, and the key is free again.
	c.Advance(2 * time.Millisecond)
	n, err = e.Work().PruneIdempotency(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = e.Work().PruneIdempotency(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	reused := create(t, e, p, "K", bankPayout("101"))
	assert.False(t, reused.Replayed, "a pruned key makes a new payout")
	assert.NotEqual(t, first.Body, reused.Body)
	page, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)
}

func TestIdempotency_PruneOnlyOldRecordsInBatches(t *testing.T) {
	ctx := context.Background()
	e, c := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 1_000_000)
	for i := range 5 {
		create(t, e, p, "old-"+strconv.Itoa(i), bankPayout("10"))
	}
	c.Advance(48 * time.Hour)
	young := create(t, e, p, "young", bankPayout("10"))
	c.Advance(25 * time.Hour) // old ones are 73 h old, the young one 25 h

	var got []int
	for {
		n, err := e.Work().PruneIdempotency(ctx, 2)
		require.NoError(t, err)
		got = append(got, n)
		if n == 0 {
			break
		}
	}
	assert.Equal(t, []int{2, 2, 1, 0}, got)
	again := create(t, e, p, "young", bankPayout("10"))
	assert.True(t, again.Replayed)
	assert.Equal(t, young.Body, again.Body)
	fresh := create(t, e, p, "old-0", bankPayout("10"))
	assert.False(t, fresh.Replayed)
}

func TestIdempotency_ShortestRetentionIs24Hours(t *testing.T) {
	ctx := context.Background()
	e, c := testEngine(t, &tambala.Options{Limits: tambala.Limits{IdempotencyRetention: 24 * time.Hour}})
	p, _ := orgWithKey(t, e, "A", 1_000_000)
	create(t, e, p, "K", bankPayout("10"))
	c.Advance(23 * time.Hour)
	n, err := e.Work().PruneIdempotency(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	c.Advance(time.Hour + time.Millisecond)
	n, err = e.Work().PruneIdempotency(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

func TestIdempotency_RulesAtTheEngine(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 1_000)
	q, _ := orgWithKey(t, e, "B", 1_000_000)

	_, err := createFromBody(ctx, e, p, payouts.Bank, "", bankPayout("10"))
	assert.Equal(t, errcode.ValidationError, errcode.Of(err), "missing key")
	_, err = createFromBody(ctx, e, p, payouts.Bank, string(bytes.Repeat([]byte("k"), 256)), bankPayout("10"))
	assert.Equal(t, errcode.ValidationError, errcode.Of(err), "key too long")

	// A rejection stores nothing: the same key works after a fix.
	_, err = createFromBody(ctx, e, p, payouts.Bank, "K", bankPayout("5000"))
	assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))
	create(t, e, p, "K", bankPayout("10"))

	// Scope: another organization with the same key is independent; the
	// other rail of the same organization is the same namespace.
	create(t, e, q, "K", bankPayout("10"))
	_, err = createFromBody(ctx, e, q, payouts.Momo, "K", []byte(`{"amount_mwk":"10","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A"}`))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
}

func TestIdempotency_ConcurrentCreatesDecideOnce(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 1_000_000)
	const n = 40
	outs := make([]bodyOutcome, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = createFromBody(ctx, e, p, payouts.Bank, "same", bankPayout("10"))
		}()
	}
	wg.Wait()
	decided := 0
	var body []byte
	for i := range n {
		if errs[i] != nil {
			assert.Equal(t, errcode.Conflict, errcode.Of(errs[i]))
			continue
		}
		if !outs[i].Replayed {
			decided++
		}
		if body == nil {
			body = outs[i].Body
		}
		assert.Equal(t, body, outs[i].Body)
	}
	assert.Equal(t, 1, decided, "exactly one request decides the outcome")
	page, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
	require.NoError(t, err)
	assert.Len(t, page.Items, 1)
}
