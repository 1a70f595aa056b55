package tambala

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// The buckets of the portal's people. Tokens are found by their SHA-256
// (raw bytes as the key); nothing stores a token itself.
var (
	bucketUsers            = []byte("users")
	bucketUsersByEmail     = []byte("users.by_email") // normalised email -> user id
	bucketUsersByOrg       = []byte("users.by_org")   // org NUL user id
	bucketInvitations      = []byte("invitations")    // token hash -> record
	bucketInvitationsByOrg = []byte("invitations.by_org")
	bucketSessions         = []byte("sessions")          // token hash -> record
	bucketSessionsByUser   = []byte("sessions.by_user")  // user id NUL token hash, while not ended
	bucketThrottleAccounts = []byte("throttles.account") // normalised email -> record
	bucketThrottleAddrs    = []byte("throttles.address") // accounts.AddressKey -> record
	bucketOrgPortal        = []byte("orgs.portal")       // org id -> portal settings
)

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func timeOf(p *time.Time) time.Time {
	if p == nil {
		return time.Time{}
	}
	return *p
}

func toUserRecord(u accounts.User) codec.UserRecord {
	r := codec.UserRecord{ID: u.ID, Email: u.Email, Role: string(u.Role), Org: u.Org, StaffRoles: staffRoleStrings(u.StaffRoles), PasswordHash: string(u.PasswordHash),
		CreatedAt: u.CreatedAt, DisabledAt: timePtr(u.DisabledAt),
		TOTP: codec.TOTPRecord{Secret: u.TOTP.Secret, Enrolled: u.TOTP.Enrolled, EnrolledAt: timePtr(u.TOTP.EnrolledAt),
			LastStep: u.TOTP.LastStep, RecoveryCodes: []codec.RecoveryCodeRecord{}}}
	for _, c := range u.TOTP.RecoveryCodes {
		r.TOTP.RecoveryCodes = append(r.TOTP.RecoveryCodes, codec.RecoveryCodeRecord{Salt: hex.EncodeToString(c.Salt[:]),
			Hash: hex.EncodeToString(c.Hash[:]), UsedAt: timePtr(c.UsedAt)})
	}
	return r
}

func fromUserRecord(r codec.UserRecord) (accounts.User, error) {
	u := accounts.User{ID: r.ID, Email: r.Email, Role: accounts.Role(r.Role), Org: r.Org, StaffRoles: staffRolesOf(r.StaffRoles), PasswordHash: accounts.PasswordHash(r.PasswordHash),
		CreatedAt: r.CreatedAt, DisabledAt: timeOf(r.DisabledAt),
		TOTP: accounts.TOTP{Secret: r.TOTP.Secret, Enrolled: r.TOTP.Enrolled, EnrolledAt: timeOf(r.TOTP.EnrolledAt), LastStep: r.TOTP.LastStep}}
	for _, c := range r.TOTP.RecoveryCodes {
		var rc accounts.RecoveryCode
		if err := hex32(c.Salt, rc.Salt[:]); err != nil {
			return accounts.User{}, fmt.Errorf("tambala: user %s: stored recovery code: %w", r.ID, err)
		}
		if err := hex32(c.Hash, rc.Hash[:]); err != nil {
			return accounts.User{}, fmt.Errorf("tambala: user %s: stored recovery code: %w", r.ID, err)
		}
		rc.UsedAt = timeOf(c.UsedAt)
		u.TOTP.RecoveryCodes = append(u.TOTP.RecoveryCodes, rc)
	}
	return u, nil
}

// hex32 decodes s into dst, which it must fill exactly.
func hex32(s string, dst []byte) error {
	b, err := hex.DecodeString(s)
	if err != nil {
		return err
	}
	if len(b) != len(dst) {
		return fmt.Errorf("%d bytes, want %d", len(b), len(dst))
	}
	copy(dst, b)
	return nil
}

func toInvitationRecord(i accounts.Invitation) codec.InvitationRecord {
	return codec.InvitationRecord{ID: i.ID, TokenHash: hex.EncodeToString(i.TokenHash[:]), Email: i.Email, Org: i.Org,
		Role: string(i.Role), StaffRoles: staffRoleStrings(i.StaffRoles), InvitedBy: i.InvitedBy, ResetOf: i.ResetOf, CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt,
		AcceptedAt: timePtr(i.AcceptedAt), UserID: i.UserID, RevokedAt: timePtr(i.RevokedAt)}
}

func fromInvitationRecord(r codec.InvitationRecord) (accounts.Invitation, error) {
	i := accounts.Invitation{ID: r.ID, Email: r.Email, Org: r.Org, Role: accounts.Role(r.Role), StaffRoles: staffRolesOf(r.StaffRoles), InvitedBy: r.InvitedBy,
		ResetOf: r.ResetOf, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, AcceptedAt: timeOf(r.AcceptedAt), UserID: r.UserID, RevokedAt: timeOf(r.RevokedAt)}
	if err := hex32(r.TokenHash, i.TokenHash[:]); err != nil {
		return accounts.Invitation{}, fmt.Errorf("tambala: invitation %s: stored token hash: %w", r.ID, err)
	}
	return i, nil
}

func toSessionRecord(s accounts.Session) codec.SessionRecord {
	return codec.SessionRecord{TokenHash: hex.EncodeToString(s.TokenHash[:]), UserID: s.UserID, Stage: string(s.Stage),
		SignedInAt: s.SignedInAt, CreatedAt: s.CreatedAt, LastSeenAt: s.LastSeenAt, EndedAt: timePtr(s.EndedAt), EndReason: string(s.EndReason)}
}

func fromSessionRecord(r codec.SessionRecord) (accounts.Session, error) {
	s := accounts.Session{UserID: r.UserID, Stage: accounts.Stage(r.Stage), SignedInAt: r.SignedInAt, CreatedAt: r.CreatedAt,
		LastSeenAt: r.LastSeenAt, EndedAt: timeOf(r.EndedAt), EndReason: accounts.EndReason(r.EndReason)}
	if err := hex32(r.TokenHash, s.TokenHash[:]); err != nil {
		return accounts.Session{}, fmt.Errorf("tambala: session of %s: stored token hash: %w", r.UserID, err)
	}
	return s, nil
}

func toThrottleRecord(t accounts.Throttle) codec.ThrottleRecord {
	r := codec.ThrottleRecord{Failures: t.Failures, Lockouts: t.Lockouts, LockedUntil: timePtr(t.LockedUntil)}
	if r.Failures == nil {
		r.Failures = []time.Time{}
	}
	return r
}

func fromThrottleRecord(r codec.ThrottleRecord) accounts.Throttle {
	t := accounts.Throttle{Failures: r.Failures, Lockouts: r.Lockouts, LockedUntil: timeOf(r.LockedUntil)}
	if len(t.Failures) == 0 {
		t.Failures = nil
	}
	return t
}

func toAuditRecord(a AuditEntry) codec.AuditRecord {
	r := codec.AuditRecord{ID: a.ID, At: a.At, ActorKind: string(a.Actor.Kind), ActorID: a.Actor.ID, ActorEmail: a.Actor.Email,
		Org: a.Org, Action: string(a.Action), Target: a.Target, Summary: a.Summary, RequestID: a.RequestID}
	if a.Address.IsValid() {
		r.Address = a.Address.String()
	}
	return r
}

func fromAuditRecord(r codec.AuditRecord) (AuditEntry, error) {
	a := AuditEntry{ID: r.ID, At: r.At, Actor: AuditActor{Kind: AuditActorKind(r.ActorKind), ID: r.ActorID, Email: r.ActorEmail},
		Org: r.Org, Action: AuditAction(r.Action), Target: r.Target, Summary: r.Summary, RequestID: r.RequestID}
	if r.Address != "" {
		var err error
		if a.Address, err = netip.ParseAddr(r.Address); err != nil {
			return AuditEntry{}, fmt.Errorf("tambala: audit entry %s: stored address: %w", r.ID, err)
		}
	}
	return a, nil
}

// loadUser reads user id; a missing one is notFound.
func loadUser(tx store.Tx, id string, notFound error) (accounts.User, error) {
	var r codec.UserRecord
	if err := storage.GetJSON(tx, bucketUsers, id, &r, notFound); err != nil {
		return accounts.User{}, err
	}
	return fromUserRecord(r)
}

// userByEmail reads the user with the normalised email; ok is false when
// there is none.
func userByEmail(tx store.Tx, email string) (accounts.User, bool, error) {
	id, err := tx.Get(bucketUsersByEmail, []byte(email))
	if isNotFound(err) {
		return accounts.User{}, false, nil
	}
	if err != nil {
		return accounts.User{}, false, err
	}
	u, err := loadUser(tx, string(id), errNotFound)
	return u, err == nil, err
}

// putUser writes u and its indexes (its email and organization never
// change once it exists).
func putUser(tx store.Tx, u accounts.User) error {
	if err := storage.PutJSON(tx, bucketUsers, u.ID, toUserRecord(u)); err != nil {
		return err
	}
	if err := tx.Put(bucketUsersByEmail, []byte(u.Email), []byte(u.ID)); err != nil {
		return err
	}
	return tx.Put(bucketUsersByOrg, storage.IndexKey(u.Org, u.ID), nil)
}

// loadInvitation reads the invitation with token hash h; a missing one is
// notFound.
func loadInvitation(tx store.Tx, h [32]byte, notFound error) (accounts.Invitation, error) {
	var r codec.InvitationRecord
	if err := storage.GetJSON(tx, bucketInvitations, string(h[:]), &r, notFound); err != nil {
		return accounts.Invitation{}, err
	}
	return fromInvitationRecord(r)
}

// putInvitation writes inv and its organization's index, whose value is
// the token hash the invitation is found by.
func putInvitation(tx store.Tx, inv accounts.Invitation) error {
	if err := storage.PutJSON(tx, bucketInvitations, string(inv.TokenHash[:]), toInvitationRecord(inv)); err != nil {
		return err
	}
	return tx.Put(bucketInvitationsByOrg, storage.IndexKey(inv.Org, inv.ID), inv.TokenHash[:])
}

// loadSession reads the session with token hash h; a missing one is
// notFound.
func loadSession(tx store.Tx, h [32]byte, notFound error) (accounts.Session, error) {
	var r codec.SessionRecord
	if err := storage.GetJSON(tx, bucketSessions, string(h[:]), &r, notFound); err != nil {
		return accounts.Session{}, err
	}
	return fromSessionRecord(r)
}

// putSession writes s; a session in its user's index leaves it once it
// has ended.
func putSession(tx store.Tx, s accounts.Session) error {
	if err := storage.PutJSON(tx, bucketSessions, string(s.TokenHash[:]), toSessionRecord(s)); err != nil {
		return err
	}
	k := storage.IndexKey(s.UserID, string(s.TokenHash[:]))
	if s.Ended() {
		return tx.Delete(bucketSessionsByUser, k)
	}
	return tx.Put(bucketSessionsByUser, k, nil)
}

// loadThrottle reads the throttle under key in bucket: a key without one
// has the zero Throttle.
func loadThrottle(tx store.Tx, bucket []byte, key string) (accounts.Throttle, error) {
	var r codec.ThrottleRecord
	err := storage.GetJSON(tx, bucket, key, &r, errNotFound)
	if err == errNotFound {
		return accounts.Throttle{}, nil
	}
	if err != nil {
		return accounts.Throttle{}, err
	}
	return fromThrottleRecord(r), nil
}

func putThrottle(tx store.Tx, bucket []byte, key string, t accounts.Throttle) error {
	return storage.PutJSON(tx, bucket, key, toThrottleRecord(t))
}

// loadAccountThrottle reads the throttle of the account under key (its
// normalised email in an audience's namespace): the zero AccountThrottle
// for none.
func loadAccountThrottle(tx store.Tx, key string) (accounts.AccountThrottle, error) {
	var r codec.ThrottleRecord
	err := storage.GetJSON(tx, bucketThrottleAccounts, key, &r, errNotFound)
	if err == errNotFound {
		return accounts.AccountThrottle{}, nil
	}
	if err != nil {
		return accounts.AccountThrottle{}, err
	}
	return fromAccountThrottleRecord(r), nil
}

func fromAccountThrottleRecord(r codec.ThrottleRecord) accounts.AccountThrottle {
	a := accounts.AccountThrottle{Cap: fromThrottleRecord(r)}
	for k, p := range r.Pairs {
		if a.Pairs == nil {
			a.Pairs = map[string]accounts.Throttle{}
		}
		a.Pairs[k] = fromThrottleRecord(p)
	}
	return a
}

func putAccountThrottle(tx store.Tx, key string, a accounts.AccountThrottle) error {
	r := toThrottleRecord(a.Cap)
	for k, t := range a.Pairs {
		if r.Pairs == nil {
			r.Pairs = map[string]codec.ThrottleRecord{}
		}
		r.Pairs[k] = toThrottleRecord(t)
	}
	return storage.PutJSON(tx, bucketThrottleAccounts, key, r)
}

// totpRequired reads whether u must sign in with TOTP: every staff user
// must, and an organization's users when it requires it.
func totpRequired(tx store.Tx, u accounts.User) (bool, error) {
	if u.IsStaff() {
		return true, nil
	}
	return orgTOTPRequired(tx, u.Org)
}

// orgTOTPRequired reads whether organization org requires TOTP of its
// users.
func orgTOTPRequired(tx store.Tx, org string) (bool, error) {
	var r codec.PortalSettingsRecord
	err := storage.GetJSON(tx, bucketOrgPortal, org, &r, errNotFound)
	if err == errNotFound {
		return false, nil
	}
	return r.TOTPRequired, err
}

func putPortalSettings(tx store.Tx, org string, totpRequired bool) error {
	return storage.PutJSON(tx, bucketOrgPortal, org, codec.PortalSettingsRecord{TOTPRequired: totpRequired})
}

func staffRoleStrings(roles []accounts.StaffRole) []string {
	if len(roles) == 0 {
		return nil
	}
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}

func staffRolesOf(roles []string) []accounts.StaffRole {
	if len(roles) == 0 {
		return nil
	}
	out := make([]accounts.StaffRole, len(roles))
	for i, r := range roles {
		out[i] = accounts.StaffRole(r)
	}
	return out
}
