package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/orders"
)

// TestOrderPageMarksWhatIsNotASCII (issue #33): on the desk's order page
// every character of the beneficiary outside printable ASCII is marked,
// so that what the clerk types into a bank's system is what was sent: a
// no-break space and a combining mark as ⟨U+XXXX⟩ markers in their place,
// a lookalike letter flagged with its code point, and a warning beside
// each such field; a plain ASCII field is shown as it is.
func TestOrderPageMarksWhatIsNotASCII(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	branch := "Lilo\u0301ngwe"
	o := v.order(t, "USDT", "MWK", "10", &orders.Beneficiary{Name: "Gr\u0430ce Phiri", BankName: "National\u00A0Bank",
		AccountNumber: "1001234567", Branch: &branch})
	page := do(v.handler(), "GET", "/console/orders/"+o.ID, token, nil).Body.String()
	warning := ` <span class="nonascii-warning">(not plain ASCII: check each marked character)</span>`
	for _, want := range []string{
		`<td id="beneficiary-name">Gr<mark class="nonascii" title="U&#43;0430: not plain ASCII">` + "\u0430" + `<small>⟨U&#43;0430⟩</small></mark>ce Phiri` + warning + `</td>`,
		`<td id="beneficiary-bank">National<mark class="invisible" title="an invisible character">⟨U&#43;00A0⟩</mark>Bank` + warning + `</td>`,
		`<td id="beneficiary-branch">Lilo<mark class="invisible" title="an invisible character">⟨U&#43;0301⟩</mark>ngwe` + warning + `</td>`,
		`<td class="mono" id="beneficiary-account">1001234567</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if strings.ContainsRune(page, '\u00A0') || strings.Contains(page, "o\u0301") {
		t.Errorf("the page holds a raw no-break space or combining mark")
	}
}

// TestConsoleSameMoveTwoClerks (issue #33): a clerk posting a move another
// clerk already made is told the order already moved, not "done".
func TestConsoleSameMoveTwoClerks(t *testing.T) {
	v := newEnv(t)
	tokens := map[string]string{}
	for _, email := range []string{"desk-a@operator.example", "desk-b@operator.example"} {
		tokens[email] = v.signIn(t, email, v.staff(t, email, accounts.StaffDesk))
	}
	o := v.toBank(t, "Chikondi Banda")
	h := v.handler()
	move := func(email string) (int, string) {
		tok := tokens[email]
		w := do(h, "POST", "/console/orders/"+o.ID+"/moves/processing", tok, url.Values{"csrf": {accounts.CSRFToken(tok)}, "confirm": {"yes"}})
		return w.Code, w.Body.String()
	}
	if code, body := move("desk-a@operator.example"); code != http.StatusSeeOther {
		t.Fatalf("the first clerk's move: %d %s", code, body)
	}
	code, body := move("desk-b@operator.example")
	if code != http.StatusConflict || !strings.Contains(body, "The order already moved: desk-a@operator.example made this move") {
		t.Errorf("the second clerk's move: %d %s", code, body)
	}
	if s := v.status(t, o.ID); s != orders.Processing {
		t.Errorf("status %s", s)
	}
	// The first clerk's own retry: the order, unchanged.
	if code, body := move("desk-a@operator.example"); code != http.StatusSeeOther {
		t.Errorf("the first clerk's retry: %d %s", code, body)
	}
}
