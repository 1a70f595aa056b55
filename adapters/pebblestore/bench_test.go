package pebblestore_test

import (
	"context"
	"encoding/binary"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	bolt "go.etcd.io/bbolt"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
)

// Write throughput at the store level: 64 concurrent callers, each op one
// update that writes three random 40-byte keys with random 200-byte values
// into one bucket, fsync on. Beside it, in the same command, the same
// records committed by raw pebble (a batch per op, Sync, from 64 writers:
// pebble's own commit pipeline groups their fsyncs), by raw bbolt Batch,
// and by boltstore.
//
//	go test -run XXX -bench Writes64 -benchtime 5s ./adapters/pebblestore/
//	go test -run XXX -bench Sustained -benchtime 30s -v ./adapters/pebblestore/
const (
	benchCallers = 64
	benchKeyLen  = 40
	benchValLen  = 200
	benchKeys    = 3
)

var benchBucket = []byte("bench")

var benchSeed atomic.Uint64

// records fills keys and values with random bytes.
type records struct {
	rng  *rand.Rand
	keys [benchKeys][benchKeyLen]byte
	vals [benchKeys][benchValLen]byte
}

func newRecords() *records {
	return &records{rng: rand.New(rand.NewPCG(benchSeed.Add(1), 42))}
}

func (r *records) next() {
	fill := func(b []byte) {
		for i := 0; i < len(b); i += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], r.rng.Uint64())
			copy(b[i:], w[:])
		}
	}
	for i := range benchKeys {
		fill(r.keys[i][:])
		fill(r.vals[i][:])
	}
}

// parallel runs op from benchCallers goroutines b.N times in all.
func parallel(b *testing.B, op func(r *records) error) {
	b.ReportAllocs()
	b.SetParallelism((benchCallers + 1) / 2) // × GOMAXPROCS (2 here)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := newRecords()
		for pb.Next() {
			r.next()
			if err := op(r); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}

func storeOp(s store.Store) func(r *records) error {
	ctx := context.Background()
	return func(r *records) error {
		return s.Update(ctx, func(tx store.Tx) error {
			for i := range benchKeys {
				if err := tx.Put(benchBucket, r.keys[i][:], r.vals[i][:]); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// openPebblestore opens a store whose commits are counted, so that the
// arm can report the updates per commit.
func openPebblestore(b *testing.B, opts pebblestore.Options) (*pebblestore.Store, *atomic.Int64) {
	s, err := pebblestore.Open(filepath.Join(b.TempDir(), "db"), &opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	var commits atomic.Int64
	s.SetCommitHook(func(int64, int) error { commits.Add(1); return nil })
	return s, &commits
}

func perCommit(b *testing.B, commits *atomic.Int64) {
	if n := commits.Load(); n > 0 {
		b.ReportMetric(float64(b.N)/float64(n), "updates/commit")
	}
}

// rawPebble opens pebble with the options pebblestore gives it.
func rawPebble(b *testing.B) *pebble.DB {
	cache := pebble.NewCache(pebblestore.DefaultCacheSize + 2*pebblestore.DefaultMemTableSize)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:                       cache,
		MemTableSize:                pebblestore.DefaultMemTableSize,
		MemTableStopWritesThreshold: 2,
		FormatMajorVersion:          pebble.FormatTableFormatV6,
		Logger:                      silent{},
	}
	opts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	db, err := pebble.Open(filepath.Join(b.TempDir(), "raw"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return db
}

func BenchmarkWrites64(b *testing.B) {
	b.Run("pebblestore", func(b *testing.B) {
		s, commits := openPebblestore(b, pebblestore.Options{})
		parallel(b, storeOp(s))
		perCommit(b, commits)
	})
	b.Run("pebblestore-nosync", func(b *testing.B) {
		s, commits := openPebblestore(b, pebblestore.Options{NoSync: true})
		parallel(b, storeOp(s))
		perCommit(b, commits)
	})
	b.Run("baseline-raw-pebble", func(b *testing.B) {
		db := rawPebble(b)
		parallel(b, func(r *records) error {
			batch := db.NewBatch()
			key := make([]byte, 0, 1+len(benchBucket)+benchKeyLen)
			for i := range benchKeys {
				key = append(append(append(key[:0], byte(len(benchBucket))), benchBucket...), r.keys[i][:]...)
				if err := batch.Set(key, r.vals[i][:], nil); err != nil {
					return err
				}
			}
			if err := batch.Commit(pebble.Sync); err != nil {
				return err
			}
			return batch.Close()
		})
	})
	b.Run("baseline-raw-bbolt-batch", func(b *testing.B) {
		db, err := bolt.Open(filepath.Join(b.TempDir(), "db.bolt"), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = db.Close() })
		if err := db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(benchBucket)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		parallel(b, func(r *records) error {
			return db.Batch(func(tx *bolt.Tx) error {
				bk := tx.Bucket(benchBucket)
				for i := range benchKeys {
					if err := bk.Put(r.keys[i][:], r.vals[i][:]); err != nil {
						return err
					}
				}
				return nil
			})
		})
	})
	b.Run("boltstore", func(b *testing.B) {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "db.bolt"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		parallel(b, storeOp(s))
	})
}

// BenchmarkSustained runs the pebblestore arm of BenchmarkWrites64 for the
// whole benchtime and reports how the directory grows: its size at the end
// of the run, after Close's flush, and after a full compaction, beside the
// bytes of live keys and values. Run it with -benchtime 30s.
func BenchmarkSustained(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "db")
	s, err := pebblestore.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	parallel(b, storeOp(s))
	live := float64(b.N) * benchKeys * (1 + float64(len(benchBucket)) + benchKeyLen + benchValLen)
	running := dirSize(b, dir)
	m := s.Metrics()
	b.Logf("N=%d after %v\n%s", b.N, b.Elapsed(), m)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	closed := dirSize(b, dir)
	if s, err = pebblestore.Open(dir, nil); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := s.Compact(context.Background()); err != nil {
		b.Fatal(err)
	}
	compactTook := time.Since(start)
	compacted := dirSize(b, dir)
	b.Logf("after compaction (%v):\n%s", compactTook, s.Metrics())
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	const mb = 1 << 20
	b.ReportMetric(live/mb, "live-MB")
	b.ReportMetric(running/mb, "dir-MB-running")
	b.ReportMetric(closed/mb, "dir-MB-closed")
	b.ReportMetric(compacted/mb, "dir-MB-compacted")
}

func dirSize(b *testing.B, dir string) float64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return float64(n)
}
