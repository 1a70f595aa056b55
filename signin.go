package tambala

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
	"go.opentelemetry.io/otel/trace"
)

// PortalSession is a signed-in browser as the engine shows it: never its
// token, which only the browser keeps.
type PortalSession struct {
	Stage      accounts.Stage
	SignedInAt time.Time
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is when the session ends unless a request comes first.
	ExpiresAt time.Time
	// CSRFToken is the token the session's forms carry (Sessions.CheckCSRF);
	// empty when the session token was not at hand.
	CSRFToken string
}

func sessionView(s accounts.Session, token string) PortalSession {
	v := PortalSession{Stage: s.Stage, SignedInAt: s.SignedInAt, CreatedAt: s.CreatedAt, LastSeenAt: s.LastSeenAt, ExpiresAt: s.ExpiresAt()}
	if token != "" {
		v.CSRFToken = accounts.CSRFToken(token)
	}
	return v
}

// SignInResult is a new session: its token, shown here once (the
// transport's cookie), and the stage it stands at.
type SignInResult struct {
	Token   string
	Stage   accounts.Stage
	Session PortalSession
}

// SignedIn is the user a session token stands for, and its session.
type SignedIn struct {
	User    User
	Session PortalSession
}

// TOTPConfirmed is a completed TOTP enrolment: the recovery codes, shown
// here once, and the session that replaces the one the enrolment was made
// in, with its token.
type TOTPConfirmed struct {
	RecoveryCodes []string
	Session       SignInResult
}

// Sessions is the face of the engine a transport calls for the people of
// organizations: accepting an invitation, signing in (password, then TOTP
// or a recovery code, or TOTP enrolment when the organization requires
// it), the session of every later request, signing out and changing a
// password, and the admin's own organization (Admin). Sessions are
// tokens of their own: a session token never authenticates an API call
// and an API key never a session. The client address that sign-in
// throttling keys on, and that the audit trail records, comes from the
// context's RequestInfo (WithRequestInfo). Passwords are hashed and
// verified (argon2id) outside every store transaction: a transaction only
// re-reads what the check read and records its outcome, so sign-ins,
// whoever makes them, never hold the store's write path for the length of
// a hash; and only in a slot of the face's limiter
// (PeopleOptions.PasswordWork), which bounds the hashes in flight and
// so the memory a flood of sign-ins can take.
//
// It is safe for concurrent use.
type Sessions struct {
	e   *Engine
	aud audience
}

// Sessions returns the face of the engine for the people of organizations,
// the public portal's: its SignIn admits the users of organizations only.
// A staff member's email is answered there exactly as an email no user
// has (the same work, answer and throttles), so the public listener can
// neither check a staff password nor lock a staff account.
func (e *Engine) Sessions() *Sessions { return &Sessions{e: e, aud: audienceOrgs} }

// StaffSessions returns the face of the engine for the operator's staff,
// the console's: the same calls as Sessions, whose SignIn admits staff
// users only (an organization's user is an unknown email there). Its
// sign-in throttles and its limiter of password hashes are its own, so
// failures or a flood at one face never lock or slow the other.
func (e *Engine) StaffSessions() *Sessions { return &Sessions{e: e, aud: audienceStaff} }

// AcceptInvitation accepts an invitation with its token and the password
// the invitee chose, and returns the new user, who then signs in.
// Unauthorized for an unknown, used, revoked or expired invitation, and
// for one of the other face's audience (a staff member's invitation or
// password reset at Engine.Sessions, an organization user's at
// Engine.StaffSessions), answered as unknown and left unused;
// validation_error for a password against the policy; conflict when a
// user has the email already. For a password reset (People.ResetPassword)
// the password is the user's new one and the user returned is theirs:
// every session of theirs ends, their TOTP stays, and their account's
// sign-in throttle is cleared.
func (p *Sessions) AcceptInvitation(ctx context.Context, token, password string) (_ User, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.AcceptInvitation")
	defer span.end(&err)
	return p.e.acceptInvitation(ctx, p.aud, token, password)
}

// Invitation reads the invitation of a token, never the token, for its
// page to tell an invitation from a password reset (Invitation.ResetOf).
// Unauthorized, as AcceptInvitation, for an unknown, used, revoked or
// expired invitation, or one of the other face's audience.
func (p *Sessions) Invitation(ctx context.Context, token string) (_ Invitation, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.Invitation")
	defer span.end(&err)
	h, err := accounts.InvitationTokenHash(token)
	if err != nil {
		return Invitation{}, err
	}
	var out Invitation
	err = p.e.store.View(ctx, func(tx store.Tx) error {
		now := p.e.nowUTC()
		inv, err := p.e.loadUsableInvitation(tx, p.aud, token, h, now)
		out = invitationView(inv, now)
		return err
	})
	if err != nil {
		return Invitation{}, err
	}
	return out, nil
}

// AuditTrail reads one page of the audit trail of the signed-in user's
// organization, newest first.
func (p *Sessions) AuditTrail(ctx context.Context, token string, page PageRequest) (_ Page[AuditEntry], err error) {
	ctx, span := p.span(ctx, "tambala.Portal.AuditTrail")
	defer span.end(&err)
	si, err := p.e.session(ctx, token)
	if err != nil {
		return Page[AuditEntry]{}, err
	}
	if si.User.Org == "" {
		return Page[AuditEntry]{}, errcode.New(errcode.Forbidden)
	}
	return p.e.auditTrail(ctx, page, AuditFilter{Org: si.User.Org})
}

// BeginTOTP starts (or starts again) the TOTP enrolment of the session's
// user: the secret and its otpauth URL, for the authenticator app, are
// returned here once. Allowed to a session that is signed in or at
// accounts.StageEnrolTOTP.
func (p *Sessions) BeginTOTP(ctx context.Context, token string) (_ accounts.Enrolment, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.BeginTOTP")
	defer span.end(&err)
	return p.e.beginTOTP(ctx, token)
}

// ChangePassword changes the session's user's password after checking
// the current one, and ends every other session of theirs. A wrong
// current password counts as a failed sign-in.
func (p *Sessions) ChangePassword(ctx context.Context, token, current, next string) (err error) {
	ctx, span := p.span(ctx, "tambala.Portal.ChangePassword")
	defer span.end(&err)
	return p.e.changePassword(ctx, p.aud, token, current, next)
}

// CheckCSRF checks the CSRF token a state-changing request carries against
// its session token: forbidden when it is missing or wrong.
func (p *Sessions) CheckCSRF(token, csrf string) error { return accounts.CheckCSRF(token, csrf) }

// ConfirmTOTP completes the session's user's TOTP enrolment with a code
// from the app. The session is replaced by a signed-in one, whose token
// and the first recovery codes are returned here once.
func (p *Sessions) ConfirmTOTP(ctx context.Context, token, code string) (_ TOTPConfirmed, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.ConfirmTOTP")
	defer span.end(&err)
	return p.e.confirmTOTP(ctx, token, code)
}

// Principal returns the Principal of the signed-in user's organization,
// for Engine.Client: the session's user reads and acts for it under every
// rule an API key's Principal is under (a suspended organization is
// forbidden).
func (p *Sessions) Principal(ctx context.Context, token string) (_ Principal, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.Principal")
	defer span.end(&err)
	return p.e.portalPrincipal(ctx, token)
}

// SecondFactor checks a TOTP code, or a recovery code (each works once),
// for a session waiting for one, and returns the signed-in session that
// replaces it. A wrong code counts as a failed sign-in of the account.
func (p *Sessions) SecondFactor(ctx context.Context, token, code string) (_ SignInResult, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.SecondFactor")
	defer span.end(&err)
	return p.e.secondFactor(ctx, p.aud, token, code)
}

// Session checks the session of a request: live (neither idle nor past its
// absolute limit, not ended), of an enabled user, signed in, and enrolled
// in TOTP when the organization requires it. It extends the idle limit
// and returns the user and the session.
func (p *Sessions) Session(ctx context.Context, token string) (_ SignedIn, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.Session")
	defer span.end(&err)
	return p.e.session(ctx, token)
}

// Changing checks the session of a request that changes something, as
// Session does, in a read transaction: the session is extended by the
// change itself, inside its own transaction. Every call of a face of
// people (OrgAdmin, the staff's Operator, People and Approvals) made
// with the context returned checks the session again inside each of its
// write transactions and extends it there; end, called once the request
// is answered, extends it in a transaction of its own when none of them
// did (a form refused before any change). SignedIn's session is as the
// request extends it.
func (p *Sessions) Changing(ctx context.Context, token string) (_ context.Context, _ SignedIn, end func(), err error) {
	parent := ctx
	ctx, span := p.span(ctx, "tambala.Portal.Changing")
	defer span.end(&err)
	c := newCall(parent, token, accounts.Need{}, "")
	r, err := p.e.view(ctx, c, false)
	if err != nil {
		return parent, SignedIn{}, func() {}, err
	}
	out := context.WithValue(parent, sessionKey{}, c)
	var once sync.Once
	end = func() { once.Do(func() { _, _ = p.e.extend(out, c) }) }
	return out, SignedIn{User: userView(r.user), Session: sessionView(r.session.Touch(r.at), token)}, end, nil
}

// SignIn checks an email and password and opens a session, whose token is
// returned here once, at accounts.StageSecondFactor, accounts.StageEnrolTOTP
// or accounts.StageSignedIn. An unknown email, a wrong password, a
// disabled user and a user of the other face's audience (a staff member
// at Engine.Sessions, an organization's user at Engine.StaffSessions) get one
// error after the same work; too many failures of the account from the
// client address, of the account from every address (its cap) or of the
// address are rate_limited (accounts.ErrThrottled), and so is an attempt
// beyond the limiter of password hashes (accounts.ErrBusy,
// PasswordWorkOptions), before any hashing.
func (p *Sessions) SignIn(ctx context.Context, email, password string) (_ SignInResult, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.SignIn")
	defer span.end(&err)
	return p.e.signIn(ctx, p.aud, email, password)
}

// SignOut ends a session; one ended already is left as it is.
func (p *Sessions) SignOut(ctx context.Context, token string) (err error) {
	ctx, span := p.span(ctx, "tambala.Portal.SignOut")
	defer span.end(&err)
	return p.e.signOut(ctx, token)
}

// failSignIn records a failed attempt of u (nil for no user) from the
// address key addrKey: on the account's throttle (acct, its pair of
// addrKey and its cap) when account is set, and on the address's when
// addr is not nil, each in the audience's namespace; it audits the
// failure with action, and a lockout it brings, when u exists.
func (e *Engine) failSignIn(ctx context.Context, tx store.Tx, aud audience, u *accounts.User, account string, acct accounts.AccountThrottle,
	addrKey string, addr *accounts.Throttle, action AuditAction, now time.Time) error {
	if addr != nil {
		if err := storage.SaveAddressThrottle(tx, aud.key(addrKey), addr.Fail(accounts.AddressPolicy, now)); err != nil {
			return err
		}
	}
	if account == "" {
		return nil
	}
	after := acct.Fail(addrKey, now)
	if err := storage.SaveAccountThrottle(tx, aud.key(account), after); err != nil {
		return err
	}
	if u == nil {
		return nil
	}
	actor := userActor(u.ID, u.Email)
	if err := e.audit(ctx, tx, actor, u.Org, action, u.ID, ""); err != nil {
		return err
	}
	switch after.Locked(acct, addrKey, now) {
	case "account":
		return e.audit(ctx, tx, actor, u.Org, AuditLockedOut, u.ID,
			fmt.Sprintf("locked until %s from every address", after.Cap.LockedUntil.Format(time.RFC3339)))
	case "address":
		return e.audit(ctx, tx, actor, u.Org, AuditLockedOut, u.ID,
			fmt.Sprintf("locked until %s from this address", after.Pair(addrKey).LockedUntil.Format(time.RFC3339)))
	}
	return nil
}

// signInRead is what a sign-in reads of the store: the user with the
// email whom the audience admits (nil for none), and the throttles of the
// account and the address in the audience's namespace.
type signInRead struct {
	user *accounts.User
	acct accounts.AccountThrottle
	addr accounts.Throttle
}

// admit checks the throttles of r for an attempt from addrKey at now.
func (r signInRead) admit(addrKey string, now time.Time) error {
	return accounts.Admit(now, r.acct.Pair(addrKey), r.acct.Cap, r.addr)
}

func readSignIn(tx store.Tx, aud audience, account, addrKey string) (signInRead, error) {
	var r signInRead
	var err error
	if r.addr, err = storage.LoadAddressThrottle(tx, aud.key(addrKey)); err != nil {
		return r, err
	}
	if account == "" {
		return r, nil
	}
	if r.acct, err = storage.LoadAccountThrottle(tx, aud.key(account)); err != nil {
		return r, err
	}
	u, ok, err := storage.UserByEmail(tx, account, errNotFound)
	if err != nil {
		return r, err
	}
	if ok && aud.admits(u) {
		r.user = &u
	}
	return r, nil
}

// signIn is Sessions.SignIn, in accounts' sequence, with the slow step out
// of every transaction:
//  1. a View reads the user (nil for none, or one of the other
//     audience) and the throttles of the account (its pair of the
//     client address and its cap) and the address, in the audience's
//     namespace; Admit refuses at once (no hashing);
//  2. outside any transaction, in a slot of the audience's limiter
//     (accounts.Busy at once when none is to be had, no hashing),
//     accounts.Authenticate (VerifyDummy for an unknown email) against
//     what was read, and on success the new hash when the stored one
//     NeedsRehash;
//  3. one Update re-reads the user and the throttles, checks Admit again
//     (attempts that failed meanwhile may have locked the account or the
//     address: the attempt is then throttled whatever its password, so no
//     more failures than the policy's are ever recorded), and records Fail
//     or Succeed, the rehash, the session and the audit entry.
//
// A user record that changed between the reads in a way that matters
// (created, another password hash, disabled or enabled) makes the
// attempt start again from 1, once: the password is verified again
// against the new record. If it changed again, the attempt is refused as
// invalid credentials and recorded as a failure, as for any password not
// shown to match the stored hash. A user gone by the Update is an unknown
// email.
func (e *Engine) signIn(ctx context.Context, aud audience, email, password string) (SignInResult, error) {
	addrKey := accounts.AddressKey(requestInfo(ctx).Address)
	account, emailErr := accounts.NormalizeEmail(email)
	if emailErr != nil {
		account = "" // no account to throttle: the address's throttle alone
	}
	for round := 0; ; round++ {
		out, stale, err := e.signInOnce(ctx, aud, account, addrKey, password, round > 0)
		if err != nil {
			return SignInResult{}, err
		}
		if !stale {
			return out, nil
		}
	}
}

// signInOnce is one round of signIn; stale reports a user record that
// changed between the reads, unless last, when it is refused instead.
func (e *Engine) signInOnce(ctx context.Context, aud audience, account, addrKey, password string, last bool) (SignInResult, bool, error) {
	var seen signInRead
	if err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		seen, err = readSignIn(tx, aud, account, addrKey)
		return err
	}); err != nil {
		return SignInResult{}, false, err
	}
	if refused := seen.admit(addrKey, e.nowUTC()); refused != nil {
		return SignInResult{}, false, refused
	}

	// The slow step, in no transaction, in a slot of the limiter.
	checked, rehash, err := e.checkSignIn(ctx, aud, account, seen.user, password)
	if err != nil {
		return SignInResult{}, false, err
	}

	var out SignInResult
	var refused error
	var stale bool
	err = e.store.Update(ctx, func(tx store.Tx) error {
		out, refused, stale = SignInResult{}, nil, false
		now := e.nowUTC()
		cur, err := readSignIn(tx, aud, account, addrKey)
		if err != nil {
			return err
		}
		if refused = cur.admit(addrKey, now); refused != nil {
			return nil
		}
		if refused, stale = accounts.Recheck(seen.user, cur.user, checked, last); stale {
			return nil // nothing written: verify again against cur
		}
		if refused != nil {
			return e.failSignIn(ctx, tx, aud, cur.user, account, cur.acct, addrKey, &cur.addr, AuditSignInFailed, now)
		}
		out, err = e.openSession(ctx, tx, aud, account, addrKey, cur, rehash, now)
		return err
	})
	switch {
	case err != nil:
		return SignInResult{}, false, err
	case stale:
		return SignInResult{}, true, nil
	case refused != nil:
		return SignInResult{}, false, refused
	}
	return out, false, nil
}

// openSession records the sign-in of cur's user, whose password was
// right: the stage after the password, the account's throttle cleared
// unless a second factor is still to come, the rehash when there is one,
// the new session and the audit entry.
func (e *Engine) openSession(ctx context.Context, tx store.Tx, aud audience, account, addrKey string, cur signInRead,
	rehash accounts.PasswordHash, now time.Time) (SignInResult, error) {
	u := *cur.user
	totp, err := totpRequired(tx, u)
	if err != nil {
		return SignInResult{}, err
	}
	stage := accounts.StageAfterPassword(u, totp)
	if stage != accounts.StageSecondFactor {
		// The account's throttle is cleared once the sign-in is
		// complete: at the second factor, when the code is right.
		if err := storage.SaveAccountThrottle(tx, aud.key(account), cur.acct.Succeed(addrKey)); err != nil {
			return SignInResult{}, err
		}
	}
	if rehash != "" {
		u.PasswordHash = rehash
		if err := storage.SaveUser(tx, u); err != nil {
			return SignInResult{}, err
		}
	}
	s, token, err := accounts.NewSession(u.ID, stage, e.acct.Random, now)
	if err != nil {
		return SignInResult{}, err
	}
	if err := storage.SaveSession(tx, s); err != nil {
		return SignInResult{}, err
	}
	out := SignInResult{Token: token, Stage: stage, Session: sessionView(s, token)}
	return out, e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditSignedIn, u.ID, "password checked; stage "+string(stage))
}

// checkSignIn is the slow step of a sign-in, in a slot of the audience's
// limiter (refused, accounts.Busy, before any hashing when none is to be
// had): Authenticate u, and on success hash the password again when u's
// hash NeedsRehash. checked is Authenticate's unauthorized refusal; err
// any other failure.
func (e *Engine) checkSignIn(ctx context.Context, aud audience, account string, u *accounts.User, password string) (checked error, rehash accounts.PasswordHash, err error) {
	done, err := e.passwordWork(ctx, aud, account)
	if err != nil {
		return nil, "", err
	}
	defer done()
	checked = accounts.Authenticate(u, password, e.acct.PasswordParams)
	if checked != nil && errcode.Of(checked) != errcode.Unauthorized {
		return nil, "", checked
	}
	if checked == nil && u.PasswordHash.NeedsRehash(e.acct.PasswordParams) {
		if e.passwordWorkHook != nil {
			e.passwordWorkHook()
		}
		if rehash, err = accounts.HashPassword(password, e.acct.PasswordParams, e.acct.Random); err != nil {
			return nil, "", err
		}
	}
	return checked, rehash, nil
}

// audienceOf is the audience u signs in with.
func audienceOf(u accounts.User) audience {
	if u.IsStaff() {
		return audienceStaff
	}
	return audienceOrgs
}

// authorizedFor is authorized for a call of aud's face: a session of a
// user of the other audience is answered as a token no session has, so
// one face can neither check nor lock the other's accounts.
func authorizedFor(aud audience, tx store.Tx, token string, now time.Time, allow ...error) (accounts.Session, accounts.User, error) {
	_, u, err := loadSessionUser(tx, token, now)
	if err == nil && !aud.admits(u) {
		return accounts.Session{}, accounts.User{}, accounts.Session{}.CheckToken(token, now)
	}
	return authorized(tx, token, now, accounts.Need{Allow: allow})
}

// loadSessionUser reads the session of token and its user. An unknown
// token, or a session whose user is gone, is unauthorized.
func loadSessionUser(tx store.Tx, token string, now time.Time) (accounts.Session, accounts.User, error) {
	h, err := accounts.SessionTokenHash(token)
	if err != nil {
		return accounts.Session{}, accounts.User{}, err
	}
	unknown := accounts.Session{}.CheckToken(token, now) // the error of a token no session has
	s, err := storage.LoadSession(tx, h, unknown)
	if err != nil {
		return accounts.Session{}, accounts.User{}, err
	}
	if err := s.CheckToken(token, now); err != nil {
		return accounts.Session{}, accounts.User{}, err
	}
	u, err := storage.LoadUser(tx, s.UserID, unknown)
	if err != nil {
		return accounts.Session{}, accounts.User{}, err
	}
	return s, u, nil
}

// authorized reads the session of token and its user and answers, with
// accounts.Permit and the organization's TOTP requirement, whether they
// may make a call needing need. Every call of a session checks it here,
// the faces of people alike (Sessions, OrgAdmin, the staff's faces).
func authorized(tx store.Tx, token string, now time.Time, need accounts.Need) (accounts.Session, accounts.User, error) {
	s, u, err := loadSessionUser(tx, token, now)
	if err != nil {
		return s, u, err
	}
	totp, err := totpRequired(tx, u)
	if err != nil {
		return s, u, err
	}
	return s, u, accounts.Permit(s, u, totp, now, need)
}

// signedIn is authorized, then extends the session (Touch), which it
// returns as stored.
func signedIn(tx store.Tx, token string, now time.Time, need accounts.Need) (accounts.Session, accounts.User, error) {
	s, u, err := authorized(tx, token, now, need)
	if err != nil {
		return s, u, err
	}
	s, err = touch(tx, s, now)
	return s, u, err
}

// session is Sessions.Session: Authorize, then Touch.
func (e *Engine) session(ctx context.Context, token string) (SignedIn, error) {
	var out SignedIn
	err := e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		s, u, err := signedIn(tx, token, now, accounts.Need{})
		if err != nil {
			return err
		}
		out = SignedIn{User: userView(u), Session: sessionView(s, token)}
		return nil
	})
	if err != nil {
		return SignedIn{}, err
	}
	return out, nil
}

// sessionKey is the context key of a session's call under way.
type sessionKey struct{}

// sessionCall is a call of a face of people under way (an OrgAdmin's, a
// staff user's Operator, People or Approvals, a request of
// Sessions.Changing), carried by the call's context as its audit actor is.
// Every write transaction made under it checks first, inside itself, the
// session, its user and what the call needs, and extends the session
// there (sessionStore): a change is one write transaction with its own
// check, as a Client's use case checks the organization inside its own.
type sessionCall struct {
	token string
	need  accounts.Need
	// role is the staff role a staff user's call needs (need.Staff; ""
	// for any of them). A call refused for it still extends the session;
	// one of an organization's user (need.Org) whose organization is
	// suspended does not.
	role accounts.StaffRole
	// wantPrincipal: the check reads the Principal of an organization's
	// user's organization.
	wantPrincipal bool
	// outer is the call of the request this call is made in
	// (Sessions.Changing), of the same session, extended with it; c's need
	// is at least the request's, so c's check stands for both.
	outer    *sessionCall
	extended atomic.Bool // a write transaction of the call has extended the session
}

// checked is what a check of a sessionCall read: the session, its user,
// the Principal (wantPrincipal), and when.
type checked struct {
	session   accounts.Session
	user      accounts.User
	principal Principal
	at        time.Time
}

// newCall makes the sessionCall of token needing need (and role), made
// in the call ctx carries, if any, of the same token.
func newCall(ctx context.Context, token string, need accounts.Need, role accounts.StaffRole) *sessionCall {
	c := &sessionCall{token: token, need: need, role: role}
	if o, _ := ctx.Value(sessionKey{}).(*sessionCall); o != nil && o.token == token {
		c.outer = o
	}
	return c
}

// check checks c in tx: the session of its token live and allowed what c
// needs (authorized), extended when extend (signedIn); the organization
// of an organization's user active; a staff user's role when role.
func (e *Engine) check(tx store.Tx, c *sessionCall, extend, role bool) (checked, error) {
	r := checked{at: e.nowUTC()}
	var err error
	if extend {
		r.session, r.user, err = signedIn(tx, c.token, r.at, c.need)
	} else {
		r.session, r.user, err = authorized(tx, c.token, r.at, c.need)
	}
	if err != nil {
		return r, err
	}
	if c.need.Org {
		org, err := e.cachedOrg(tx, r.user.Org, errUnauthorized)
		if err != nil {
			return r, err
		}
		if org.Status != OrgActive {
			return r, errSuspended
		}
		if c.wantPrincipal {
			if r.principal, err = e.principal(tx, org); err != nil {
				return r, err
			}
		}
	}
	if role && c.need.Staff && !r.user.May(c.role) {
		return r, errStaffRole
	}
	return r, nil
}

// markExtended records that c's session, and its request's, are extended.
func (c *sessionCall) markExtended() {
	c.extended.Store(true)
	if c.outer != nil {
		c.outer.extended.Store(true)
	}
}

// view checks c in a read transaction, with its role when role.
func (e *Engine) view(ctx context.Context, c *sessionCall, role bool) (r checked, err error) {
	err = e.store.View(ctx, func(tx store.Tx) error {
		r, err = e.check(tx, c, false, role)
		return err
	})
	return r, err
}

// extend checks c and extends its session in a write transaction of its
// own, unless one of c's did: the check of a read, and the extension of a
// change that wrote nothing (refused before any write, or rolled back).
// The role is left to the caller: a call refused for it still extends.
func (e *Engine) extend(ctx context.Context, c *sessionCall) (r checked, err error) {
	if c.extended.Load() {
		return r, nil
	}
	err = e.store.Update(context.WithValue(ctx, sessionKey{}, (*sessionCall)(nil)), func(tx store.Tx) error {
		r, err = e.check(tx, c, true, false)
		return err
	})
	if err == nil {
		c.markExtended()
	}
	return r, err
}

// read checks c for a read: in a read transaction when c is made in a
// request's call (Sessions.Changing), whose session the request extends
// once, by its change or its end; else in a write transaction that
// extends the session (extend).
func (e *Engine) read(ctx context.Context, c *sessionCall) (checked, error) {
	if c.outer != nil {
		return e.view(ctx, c, false)
	}
	return e.extend(ctx, c)
}

// begin starts c, a change of a face of people: c is checked, its role
// too, in a read transaction, so that a refusal comes before any of the
// change's work, and ctx is returned carrying c, whose check each write
// transaction of the change makes again inside itself, extending the
// session. done, deferred by the caller, extends the session when no
// write transaction of the change did.
func (e *Engine) begin(ctx context.Context, c *sessionCall) (context.Context, checked, func(), error) {
	r, err := e.view(ctx, c, true)
	if err != nil {
		if err == errStaffRole {
			_, _ = e.extend(ctx, c) // a call refused for its role extends the session
		}
		return ctx, r, nil, err
	}
	ctx = context.WithValue(ctx, sessionKey{}, c)
	return ctx, r, func() { _, _ = e.extend(ctx, c) }, nil
}

// sessionStore is the engine's store, whose write transactions made under
// a sessionCall check it first, inside themselves.
type sessionStore struct {
	store.Store
	e *Engine
}

func (s sessionStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.Store.Update, fn)
}

// UpdateLazy is the wrapped store's lazy commit (store.Lazy), with the
// session checked in it as in Update: a session's extension lost at a
// crash is harmless too, the next call extends it again.
func (s sessionStore) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.updateLazy, fn)
}

func (s sessionStore) updateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return store.UpdateLazy(ctx, s.Store, fn)
}

// update runs fn by do, after the check of the session ctx carries, if
// any, in the same transaction.
func (s sessionStore) update(ctx context.Context, do func(context.Context, func(store.Tx) error) error, fn func(store.Tx) error) error {
	c, _ := ctx.Value(sessionKey{}).(*sessionCall)
	if c == nil {
		return do(ctx, fn)
	}
	err := do(ctx, func(tx store.Tx) error {
		if _, err := s.e.check(tx, c, true, true); err != nil {
			return err
		}
		return fn(tx)
	})
	if err == nil {
		c.markExtended()
	}
	return err
}

// touch stores s seen at now, when that moves it.
func touch(tx store.Tx, s accounts.Session, now time.Time) (accounts.Session, error) {
	t := s.Touch(now)
	if t.LastSeenAt.Equal(s.LastSeenAt) {
		return s, nil
	}
	return t, storage.SaveSession(tx, t)
}

// portalPrincipal is Sessions.Principal: the session checked and
// extended, and the Principal of its user's organization read, in one
// write transaction.
func (e *Engine) portalPrincipal(ctx context.Context, token string) (Principal, error) {
	c := newCall(ctx, token, accounts.Need{Org: true}, "")
	c.wantPrincipal = true
	r, err := e.read(ctx, c)
	if err != nil {
		return Principal{}, err
	}
	return r.principal, nil
}

var errNoSecondFactorAwaited = errcode.Newf(errcode.Conflict, "This session is not waiting for a second factor.")

// secondFactor is Sessions.SecondFactor.
func (e *Engine) secondFactor(ctx context.Context, aud audience, token, code string) (SignInResult, error) {
	addrKey := accounts.AddressKey(requestInfo(ctx).Address)
	var out SignInResult
	var refused error
	err := e.store.Update(ctx, func(tx store.Tx) error {
		out, refused = SignInResult{}, nil
		now := e.nowUTC()
		s, u, err := authorizedFor(aud, tx, token, now, accounts.ErrSecondFactorRequired)
		if err != nil {
			return err
		}
		if s.Stage != accounts.StageSecondFactor {
			return errNoSecondFactorAwaited
		}
		acct, err := storage.LoadAccountThrottle(tx, aud.key(u.Email))
		if err != nil {
			return err
		}
		if refused = accounts.Admit(now, acct.Pair(addrKey), acct.Cap); refused != nil {
			return nil
		}
		var next accounts.User
		how := "TOTP code"
		if accounts.IsTOTPCode(code) {
			next, refused = u.VerifyTOTP(code, now)
		} else {
			next, refused = u.UseRecoveryCode(code, now)
			how = fmt.Sprintf("recovery code; %d left", next.TOTP.RecoveryCodesLeft())
		}
		if refused != nil {
			if errcode.Of(refused) != errcode.Unauthorized {
				return refused
			}
			return e.failSignIn(ctx, tx, aud, &u, u.Email, acct, addrKey, nil, AuditSecondFactorFailed, now)
		}
		if err := storage.SaveUser(tx, next); err != nil {
			return err
		}
		if err := storage.SaveAccountThrottle(tx, aud.key(u.Email), acct.Succeed(addrKey)); err != nil {
			return err
		}
		if out, err = rotate(tx, s, e.acct, now); err != nil {
			return err
		}
		return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditSecondFactorPassed, u.ID, how)
	})
	if err != nil {
		return SignInResult{}, err
	}
	if refused != nil {
		return SignInResult{}, refused
	}
	return out, nil
}

// rotate replaces s with a signed-in session and stores both.
func rotate(tx store.Tx, s accounts.Session, o PeopleOptions, now time.Time) (SignInResult, error) {
	ended, next, token, err := s.Rotate(accounts.StageSignedIn, o.Random, now)
	if err != nil {
		return SignInResult{}, err
	}
	if err := storage.SaveSession(tx, ended); err != nil {
		return SignInResult{}, err
	}
	if err := storage.SaveSession(tx, next); err != nil {
		return SignInResult{}, err
	}
	return SignInResult{Token: token, Stage: next.Stage, Session: sessionView(next, token)}, nil
}

// beginTOTP is Sessions.BeginTOTP.
func (e *Engine) beginTOTP(ctx context.Context, token string) (accounts.Enrolment, error) {
	var out accounts.Enrolment
	err := e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		_, u, err := signedIn(tx, token, now, accounts.Need{Allow: []error{accounts.ErrTOTPRequired}})
		if err != nil {
			return err
		}
		next, enrolment, err := u.BeginTOTP(e.acct.Issuer, e.acct.Random)
		if err != nil {
			return err
		}
		out = enrolment
		return storage.SaveUser(tx, next)
	})
	if err != nil {
		return accounts.Enrolment{}, err
	}
	return out, nil
}

// confirmTOTP is Sessions.ConfirmTOTP.
func (e *Engine) confirmTOTP(ctx context.Context, token, code string) (TOTPConfirmed, error) {
	var out TOTPConfirmed
	err := e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		s, u, err := authorized(tx, token, now, accounts.Need{Allow: []error{accounts.ErrTOTPRequired}})
		if err != nil {
			return err
		}
		next, codes, err := u.ConfirmTOTP(code, e.acct.Random, now)
		if err != nil {
			return err
		}
		if err := storage.SaveUser(tx, next); err != nil {
			return err
		}
		res, err := rotate(tx, s, e.acct, now)
		if err != nil {
			return err
		}
		out = TOTPConfirmed{RecoveryCodes: codes, Session: res}
		return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditTOTPEnrolled, u.ID,
			fmt.Sprintf("TOTP none -> enrolled; %d recovery codes", len(codes)))
	})
	if err != nil {
		return TOTPConfirmed{}, err
	}
	return out, nil
}

// signOut is Sessions.SignOut.
func (e *Engine) signOut(ctx context.Context, token string) error {
	return e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		s, u, err := loadSessionUser(tx, token, now)
		if err != nil {
			if errors.Is(err, accounts.ErrSessionEnded) || errors.Is(err, accounts.ErrSessionExpired) {
				return nil // over already
			}
			return err
		}
		if err := storage.SaveSession(tx, s.End(accounts.EndLogout, now)); err != nil {
			return err
		}
		return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditSignedOut, u.ID, "")
	})
}

// changePassword is Sessions.ChangePassword, with the slow step out of
// every transaction: a View checks the session and the account's throttle
// (Admit) and reads the user; outside any transaction the current
// password is verified and the next one checked and hashed
// (accounts.User.ChangePassword); then one Update checks the session and
// Admit again and that the user's hash is still the one verified, and
// records the outcome. A hash that changed in between (a concurrent
// change or rehash) makes the call start again, once; if it changed again
// the current password counts as wrong, as not shown to match the stored
// hash.
func (e *Engine) changePassword(ctx context.Context, aud audience, token, current, next string) error {
	for round := 0; ; round++ {
		stale, err := e.changePasswordOnce(ctx, aud, token, current, next, round > 0)
		if err != nil || !stale {
			return err
		}
	}
}

// changePasswordOnce is one round of changePassword; stale reports a
// password hash that changed between the reads, unless last, when it is
// refused instead.
func (e *Engine) changePasswordOnce(ctx context.Context, aud audience, token, current, next string, last bool) (bool, error) {
	addrKey := accounts.AddressKey(requestInfo(ctx).Address)
	var seen accounts.User
	err := e.store.View(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		_, u, acct, err := passwordChanger(tx, aud, token, now)
		seen = u
		return orErr(err, accounts.Admit(now, acct.Pair(addrKey), acct.Cap))
	})
	if err != nil {
		return false, err
	}

	// The slow step, in no transaction, in a slot of the limiter.
	done, err := e.passwordWork(ctx, aud, seen.Email)
	if err != nil {
		return false, err
	}
	changed, checked := seen.ChangePassword(current, next, e.acct.PasswordParams, e.acct.Random)
	done()
	if checked != nil && !errors.Is(checked, accounts.ErrWrongPassword) {
		return false, checked // the next password's policy, before any write
	}

	var refused error
	var stale bool
	err = e.store.Update(ctx, func(tx store.Tx) error {
		refused, stale = nil, false
		now := e.nowUTC()
		s, u, acct, err := passwordChanger(tx, aud, token, now)
		if err != nil {
			return err
		}
		if refused = accounts.Admit(now, acct.Pair(addrKey), acct.Cap); refused != nil {
			return nil
		}
		if refused, stale = accounts.RecheckPassword(seen, u, checked, last); stale {
			return nil // nothing written: verify again against u
		}
		if refused != nil {
			return e.failSignIn(ctx, tx, aud, &u, u.Email, acct, addrKey, nil, AuditPasswordChangeFailed, now)
		}
		return e.recordPasswordChange(ctx, tx, s, u, changed.PasswordHash, now)
	})
	if err != nil {
		return false, err
	}
	return stale, refused
}

// passwordChanger reads the session of token, for a call of aud's face,
// its user and the user's account throttle.
func passwordChanger(tx store.Tx, aud audience, token string, now time.Time) (accounts.Session, accounts.User, accounts.AccountThrottle, error) {
	s, u, err := authorizedFor(aud, tx, token, now)
	if err != nil {
		return s, u, accounts.AccountThrottle{}, err
	}
	acct, err := storage.LoadAccountThrottle(tx, aud.key(u.Email))
	return s, u, acct, err
}

// recordPasswordChange stores u's new password hash, ends every other
// session of theirs, extends s and audits the change.
func (e *Engine) recordPasswordChange(ctx context.Context, tx store.Tx, s accounts.Session, u accounts.User, hash accounts.PasswordHash, now time.Time) error {
	u.PasswordHash = hash
	if err := storage.SaveUser(tx, u); err != nil {
		return err
	}
	n, err := e.endUserSessions(tx, u.ID, &s.TokenHash, now)
	if err != nil {
		return err
	}
	if _, err := touch(tx, s, now); err != nil {
		return err
	}
	return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditPasswordChanged, u.ID,
		fmt.Sprintf("%d other sessions ended", n))
}

var errUnknownInvitation = errors.New("tambala: no invitation has this token")

// loadUsableInvitation reads the invitation of token (hash h) and checks
// that it can be accepted at now at the face of aud: unauthorized, with
// accounts' errors, for a token no invitation has, an invitation of the
// other audience, or an invitation used, revoked or expired.
func (e *Engine) loadUsableInvitation(tx store.Tx, aud audience, token string, h [32]byte, now time.Time) (accounts.Invitation, error) {
	inv, err := storage.LoadInvitation(tx, h, errUnknownInvitation)
	if err == nil && inv.ForStaff() != (aud == audienceStaff) {
		// An invitation of the other face's audience (a staff member's at
		// Engine.Sessions, an organization user's at Engine.StaffSessions) is
		// answered as a token no invitation has.
		inv, err = accounts.Invitation{}, errUnknownInvitation
	}
	if err == errUnknownInvitation {
		// The error of a token no invitation has, from accounts (no
		// password is hashed: the token does not match).
		_, _, err = accounts.Invitation{}.Accept(accounts.Acceptance{Token: token}, e.acct.Random, now)
		return inv, orErr(err, errcode.New(errcode.Unauthorized))
	}
	if err != nil {
		return inv, err
	}
	return inv, inv.Usable(now)
}

// acceptInvitation is Sessions.AcceptInvitation, with the slow step out of
// every transaction: a View checks that the invitation is usable (a junk
// token costs no hashing); outside any transaction accounts.Invitation.Accept
// checks the password and hashes it; then one Update checks the
// invitation again (still usable: not accepted or revoked meanwhile) and
// that no user has the email, and writes the user, the invitation and the
// audit entry. A password reset (accounts.Invitation.IsReset) is
// acceptReset's, its user read in the same View.
func (e *Engine) acceptInvitation(ctx context.Context, aud audience, token, password string) (User, error) {
	h, err := accounts.InvitationTokenHash(token)
	if err != nil {
		return User{}, err
	}
	inv, seen, err := e.readInvitation(ctx, aud, token, h)
	if err != nil {
		return User{}, err
	}
	if inv.IsReset() {
		return e.acceptReset(ctx, aud, token, h, inv, seen, password)
	}

	// The slow step, in no transaction, in a slot of the limiter.
	done, err := e.passwordWork(ctx, aud, inv.Email)
	if err != nil {
		return User{}, err
	}
	accepted, u, err := inv.Accept(accounts.Acceptance{Token: token, UserID: e.newID(), Password: password,
		Params: e.acct.PasswordParams}, e.acct.Random, e.nowUTC())
	done()
	if err != nil {
		return User{}, err
	}

	var out User
	err = e.store.Update(ctx, func(tx store.Tx) error {
		cur, err := e.loadUsableInvitation(tx, aud, token, h, e.nowUTC())
		if err != nil {
			return err
		}
		if err := inv.StillAccepted(cur); err != nil {
			return err // not the invitation the password was hashed for
		}
		if _, taken, err := storage.UserByEmail(tx, u.Email, errNotFound); err != nil || taken {
			return orErr(err, errEmailTaken)
		}
		cur.AcceptedAt, cur.UserID = accepted.AcceptedAt, accepted.UserID
		if err := storage.SaveInvitation(tx, cur); err != nil {
			return err
		}
		if err := storage.SaveUser(tx, u); err != nil {
			return err
		}
		out = userView(u)
		return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditInvitationAccepted, cur.ID,
			fmt.Sprintf("user %s created as %s", u.ID, u.Role))
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

var errUnknownUser = errors.New("tambala: no user has this id")

// readInvitation reads the invitation of token (hash h), usable at the
// face of aud, and for a password reset its user as read (the zero User
// for one gone: AcceptReset refuses it as any other user).
func (e *Engine) readInvitation(ctx context.Context, aud audience, token string, h [32]byte) (inv accounts.Invitation, seen accounts.User, err error) {
	err = e.store.View(ctx, func(tx store.Tx) error {
		var err error
		inv, err = e.loadUsableInvitation(tx, aud, token, h, e.nowUTC())
		if err != nil || !inv.IsReset() {
			return err
		}
		seen, err = storage.LoadUser(tx, inv.ResetOf, errUnknownUser)
		if err == errUnknownUser {
			seen, err = accounts.User{}, nil
		}
		return err
	})
	return inv, seen, err
}

// acceptReset is acceptInvitation of a password reset inv of user seen,
// as read with it, with the slow step out of every transaction:
// accounts.Invitation.AcceptReset checks the token, the user and the new
// password and hashes it; then one Update checks the invitation again,
// and that the user's password hash is still the one read (a password
// changed meanwhile refuses the reset, unauthorized), and writes the new
// hash, ends every session of the user, clears the account's sign-in
// throttle, and records the invitation accepted and the audit entry, the
// user its actor. The user's TOTP stays.
func (e *Engine) acceptReset(ctx context.Context, aud audience, token string, h [32]byte, inv accounts.Invitation, seen accounts.User, password string) (User, error) {
	// The slow step, in no transaction, in a slot of the limiter.
	done, err := e.passwordWork(ctx, aud, inv.Email)
	if err != nil {
		return User{}, err
	}
	accepted, next, err := inv.AcceptReset(accounts.Acceptance{Token: token, Password: password,
		Params: e.acct.PasswordParams}, seen, e.acct.Random, e.nowUTC())
	done()
	if err != nil {
		return User{}, err
	}

	var out User
	err = e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		cur, err := e.loadUsableInvitation(tx, aud, token, h, now)
		if err != nil {
			return err
		}
		if err := inv.StillAccepted(cur); err != nil {
			return err // not the invitation the password was hashed for
		}
		u, err := storage.LoadUser(tx, seen.ID, errcode.New(errcode.Unauthorized))
		if err != nil {
			return err
		}
		if err := accounts.StillResettable(seen, u); err != nil {
			return err // the password changed since the reset was checked
		}
		u.PasswordHash = next.PasswordHash
		if err := storage.SaveUser(tx, u); err != nil {
			return err
		}
		n, err := e.endUserSessions(tx, u.ID, nil, now)
		if err != nil {
			return err
		}
		// Every throttle of the account is cleared, in the namespace of
		// the user's own audience.
		if err := storage.SaveAccountThrottle(tx, audienceOf(u).key(u.Email), accounts.AccountThrottle{}); err != nil {
			return err
		}
		cur.AcceptedAt, cur.UserID = accepted.AcceptedAt, accepted.UserID
		if err := storage.SaveInvitation(tx, cur); err != nil {
			return err
		}
		out = userView(u)
		return e.audit(ctx, tx, userActor(u.ID, u.Email), u.Org, AuditPasswordReset, u.ID,
			fmt.Sprintf("password reset by invitation %s; %d sessions ended", cur.ID, n))
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

// totpRequired reads whether u must sign in with TOTP: every staff user
// must, and an organization's users when it requires it.
func totpRequired(tx store.Tx, u accounts.User) (bool, error) {
	if u.IsStaff() {
		return true, nil
	}
	return storage.OrgTOTPRequired(tx, u.Org)
}

func (p *Sessions) span(ctx context.Context, name string) (context.Context, span) {
	return p.e.startSpan(ctx, name, trace.SpanKindInternal)
}
