package ledger_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// Hold throughput: each op is one store.Update posting one PlaceHold of
// 1.00 MWK against a large balance, beside a baseline that writes the same
// records (same count and sizes) with no ledger logic: a bare map under a
// mutex for memstore, raw bbolt for boltstore.

const benchParallelism = 32

var benchCredit = ledger.Credit{EntryID: "bench-credit", Org: org, Amount: mw(1 << 50)}

func benchHold(id string) ledger.PlaceHold {
	return ledger.PlaceHold{EntryID: "e-" + id, HoldID: "h-" + id, Org: org, Amount: mw(100), At: t0}
}

// record is one Put a hold makes; unique says its key is new for every
// hold (the hold and the entry), as opposed to a balance overwritten.
type record struct {
	bucket, key, value []byte
	unique             bool
}

// holdRecords measures what one real hold writes.
func holdRecords(b *testing.B) []record {
	s := memstore.New()
	defer s.Close()
	if _, err := post(s, benchCredit); err != nil {
		b.Fatal(err)
	}
	rec := &recordingTx{}
	err := s.Update(bg, func(tx store.Tx) error {
		rec.Tx = tx
		_, err := ledger.Post(rec, benchHold("123456"))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range rec.puts {
		rec.puts[i].unique = bytes.Contains(rec.puts[i].key, []byte("123456"))
	}
	return rec.puts
}

type recordingTx struct {
	store.Tx
	puts []record
}

func (r *recordingTx) Put(bucket, key, value []byte) error {
	r.puts = append(r.puts, record{bucket: bytes.Clone(bucket), key: bytes.Clone(key), value: bytes.Clone(value)})
	return r.Tx.Put(bucket, key, value)
}

func reportHolds(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
}

// benchLedger posts b.N holds, serially or from parallel goroutines.
func benchLedger(b *testing.B, s store.Store, parallel bool) {
	if _, err := post(s, benchCredit); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for i := range b.N {
			if _, err := post(s, benchHold(strconv.Itoa(i))); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		var n atomic.Int64
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := post(s, benchHold(strconv.FormatInt(n.Add(1), 10))); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	reportHolds(b)
}

// uniqueKey is rec's key made unique for hold i, as long as the real one.
func uniqueKey(rec record, i int64) []byte {
	k := strconv.AppendInt(append(make([]byte, 0, len(rec.key)+20), 'k'), i, 10)
	for len(k) < len(rec.key) {
		k = append(k, '_')
	}
	return k
}

// BenchmarkHoldMemstore compares holds on memstore with a bare map under a
// mutex doing the same puts.
func BenchmarkHoldMemstore(b *testing.B) {
	recs := holdRecords(b)
	b.Logf("one hold writes %d records: %s", len(recs), describeRecords(recs))

	b.Run("serial/ledger", func(b *testing.B) { benchLedger(b, memstore.New(), false) })
	b.Run("parallel/ledger", func(b *testing.B) { benchLedger(b, memstore.New(), true) })

	mapPuts := func(mu *sync.Mutex, m map[string][]byte, i int64) {
		mu.Lock()
		for _, r := range recs {
			key := r.key
			if r.unique {
				key = uniqueKey(r, i)
			}
			m[string(r.bucket)+"\x00"+string(key)] = bytes.Clone(r.value)
		}
		mu.Unlock()
	}
	b.Run("serial/baseline-map", func(b *testing.B) {
		var mu sync.Mutex
		m := map[string][]byte{}
		b.ReportAllocs()
		for i := range b.N {
			mapPuts(&mu, m, int64(i))
		}
		reportHolds(b)
	})
	b.Run("parallel/baseline-map", func(b *testing.B) {
		var mu sync.Mutex
		m := map[string][]byte{}
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				mapPuts(&mu, m, n.Add(1))
			}
		})
		reportHolds(b)
	})
}

// BenchmarkHoldBoltstore compares holds on boltstore (fsync on) with raw
// bbolt transactions on a file with the same options doing the same puts.
func BenchmarkHoldBoltstore(b *testing.B) {
	recs := holdRecords(b)
	openStore := func(b *testing.B) store.Store {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	b.Run("serial/ledger", func(b *testing.B) { benchLedger(b, openStore(b), false) })
	b.Run("parallel/ledger", func(b *testing.B) { benchLedger(b, openStore(b), true) })

	openBolt := func(b *testing.B) *bolt.DB {
		db, err := bolt.Open(filepath.Join(b.TempDir(), "db"), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if err := db.Update(func(tx *bolt.Tx) error {
			for _, r := range recs {
				if _, err := tx.CreateBucketIfNotExists(r.bucket); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		return db
	}
	boltPuts := func(i int64) func(tx *bolt.Tx) error {
		return func(tx *bolt.Tx) error {
			for _, r := range recs {
				key := r.key
				if r.unique {
					key = uniqueKey(r, i)
				}
				if err := tx.Bucket(r.bucket).Put(key, r.value); err != nil {
					return err
				}
			}
			return nil
		}
	}
	// bbolt's Batch waits MaxBatchDelay (10ms) for company, so a serial
	// caller pays it on every hold; Update is the serial baseline that does
	// not.
	b.Run("serial/baseline-bolt-update", func(b *testing.B) {
		db := openBolt(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if err := db.Update(boltPuts(int64(i))); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		reportHolds(b)
	})
	b.Run("serial/baseline-bolt-batch", func(b *testing.B) {
		db := openBolt(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if err := db.Batch(boltPuts(int64(i))); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		reportHolds(b)
	})
	b.Run("parallel/baseline-bolt-batch", func(b *testing.B) {
		db := openBolt(b)
		var n atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := db.Batch(boltPuts(n.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		reportHolds(b)
	})
}

func describeRecords(recs []record) string {
	var out []byte
	for i, r := range recs {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = strconv.AppendQuote(out, string(r.bucket))
		out = append(out, ' ')
		out = strconv.AppendInt(out, int64(len(r.key)), 10)
		out = append(out, '+')
		out = strconv.AppendInt(out, int64(len(r.value)), 10)
		out = append(out, 'B')
	}
	return string(out)
}
