package tambala_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
)

// The portal's face: the operator invites an organization's admin, who
// accepts with a password, signs in from the address the transport puts
// in the context, and reads the organization's balance through the same
// Client an API key would give.
func ExampleEngine_Sessions() {
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	ctx := tambala.WithRequestInfo(context.Background(),
		tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.10"), RequestID: "req-42"})
	p, err := exampleOrg(ctx, e, 10_000)
	if err != nil {
		fmt.Println(err)
		return
	}

	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: p.Org.ID, Email: "Ada@Example.com"})
	if err != nil {
		fmt.Println(err)
		return
	}
	portal := e.Sessions()
	if _, err := portal.AcceptInvitation(ctx, inv.Token, "correct horse battery staple"); err != nil {
		fmt.Println(err)
		return
	}
	_, err = portal.SignIn(ctx, "ada@example.com", "not my password")
	fmt.Println(errcode.Of(err), errcode.Message(err))
	in, err := portal.SignIn(ctx, "ada@example.com", "correct horse battery staple")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stage", in.Stage)

	admin, err := portal.Principal(ctx, in.Token)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := e.Client(admin).V1().Balance(ctx)
	fmt.Println("available", b.Available)
	_ = portal.SignOut(ctx, in.Token)

	trail, _ := e.People().AuditTrail(ctx, tambala.PageRequest{}, tambala.AuditFilter{Org: p.Org.ID})
	for i := len(trail.Items) - 1; i >= 0; i-- {
		a := trail.Items[i]
		fmt.Println(a.Action, a.Actor.Kind, a.Address, a.RequestID)
	}
	// Output:
	// unauthorized The email or password is incorrect.
	// stage signed_in
	// available 10000.00
	// org.created automation 192.0.2.10 req-42
	// org.funded automation 192.0.2.10 req-42
	// user.invited automation 192.0.2.10 req-42
	// invitation.accepted user 192.0.2.10 req-42
	// user.sign_in_failed user 192.0.2.10 req-42
	// user.signed_in user 192.0.2.10 req-42
	// user.signed_out user 192.0.2.10 req-42
}
