package pebblestore

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

func openNoSync(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "db"), &Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func put(t *testing.T, s *Store, bucket, key, value string) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), func(tx store.Tx) error {
		if value == "" {
			return tx.Delete([]byte(bucket), []byte(key))
		}
		return tx.Put([]byte(bucket), []byte(key), []byte(value))
	}))
}

// quiet commits enough batches that write elsewhere for every other
// bucket to count as quiet.
func quiet(t *testing.T, s *Store) {
	t.Helper()
	for i := range quietBatches {
		put(t, s, "elsewhere", strconv.Itoa(i), "x")
	}
}

func viewGet(t *testing.T, s *Store, bucket, key string) (string, bool) {
	t.Helper()
	var v []byte
	err := s.View(context.Background(), func(tx store.Tx) error {
		var err error
		v, err = tx.Get([]byte(bucket), []byte(key))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return "", false
	}
	require.NoError(t, err)
	return string(v), true
}

// remembered reports whether the view memory answers bucket/key for a
// View of the published snapshot.
func remembered(s *Store, bucket, key string) bool {
	p := s.acquire()
	defer p.release()
	_, ok := s.views.recall([]byte(bucket), appendKey(nil, []byte(bucket), []byte(key)), p.seq)
	return ok
}

func TestViewMemoryAnswersQuietBucketsUntilWritten(t *testing.T) {
	s := openNoSync(t)
	put(t, s, "keys", "k", "v1")
	got, _ := viewGet(t, s, "keys", "k")
	require.Equal(t, "v1", got)
	require.False(t, remembered(s, "keys", "k"), "a bucket written in the last batches is not remembered")

	quiet(t, s)
	got, _ = viewGet(t, s, "keys", "k")
	require.Equal(t, "v1", got)
	require.True(t, remembered(s, "keys", "k"))
	_, found := viewGet(t, s, "keys", "absent")
	require.False(t, found)
	require.True(t, remembered(s, "keys", "absent"), "an absent key is remembered too")

	// A write to another key of the bucket forgets the bucket; one to
	// another bucket does not.
	put(t, s, "other", "k", "x")
	require.True(t, remembered(s, "keys", "k"))
	put(t, s, "keys", "k2", "x")
	require.False(t, remembered(s, "keys", "k"))

	put(t, s, "keys", "k", "v2")
	got, _ = viewGet(t, s, "keys", "k")
	require.Equal(t, "v2", got)
	quiet(t, s)
	got, _ = viewGet(t, s, "keys", "k")
	require.Equal(t, "v2", got)
	require.True(t, remembered(s, "keys", "k"))

	put(t, s, "keys", "k", "") // a delete
	_, found = viewGet(t, s, "keys", "k")
	require.False(t, found)
	quiet(t, s)
	_, found = viewGet(t, s, "keys", "k")
	require.False(t, found)

	put(t, s, "keys", "absent", "now")
	got, _ = viewGet(t, s, "keys", "absent")
	require.Equal(t, "now", got)
}

// A View of an older snapshot never reads a newer value that a later View
// left in the memory.
func TestViewMemoryKeepsAnOlderSnapshot(t *testing.T) {
	s := openNoSync(t)
	put(t, s, "keys", "k", "v1")
	quiet(t, s)

	started, proceed := make(chan struct{}), make(chan struct{})
	var old []byte
	done := make(chan error, 1)
	go func() {
		done <- s.View(context.Background(), func(tx store.Tx) error {
			close(started)
			<-proceed
			var err error
			old, err = tx.Get([]byte("keys"), []byte("k"))
			return err
		})
	}()
	<-started
	put(t, s, "keys", "k", "v2")
	quiet(t, s)
	got, _ := viewGet(t, s, "keys", "k")
	require.Equal(t, "v2", got)
	require.True(t, remembered(s, "keys", "k"))

	close(proceed)
	require.NoError(t, <-done)
	require.Equal(t, "v1", string(old))
}

// Views racing a writer: each reads two keys written together, so a View
// answered partly from the memory and partly from its snapshot would see
// them differ, and never reads less than was committed before it began.
func TestViewMemoryUnderConcurrentWrites(t *testing.T) {
	s := openNoSync(t)
	ctx := context.Background()
	put(t, s, "pair", "a", "0")
	put(t, s, "pair.other", "b", "0")
	var committed atomic.Int64 // the pair's value, once its Update returned
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var views, hits atomic.Int64
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				low := committed.Load()
				hit := remembered(s, "pair", "a")
				err := s.View(ctx, func(tx store.Tx) error {
					a, err := tx.Get([]byte("pair"), []byte("a"))
					if err != nil {
						return err
					}
					b, err := tx.Get([]byte("pair.other"), []byte("b"))
					if err != nil {
						return err
					}
					va, _ := strconv.ParseInt(string(a), 10, 64)
					vb, _ := strconv.ParseInt(string(b), 10, 64)
					if va != vb {
						t.Errorf("one snapshot read a=%d, b=%d", va, vb)
					}
					if va < low {
						t.Errorf("read %d after %d was committed", va, low)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				views.Add(1)
				if hit {
					hits.Add(1)
				}
			}
		})
	}
	for i := int64(1); i <= 400; i++ {
		err := s.Update(ctx, func(tx store.Tx) error {
			if i%(quietBatches+8) != 0 {
				return tx.Put([]byte("noise"), []byte(strconv.FormatInt(i, 10)), []byte("x"))
			}
			v := []byte(strconv.FormatInt(i, 10))
			if err := tx.Put([]byte("pair"), []byte("a"), v); err != nil {
				return err
			}
			return tx.Put([]byte("pair.other"), []byte("b"), v)
		})
		require.NoError(t, err)
		if i%(quietBatches+8) == 0 {
			committed.Store(i)
		}
		if i%(quietBatches+8) == quietBatches+7 {
			// The last quiet batch before the pair is written again: let
			// the Views reach the memory before it is forgotten. A busy
			// machine can otherwise run the writer through every quiet
			// stretch while the Views wait for a core.
			awaitHit(&hits, hits.Load())
		}
	}
	close(stop)
	wg.Wait()
	require.Positive(t, hits.Load(), "the memory answered none of %d Views", views.Load())
}

// awaitHit waits, for at most a few seconds, until the Views have been
// answered from the memory once more than before.
func awaitHit(hits *atomic.Int64, before int64) {
	deadline := time.Now().Add(5 * time.Second)
	for hits.Load() == before && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
}

// The memory stays within its bounds: it starts over rather than grow
// past maxViewMemoryBytes or maxViewMemory, and keeps no value above
// maxRememberedValue.
func TestViewMemoryStaysBounded(t *testing.T) {
	var m viewMemory
	bucket := []byte("b")
	big := knownValue{value: make([]byte, maxRememberedValue), present: true}
	for i := range 2 * maxViewMemoryBytes / maxRememberedValue {
		m.remember(bucket, appendKey(nil, bucket, []byte(strconv.Itoa(i))), 0, big)
		require.LessOrEqual(t, m.bytes, maxViewMemoryBytes)
	}
	small := knownValue{value: []byte("v"), present: true}
	for i := range 2 * maxViewMemory {
		m.remember(bucket, appendKey(nil, bucket, []byte(strconv.Itoa(i))), 0, small)
		require.LessOrEqual(t, len(m.values), maxViewMemory)
	}
	m.remember(bucket, appendKey(nil, bucket, []byte("huge")), 0, knownValue{value: make([]byte, maxRememberedValue+1), present: true})
	_, ok := m.recall(bucket, appendKey(nil, bucket, []byte("huge")), 0)
	require.False(t, ok, "a value above maxRememberedValue is not kept")
	_, ok = m.recall(bucket, appendKey(nil, bucket, []byte(strconv.Itoa(2*maxViewMemory-1))), 0)
	require.True(t, ok, "the last value kept")
}
