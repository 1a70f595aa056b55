package accounts

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// InvitationTokenPrefix starts every invitation token.
const InvitationTokenPrefix = "inv_"

// TokenBytes is how many random bytes an invitation or session token
// carries: 256 bits, so a plain SHA-256 of the token is safe to store and
// to index by.
const TokenBytes = 32

// The lifetime of an invitation: 72 hours unless the operator chooses
// another, between 1 hour and 7 days.
const (
	DefaultInvitationTTL = 72 * time.Hour
	MinInvitationTTL     = time.Hour
	MaxInvitationTTL     = 7 * 24 * time.Hour
)

// tokenBodyLength is the unpadded base64url length of TokenBytes.
const tokenBodyLength = 43

// InvitationStatus is where an invitation is: pending until it is
// accepted, revoked or expired, all three final.
type InvitationStatus string

const (
	InvitationPending  InvitationStatus = "pending"
	InvitationAccepted InvitationStatus = "accepted"
	InvitationRevoked  InvitationStatus = "revoked"
	InvitationExpired  InvitationStatus = "expired"
)

// Invitation is the operator's invitation of an email address to an
// organization with a role. Its token is shown once, when it is made; the
// invitation keeps only the token's SHA-256, by which the store finds it.
type Invitation struct {
	ID        string
	TokenHash [32]byte
	Email     string
	Org       string
	Role      Role
	// StaffRoles are a staff invitee's (StaffRolesFor).
	StaffRoles []StaffRole
	// InvitedBy is who invited, for the audit trail.
	InvitedBy string
	// ResetOf is, for a password reset, the id of the user whose password
	// it resets (of the invitation's email); empty for an invitation that
	// makes a new user. A reset is accepted by AcceptReset, never Accept.
	ResetOf   string
	CreatedAt time.Time
	ExpiresAt time.Time
	// AcceptedAt and UserID are set when the invitation is accepted.
	AcceptedAt time.Time
	UserID     string
	RevokedAt  time.Time
}

// InvitationRequest is what makes an invitation: an id the caller chose, the
// email address invited (normalised here), the organization and role the
// user will have, who invites, and a lifetime (zero for
// DefaultInvitationTTL). ResetOf, when set, makes it a password reset of
// that existing user (whose email, organization and role the caller gives).
type InvitationRequest struct {
	ID         string
	Email      string
	Org        string
	Role       Role
	StaffRoles []StaffRole
	InvitedBy  string
	TTL        time.Duration
	ResetOf    string
}

// Invite checks r and returns the pending invitation and its token,
// InvitationTokenPrefix and the unpadded base64url of TokenBytes bytes read
// from random, to be sent to the invitee once and never stored.
// validation_error (ErrInvalidID, ErrInvalidEmail, ErrInvalidRole or
// ErrInvalidTTL) for a bad field; internal_error (ErrRandom) when random
// fails.
func Invite(r InvitationRequest, random io.Reader, now time.Time) (Invitation, string, error) {
	if r.ID == "" {
		return Invitation{}, "", coded(errcode.ValidationError, "An invitation needs an id.", ErrInvalidID)
	}
	email, err := NormalizeEmail(r.Email)
	if err != nil {
		return Invitation{}, "", err
	}
	if err := CheckRole(r.Role, r.Org); err != nil {
		return Invitation{}, "", err
	}
	roles, err := StaffRolesFor(r.Role, r.StaffRoles)
	if err != nil {
		return Invitation{}, "", err
	}
	ttl := r.TTL
	if ttl == 0 {
		ttl = DefaultInvitationTTL
	}
	if ttl < MinInvitationTTL || ttl > MaxInvitationTTL {
		return Invitation{}, "", coded(errcode.ValidationError,
			"An invitation lasts from 1 hour to 7 days.", ErrInvalidTTL)
	}
	token, hash, err := newToken(InvitationTokenPrefix, random)
	if err != nil {
		return Invitation{}, "", err
	}
	return Invitation{
		ID: r.ID, TokenHash: hash, Email: email, Org: r.Org, Role: r.Role, StaffRoles: roles, InvitedBy: r.InvitedBy, ResetOf: r.ResetOf,
		CreatedAt: now, ExpiresAt: now.Add(ttl),
	}, token, nil
}

// newToken reads TokenBytes from random and returns the token, prefix and
// their unpadded base64url, and its SHA-256.
func newToken(prefix string, random io.Reader) (string, [32]byte, error) {
	b, err := readRandom(random, TokenBytes)
	if err != nil {
		return "", [32]byte{}, err
	}
	token := prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, sha256.Sum256([]byte(token)), nil
}

// tokenHash checks that token has the shape of a token with prefix and
// returns its SHA-256.
func tokenHash(prefix, token string) ([32]byte, bool) {
	body, ok := strings.CutPrefix(token, prefix)
	if !ok || len(body) != tokenBodyLength {
		return [32]byte{}, false
	}
	if b, err := base64.RawURLEncoding.Strict().DecodeString(body); err != nil || len(b) != TokenBytes {
		return [32]byte{}, false
	}
	return sha256.Sum256([]byte(token)), true
}

// InvitationTokenHash is the key the store finds an invitation by: the
// SHA-256 of token, after checking its shape. unauthorized
// (ErrInvitationUnknown) for a string that cannot be a token.
func InvitationTokenHash(token string) ([32]byte, error) {
	h, ok := tokenHash(InvitationTokenPrefix, token)
	if !ok {
		return [32]byte{}, invitationError(ErrInvitationUnknown)
	}
	return h, nil
}

func invitationError(cause error) error {
	msg := "This invitation link is not valid."
	switch cause {
	case ErrInvitationUsed:
		msg = "This invitation was already accepted; sign in instead."
	case ErrInvitationExpired:
		msg = "This invitation has expired; ask for a new one."
	case ErrInvitationRevoked:
		msg = "This invitation was withdrawn."
	}
	return coded(errcode.Unauthorized, msg, cause)
}

// IsReset reports whether inv is a password reset of an existing user.
func (inv Invitation) IsReset() bool { return inv.ResetOf != "" }

// Status is where inv stands at now. An invitation expires at ExpiresAt.
func (inv Invitation) Status(now time.Time) InvitationStatus {
	switch {
	case !inv.AcceptedAt.IsZero():
		return InvitationAccepted
	case !inv.RevokedAt.IsZero():
		return InvitationRevoked
	case !now.Before(inv.ExpiresAt):
		return InvitationExpired
	}
	return InvitationPending
}

// Usable checks that inv can be accepted at now: unauthorized with
// ErrInvitationUsed, ErrInvitationRevoked or ErrInvitationExpired
// otherwise. An invitation is used at most once.
func (inv Invitation) Usable(now time.Time) error {
	switch inv.Status(now) {
	case InvitationAccepted:
		return invitationError(ErrInvitationUsed)
	case InvitationRevoked:
		return invitationError(ErrInvitationRevoked)
	case InvitationExpired:
		return invitationError(ErrInvitationExpired)
	}
	return nil
}

// Revoke withdraws inv: a pending or expired invitation is revoked at now
// (an invitation revoked before keeps its first time); an accepted one
// cannot be, conflict (ErrInvitationUsed).
func (inv Invitation) Revoke(now time.Time) (Invitation, error) {
	if !inv.AcceptedAt.IsZero() {
		return inv, coded(errcode.Conflict, "The invitation was already accepted.", ErrInvitationUsed)
	}
	if inv.RevokedAt.IsZero() {
		inv.RevokedAt = now
	}
	return inv, nil
}

// Acceptance is the invitee's answer: the token they were sent, the id the
// caller chose for the new user, the password they chose, and the
// parameters to hash it with (the zero Params are DefaultParams).
type Acceptance struct {
	Token    string
	UserID   string
	Password string
	Params   Params
}

// Accept checks a, in this order, and returns inv accepted at now and the
// new active user with the invitation's email, organization and role:
//   - the token is inv's, compared in constant time (unauthorized,
//     ErrInvitationUnknown);
//   - inv is Usable at now (unauthorized, ErrInvitationUsed,
//     ErrInvitationRevoked or ErrInvitationExpired);
//   - the user id is set (validation_error, ErrInvalidID), and the
//     password passes CheckPassword for the invited email
//     (validation_error).
//
// On an error inv is returned unchanged. The user has no TOTP; when the
// organization requires it, the first session is at StageEnrolTOTP. That
// no user has the email yet is the store's check, in the same
// transaction. A password reset (IsReset) is not accepted here, which
// would make a second user of its email: unauthorized,
// ErrInvitationUnknown, after the token matches; AcceptReset accepts it.
func (inv Invitation) Accept(a Acceptance, random io.Reader, now time.Time) (Invitation, User, error) {
	if !inv.tokenMatches(a.Token) {
		return inv, User{}, invitationError(ErrInvitationUnknown)
	}
	if inv.IsReset() {
		return inv, User{}, invitationError(ErrInvitationUnknown)
	}
	if err := inv.Usable(now); err != nil {
		return inv, User{}, err
	}
	u, err := NewUser(UserRequest{ID: a.UserID, Email: inv.Email, Role: inv.Role, Org: inv.Org, StaffRoles: inv.StaffRoles}, now)
	if err != nil {
		return inv, User{}, err
	}
	u, err = u.SetPassword(a.Password, a.Params, random)
	if err != nil {
		return inv, User{}, err
	}
	inv.AcceptedAt, inv.UserID = now, u.ID
	return inv, u, nil
}

// tokenMatches reports whether token is inv's, compared in constant time.
func (inv Invitation) tokenMatches(token string) bool {
	h, ok := tokenHash(InvitationTokenPrefix, token)
	return ok && subtle.ConstantTimeCompare(h[:], inv.TokenHash[:]) == 1
}

// AcceptReset checks a, a password reset's acceptance, in this order, and
// returns inv accepted at now and u with the new password:
//   - the token is inv's, compared in constant time (unauthorized,
//     ErrInvitationUnknown);
//   - inv is Usable at now (unauthorized, ErrInvitationUsed,
//     ErrInvitationRevoked or ErrInvitationExpired);
//   - inv is a password reset of u: IsReset, u's id is ResetOf and u's
//     email the invitation's (unauthorized, ErrInvitationUnknown);
//   - the password passes CheckPassword for u's email (validation_error).
//
// a.UserID is not used. On an error inv and u are returned unchanged.
// Everything else of u stays: its TOTP (a reset does not bypass the second
// factor; ResetTOTP is for a lost device), status and role. Ending u's
// sessions and clearing its sign-in throttle are the store's, in the
// transaction that records the reset.
func (inv Invitation) AcceptReset(a Acceptance, u User, random io.Reader, now time.Time) (Invitation, User, error) {
	if !inv.tokenMatches(a.Token) {
		return inv, u, invitationError(ErrInvitationUnknown)
	}
	if err := inv.Usable(now); err != nil {
		return inv, u, err
	}
	if !inv.IsReset() || u.ID != inv.ResetOf || u.Email != inv.Email {
		return inv, u, invitationError(ErrInvitationUnknown)
	}
	next, err := u.SetPassword(a.Password, a.Params, random)
	if err != nil {
		return inv, u, err
	}
	inv.AcceptedAt, inv.UserID = now, u.ID
	return inv, next, nil
}
