package console

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/orders"
)

// TestMoveForm_Command: a move's form builds its command through
// orders.ParseMove, reads only the fields the move takes that the forms
// carry (never a deadline), and words the fields it needs.
func TestMoveForm_Command(t *testing.T) {
	all := url.Values{"code": {" not_delivered "}, "bank_name": {"NBM"}, "account_name": {"D"},
		"account_number": {"1"}, "reference": {"ref001"}, "deadline": {"2030-01-01T00:00:00Z"},
		"proof_id": {"p1"}, "reason": {"blurred"}, "confirm": {"yes"}}
	post := func(v url.Values) *http.Request {
		r := httptest.NewRequest("POST", "/", strings.NewReader(v.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}
	cases := []struct {
		name string
		cmd  orders.Command
		form map[string]string
	}{
		{"processing", orders.StartProcessing{}, map[string]string{}},
		{"cancel", orders.Cancel{}, map[string]string{}},
		{"fail", orders.Fail{Code: orders.NotDelivered}, map[string]string{"code": "not_delivered"}},
		{"instructions", orders.Instructions{BankName: "NBM", AccountName: "D", AccountNumber: "1", Reference: "REF001"},
			map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "reference": "ref001"}},
		{"reject-proof", orders.RejectProof{ProofID: "p1", Reason: "blurred"}, map[string]string{"proof_id": "p1", "reason": "blurred"}},
		{"confirm-funds", orders.ConfirmFunds{ProofID: "p1"}, map[string]string{"proof_id": "p1"}},
	}
	for _, c := range cases {
		cmd, form, problems := command(c.name, post(all))
		if !reflect.DeepEqual(cmd, c.cmd) || !maps.Equal(form, c.form) || len(problems) != 0 {
			t.Errorf("%s: %#v %v %v", c.name, cmd, form, problems)
		}
	}
	if cmd, _, _ := command("teleport", post(all)); cmd != nil {
		t.Errorf("teleport: %#v", cmd)
	}
	want := map[string]map[string]string{
		"processing":    {"confirm": "Tick “I confirm” to make this move."},
		"fail":          {"code": "Choose a failure code.", "confirm": "Tick “I confirm” to make this move."},
		"instructions":  {"bank_name": "Enter this field.", "account_name": "Enter this field.", "account_number": "Enter this field.", "confirm": "Tick “I confirm” to make this move."},
		"reject-proof":  {"reason": "Give the organization the reason.", "confirm": "Tick “I confirm” to make this move."},
		"confirm-funds": {"confirm": "Tick “I confirm” to make this move."},
	}
	for name, w := range want {
		if _, _, problems := command(name, post(url.Values{})); !maps.Equal(problems, w) {
			t.Errorf("%s, an empty form: %v, want %v", name, problems, w)
		}
	}
}
