package codec

import (
	"encoding/json"

	"github.com/tambalapay/tambala/wire"
)

// CollectionV2Record is a stored /v2 collection: its owner, the ledger
// entry it records and its rendering (render.CollectionV2's bytes), kept
// as they were answered.
type CollectionV2Record struct {
	Org      string          `json:"org"`
	EntryID  string          `json:"entry_id"`
	Rendered json.RawMessage `json:"rendered"`
}

// CollectionV2Rendering is a /v2 collection read back from its stored
// rendering, the amounts as decimal text (the asset's decimals are the
// engine's to know): the stored rendering is the answer's, so its shape is
// the wire's.
type CollectionV2Rendering = wire.CollectionV2
