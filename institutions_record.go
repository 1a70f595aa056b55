package tambala

import (
	"time"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/payouts"
)

// institutionsRecord is the reference data as read: the institutions with
// their networks and account number bounds, and when they were synced. It
// is stored as a codec.InstitutionsRecord.
type institutionsRecord struct {
	Institutions []payouts.Institution
	SyncedAt     time.Time
}

// toInstitutionsRecord is the stored form of list synced at.
func toInstitutionsRecord(list []payouts.Institution, at time.Time) codec.InstitutionsRecord {
	rec := codec.InstitutionsRecord{Institutions: codec.StoreInstitutions(list), Networks: map[int]string{},
		AccountDigits: map[int][2]int{}, SyncedAt: at}
	for _, in := range list {
		switch in.Rail {
		case payouts.Momo:
			rec.Networks[in.ID] = in.Network
		case payouts.Bank:
			if in.AccountNumberMinDigits != 0 || in.AccountNumberMaxDigits != 0 {
				rec.AccountDigits[in.ID] = [2]int{in.AccountNumberMinDigits, in.AccountNumberMaxDigits}
			}
		}
	}
	return rec
}

// decodeInstitutions decodes the stored reference data.
func decodeInstitutions(raw []byte) (institutionsRecord, error) {
	r, err := cache.DecodeJSON[codec.InstitutionsRecord](raw)
	if err != nil {
		return institutionsRecord{}, err
	}
	rec := institutionsRecord{Institutions: codec.LoadInstitutions(r.Institutions), SyncedAt: r.SyncedAt}
	for i := range rec.Institutions {
		in := &rec.Institutions[i]
		in.Network = r.Networks[in.ID]
		d := r.AccountDigits[in.ID]
		in.AccountNumberMinDigits, in.AccountNumberMaxDigits = d[0], d[1]
	}
	return rec, nil
}
