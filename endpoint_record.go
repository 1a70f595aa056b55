package tambala

import (
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// An endpoint is stored as codec.EndpointRecord, field for field: Endpoint
// converts to it and back. Its secret is a codec.SecretRecord.

// loadEndpoint reads org's endpoint into ep; none is notFound.
func loadEndpoint(tx store.Tx, org string, ep *Endpoint, notFound error) error {
	r, err := storage.LoadEndpoint(tx, org, notFound)
	if err != nil {
		return err
	}
	*ep = Endpoint(r)
	return nil
}
