package boltstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// TestBackup_WhileWritesRun takes copies of a boltstore while clients
// create payouts through the engine and the payout worker moves them on,
// then restores each copy (opens it with boltstore) and finds a ledger
// that balances and every payout acknowledged before that copy began.
func TestBackup_WhileWritesRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	st := open(t, filepath.Join(dir, "live.bolt"), boltstore.Options{})
	eng, err := tambala.New(st, &tambala.Options{
		Payouts: sandbox.New(&sandbox.Options{Delay: 5 * time.Millisecond, Store: st}),
	})
	require.NoError(t, err)
	org, err := eng.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Backed up"})
	require.NoError(t, err)
	require.NoError(t, eng.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 1_000_000_000), "opening"))
	p, err := eng.Act(ctx, org.ID)
	require.NoError(t, err)

	workerDone := make(chan error, 1)
	go func() { workerDone <- eng.Work().RunPayoutWorker(ctx, 5*time.Millisecond) }()

	// Writers: each payout's id is appended once CreatePayout has
	// answered, so a snapshot of the list taken before a backup starts
	// holds only payouts acknowledged before it.
	var (
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for c := range 8 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 1000),
					Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}}
				created, err := eng.Client(p).V1().CreatePayout(ctx, req, tambala.Idempotency{Key: fmt.Sprintf("c%d-%d", c, i)})
				if err != nil {
					t.Errorf("client %d: %v", c, err)
					return
				}
				mu.Lock()
				acked = append(acked, created.Resource.ID)
				mu.Unlock()
			}
		})
	}
	ackedNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), acked...)
	}
	waitFor := func(n int) {
		require.Eventually(t, func() bool { return len(ackedNow()) >= n }, 20*time.Second, time.Millisecond)
	}

	type copyOf struct {
		before []string // acknowledged before the copy began
		path   string
	}
	var copies []copyOf
	for i := range 3 {
		waitFor(100 * (i + 1))
		before := ackedNow()
		path := filepath.Join(dir, fmt.Sprintf("copy-%d.bolt", i))
		f, err := os.Create(path)
		require.NoError(t, err)
		n, err := st.Backup(ctx, f)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fi.Size(), n, "Backup's count is the bytes written")
		copies = append(copies, copyOf{before: before, path: path})
	}
	waitFor(len(ackedNow()) + 50) // writes went on after the last copy
	stop.Store(true)
	wg.Wait()
	cancel()
	require.NoError(t, <-workerDone)
	require.NoError(t, ledger.CheckStore(context.Background(), st))
	total := len(ackedNow())

	for i, c := range copies {
		restored, err := boltstore.Open(c.path, nil)
		require.NoError(t, err, "copy %d opens as a store", i)
		require.NoError(t, ledger.CheckStore(context.Background(), restored), "copy %d: the ledger balances", i)
		reng, err := tambala.New(restored, nil)
		require.NoError(t, err)
		rp, err := reng.Act(context.Background(), org.ID)
		require.NoError(t, err)
		for _, id := range c.before {
			_, err := reng.Client(rp).V1().Payout(context.Background(), id)
			require.NoError(t, err, "copy %d: payout %s was acknowledged before the copy began", i, id)
		}
		inCopy := 0
		for req := (tambala.PageRequest{Limit: tambala.MaxPageSize}); ; {
			page, err := reng.Client(rp).V1().Payouts(context.Background(), req, tambala.PayoutFilter{})
			require.NoError(t, err)
			inCopy += len(page.Items)
			if !page.HasMore {
				break
			}
			req.BeforeID = page.NextBeforeID
		}
		assert.GreaterOrEqual(t, inCopy, len(c.before))
		assert.Less(t, inCopy, total, "copy %d was taken while writes went on", i)
		t.Logf("copy %d: %d payouts acknowledged before it began, %d in the copy, %d at the end", i, len(c.before), inCopy, total)
		require.NoError(t, restored.Close())
	}
}

func TestBackup_CopyIsExactAndReopens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := open(t, filepath.Join(dir, "live.bolt"), boltstore.Options{})
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		for i := range 500 {
			if err := tx.Put([]byte("b"), fmt.Appendf(nil, "k%04d", i), bytes.Repeat([]byte{byte(i)}, 100)); err != nil {
				return err
			}
		}
		return nil
	}))
	var buf bytes.Buffer
	n, err := st.Backup(ctx, &buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	path := filepath.Join(dir, "copy.bolt")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	restored := open(t, path, boltstore.Options{})
	require.NoError(t, restored.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get([]byte("b"), []byte("k0499"))
		if err == nil && !bytes.Equal(v, bytes.Repeat([]byte{byte(499 % 256)}, 100)) {
			err = errors.New("k0499 differs")
		}
		return err
	}))
}

func TestBackup_EndsWithItsContextAndStore(t *testing.T) {
	dir := t.TempDir()
	st := open(t, filepath.Join(dir, "live.bolt"), boltstore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := st.Backup(ctx, &bytes.Buffer{})
	assert.ErrorIs(t, err, context.Canceled)

	// A copy stops at the first write after its context ends.
	ctx, cancel = context.WithCancel(context.Background())
	w := &cancelAfter{cancel: cancel, left: 1}
	_, err = st.Backup(ctx, w)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, st.Close())
	_, err = st.Backup(context.Background(), &bytes.Buffer{})
	assert.ErrorIs(t, err, store.ErrClosed)
}

type cancelAfter struct {
	cancel context.CancelFunc
	left   int
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.left--; c.left < 0 {
		c.cancel()
	}
	return len(p), nil
}

// TestBackupFile: the one-shot copy of a file no process holds, and a
// clear refusal (Locked) while a Store has it open.
func TestBackupFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "db.bolt")
	st, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error { return tx.Put([]byte("b"), []byte("k"), []byte("v")) }))

	start := time.Now()
	_, err = boltstore.BackupFile(ctx, path, &bytes.Buffer{}, 100*time.Millisecond)
	require.Error(t, err)
	assert.True(t, boltstore.Locked(err), "a held file is Locked: %v", err)
	assert.Less(t, time.Since(start), 5*time.Second)

	require.NoError(t, st.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	var buf bytes.Buffer
	n, err := boltstore.BackupFile(ctx, path, &buf, time.Second)
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "BackupFile never changes the file it copies")

	copyPath := filepath.Join(dir, "copy.bolt")
	require.NoError(t, os.WriteFile(copyPath, buf.Bytes(), 0o600))
	restored := open(t, copyPath, boltstore.Options{})
	require.NoError(t, restored.View(ctx, func(tx store.Tx) error {
		_, err := tx.Get([]byte("b"), []byte("k"))
		return err
	}))

	_, err = boltstore.BackupFile(ctx, filepath.Join(dir, "missing.bolt"), &bytes.Buffer{}, time.Second)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.False(t, boltstore.Locked(err))
	_, err = os.Stat(filepath.Join(dir, "missing.bolt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "BackupFile never creates a file")
}
