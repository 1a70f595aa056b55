package storage

// The four-eyes records: the approvals, their indexes and the per-asset
// thresholds.

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

var (
	approvalRecords    = []byte("approvals")           // id -> record
	approvalsByKey     = []byte("approvals.by_key")    // kind NUL key -> id
	approvalThresholds = []byte("approval_thresholds") // asset code -> amount

	// ApprovalsAll lists every approval ("" NUL id), for the list.
	ApprovalsAll = []byte("approvals.all")
	// ApprovalHolds holds the staff members whose approvals are
	// suspended (approvals.Hold): "user" NUL id, or "email" NUL address
	// for an invitation not accepted yet -> hold record.
	ApprovalHolds = []byte("approvals.holds")
)

// LoadApproval reads approval id, its amount in its asset of assets;
// unknown is notFound.
func LoadApproval(tx store.Tx, id string, assets money.Assets, notFound error) (approvals.Approval, error) {
	var r codec.ApprovalRecord
	if err := GetJSON(tx, approvalRecords, id, &r, notFound); err != nil {
		return approvals.Approval{}, err
	}
	as, ok := assets.Lookup(money.AssetCode(r.Asset))
	if !ok {
		return approvals.Approval{}, fmt.Errorf("tambala: approval %s: asset %s is not configured", r.ID, r.Asset)
	}
	amt, err := money.Parse(as, r.Amount)
	if err != nil {
		return approvals.Approval{}, fmt.Errorf("tambala: approval %s: amount: %w", r.ID, err)
	}
	var decided time.Time
	if r.DecidedAt != nil {
		decided = *r.DecidedAt
	}
	return approvals.Approval{ID: r.ID, Kind: approvals.Kind(r.Kind), Org: r.Org, Amount: amt, Key: r.Key, Role: r.Role, Details: r.Details,
		RequestedBy: approvals.Party{Kind: approvals.PartyKind(r.RequestedByKind), UserID: r.RequestedByID, Email: r.RequestedByEmail},
		RequestedAt: r.RequestedAt, Status: approvals.Status(r.Status),
		DecidedBy: approvals.Party{Kind: approvals.PartyKind(r.DecidedByKind), UserID: r.DecidedByID, Email: r.DecidedByEmail},
		DecidedAt: decided, Reason: r.Reason}, nil
}

// SaveApproval writes approval a's record.
func SaveApproval(tx store.Tx, a approvals.Approval) error {
	var decided *time.Time
	if !a.DecidedAt.IsZero() {
		decided = &a.DecidedAt
	}
	return PutJSON(tx, approvalRecords, a.ID, codec.ApprovalRecord{ID: a.ID, Kind: string(a.Kind), Org: a.Org,
		Asset: string(a.Amount.Asset().Code), Amount: a.Amount.String(), Key: a.Key, Role: a.Role, Details: a.Details,
		RequestedByKind: string(a.RequestedBy.Kind), RequestedByID: a.RequestedBy.UserID, RequestedByEmail: a.RequestedBy.Email,
		RequestedAt: a.RequestedAt, Status: string(a.Status), DecidedByKind: string(a.DecidedBy.Kind), DecidedByID: a.DecidedBy.UserID,
		DecidedByEmail: a.DecidedBy.Email, DecidedAt: decided, Reason: a.Reason})
}

// ApprovalByKey is the id of the approval asked under kind and key;
// found false when there is none.
func ApprovalByKey(tx store.Tx, kind approvals.Kind, key string) (string, bool, error) {
	id, ok, err := deskGet(tx, approvalsByKey, IndexKey(string(kind), key))
	return string(id), ok, err
}

// IndexApproval lists a new approval a in ApprovalsAll and under its kind
// and key.
func IndexApproval(tx store.Tx, a approvals.Approval) error {
	if err := tx.Put(ApprovalsAll, IndexKey("", a.ID), nil); err != nil {
		return err
	}
	return tx.Put(approvalsByKey, IndexKey(string(a.Kind), a.Key), []byte(a.ID))
}

// LoadThreshold reads asset's approval threshold: the zero Amount when
// none is set, or when the asset is not in assets any more.
func LoadThreshold(tx store.Tx, asset money.AssetCode, assets money.Assets) (money.Amount, error) {
	v, ok, err := deskGet(tx, approvalThresholds, []byte(asset))
	if !ok || err != nil {
		return money.Amount{}, err
	}
	as, ok := assets.Lookup(asset)
	if !ok {
		return money.Amount{}, nil // an asset no longer configured moves nothing
	}
	return money.Parse(as, string(v))
}

// SaveThreshold sets asset's threshold; the zero Amount removes it.
func SaveThreshold(tx store.Tx, asset money.AssetCode, threshold money.Amount) error {
	if !threshold.IsSet() {
		return tx.Delete(approvalThresholds, []byte(asset))
	}
	return tx.Put(approvalThresholds, []byte(asset), []byte(threshold.String()))
}

// Thresholds reads every asset's threshold that is set.
func Thresholds(tx store.Tx, assets money.Assets) (map[money.AssetCode]money.Amount, error) {
	out := map[money.AssetCode]money.Amount{}
	err := tx.Scan(approvalThresholds, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
		t, err := LoadThreshold(tx, money.AssetCode(k), assets)
		out[money.AssetCode(k)] = t
		return err == nil, err
	})
	return out, err
}
