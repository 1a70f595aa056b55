package httpapi

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
)

// settlementRoutes are the reconciliation's routes: a settlement file
// imported, and an import's report.
func (a *Admin) settlementRoutes() {
	a.handleJSON("POST /admin/settlements", a.importSettlement)
	a.handle("GET /admin/settlements/{id}", a.settlementReport)
	a.handle("GET /admin/settlements/mappings/{rail}", a.settlementMapping)
	a.handleJSON("PUT /admin/settlements/mappings/{rail}", a.setSettlementMapping)
}

// settlementMappingJSON is a rail's column mapping: under "columns", the
// header of each column (a top-level "amount" field would read as money).
type settlementMappingJSON struct {
	Columns settlementColumnsJSON `json:"columns"`
}

type settlementColumnsJSON struct {
	Reference  string `json:"reference"`
	Amount     string `json:"amount"`
	Currency   string `json:"currency"`
	Status     string `json:"status"`
	Time       string `json:"time"`
	FileNumber string `json:"file_number"`
}

// settlementMapping is GET /admin/settlements/mappings/{rail}: the header
// names the rail's settlement files are read with.
func (a *Admin) settlementMapping(w http.ResponseWriter, r *http.Request) {
	m, err := a.engine.Operator().BackOffice().Mapping(r.Context(), payouts.Rail(r.PathValue("rail")))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, settlementMappingJSON{Columns: settlementColumnsJSON(m)})
}

// setSettlementMapping is PUT /admin/settlements/mappings/{rail} with the
// header name of each column under "columns" ("file_number" may be "":
// the rail does not number its files).
func (a *Admin) setSettlementMapping(w http.ResponseWriter, r *http.Request) {
	var in settlementMappingJSON
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	rail := payouts.Rail(r.PathValue("rail"))
	rc := a.engine.Operator().BackOffice()
	if err := rc.SetMapping(r.Context(), rail, reconcile.Mapping(in.Columns)); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	m, err := rc.Mapping(r.Context(), rail)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, settlementMappingJSON{Columns: settlementColumnsJSON(m)})
}

type settlementImportJSON struct {
	ID         string    `json:"id"`
	Rail       string    `json:"rail"`
	Name       string    `json:"name"`
	SHA256     string    `json:"sha256"`
	FileNumber *int      `json:"file_number"`
	ImportedAt time.Time `json:"imported_at"`
	By         string    `json:"by"`
	Lines      int       `json:"lines"`
	Repeated   bool      `json:"repeated"`
}

func settlementImport(i tambala.SettlementImport) settlementImportJSON {
	out := settlementImportJSON{ID: i.ID, Rail: string(i.Rail), Name: i.Name, SHA256: i.SHA256, ImportedAt: i.ImportedAt.UTC(),
		By: i.By, Lines: i.Lines, Repeated: i.Repeated}
	if i.FileNumber != 0 {
		n := i.FileNumber
		out.FileNumber = &n
	}
	return out
}

type settlementExplanationJSON struct {
	Reason string    `json:"reason"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

type settlementLineJSON struct {
	Line      int                        `json:"line"`
	Reference string                     `json:"reference"`
	Amount    string                     `json:"amount"`
	Currency  string                     `json:"currency"`
	Status    string                     `json:"status"`
	Time      time.Time                  `json:"time"`
	Group     string                     `json:"group"`
	Items     []string                   `json:"items"`
	InFlight  []string                   `json:"in_flight"`
	Explained *settlementExplanationJSON `json:"explained"`
}

type settlementItemJSON struct {
	Kind     string    `json:"kind"`
	ID       string    `json:"id"`
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	Status   string    `json:"status"`
	At       time.Time `json:"at"`
}

type settlementReportJSON struct {
	Import          settlementImportJSON `json:"import"`
	From            time.Time            `json:"from"`
	To              time.Time            `json:"to"`
	Lines           []settlementLineJSON `json:"lines"`
	Missing         []settlementItemJSON `json:"missing"`
	MissingNumbers  []int                `json:"missing_numbers"`
	RepeatedNumbers []int                `json:"repeated_numbers"`
}

// importSettlement is POST /admin/settlements with
// {"rail":"momo","name":"airtel-12.csv","content_base64":"..."} (the file's
// bytes in standard base64: a JSON string of the body may hold no control
// character, and a CSV file has line breaks): 201 with the import, repeated true when the same file was imported
// before (nothing changed).
func (a *Admin) importSettlement(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Rail    string `json:"rail"`
		Name    string `json:"name"`
		Content string `json:"content_base64"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	content, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil {
		writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "content_base64 must be the file in standard base64."))
		return
	}
	imp, err := a.engine.Operator().BackOffice().Import(r.Context(),
		tambala.SettlementFile{Rail: payouts.Rail(in.Rail), Name: in.Name, Content: string(content)})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, settlementImport(imp))
}

// settlementReport is GET /admin/settlements/{id}: the import's lines in
// their groups, matched against the engine's state now.
func (a *Admin) settlementReport(w http.ResponseWriter, r *http.Request) {
	rep, err := a.engine.Operator().BackOffice().Report(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := settlementReportJSON{Import: settlementImport(rep.Import), From: rep.From.UTC(), To: rep.To.UTC(),
		Lines: []settlementLineJSON{}, Missing: []settlementItemJSON{}, MissingNumbers: orEmpty(rep.MissingNumbers),
		RepeatedNumbers: orEmpty(rep.RepeatedNumbers)}
	for _, l := range rep.Lines {
		j := settlementLineJSON{Line: l.Line.Number, Reference: l.Line.Reference, Amount: l.Line.Amount, Currency: l.Line.Currency,
			Status: string(l.Line.Status), Time: l.Line.Time.UTC(), Group: string(l.Group), Items: orEmpty(l.Items),
			InFlight: orEmpty(l.InFlight)}
		if x := l.Explained; x != nil {
			j.Explained = &settlementExplanationJSON{Reason: x.Reason, By: x.By, At: x.At.UTC()}
		}
		out.Lines = append(out.Lines, j)
	}
	for _, it := range rep.Missing {
		out.Missing = append(out.Missing, settlementItemJSON{Kind: string(it.Kind), ID: it.ID, Amount: it.Amount,
			Currency: it.Currency, Status: string(it.Status), At: it.At.UTC()})
	}
	writeJSON(w, http.StatusOK, out)
}

// orEmpty is s, or an empty slice for nil (a JSON array, never null).
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
