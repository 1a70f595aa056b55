package audit

import (
	"net/netip"
	"time"
)

// Entry is one entry of the audit trail: who did what to which
// organization's people and settings, when, and from where. An entry is
// written in the transaction of the change it records, so a change that
// does not commit leaves none; entries are never changed or removed.
type Entry struct {
	// ID sorts by creation time, like every id of the engine.
	ID    string
	At    time.Time
	Actor Actor
	// Org is the organization the entry belongs to.
	Org    string
	Action Action
	// Target is what was acted on: a user, an invitation or the
	// organization's id.
	Target string
	// Summary tells what changed, before and after, never a secret.
	Summary string
	// Address and RequestID come from the request behind the call; the
	// zero Addr and "" when it had none.
	Address   netip.Addr
	RequestID string
}

// Actor is who acted: an organization's user, one of the operator's
// staff, the operator's automation, or the engine itself.
type Actor struct {
	Kind ActorKind
	// ID and Email are the user's, for a user or staff; empty otherwise.
	ID    string
	Email string
}

// ActorKind is the kind of an Actor.
type ActorKind string

const (
	// ActorUser is an organization's user (the portal).
	ActorUser ActorKind = "user"
	// ActorStaff is one of the operator's staff, signed in.
	ActorStaff ActorKind = "staff"
	// ActorAutomation is the operator's automation: the admin API's token
	// or a host's own code.
	ActorAutomation ActorKind = "automation"
	// ActorSystem is the engine itself.
	ActorSystem ActorKind = "system"
)

// Action is what an audit entry records (the engine names its actions).
type Action string
