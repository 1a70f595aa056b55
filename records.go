package tambala

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
)

// The engine's buckets. Each record is JSON; secondary indexes are buckets
// the engine maintains in the same transaction as the record.
var (
	bucketOrgs       = []byte("orgs")
	bucketOrgFloors  = []byte("orgs.floor")
	bucketKeys       = []byte("keys")
	bucketKeysByHash = []byte("keys.by_hash")
	bucketKeysByOrg  = []byte("keys.by_org")
	bucketIdem       = []byte("idempotency")
	bucketIdemByTime = []byte("idempotency.by_time")
	bucketSettings   = []byte("settings")
)

// The due indexes of the payout worker and the webhook dispatcher.
var (
	payoutsDue    = storage.DueIndex("payouts.due")
	deliveriesDue = storage.DueIndex("webhooks.due")
)

var errNotFound = errcode.New(errcode.NotFound)
