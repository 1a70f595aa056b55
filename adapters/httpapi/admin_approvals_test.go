package httpapi_test

import (
	"context"
	"testing"

	"github.com/tambalapay/tambala/money"
)

// TestAdmin_FundingWaitsForApproval: above its asset's approval threshold
// the admin token's funding answers 202 with the pending approval (as the
// admin document says), moves nothing, and the same request answers the
// same approval again.
func TestAdmin_FundingWaitsForApproval(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	if err := e.Engine.Operator().Approvals().SetThreshold(context.Background(), "MWK", money.FromInt(money.MWK, 1000)); err != nil {
		t.Fatal(err)
	}
	path := "/admin/orgs/" + o.ID + "/funding"
	var first, again struct {
		Approval struct {
			ID, Kind, Status, Amount string
		} `json:"approval"`
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.00", "ref": "at"}).want(t, 200, "")
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.01", "ref": "above"}).want(t, 202, "").decode(t, &first)
	if first.Approval.Kind != "funding" || first.Approval.Status != "pending" || first.Approval.Amount != "1000.01" {
		t.Errorf("202 body = %+v", first)
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.01", "ref": "above"}).want(t, 202, "").decode(t, &again)
	if again.Approval.ID != first.Approval.ID {
		t.Errorf("the same request made approval %s, then %s", first.Approval.ID, again.Approval.ID)
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "2000.00", "ref": "above"}).want(t, 409, "conflict")
}
