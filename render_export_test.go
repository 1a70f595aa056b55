package tambala

// The engine's renderings of its own resources, for the tests of package
// tambala_test that compare a read with an event's data.
var (
	RenderCollection   = renderCollection
	RenderTrade        = renderTrade
	RenderCollectionV2 = renderCollectionV2
	RenderPayoutV2     = renderPayoutV2
)
