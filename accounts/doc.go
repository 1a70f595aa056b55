// Package accounts holds the pure rules of the people who sign in to the
// portal: users and their roles, the operator's invitations, passwords,
// TOTP and recovery codes, sessions with their CSRF tokens, and the
// throttling of sign-in. It stores nothing and knows no transport: the
// store keeps the records (User, Invitation, Session, Throttle) and calls
// these functions inside its transactions, and the transport sets the
// cookie and renders the pages.
//
// No I/O, no clock, no context: callers pass ids, times and an io.Reader
// of random bytes (crypto/rand.Reader in production, a seeded reader in
// tests), so every rule is deterministic.
//
// # Secrets
//
// Invitation and session tokens carry 256 random bits (TokenBytes), are
// shown once and stored as their SHA-256, which is also the key the store
// finds them by (InvitationTokenHash, SessionTokenHash), as API keys are.
// Passwords are stored as argon2id hashes in the PHC string format with
// their parameters (PasswordHash), so the parameters can be raised and old
// hashes redone at the next sign-in (NeedsRehash). Recovery codes carry 80
// bits and are stored as salted SHA-256. Every comparison of a secret is
// in constant time. The TOTP secret is stored as the authenticator app has
// it: the code needs it.
//
// # Errors
//
// Every error is an *errcode.Error with a code of errcode.Table
// (validation_error, unauthorized, forbidden, conflict, rate_limited,
// internal_error) and a fixed public message, whose cause is one of the
// package's sentinels (ErrInvalidCredentials, ErrCodeReplayed, ...):
// errors.Is matches either. The sign-in errors never tell whether an
// account exists: an unknown email, a wrong password and a disabled user
// are all "The email or password is incorrect.", after the same work
// (Authenticate, VerifyDummy), and a throttled attempt is "Too many sign-in
// attempts; try again in N minutes." for every email, since the store
// keeps a throttle per normalised email, whether or not a user has it.
//
// # Signing in
//
// A sign-in, whose password work (argon2id, slow on purpose) the store
// runs outside its transactions, so that it never holds the store's write
// path:
//
//  1. In a read: Admit(now, account.Pair(addressKey), account.Cap,
//     addressThrottle), the account's an AccountThrottle: refused
//     attempts stop here, without checking the password.
//  2. Outside any transaction, in a slot of the store's bound on password
//     work (refused with Busy, no hashing, when none is to be had):
//     Authenticate(user or nil, password, params), and on success
//     HashPassword when NeedsRehash.
//  3. In one write transaction, after reading the user and the throttles
//     again: Admit again (failures recorded meanwhile may lock the key:
//     the attempt is then refused as throttled, whatever its password), a
//     user record that changed since step 1 is checked again rather than
//     trusted (Recheck: stale, to verify again, or refused); then on
//     failure, AccountThrottle.Fail (the pair of the
//     address and the cap) and Throttle.Fail on the address's. On
//     success, AccountThrottle.Succeed (never the address's Throttle),
//     the rehash, and NewSession at StageAfterPassword(user,
//     orgRequiresTOTP), whose token the transport sets as the cookie.
//  4. At StageSecondFactor, VerifyTOTP or UseRecoveryCode (a wrong code is
//     a failure on the account's throttle from the address, checked by
//     Admit first), then
//     Rotate to StageSignedIn. At StageEnrolTOTP, BeginTOTP and
//     ConfirmTOTP, then Rotate to StageSignedIn.
//
// Every later request: SessionTokenHash to find the session, Permit (Authorize
// and what the call needs: an organization's user or a staff user, a
// cause of Authorize's it lets through; a staff role is User.May),
// CheckCSRF for a state-changing one, then Touch. A change of password
// read again is RecheckPassword; an invitation or a password reset read
// again is StillAccepted and StillResettable. Logout is End(EndLogout);
// disabling a user, resetting or changing a password and resetting TOTP
// end every session of the user (End(EndRevoked)), which the store applies
// by UserID.
package accounts
