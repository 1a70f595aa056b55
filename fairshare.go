package tambala

import "context"

// Enter admits one request of the organization orgID to the engine for a
// fair share of it: while more than one organization is active, each has
// at most Limits.InFlightPerOrg requests in the engine at once and its
// further requests wait here, in order, until one of its own ends (or ctx
// does: service_unavailable). An organization alone is never held back.
// A transport calls it after Allow, before the use case, and calls
// release when the request is done; the engine's own calls do not pass
// through it.
func (e *Engine) Enter(ctx context.Context, orgID string) (release func(), err error) {
	return e.share.Enter(ctx, orgID)
}
