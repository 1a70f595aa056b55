package memstore_test

import (
	"testing"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Features{}, storetest.Harness{
		Open: func(testing.TB, string) store.Store { return memstore.New() },
	})
}
