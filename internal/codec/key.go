package codec

import "time"

// KeyRecord is the stored form of an API key (the engine's APIKey and the
// hex SHA-256 of the key, never the key itself); revoked_at is null while
// the key is active.
type KeyRecord struct {
	ID          string     `json:"id"`
	Org         string     `json:"org_id"`
	Prefix      string     `json:"prefix"`
	Environment string     `json:"environment"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	Hash        string     `json:"hash"`
}
