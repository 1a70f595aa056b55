// Package webhookhttp is the HTTP side of webhooks: Sender delivers the
// engine's outbox over HTTP (10 s timeout, redirects never followed and
// counted as failures, response read capped, no proxy, and every address
// it dials checked after DNS against the destination rule,
// webhooks.Policy, so a name resolving into the operator's own network
// fails the attempt; failures in fixed wordings), and Receiver is a net/http
// handler for hosts that receive our events: it verifies the Signature over
// the raw body against one or two secrets, answers http.StatusUnauthorized
// on a mismatch, and hands each event id to the host once.
package webhookhttp
