package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/orders"
)

// TestAdminOrders_MoveAlreadyMadeByStaff (issue #33): a move a staff
// member already made, posted again through the admin API (another
// mover), is 409 conflict telling the order already moved and who moved
// it, not 200 "done"; the order is unchanged.
func TestAdminOrders_MoveAlreadyMadeByStaff(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) { o.People.PasswordParams = accounts.TestParams })
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000})
	q := toBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k1", orderBody(q.QuoteID, "inv-1", beneficiaryJSON))

	ctx := context.Background()
	const email, password = "desk@operator.example", "correct-horse-battery-staple"
	inv, err := e.Engine.People().InviteUser(ctx, tambala.InviteUser{Email: email, StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Engine.StaffSessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	res, err := e.Engine.StaffSessions().SignIn(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	en, err := e.Engine.StaffSessions().BeginTOTP(ctx, res.Token)
	if err != nil {
		t.Fatal(err)
	}
	code, err := accounts.TOTPCode(en.Secret, e.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	done, err := e.Engine.StaffSessions().ConfirmTOTP(ctx, res.Token, code)
	if err != nil {
		t.Fatal(err)
	}
	op, err := e.Engine.StaffSessions().Operator(ctx, done.Session.Token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Desk().MoveOrder(ctx, o.ID, orders.StartProcessing{}); err != nil {
		t.Fatal(err)
	}
	before := e.admin(t, "GET", "/admin/orders/"+o.ID, nil).want(t, 200, "")

	r := e.admin(t, "POST", "/admin/orders/"+o.ID+"/processing", nil).want(t, 409, "conflict")
	var env struct{ Error struct{ Message string } }
	r.decode(t, &env)
	if !strings.Contains(env.Error.Message, "already moved") || !strings.Contains(env.Error.Message, email) {
		t.Errorf("message %q does not tell who moved the order", env.Error.Message)
	}
	if after := e.admin(t, "GET", "/admin/orders/"+o.ID, nil).want(t, 200, ""); string(after.Body) != string(before.Body) {
		t.Errorf("the order changed: %s then %s", before.Body, after.Body)
	}
	// The admin API's own moves repeat as before: unchanged, 200.
	e.admin(t, "POST", "/admin/orders/"+o.ID+"/coins-sent", nil).want(t, 200, "")
	e.admin(t, "POST", "/admin/orders/"+o.ID+"/coins-sent", nil).want(t, 200, "")
}
