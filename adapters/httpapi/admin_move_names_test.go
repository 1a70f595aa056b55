package httpapi_test

import (
	"testing"
)

// TestAdminOrders_MoveWording: the desk's move names are the orders
// package's (orders.ParseMove); the binding words what it refuses: an
// unknown move is 404 "No such order move." whatever the body, and a
// deadline that is no date-time is 400 on the move that takes one and
// ignored on the others.
func TestAdminOrders_MoveWording(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := toBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "w", orderBody(q.QuoteID, "w", beneficiaryJSON))
	bad := map[string]string{"deadline": "tomorrow"}
	for _, mv := range []string{"nope", "proof%20upload", "expire", "Cancel"} {
		r := e.admin(t, "POST", "/admin/orders/"+o.ID+"/"+mv, bad).want(t, 404, "not_found")
		if msg := r.obj(t)["error"].(map[string]any)["message"]; msg != "No such order move." {
			t.Errorf("%s: message %q", mv, msg)
		}
	}
	r := e.admin(t, "POST", "/admin/orders/"+o.ID+"/instructions",
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "deadline": "tomorrow"}).want(t, 400, "validation_error")
	if msg := r.obj(t)["error"].(map[string]any)["message"]; msg != "deadline must be an ISO 8601 date-time." {
		t.Errorf("instructions: message %q", msg)
	}
	move(t, e, o.ID, "processing", bad, 200, "")
}
