package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// Open a store in its own schema (Open creates or upgrades the tables),
// write in an Update and read in a View. The example has no Output line:
// it is compiled, not run, since it needs a server.
func Example() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", &pgstore.Options{
		Schema:           "tambala",
		MaxConns:         16,
		StatementTimeout: 5 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	// Update may run fn more than once (serialization failures): no
	// effects outside tx.
	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.Put([]byte("greetings"), []byte("en"), []byte("hello"))
	})
	if err != nil {
		log.Fatal(err)
	}
	err = s.View(ctx, func(tx store.Tx) error {
		return tx.Scan([]byte("greetings"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
			fmt.Printf("%s=%s\n", k, v)
			return true, nil
		})
	})
	if err != nil {
		log.Fatal(err)
	}
}
