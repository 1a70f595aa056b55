package accounts_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

// An organization admin from invitation to a signed-in session with TOTP,
// as the store and the portal will drive it.
func Example() {
	random := rand.NewChaCha8([32]byte{}) // crypto/rand.Reader in production
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	params := accounts.TestParams // the zero Params (OWASP's) in production

	// The operator invites; the token is sent once, by email, and only
	// its SHA-256 is stored.
	inv, token, err := accounts.Invite(accounts.InvitationRequest{
		ID: "inv_1", Email: " Chikondi@Example.MW", Org: "org_1", Role: accounts.RoleOrgAdmin, InvitedBy: "staff_1",
	}, random, now)
	fmt.Println(inv.Email, inv.Status(now), inv.ExpiresAt.Sub(now), strings.HasPrefix(token, "inv_"), err)

	// The invitee accepts with a password; the invitation is then used up.
	a := accounts.Acceptance{Token: token, UserID: "usr_1", Password: "mango season in Zomba", Params: params}
	inv, user, err := inv.Accept(a, random, now.Add(time.Hour))
	fmt.Println(inv.Status(now), user.Email, user.Role, user.Org, err)
	_, _, err = inv.Accept(a, random, now.Add(2*time.Hour))
	fmt.Println(errcode.Of(err), errcode.Message(err))

	// Sign-in: the throttles first, then the password. An unknown email
	// and a wrong password read alike.
	var account, address accounts.Throttle
	fmt.Println(errcode.Message(accounts.Authenticate(nil, "mango season in Zomba", params)))
	for range accounts.AccountPolicy.MaxFailures {
		if err := accounts.Admit(now, account, address); err != nil {
			break
		}
		err = accounts.Authenticate(&user, "mango season in zomba", params)
		fmt.Println(errcode.Message(err))
		account = account.Fail(accounts.AccountPolicy, now)
		address = address.Fail(accounts.AddressPolicy, now)
	}
	fmt.Println(errcode.Message(accounts.Admit(now, account, address)))

	// Later, the right password. The organization requires TOTP, so the
	// first session may only enrol.
	now = now.Add(15 * time.Minute)
	fmt.Println(accounts.Admit(now, account, address), accounts.Authenticate(&user, "mango season in Zomba", params))
	account = account.Succeed()
	s, cookie, _ := accounts.NewSession(user.ID, accounts.StageAfterPassword(user, true), random, now)
	fmt.Println(s.Stage, errcode.Message(accounts.Authorize(s, user, true, now)))

	user, enrolment, _ := user.BeginTOTP("Tambala", random)
	fmt.Println(strings.HasPrefix(enrolment.URL, "otpauth://totp/Tambala:chikondi@example.mw?"))
	code, _ := accounts.TOTPCode(enrolment.Secret, now) // what the app shows
	user, recovery, err := user.ConfirmTOTP(code, random, now)
	fmt.Println(user.TOTP.Enrolled, len(recovery), err)
	_, s, cookie, _ = s.Rotate(accounts.StageSignedIn, random, now)
	fmt.Println(s.Stage, accounts.Authorize(s, user, true, now))
	fmt.Println(accounts.CheckCSRF(cookie, accounts.CSRFToken(cookie)))

	// The next sign-in asks for a code; a used one is refused.
	_, err = user.VerifyTOTP(code, now)
	fmt.Println(errcode.Message(err))

	// However busy, the session ends 12 hours after the password.
	for at := now; at.Before(now.Add(13 * time.Hour)); at = at.Add(10 * time.Minute) {
		s = s.Touch(at)
	}
	fmt.Println(errcode.Message(s.Check(now.Add(12 * time.Hour))))
	// Output:
	// chikondi@example.mw pending 72h0m0s true <nil>
	// accepted chikondi@example.mw org_admin org_1 <nil>
	// unauthorized This invitation was already accepted; sign in instead.
	// The email or password is incorrect.
	// The email or password is incorrect.
	// The email or password is incorrect.
	// The email or password is incorrect.
	// The email or password is incorrect.
	// The email or password is incorrect.
	// Too many sign-in attempts; try again in 15 minutes.
	// <nil> <nil>
	// enrol_totp Set up two-factor authentication to continue.
	// true
	// true 10 <nil>
	// signed_in <nil>
	// <nil>
	// The authentication code is incorrect.
	// Your session has ended; sign in again.
}

func ExampleThrottle() {
	// Five failures in a row lock the account until the first is 15
	// minutes old; each further lock doubles a delay from 1 minute, up to
	// 15 minutes.
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var t accounts.Throttle
	for i := range 5 {
		t = t.Fail(accounts.AccountPolicy, now.Add(time.Duration(3*i)*time.Minute))
	}
	fmt.Println(t.Wait(now.Add(12 * time.Minute)))
	fmt.Println(errcode.Message(accounts.Admit(now.Add(12*time.Minute), t)))
	// Output:
	// 3m0s
	// Too many sign-in attempts; try again in 3 minutes.
}
