package collections

import "github.com/tambalapay/tambala/money"

// PostingKind names the ledger command a Posting stands for.
type PostingKind string

const (
	// KindCredit credits an organization from External, net of a fee.
	KindCredit PostingKind = "credit"
	// KindReverse reverses an earlier entry.
	KindReverse PostingKind = "reverse"
)

// External is the system account money received comes from:
// ledger.External's name.
const External = "external"

// Posting describes one ledger movement for the engine to post, in the
// transaction that stores the collection (see the package documentation
// for the mapping onto ledger commands). The engine sets the entry's time.
type Posting struct {
	Kind    PostingKind
	EntryID string       // collection:<id>, collection:<id>:reverse or collection_v2:<id>
	Of      string       // reverse: the entry reversed
	Org     string       // credit: the organization credited
	Amount  money.Amount // credit: the gross amount received
	Fee     money.Amount // credit: the part kept as the fee, 0 <= Fee <= Amount
	System  string       // credit: From; always External
	Ref     string       // the collection id
}

// EntryID is the ledger entry of /v1 collection id's credit.
func EntryID(id string) string { return "collection:" + id }

// ReverseEntryID is the ledger entry of /v1 collection id's reversal.
func ReverseEntryID(id string) string { return EntryID(id) + ":reverse" }

// EntryIDV2 is the ledger entry of /v2 collection id's credit.
func EntryIDV2(id string) string { return "collection_v2:" + id }

// credit is the posting of id's credit of amount net of fee to org.
func credit(entry, id, org string, amount, fee money.Amount) Posting {
	return Posting{Kind: KindCredit, EntryID: entry, Org: org, Amount: amount, Fee: fee, System: External, Ref: id}
}
