package tambala

import (
	"context"
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// Bootstrap is an organization made ready to use in one go, at most once
// per store: the demo organization of a sandbox server, a host's first
// tenant.
type Bootstrap struct {
	// Marker names this bootstrap in the store (1 to 100 characters, such
	// as "demo"). It is recorded in the transaction that creates the
	// organization; once it is, a bootstrap under the same marker creates
	// nothing, from this process or any other sharing the store.
	Marker string
	// Organization is created as CreateOrganization creates it.
	Organization NewOrganization
	// Funding credits the organization from the operator's float, as Fund
	// does.
	Funding []Funding
	// Corridors are created or replaced as SetCorridor does.
	Corridors []quotes.Corridor
}

// Funding is one credit of a Bootstrap: an amount and its ref.
type Funding struct {
	Amount money.Amount
	Ref    string
}

// Bootstrapped is what BootstrapOrganization did.
type Bootstrapped struct {
	// Created says this call created the organization.
	Created bool
	// Organization is the organization created now or, when Created is
	// false, the one an earlier bootstrap under the marker created (zero
	// when the store held other organizations and no marker).
	Organization Organization
	// Key is the new organization's API key when Created: returned this
	// once, never again. APIKey is its record.
	Key    string
	APIKey APIKey
}

// bootstrapMarkerPrefix starts a bootstrap marker's key in the settings
// bucket; the value is the organization's id.
const bootstrapMarkerPrefix = "bootstrap."

// bootstrapOrganization is Operator.BootstrapOrganization.
func (e *Engine) bootstrapOrganization(ctx context.Context, b Bootstrap) (Bootstrapped, error) {
	if b.Marker == "" || len(b.Marker) > 100 {
		return Bootstrapped{}, errcode.Newf(errcode.ValidationError, "the bootstrap marker must be 1 to 100 characters")
	}
	o, err := e.newOrganization(b.Organization)
	if err != nil {
		return Bootstrapped{}, err
	}
	for _, f := range b.Funding {
		if err := orgs.CheckFunding(f.Amount, f.Ref); err != nil {
			return Bootstrapped{}, err
		}
	}
	for _, c := range b.Corridors {
		if err := e.checkCorridor(c); err != nil {
			return Bootstrapped{}, err
		}
	}
	full, rec, hash, err := e.newKey(o.ID)
	if err != nil {
		return Bootstrapped{}, err
	}
	marker := []byte(bootstrapMarkerPrefix + b.Marker)
	var out Bootstrapped
	err = e.store.Update(ctx, func(tx store.Tx) error {
		out = Bootstrapped{}
		id, err := tx.Get(bucketSettings, marker)
		switch {
		case err == nil:
			return loadOrg(tx, string(id), &out.Organization, errNotFound)
		case !isNotFound(err):
			return err
		}
		empty := true
		if err := tx.Scan(bucketOrgs, store.ScanOptions{}, func(_, _ []byte) (bool, error) {
			empty = false
			return false, nil
		}); err != nil {
			return err
		}
		if !empty {
			return nil
		}
		org := o.Clone()
		if err := saveOrg(tx, &org); err != nil {
			return err
		}
		for _, f := range b.Funding {
			if _, err := e.fund(tx, &org, f.Amount, f.Ref); err != nil {
				return err
			}
		}
		for _, c := range b.Corridors {
			if err := putCorridor(tx, c); err != nil {
				return err
			}
		}
		if err := putKey(tx, &rec, hash); err != nil {
			return err
		}
		if err := tx.Put(bucketSettings, marker, []byte(org.ID)); err != nil {
			return err
		}
		out = Bootstrapped{Created: true, Organization: org, Key: full, APIKey: rec.APIKey}
		return e.auditAs(ctx, tx, org.ID, AuditOrgBootstrapped, org.ID, fmt.Sprintf("created %q with %d fundings, %d corridors and the key %s",
			org.Name, len(b.Funding), len(b.Corridors), rec.Prefix))
	})
	if err != nil {
		return Bootstrapped{}, err
	}
	return out, nil
}
