package tambala_test

import (
	"context"
	"fmt"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
)

// A transport admits each request of an organization with Allow (its
// rate) and Enter (its share of the engine while others are active), and
// releases the share when the request is done.
func ExampleGate_Enter() {
	ctx := context.Background()
	eng, err := tambala.New(memstore.New(), &tambala.Options{Limits: tambala.Limits{InFlightPerOrg: 8}})
	if err != nil {
		panic(err)
	}
	org, err := eng.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme"})
	if err != nil {
		panic(err)
	}
	handle := func(orgID string) error {
		if ok, retryAfter := tambala.GateOf(eng).Allow(orgID); !ok {
			return fmt.Errorf("rate limited, retry in %d s", retryAfter)
		}
		release, err := tambala.GateOf(eng).Enter(ctx, orgID)
		if err != nil {
			return err // its context ended while it waited its turn
		}
		defer release()
		// ... the use case: eng.Client(p).CreatePayout(ctx, ...)
		return nil
	}
	fmt.Println(handle(org.ID))
	// Output:
	// <nil>
}
