package tambala

import "github.com/tambalapay/tambala/internal/render"

// The renderings of the engine's resources, for the tests of package
// tambala_test that compare a read with an event's data.
var (
	RenderCollection   = render.Collection
	RenderTrade        = render.Trade
	RenderCollectionV2 = render.CollectionV2
	RenderPayoutV2     = render.PayoutV2
)
