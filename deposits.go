package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/money"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// DepositAddressIssuer gives an organization its deposit address on a
// network. It is called outside any transaction, once per
// (org, network) the engine has no address for yet; the engine stores
// what it returns and never asks again for that pair. An error makes the
// whole Client.DepositAddresses call service_unavailable.
type DepositAddressIssuer interface {
	Issue(ctx context.Context, org, network string) (address string, err error)
}

// DepositAddress is one entry of Client.DepositAddresses: a network, the
// organization's address on it and the assets it may deposit there
// (package collections).
type DepositAddress = collections.DepositAddress

var (
	bucketDepositAddresses = []byte("deposit_addresses") // org \x00 network -> address
	bucketDeposits         = []byte("deposits")          // network \x00 tx_ref -> depositRecord
)

func depositAddressKey(org, network string) []byte { return storage.IndexKey(org, network) }

// collects reports whether org may collect asset: the predicate of the
// deposit-address rules (collections.DepositNetworks).
func collects(org *Organization) func(asset money.AssetCode) bool {
	return func(asset money.AssetCode) bool { return org.Enabled(asset, OpCollection) }
}

// depositAddresses is Client.DepositAddresses.
func (e *Engine) depositAddresses(ctx context.Context, p Principal) ([]DepositAddress, error) {
	var (
		list    []DepositAddress
		missing []int
		orgID   string
	)
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		orgID = org.ID
		list = collections.DepositNetworks(e.networks, collects(org))
		for i := range list {
			v, err := tx.Get(bucketDepositAddresses, depositAddressKey(org.ID, list[i].Network))
			switch {
			case errors.Is(err, store.ErrNotFound):
				missing = append(missing, i)
			case err != nil:
				return err
			default:
				list[i].Address = string(v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if list == nil {
		return []DepositAddress{}, nil
	}
	if len(missing) == 0 {
		return list, nil
	}
	// Issue outside any transaction (the issuer may be remote), then store
	// with a re-check: of two racing first reads, the first stored wins
	// and both answer with it.
	issued := make(map[int]string, len(missing))
	for _, i := range missing {
		addr, err := e.issueDepositAddress(ctx, orgID, list[i].Network)
		if err != nil {
			return nil, err
		}
		issued[i] = addr
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		for _, i := range missing {
			k := depositAddressKey(orgID, list[i].Network)
			v, err := tx.Get(bucketDepositAddresses, k)
			switch {
			case errors.Is(err, store.ErrNotFound):
				if err := tx.Put(bucketDepositAddresses, k, []byte(issued[i])); err != nil {
					return err
				}
				list[i].Address = issued[i]
			case err != nil:
				return err
			default:
				list[i].Address = string(v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// issueDepositAddress asks the issuer for org's address on network and
// checks it with the network's validator: service_unavailable when there
// is no issuer, it fails, or its address is not valid.
func (e *Engine) issueDepositAddress(ctx context.Context, org, network string) (string, error) {
	if e.depositIssuer == nil {
		return "", errNoDepositIssuerCoded
	}
	n, err := e.networks.Lookup(network)
	if err != nil {
		return "", err
	}
	addr, err := e.depositIssuer.Issue(ctx, org, network)
	if err == nil {
		err = collections.CheckIssued(n, addr)
	}
	if err != nil {
		e.log.LogAttrs(ctx, slog.LevelError, "deposit address not issued", slog.String("org", org),
			slog.String("network", network), slog.String("error", err.Error()))
		return "", errcode.Newf(errcode.ServiceUnavailable, "Deposit addresses are temporarily unavailable.")
	}
	return addr, nil
}

// Deposit is money received on a network for an organization: a
// provider's callback or the operator's Operator.RecordDeposit.
// (Network, TxRef) identifies it (package collections).
type Deposit = collections.Deposit

// depositRecord remembers a recorded deposit by (network, tx_ref).
type depositRecord = codec.DepositRecord

// MaxTxRefLength bounds a deposit's tx_ref, in bytes; it holds no control
// or invisible format character either, so one transaction is never
// recorded twice under references that look the same.
const MaxTxRefLength = collections.MaxTxRefLength

// recordDeposit is Operator.RecordDeposit.
func (e *Engine) recordDeposit(ctx context.Context, orgID string, d Deposit) (CollectionV2, error) {
	c, err := e.recordDepositOnce(ctx, orgID, d)
	return c.Resource, err
}

// recordDepositOnce is recordDeposit, with Replayed set when the deposit
// had been credited before.
func (e *Engine) recordDepositOnce(ctx context.Context, orgID string, d Deposit) (Created[CollectionV2], error) {
	n, asset, err := d.Check(e.networks, e.assets)
	if err != nil {
		return Created[CollectionV2]{}, err
	}
	var c CollectionV2
	var pending *Approval
	replayed := false
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending, replayed = nil, false
		org := &Organization{}
		if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
			return err
		}
		key := string(storage.IndexKey(n.ID, d.TxRef))
		var prev depositRecord
		err := storage.GetJSON(tx, bucketDeposits, key, &prev, errNotFound)
		switch {
		case err == nil:
			id, err := d.Replay(orgID, collections.Recorded(prev))
			if err != nil {
				return err
			}
			replayed = true
			c, err = e.loadCollectionV2(tx, orgID, id)
			return err
		case !errors.Is(err, errNotFound):
			return err
		}
		if _, err := e.enabledAsset(org, asset.Code, OpCollection); err != nil {
			return err
		}
		pending, err = e.gate(ctx, tx, approvals.Deposit, orgID, d.Amount, key, accounts.StaffOperations,
			map[string]string{"network": n.ID, "tx_ref": d.TxRef})
		if err != nil || pending != nil {
			return err
		}
		c, err = e.creditDeposit(ctx, tx, orgID, d, n.ID, "")
		return err
	})
	if err == nil && pending != nil {
		return Created[CollectionV2]{}, &ApprovalPendingError{Approval: *pending}
	}
	if err != nil {
		return Created[CollectionV2]{}, err
	}
	return Created[CollectionV2]{Resource: c, Replayed: replayed}, nil
}

// creditDeposit credits deposit d of org on network in tx (its checks
// made): the /v2 collection, the deposit's record and the audit entry,
// whose summary ends with note.
func (e *Engine) creditDeposit(ctx context.Context, tx store.Tx, orgID string, d Deposit, network, note string) (CollectionV2, error) {
	org := &Organization{}
	if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
		return CollectionV2{}, err
	}
	if _, err := e.enabledAsset(org, d.Amount.Asset().Code, OpCollection); err != nil {
		return CollectionV2{}, err
	}
	c, err := e.creditCollectionV2(tx, orgID, d.Amount, network, CollectionSourceDeposit)
	if err != nil {
		return CollectionV2{}, err
	}
	if err := e.auditAs(ctx, tx, orgID, AuditDepositRecorded, c.ID, fmt.Sprintf("credited %s net of the fee %s, network %s, tx_ref %q",
		amountText(c.AmountCredited), amountText(c.Fee), network, d.TxRef)+note); err != nil {
		return CollectionV2{}, err
	}
	key := string(storage.IndexKey(network, d.TxRef))
	return c, storage.PutJSON(tx, bucketDeposits, key, depositRecord(d.Recorded(orgID, c.ID)))
}

// rotateDepositAddress is Operator.RotateDepositAddress.
func (e *Engine) rotateDepositAddress(ctx context.Context, orgID, network string) (DepositAddress, error) {
	n, err := e.networks.Lookup(network)
	if err != nil {
		return DepositAddress{}, err
	}
	var old string
	err = e.store.View(ctx, func(tx store.Tx) error {
		if err := loadOrg(tx, orgID, &Organization{}, errNotFound); err != nil {
			return err
		}
		v, err := tx.Get(bucketDepositAddresses, depositAddressKey(orgID, n.ID))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		old = string(v)
		return nil
	})
	if err != nil {
		return DepositAddress{}, err
	}
	addr, err := e.issueDepositAddress(ctx, orgID, n.ID)
	if err != nil {
		return DepositAddress{}, err
	}
	if err := collections.CheckRotation(old, addr); err != nil {
		return DepositAddress{}, err
	}
	var out DepositAddress
	err = e.store.Update(ctx, func(tx store.Tx) error {
		org := &Organization{}
		if err := loadOrg(tx, orgID, org, errNotFound); err != nil {
			return err
		}
		out = collections.AddressOn(n, addr, collects(org))
		if err := e.auditAs(ctx, tx, orgID, AuditDepositAddressRotated, orgID, fmt.Sprintf("network %s: address %s -> %s", n.ID, orNone(old), addr)); err != nil {
			return err
		}
		return tx.Put(bucketDepositAddresses, depositAddressKey(orgID, n.ID), []byte(addr))
	})
	if err != nil {
		return DepositAddress{}, err
	}
	e.log.LogAttrs(ctx, slog.LevelInfo, "deposit address rotated", slog.String("org", orgID), slog.String("network", n.ID))
	return out, nil
}
