package httpapi_test

import (
	"encoding/csv"
	"strings"
	"testing"
)

// TestAdmin_OrgStatement: GET /admin/orgs/{org}/statement answers a page of
// the organization's statement with its opening and closing balances and
// running balances, paged by before_id; format=csv downloads the same
// lines with the v1 columns, a formula-like reference neutralised; a
// malformed period or cursor is validation_error, an unknown organization
// not_found.
func TestAdmin_OrgStatement(t *testing.T) {
	e := newEnv(t)
	org := e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "A", "assets": []map[string]any{
		{"asset": "MWK", "operations": []string{"payout"}}}}).want(t, 201, "").obj(t)["id"].(string)
	e.admin(t, "POST", "/admin/orgs/"+org+"/funding", map[string]any{"asset": "MWK", "amount": "2500", "ref": "w1"}).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+org+"/funding", map[string]any{"asset": "MWK", "amount": "10.50", "ref": "=SUM(A1)"}).want(t, 200, "")

	first := e.admin(t, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&limit=1", nil).want(t, 200, "").obj(t)
	lines := first["lines"].([]any)
	if len(lines) != 1 || first["has_more"] != true || first["columns"] != "v1" {
		t.Fatalf("first page: %v", first)
	}
	l := lines[0].(map[string]any)
	if l["kind"] != "funding" || l["resource_id"] != "w1" || l["available_change"] != "2500.00" || l["available_after"] != "2500.00" {
		t.Errorf("first line: %v", l)
	}
	if op := first["opening"].(map[string]any); op["available"] != "0.00" {
		t.Errorf("opening: %v", op)
	}
	if cl := first["closing"].(map[string]any); cl["available"] != "2510.50" {
		t.Errorf("closing: %v", cl)
	}
	next := first["next_before_id"].(string)
	second := e.admin(t, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&limit=1&before_id="+next, nil).want(t, 200, "").obj(t)
	l = second["lines"].([]any)[0].(map[string]any)
	if l["resource_id"] != "=SUM(A1)" || l["available_after"] != "2510.50" || second["has_more"] != false || second["next_before_id"] != nil {
		t.Errorf("second page: %v", second)
	}

	// The download is no JSON envelope: sent directly.
	got, err := send(e.admSrv, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&format=csv", nil, map[string]string{"Authorization": "Bearer " + adminToken})
	if err != nil || got.Status != 200 {
		t.Fatalf("csv: %v %v", err, got)
	}
	if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("content type %q", ct)
	}
	rows, err := csv.NewReader(strings.NewReader(string(got.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "entry_id" || rows[2][3] != "'=SUM(A1)" || rows[2][5] != "10.50" {
		t.Errorf("csv: %q", rows)
	}

	e.admin(t, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&from=soon", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&before_id=zz", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/orgs/"+org+"/statement?asset=MWK&format=xml", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/orgs/nope/statement?asset=MWK", nil).want(t, 404, "not_found")
}
