package httpapi

import (
	"context"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/payouts"
)

// The /v1 routes call the organization's /v1 face (Client.V1); these
// adapt its calls to the route helpers' shape.

func v1Collections(c *tambala.Client, ctx context.Context, p tambala.PageRequest) (tambala.Page[tambala.Collection], error) {
	return c.V1().Collections(ctx, p)
}

func v1Collection(c *tambala.Client, ctx context.Context, id string) (tambala.Collection, error) {
	return c.V1().Collection(ctx, id)
}

func v1SimulateCollection(c *tambala.Client, ctx context.Context, sc tambala.SimulatedCollection) (tambala.Collection, error) {
	return c.V1().SimulateCollection(ctx, sc)
}

func v1Payout(c *tambala.Client, ctx context.Context, id string) (payouts.Payout, error) {
	return c.V1().Payout(ctx, id)
}

func v1Payouts(c *tambala.Client, ctx context.Context, p tambala.PageRequest, f tambala.PayoutFilter) (tambala.Page[payouts.Payout], error) {
	return c.V1().Payouts(ctx, p, f)
}

func v1CreatePayout(c *tambala.Client, ctx context.Context, req payouts.Request, idem tambala.Idempotency) (tambala.Created[payouts.Payout], error) {
	return c.V1().CreatePayout(ctx, req, idem)
}
