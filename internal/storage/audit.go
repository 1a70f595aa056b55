package storage

import (
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// The audit trail: by organization, and every entry in one list.
var (
	// AuditByOrg is the index of an organization's entries (org NUL
	// entry id -> record), for listPage.
	AuditByOrg = []byte("audit")
	// AuditAll is the index of every entry ("" NUL entry id -> org id),
	// for listPage.
	AuditAll = []byte("audit.all")
)

// AppendAudit writes org's entry r and lists it in the whole trail.
func AppendAudit(tx store.Tx, org string, r codec.AuditRecord) error {
	if err := PutJSON(tx, AuditByOrg, string(IndexKey(org, r.ID)), r); err != nil {
		return err
	}
	return tx.Put(AuditAll, IndexKey("", r.ID), []byte(org))
}

// LoadAudit reads org's entry id; a missing one is notFound.
func LoadAudit(tx store.Tx, org, id string, notFound error) (codec.AuditRecord, error) {
	var r codec.AuditRecord
	err := GetJSON(tx, AuditByOrg, string(IndexKey(org, id)), &r, notFound)
	return r, err
}

// AuditOrg is the organization of entry id of the whole trail.
func AuditOrg(tx store.Tx, id string) (string, error) {
	o, err := tx.Get(AuditAll, IndexKey("", id))
	return string(o), err
}
