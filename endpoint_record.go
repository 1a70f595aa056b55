package tambala

import (
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// An endpoint is stored as codec.EndpointRecord, field for field: Endpoint
// converts to it and back. Its secret is a codec.SecretRecord.

// loadEndpoint reads org's endpoint into ep; none is notFound.
func loadEndpoint(tx store.Tx, org string, ep *Endpoint, notFound error) error {
	var r codec.EndpointRecord
	if err := storage.GetJSON(tx, bucketEndpoints, org, &r, notFound); err != nil {
		return err
	}
	*ep = Endpoint(r)
	return nil
}
