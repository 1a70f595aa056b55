package pebblestore_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
)

// A backup taken while writes run unpacks into a directory that opens as a
// store holding every update acknowledged before the backup began.
func TestBackupUnderWritesRestores(t *testing.T) {
	ctx := context.Background()
	s, err := pebblestore.Open(filepath.Join(t.TempDir(), "live"), nil)
	require.NoError(t, err)
	defer s.Close()
	put := func(i int64) error {
		return s.Update(ctx, func(tx store.Tx) error {
			return tx.Put([]byte("b"), []byte(fmt.Sprintf("k%08d", i)), []byte("v"))
		})
	}
	for i := range int64(200) {
		require.NoError(t, put(i))
	}
	var next atomic.Int64
	next.Store(200)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := put(next.Add(1) - 1); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	acknowledged := next.Load() - 4 // every key below this one was committed before the backup began
	var buf bytes.Buffer
	n, err := s.Backup(ctx, &buf)
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)

	dir := filepath.Join(t.TempDir(), "restored")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		f, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
		require.NoError(t, err)
		_, err = io.Copy(f, tr)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	r, err := pebblestore.Open(dir, nil)
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, r.View(ctx, func(tx store.Tx) error {
		for i := range acknowledged {
			if _, err := tx.Get([]byte("b"), []byte(fmt.Sprintf("k%08d", i))); err != nil {
				return fmt.Errorf("key %d: %w", i, err)
			}
		}
		return nil
	}))
}
