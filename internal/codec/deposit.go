package codec

import "github.com/tambalapay/tambala/money"

// DepositRecord remembers a recorded deposit by (network, tx_ref): the
// organization credited, the asset and amount (decimal text) and the /v2
// collection that recorded it.
type DepositRecord struct {
	Org        string          `json:"org"`
	Asset      money.AssetCode `json:"asset"`
	Amount     string          `json:"amount"`
	Collection string          `json:"collection"`
}
