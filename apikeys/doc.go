// Package apikeys holds the pure rules of API keys: their format (a fixed
// live prefix and a base62 body of at least 32 random bytes), the 16
// characters that are ever shown again, and the hash they are stored as.
// Randomness comes from the caller, so the rules stay deterministic. It
// also holds the cap on an organization's active keys (CheckCap), which
// the engine enforces and the portal shows.
package apikeys
