package pebblestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
)

func Example() {
	dir, err := os.MkdirTemp("", "pebblestore-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	// fsync on, group commit, the server's cache and memtable sizes.
	s, err := pebblestore.Open(filepath.Join(dir, "data"), nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	err = s.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put([]byte("payouts"), []byte("po_1"), []byte("pending")); err != nil {
			return err
		}
		return tx.Put([]byte("payouts"), []byte("po_2"), []byte("paid"))
	})
	if err != nil {
		panic(err)
	}

	// A hot backup, which opens like any store.
	backup := filepath.Join(dir, "backup")
	if err := s.Checkpoint(backup); err != nil {
		panic(err)
	}
	if err := s.Close(); err != nil {
		panic(err)
	}
	fmt.Println(errors.Is(s.View(ctx, func(store.Tx) error { return nil }), store.ErrClosed))

	b, err := pebblestore.Open(backup, nil)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	err = b.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get([]byte("payouts"), []byte("po_1"))
		if err != nil {
			return err
		}
		fmt.Printf("po_1: %s\n", v)
		return tx.Scan([]byte("payouts"), store.ScanOptions{Reverse: true}, func(k, v []byte) (bool, error) {
			fmt.Printf("%s=%s\n", k, v)
			return true, nil
		})
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// true
	// po_1: pending
	// po_2=paid
	// po_1=pending
}
