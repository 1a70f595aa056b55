package storage

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// The buckets of the portal's people. Tokens are found by their SHA-256
// (raw bytes as the key); nothing stores a token itself.
var (
	users            = []byte("users")
	usersByEmail     = []byte("users.by_email") // normalised email -> user id
	usersByOrg       = []byte("users.by_org")   // org NUL user id
	invitations      = []byte("invitations")    // token hash -> record
	invitationsByOrg = []byte("invitations.by_org")
	sessions         = []byte("sessions")          // token hash -> record
	sessionsByUser   = []byte("sessions.by_user")  // user id NUL token hash, while not ended
	throttleAccounts = []byte("throttles.account") // normalised email -> record
	throttleAddrs    = []byte("throttles.address") // accounts.AddressKey -> record
	orgPortal        = []byte("orgs.portal")       // org id -> portal settings
)

// errMissing is a record not found, inside this file.
var errMissing = errors.New("storage: missing")

// TimePtr is t for a record's optional time: nil for the zero time.
func TimePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// TimeOf is a record's optional time: the zero time for nil.
func TimeOf(p *time.Time) time.Time {
	if p == nil {
		return time.Time{}
	}
	return *p
}

// UserRecord is the stored form of u.
func UserRecord(u accounts.User) codec.UserRecord {
	r := codec.UserRecord{ID: u.ID, Email: u.Email, Role: string(u.Role), Org: u.Org, StaffRoles: staffRoleStrings(u.StaffRoles), PasswordHash: string(u.PasswordHash),
		CreatedAt: u.CreatedAt, DisabledAt: TimePtr(u.DisabledAt),
		TOTP: codec.TOTPRecord{Secret: u.TOTP.Secret, Enrolled: u.TOTP.Enrolled, EnrolledAt: TimePtr(u.TOTP.EnrolledAt),
			LastStep: u.TOTP.LastStep, RecoveryCodes: []codec.RecoveryCodeRecord{}}}
	for _, c := range u.TOTP.RecoveryCodes {
		r.TOTP.RecoveryCodes = append(r.TOTP.RecoveryCodes, codec.RecoveryCodeRecord{Salt: hex.EncodeToString(c.Salt[:]),
			Hash: hex.EncodeToString(c.Hash[:]), UsedAt: TimePtr(c.UsedAt)})
	}
	return r
}

// UserOf is the user of stored record r.
func UserOf(r codec.UserRecord) (accounts.User, error) {
	u := accounts.User{ID: r.ID, Email: r.Email, Role: accounts.Role(r.Role), Org: r.Org, StaffRoles: staffRolesOf(r.StaffRoles), PasswordHash: accounts.PasswordHash(r.PasswordHash),
		CreatedAt: r.CreatedAt, DisabledAt: TimeOf(r.DisabledAt),
		TOTP: accounts.TOTP{Secret: r.TOTP.Secret, Enrolled: r.TOTP.Enrolled, EnrolledAt: TimeOf(r.TOTP.EnrolledAt), LastStep: r.TOTP.LastStep}}
	for _, c := range r.TOTP.RecoveryCodes {
		var rc accounts.RecoveryCode
		if err := hex32(c.Salt, rc.Salt[:]); err != nil {
			return accounts.User{}, fmt.Errorf("tambala: user %s: stored recovery code: %w", r.ID, err)
		}
		if err := hex32(c.Hash, rc.Hash[:]); err != nil {
			return accounts.User{}, fmt.Errorf("tambala: user %s: stored recovery code: %w", r.ID, err)
		}
		rc.UsedAt = TimeOf(c.UsedAt)
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

func invitationRecord(i accounts.Invitation) codec.InvitationRecord {
	return codec.InvitationRecord{ID: i.ID, TokenHash: hex.EncodeToString(i.TokenHash[:]), Email: i.Email, Org: i.Org,
		Role: string(i.Role), StaffRoles: staffRoleStrings(i.StaffRoles), InvitedBy: i.InvitedBy, ResetOf: i.ResetOf, CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt,
		AcceptedAt: TimePtr(i.AcceptedAt), UserID: i.UserID, RevokedAt: TimePtr(i.RevokedAt)}
}

func invitationOf(r codec.InvitationRecord) (accounts.Invitation, error) {
	i := accounts.Invitation{ID: r.ID, Email: r.Email, Org: r.Org, Role: accounts.Role(r.Role), StaffRoles: staffRolesOf(r.StaffRoles), InvitedBy: r.InvitedBy,
		ResetOf: r.ResetOf, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, AcceptedAt: TimeOf(r.AcceptedAt), UserID: r.UserID, RevokedAt: TimeOf(r.RevokedAt)}
	if err := hex32(r.TokenHash, i.TokenHash[:]); err != nil {
		return accounts.Invitation{}, fmt.Errorf("tambala: invitation %s: stored token hash: %w", r.ID, err)
	}
	return i, nil
}

func sessionRecord(s accounts.Session) codec.SessionRecord {
	return codec.SessionRecord{TokenHash: hex.EncodeToString(s.TokenHash[:]), UserID: s.UserID, Stage: string(s.Stage),
		SignedInAt: s.SignedInAt, CreatedAt: s.CreatedAt, LastSeenAt: s.LastSeenAt, EndedAt: TimePtr(s.EndedAt), EndReason: string(s.EndReason)}
}

func sessionOf(r codec.SessionRecord) (accounts.Session, error) {
	s := accounts.Session{UserID: r.UserID, Stage: accounts.Stage(r.Stage), SignedInAt: r.SignedInAt, CreatedAt: r.CreatedAt,
		LastSeenAt: r.LastSeenAt, EndedAt: TimeOf(r.EndedAt), EndReason: accounts.EndReason(r.EndReason)}
	if err := hex32(r.TokenHash, s.TokenHash[:]); err != nil {
		return accounts.Session{}, fmt.Errorf("tambala: session of %s: stored token hash: %w", r.UserID, err)
	}
	return s, nil
}

func throttleRecord(t accounts.Throttle) codec.ThrottleRecord {
	r := codec.ThrottleRecord{Failures: t.Failures, Lockouts: t.Lockouts, LockedUntil: TimePtr(t.LockedUntil)}
	if r.Failures == nil {
		r.Failures = []time.Time{}
	}
	return r
}

func throttleOf(r codec.ThrottleRecord) accounts.Throttle {
	t := accounts.Throttle{Failures: r.Failures, Lockouts: r.Lockouts, LockedUntil: TimeOf(r.LockedUntil)}
	if len(t.Failures) == 0 {
		t.Failures = nil
	}
	return t
}

func accountThrottleOf(r codec.ThrottleRecord) accounts.AccountThrottle {
	a := accounts.AccountThrottle{Cap: throttleOf(r)}
	for k, p := range r.Pairs {
		if a.Pairs == nil {
			a.Pairs = map[string]accounts.Throttle{}
		}
		a.Pairs[k] = throttleOf(p)
	}
	return a
}

func accountThrottleRecord(a accounts.AccountThrottle) codec.ThrottleRecord {
	r := throttleRecord(a.Cap)
	for k, t := range a.Pairs {
		if r.Pairs == nil {
			r.Pairs = map[string]codec.ThrottleRecord{}
		}
		r.Pairs[k] = throttleRecord(t)
	}
	return r
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

// LoadUser reads user id; a missing one is notFound.
func LoadUser(tx store.Tx, id string, notFound error) (accounts.User, error) {
	var r codec.UserRecord
	if err := GetJSON(tx, users, id, &r, notFound); err != nil {
		return accounts.User{}, err
	}
	return UserOf(r)
}

// UserByEmail reads the user with the normalised email; ok is false when
// there is none. An index entry whose user is missing is notFound.
func UserByEmail(tx store.Tx, email string, notFound error) (accounts.User, bool, error) {
	id, err := tx.Get(usersByEmail, []byte(email))
	if errors.Is(err, store.ErrNotFound) {
		return accounts.User{}, false, nil
	}
	if err != nil {
		return accounts.User{}, false, err
	}
	u, err := LoadUser(tx, string(id), notFound)
	return u, err == nil, err
}

// SaveUser writes u and its indexes (its email and organization never
// change once it exists).
func SaveUser(tx store.Tx, u accounts.User) error {
	if err := PutJSON(tx, users, u.ID, UserRecord(u)); err != nil {
		return err
	}
	if err := tx.Put(usersByEmail, []byte(u.Email), []byte(u.ID)); err != nil {
		return err
	}
	return tx.Put(usersByOrg, IndexKey(u.Org, u.ID), nil)
}

// UsersOfOrg calls each with every user of org ("" for the staff), oldest
// first, until it returns false; an indexed user missing is notFound.
func UsersOfOrg(tx store.Tx, org string, notFound error, each func(u accounts.User) (bool, error)) error {
	prefix := IndexPrefix(org)
	return tx.Scan(usersByOrg, store.ScanOptions{Prefix: prefix}, func(k, _ []byte) (bool, error) {
		u, err := LoadUser(tx, string(k[len(prefix):]), notFound)
		if err != nil {
			return false, err
		}
		return each(u)
	})
}

// LoadInvitation reads the invitation with token hash h; a missing one is
// notFound.
func LoadInvitation(tx store.Tx, h [32]byte, notFound error) (accounts.Invitation, error) {
	var r codec.InvitationRecord
	if err := GetJSON(tx, invitations, string(h[:]), &r, notFound); err != nil {
		return accounts.Invitation{}, err
	}
	return invitationOf(r)
}

// SaveInvitation writes inv and its organization's index, whose value is
// the token hash the invitation is found by.
func SaveInvitation(tx store.Tx, inv accounts.Invitation) error {
	if err := PutJSON(tx, invitations, string(inv.TokenHash[:]), invitationRecord(inv)); err != nil {
		return err
	}
	return tx.Put(invitationsByOrg, IndexKey(inv.Org, inv.ID), inv.TokenHash[:])
}

// InvitationOfOrg reads invitation id of org; a missing one is notFound.
func InvitationOfOrg(tx store.Tx, org, id string, notFound error) (accounts.Invitation, error) {
	h, err := tx.Get(invitationsByOrg, IndexKey(org, id))
	if errors.Is(err, store.ErrNotFound) || (err == nil && len(h) != 32) {
		return accounts.Invitation{}, notFound
	}
	if err != nil {
		return accounts.Invitation{}, err
	}
	return LoadInvitation(tx, [32]byte(h), notFound)
}

// InvitationsOfOrg calls each with every invitation of org, oldest first;
// an indexed invitation missing is notFound.
func InvitationsOfOrg(tx store.Tx, org string, notFound error, each func(inv accounts.Invitation)) error {
	return tx.Scan(invitationsByOrg, store.ScanOptions{Prefix: IndexPrefix(org)}, func(_, v []byte) (bool, error) {
		inv, err := LoadInvitation(tx, [32]byte(v), notFound)
		if err != nil {
			return false, err
		}
		each(inv)
		return true, nil
	})
}

// LoadSession reads the session with token hash h; a missing one is
// notFound.
func LoadSession(tx store.Tx, h [32]byte, notFound error) (accounts.Session, error) {
	var r codec.SessionRecord
	if err := GetJSON(tx, sessions, string(h[:]), &r, notFound); err != nil {
		return accounts.Session{}, err
	}
	return sessionOf(r)
}

// SaveSession writes s; a session in its user's index leaves it once it
// has ended.
func SaveSession(tx store.Tx, s accounts.Session) error {
	if err := PutJSON(tx, sessions, string(s.TokenHash[:]), sessionRecord(s)); err != nil {
		return err
	}
	k := IndexKey(s.UserID, string(s.TokenHash[:]))
	if s.Ended() {
		return tx.Delete(sessionsByUser, k)
	}
	return tx.Put(sessionsByUser, k, nil)
}

// SessionsOfUser reads the token hashes of the sessions of user id that
// have not ended.
func SessionsOfUser(tx store.Tx, userID string) ([][32]byte, error) {
	var hashes [][32]byte
	prefix := IndexPrefix(userID)
	err := tx.Scan(sessionsByUser, store.ScanOptions{Prefix: prefix}, func(k, _ []byte) (bool, error) {
		if len(k) != len(prefix)+32 {
			return false, fmt.Errorf("tambala: malformed session index key of user %s", userID)
		}
		hashes = append(hashes, [32]byte(k[len(prefix):]))
		return true, nil
	})
	return hashes, err
}

// PrunableSessions reads up to batch sessions that prune keeps, in the
// order of their token hashes.
func PrunableSessions(tx store.Tx, batch int, prune func(accounts.Session) bool) ([]accounts.Session, error) {
	var old []accounts.Session
	err := tx.Scan(sessions, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		r, err := cache.DecodeJSON[codec.SessionRecord](v)
		if err != nil {
			return false, err
		}
		s, err := sessionOf(r)
		if err != nil {
			return false, err
		}
		if prune(s) {
			old = append(old, s)
		}
		return len(old) < batch, nil
	})
	return old, err
}

// DeleteSessions deletes each of list and its user's index entry.
func DeleteSessions(tx store.Tx, list []accounts.Session) error {
	for _, s := range list {
		if err := tx.Delete(sessions, s.TokenHash[:]); err != nil {
			return err
		}
		if err := tx.Delete(sessionsByUser, IndexKey(s.UserID, string(s.TokenHash[:]))); err != nil {
			return err
		}
	}
	return nil
}

// LoadAddressThrottle reads the throttle of the address key: the zero
// Throttle for none.
func LoadAddressThrottle(tx store.Tx, key string) (accounts.Throttle, error) {
	var r codec.ThrottleRecord
	err := GetJSON(tx, throttleAddrs, key, &r, errMissing)
	if err == errMissing {
		return accounts.Throttle{}, nil
	}
	if err != nil {
		return accounts.Throttle{}, err
	}
	return throttleOf(r), nil
}

// SaveAddressThrottle writes the throttle of the address key.
func SaveAddressThrottle(tx store.Tx, key string, t accounts.Throttle) error {
	return PutJSON(tx, throttleAddrs, key, throttleRecord(t))
}

// LoadAccountThrottle reads the throttle of the account under key (its
// normalised email in an audience's namespace): the zero AccountThrottle
// for none.
func LoadAccountThrottle(tx store.Tx, key string) (accounts.AccountThrottle, error) {
	var r codec.ThrottleRecord
	err := GetJSON(tx, throttleAccounts, key, &r, errMissing)
	if err == errMissing {
		return accounts.AccountThrottle{}, nil
	}
	if err != nil {
		return accounts.AccountThrottle{}, err
	}
	return accountThrottleOf(r), nil
}

// SaveAccountThrottle writes the throttle of the account under key.
func SaveAccountThrottle(tx store.Tx, key string, a accounts.AccountThrottle) error {
	return PutJSON(tx, throttleAccounts, key, accountThrottleRecord(a))
}

// PruneThrottles deletes up to batch account throttles that account
// keeps (forgotten) and up to batch address throttles that address keeps,
// and reports how many in all.
func PruneThrottles(tx store.Tx, batch int, account func(accounts.AccountThrottle) bool, address func(accounts.Throttle) bool) (int, error) {
	n := 0
	for _, b := range []struct {
		bucket    []byte
		forgotten func(codec.ThrottleRecord) bool
	}{
		{throttleAccounts, func(r codec.ThrottleRecord) bool { return account(accountThrottleOf(r)) }},
		{throttleAddrs, func(r codec.ThrottleRecord) bool { return address(throttleOf(r)) }},
	} {
		var keys [][]byte
		err := tx.Scan(b.bucket, store.ScanOptions{}, func(k, v []byte) (bool, error) {
			r, err := cache.DecodeJSON[codec.ThrottleRecord](v)
			if err != nil {
				return false, err
			}
			if b.forgotten(r) {
				keys = append(keys, append([]byte(nil), k...))
			}
			return len(keys) < batch, nil
		})
		if err != nil {
			return 0, err
		}
		for _, k := range keys {
			if err := tx.Delete(b.bucket, k); err != nil {
				return 0, err
			}
		}
		n += len(keys)
	}
	return n, nil
}

// OrgTOTPRequired reads whether organization org requires TOTP of its
// users.
func OrgTOTPRequired(tx store.Tx, org string) (bool, error) {
	var r codec.PortalSettingsRecord
	err := GetJSON(tx, orgPortal, org, &r, errMissing)
	if err == errMissing {
		return false, nil
	}
	return r.TOTPRequired, err
}

// SavePortalSettings writes organization org's portal settings.
func SavePortalSettings(tx store.Tx, org string, totpRequired bool) error {
	return PutJSON(tx, orgPortal, org, codec.PortalSettingsRecord{TOTPRequired: totpRequired})
}

// HoldKeyOfUser is the key of a hold on the account of staff member id,
// HoldKeyOfEmail of one on the invitation of email.
func HoldKeyOfUser(id string) string     { return string(IndexKey("user", id)) }
func HoldKeyOfEmail(email string) string { return string(IndexKey("email", email)) }

// LoadHold reads the hold under key; ok is false when there is none.
func LoadHold(tx store.Tx, key string) (r codec.HoldRecord, ok bool, err error) {
	err = GetJSON(tx, ApprovalHolds, key, &r, errMissing)
	if err == errMissing {
		return codec.HoldRecord{}, false, nil
	}
	return r, err == nil, err
}

// SaveHold writes the hold r under key.
func SaveHold(tx store.Tx, key string, r codec.HoldRecord) error {
	return PutJSON(tx, ApprovalHolds, key, r)
}

// DeleteHold deletes the hold under key, if any.
func DeleteHold(tx store.Tx, key string) error {
	if err := tx.Delete(ApprovalHolds, []byte(key)); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// adminSeenKey marks, among the holds, that a staff admin was ever
// invited or made: from then on every staff invitation is held.
var adminSeenKey = IndexKey("seen", "admin")

// StaffAdminSeen reports whether a staff admin was ever invited or made.
func StaffAdminSeen(tx store.Tx) (bool, error) {
	_, err := tx.Get(ApprovalHolds, adminSeenKey)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// MarkStaffAdminSeen records that a staff admin was invited or made.
func MarkStaffAdminSeen(tx store.Tx) error {
	return tx.Put(ApprovalHolds, adminSeenKey, []byte("1"))
}
