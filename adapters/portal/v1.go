package portal

import (
	"context"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/payouts"
)

// The /v1 pages read through the organization's /v1 face (Client.V1);
// these adapt its calls to the page helpers' shape.

func v1Payouts(c *tambala.Client, ctx context.Context, p tambala.PageRequest, f tambala.PayoutFilter) (tambala.Page[payouts.Payout], error) {
	return c.V1().Payouts(ctx, p, f)
}

func v1Payout(c *tambala.Client, ctx context.Context, id string) (payouts.Payout, error) {
	return c.V1().Payout(ctx, id)
}

func v1Collection(c *tambala.Client, ctx context.Context, id string) (tambala.Collection, error) {
	return c.V1().Collection(ctx, id)
}
