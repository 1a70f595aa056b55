package portal_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/adapters/internal/statementcsv"
	"github.com/tambalapay/tambala/money"
)

// The statement page shows the organization's lines in an asset with the
// opening and closing balances, and links its CSV download.
func TestStatementPage(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)
	b := get(t, h, "/portal/statement", tok, http.StatusOK)
	contains(t, "statement form", b, `href="/portal/statement" aria-current="page"`, `id="asset"`, `id="from"`, `id="to"`)
	b = get(t, h, "/portal/statement?asset=MWK", tok, http.StatusOK)
	contains(t, "statement", b, "funding", "payout_held", "<code>opening</code>", "<td>-", "collection", `id="opening"`, `id="closing"`,
		`href="/portal/statement.csv?asset=MWK"`)
	b = get(t, h, "/portal/statement?asset=MWK&from=yesterday", tok, http.StatusUnprocessableEntity)
	contains(t, "bad period", b, `id="from-error"`)
	b = get(t, h, "/portal/statement?asset=XYZ", tok, http.StatusUnprocessableEntity)
	contains(t, "unknown asset", b, `id="asset-error"`)
}

// The CSV download: RFC 4180 with the v1 header; a reference that starts
// like a formula is neutralised, a negative amount stays a number.
func TestStatementCSV(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	if err := a.engine.Operator().Fund(a.ctx, a.org.ID, money.FromInt(money.MWK, 7), "=HYPERLINK(\"http://x\")"); err != nil {
		t.Fatal(err)
	}
	h, tok := a.handler(), a.signIn(t)
	w := do(h, "GET", "/portal/statement.csv?asset=MWK", tok, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("csv: %d %s", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); ct != statementcsv.ContentType {
		t.Errorf("content type %q", ct)
	}
	if cd := w.Header().Get("Content-Disposition"); !strings.Contains(cd, "-MWK-v1.csv") {
		t.Errorf("disposition %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(w.Body.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "entry_id,booked_at,kind,resource_id,asset,available_change,held_change,available_after,held_after" {
		t.Errorf("header %v", rows[0])
	}
	var held, formula bool
	for _, r := range rows[1:] {
		switch r[2] {
		case "payout_held":
			held = true
			if !strings.HasPrefix(r[5], "-") || r[6][0] == '\'' {
				t.Errorf("payout hold amounts %q %q", r[5], r[6])
			}
		case "funding":
			if strings.Contains(r[3], "HYPERLINK") {
				formula = true
				if r[3] != `'=HYPERLINK("http://x")` {
					t.Errorf("resource_id %q not neutralised", r[3])
				}
			}
		}
	}
	if !held || !formula {
		t.Errorf("rows %v", rows)
	}
	w = do(h, "GET", "/portal/statement.csv?asset=XYZ", tok, nil)
	if w.Code != http.StatusUnprocessableEntity || strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") {
		t.Errorf("unknown asset: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
}
