package tambala

// Allow takes one token from the organization's bucket. When none is left
// it returns false and how long to wait, in whole seconds (at least 1), for
// the Retry-After header.
func (e *Engine) Allow(orgID string) (ok bool, retryAfterSeconds int) {
	return e.rates.Allow(orgID, e.now())
}
