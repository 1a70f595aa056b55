package tambala

// OpenSubscriptions counts e's open subscriptions.
func OpenSubscriptions(e *Engine) int { return e.stream.open() }
