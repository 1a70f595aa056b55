package codec

import "time"

// ProofRecord is a stored funding proof (its bytes are in the engine's
// ProofStore): the order and organization it belongs to, the hex SHA-256
// of its bytes, their media type and size, and when it was uploaded.
type ProofRecord struct {
	ID          string    `json:"id"`
	Order       string    `json:"order"`
	Org         string    `json:"org"`
	SHA256      string    `json:"sha256"`
	ContentType string    `json:"content_type"`
	Size        int64     `json:"size"`
	UploadedAt  time.Time `json:"uploaded_at"`
}
