package codec

import (
	"time"

	"github.com/tambalapay/tambala/payouts"
)

// InstitutionsRecord is the stored reference data: the payable
// institutions, each momo institution's network and each bank's account
// number bounds [min, max] (zero for a default) by institution id, and
// when they were synced. Records written before the bounds have no
// account_digits, which reads as the defaults.
type InstitutionsRecord struct {
	Institutions  []Institution  `json:"institutions"`
	Networks      map[int]string `json:"networks"`
	AccountDigits map[int][2]int `json:"account_digits,omitempty"`
	SyncedAt      time.Time      `json:"synced_at"`
}

// Institution is the stored form of a payable institution in the
// reference data record: {"institution_id","name","rail"}. The record
// keeps a momo institution's network and a bank's account number bounds
// in maps of their own, beside the list.
type Institution struct {
	ID   int          `json:"institution_id"`
	Name string       `json:"name"`
	Rail payouts.Rail `json:"rail"`
}

// StoreInstitutions is the stored form of list; nil stays nil.
func StoreInstitutions(list []payouts.Institution) []Institution {
	if list == nil {
		return nil
	}
	out := make([]Institution, len(list))
	for i, in := range list {
		out[i] = Institution{ID: in.ID, Name: in.Name, Rail: in.Rail}
	}
	return out
}

// LoadInstitutions reads a stored list back, without the networks and
// account number bounds the record keeps apart; nil stays nil.
func LoadInstitutions(list []Institution) []payouts.Institution {
	if list == nil {
		return nil
	}
	out := make([]payouts.Institution, len(list))
	for i, in := range list {
		out[i] = payouts.Institution{ID: in.ID, Name: in.Name, Rail: in.Rail}
	}
	return out
}
