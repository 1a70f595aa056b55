package apikeys

import "time"

// Environment is where an engine runs: keys made in one never work in the
// other.
type Environment string

// The environments.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// Key is a stored key. The key itself is never stored, only its hash;
// Prefix (its first DisplayLength characters) is all that is ever shown
// again.
type Key struct {
	ID          string
	Org         string
	Prefix      string
	Environment Environment
	CreatedAt   time.Time
	RevokedAt   *time.Time
}

// Active reports whether the key has not been revoked.
func (k Key) Active() bool { return k.RevokedAt == nil }
