package console_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/payouts"
)

// upload posts a settlement file to the import route, the CSRF token
// first, as a browser sends the form.
func upload(h http.Handler, token, csrf, rail, content string) *httptest.ResponseRecorder {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("csrf", csrf)
	_ = mw.WriteField("rail", rail)
	f, _ := mw.CreateFormFile("file", "airtel.csv")
	_, _ = f.Write([]byte(content))
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/console/reconciliation/import", &b)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.AddCookie(&http.Cookie{Name: console.InsecureCookieName, Value: token})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestReconciliationPage: the import refuses a malformed file naming its
// lines and keeps nothing; a forged CSRF token changes nothing; a support
// user sees no form and is refused an import by the engine; the resolve
// form without confirm=yes only asks for the confirmation.
func TestReconciliationPage(t *testing.T) {
	v := newManualEnv(t, &receiver{})
	ops := v.signIn(t, "ops@operator.example", v.staff(t, "ops@operator.example", accounts.StaffOperations))
	sup := v.signIn(t, "sup@operator.example", v.staff(t, "sup@operator.example", accounts.StaffSupport))
	h := v.handler()

	bad := "reference,amount,currency,status,time\nx,1,MWK,settled,2026-11-21\ny,1,MWK,lost,2026-11-21\n"
	w := upload(h, ops, accounts.CSRFToken(ops), "momo", bad)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "line 3: status") {
		t.Fatalf("a malformed file: %d %s", w.Code, w.Body)
	}
	good := "reference,amount,currency,status,time\nx,1,MWK,settled,2026-11-21\n"
	if w := upload(h, ops, "forged", "momo", good); w.Code != http.StatusForbidden {
		t.Errorf("a forged CSRF token: %d", w.Code)
	}
	if w := upload(h, sup, accounts.CSRFToken(sup), "momo", good); w.Code != http.StatusForbidden {
		t.Errorf("a support user's import: %d %s", w.Code, w.Body)
	}
	list, _, _, err := v.engine.Operator().BackOffice().Imports(v.ctx, payouts.Momo)
	if err != nil || len(list) != 0 {
		t.Fatalf("kept after refusals: %+v %v", list, err)
	}
	if page := do(h, "GET", "/console/reconciliation", sup, nil); page.Code != 200 || strings.Contains(page.Body.String(), `id="form-import"`) {
		t.Errorf("the support user's page: %d", page.Code)
	}

	w = upload(h, ops, accounts.CSRFToken(ops), "momo", good)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the import: %d %s", w.Code, w.Body)
	}
	next := w.Header().Get("Location")
	id := strings.TrimPrefix(strings.Split(next, "?")[0], "/console/reconciliation/")
	if w := upload(h, ops, accounts.CSRFToken(ops), "momo", good); w.Header().Get("Location") != "/console/reconciliation/"+id+"?repeated=1" {
		t.Errorf("the same file again: %d %s", w.Code, w.Header().Get("Location"))
	}
	page := do(h, "GET", "/console/reconciliation/"+id, ops, nil)
	if page.Code != 200 || !strings.Contains(page.Body.String(), `id="group-file_only"`) {
		t.Fatalf("the report: %d", page.Code)
	}
	w = do(h, "POST", "/console/reconciliation/"+id+"/resolve", ops, url.Values{"csrf": {accounts.CSRFToken(ops)}, "payout": {"p1"}})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `id="form-confirm"`) {
		t.Errorf("the first post asks for a confirmation: %d", w.Code)
	}
}
