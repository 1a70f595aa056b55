package httpapi_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// The operator imports a settlement file through the admin API and reads
// its report: the payout the file settles is matched (and still in
// flight), a stranger line is in the file only; the same file again
// changes nothing; a malformed file is refused with its line numbers.
func TestAdmin_Settlements(t *testing.T) {
	e := newEnv(t, withSandboxProvider(time.Hour)) // the provider takes an hour to answer
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	var a payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "a")).want(t, 202, "").decode(t, &a)
	if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
		t.Fatal(err)
	}
	csv := "reference,amount,currency,status,time,file_number\n" + a.ID + ",1000,MWK,settled,2026-03-02T12:00:00Z,4\n" +
		"stranger,5,MWK,settled,2026-03-02T12:00:00Z,4\n"
	var imp struct {
		ID         string `json:"id"`
		FileNumber int    `json:"file_number"`
		Lines      int    `json:"lines"`
		Repeated   bool   `json:"repeated"`
	}
	body := map[string]any{"rail": "momo", "name": "airtel-4.csv", "content_base64": base64.StdEncoding.EncodeToString([]byte(csv))}
	e.admin(t, "POST", "/admin/settlements", body).want(t, 201, "").decode(t, &imp)
	if imp.Repeated || imp.Lines != 2 || imp.FileNumber != 4 {
		t.Fatalf("the import: %+v", imp)
	}
	var again struct {
		ID       string `json:"id"`
		Repeated bool   `json:"repeated"`
	}
	e.admin(t, "POST", "/admin/settlements", body).want(t, 201, "").decode(t, &again)
	if !again.Repeated || again.ID != imp.ID {
		t.Fatalf("the same file again: %+v", again)
	}
	var rep struct {
		Lines []struct {
			Line     int      `json:"line"`
			Group    string   `json:"group"`
			Items    []string `json:"items"`
			InFlight []string `json:"in_flight"`
		} `json:"lines"`
	}
	e.admin(t, "GET", "/admin/settlements/"+imp.ID, nil).want(t, 200, "").decode(t, &rep)
	if len(rep.Lines) != 2 || rep.Lines[0].Group != "matched" || len(rep.Lines[0].InFlight) != 1 || rep.Lines[0].InFlight[0] != a.ID ||
		rep.Lines[1].Group != "file_only" {
		t.Fatalf("the report: %+v", rep)
	}
	r := e.admin(t, "POST", "/admin/settlements", map[string]any{"rail": "momo", "name": "bad.csv",
		"content_base64": base64.StdEncoding.EncodeToString([]byte("reference,amount,currency,status,time\nx,1,MWK,settled,2026-03-02\ny,-1,MWK,settled,2026-03-02\n"))}).want(t, 400, "validation_error")
	if !strings.Contains(string(r.Body), "line 3:") {
		t.Errorf("the refusal: %s", r.Body)
	}
	e.admin(t, "GET", "/admin/settlements/0190c4d2-7f3a-7b1e-8a2b-000000000000", nil).want(t, 404, "not_found")
}

// The column mapping of a rail: the default, set, and refused when a
// column is unnamed or two share a header; an import reads with it.
func TestAdmin_SettlementMapping(t *testing.T) {
	e := newEnv(t)
	var got struct{ Columns map[string]string }
	e.admin(t, "GET", "/admin/settlements/mappings/bank", nil).want(t, 200, "").decode(t, &got)
	if m := got.Columns; m["reference"] != "reference" || m["file_number"] != "file_number" {
		t.Fatalf("the default: %v", m)
	}
	cols := map[string]any{"reference": "PSP Reference", "amount": "Net", "currency": "Ccy", "status": "Type", "time": "Booked", "file_number": ""}
	e.admin(t, "PUT", "/admin/settlements/mappings/bank", map[string]any{"columns": cols}).want(t, 200, "").decode(t, &got)
	if m := got.Columns; m["reference"] != "PSP Reference" || m["file_number"] != "" {
		t.Fatalf("the mapping set: %v", m)
	}
	cols["amount"] = "Ccy"
	e.admin(t, "PUT", "/admin/settlements/mappings/bank", map[string]any{"columns": cols}).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/settlements/mappings/train", nil).want(t, 400, "validation_error")
	csv := "Booked,PSP Reference,Net,Ccy,Type\n2026-03-02,x,1,MWK,settled\n"
	e.admin(t, "POST", "/admin/settlements", map[string]any{"rail": "bank", "name": "b.csv",
		"content_base64": base64.StdEncoding.EncodeToString([]byte(csv))}).want(t, 201, "")
}
