package console_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
)

// The organization page links each balance to its statement; a support
// member (the read-only role) reads the statement page and downloads its
// CSV, where a formula-like reference is neutralised; a wrong period is
// shown beside its field.
func TestConsoleStatement(t *testing.T) {
	v := newEnv(t)
	if err := v.engine.Operator().Fund(v.ctx, v.org.ID, money.FromInt(money.USDT, 5), "@wire"); err != nil {
		t.Fatal(err)
	}
	h := v.handler()
	tok := v.signIn(t, "sue@example.com", v.staff(t, "sue@example.com", accounts.StaffSupport))

	w := do(h, "GET", "/console/orgs/"+v.org.ID, tok, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `href="/console/orgs/`+v.org.ID+`/statement?asset=USDT"`) {
		t.Fatalf("org page: %d, no statement link", w.Code)
	}
	w = do(h, "GET", "/console/orgs/"+v.org.ID+"/statement?asset=USDT", tok, nil)
	body := w.Body.String()
	if w.Code != http.StatusOK {
		t.Fatalf("statement: %d %s", w.Code, body)
	}
	for _, want := range []string{"funding", "@wire", "1000.000000", "1005.000000", `id="opening"`, `id="closing"`, `/statement.csv?asset=USDT`} {
		if !strings.Contains(body, want) {
			t.Errorf("statement lacks %q", want)
		}
	}
	w = do(h, "GET", "/console/orgs/"+v.org.ID+"/statement.csv?asset=USDT", tok, nil)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(w.Body.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2][3] != "'@wire" || rows[2][5] != "5.000000" || rows[2][7] != "1005.000000" {
		t.Errorf("csv rows %q", rows)
	}
	w = do(h, "GET", "/console/orgs/"+v.org.ID+"/statement?asset=USDT&from=tomorrow", tok, nil)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="statement-from-error"`) {
		t.Errorf("bad period: %d", w.Code)
	}
	w = do(h, "GET", "/console/orgs/"+v.org.ID+"/statement?asset=XYZ", tok, nil)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="statement-asset-error"`) {
		t.Errorf("unknown asset: %d", w.Code)
	}
}
