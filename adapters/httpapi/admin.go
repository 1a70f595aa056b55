package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/payouts"
)

// Admin serves the operator's side: organizations, keys, allowlists,
// access states, assets, funding and pause switches. It belongs on its own
// listener (loopback by default) and every request must carry
// "Authorization: Bearer <admin token>".
type Admin struct {
	engine    *tambala.Engine
	log       *slog.Logger
	tokenHash [32]byte
	addr      func(*http.Request) netip.Addr // Options.ClientAddr, for the audit trail
	mux       *http.ServeMux
	backuper  Backuper // Options.Backup
	observe   func(route string, status int, code string, d time.Duration)
	tracer    trace.Tracer // nil: tracing off
}

// NewAdmin returns the admin handler. token must be at least 32 characters.
func NewAdmin(engine *tambala.Engine, token string, opts *Options) (*Admin, error) {
	if len(token) < 32 {
		return nil, errors.New("httpapi: the admin token must be at least 32 characters")
	}
	return NewAdminTokenHash(engine, sha256.Sum256([]byte(token)), opts), nil
}

// NewAdminTokenHash returns the admin handler of the admin token whose
// SHA-256 is tokenSHA256: for instances that share a token by its hash
// (kept in their common store) without each knowing the token itself.
func NewAdminTokenHash(engine *tambala.Engine, tokenSHA256 [32]byte, opts *Options) *Admin {
	o := optionsOf(opts)
	a := &Admin{engine: engine, log: o.Logger, tokenHash: tokenSHA256, addr: o.ClientAddr, mux: http.NewServeMux(),
		backuper: o.Backup, observe: o.Observe, tracer: tracerOf(engine, o.TracerProvider)}
	a.routes(o)
	return a
}

func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(w, r, a.log, a.engine.Settings().Limits().MaxBodyBytes, a.mux, a.observe, a.tracer)
}

func (a *Admin) routes(o Options) {
	a.handle("GET /admin/orgs", a.listOrgs)
	a.handleJSON("POST /admin/orgs", a.createOrg)
	a.handle("GET /admin/orgs/{org}", a.getOrg)
	a.handle("GET /admin/orgs/{org}/balances", a.orgBalances)
	a.handle("GET /admin/orgs/{org}/statement", a.orgStatement)
	a.handleJSON("PUT /admin/orgs/{org}/status", orgSetting(a, statusBody.read, (*tambala.Operator).SetOrganizationStatus))
	a.handleJSON("PUT /admin/orgs/{org}/v2-access", orgSetting(a, v2AccessBody.read, (*tambala.Operator).SetV2Access))
	a.handleJSON("PUT /admin/orgs/{org}/assets", orgSetting(a, assetsBody.read, (*tambala.Operator).SetAssets))
	a.handleJSON("PUT /admin/orgs/{org}/balance-floor", a.setFloor)
	a.handleJSON("PUT /admin/orgs/{org}/allowlist", orgSetting(a, allowlistBody.read, (*tambala.Operator).SetAllowlist))
	a.handle("GET /admin/orgs/{org}/keys", a.listKeys)
	a.handle("POST /admin/orgs/{org}/keys", a.createKey)
	a.handle("DELETE /admin/orgs/{org}/keys/{key}", a.revokeKey)
	a.handleJSON("POST /admin/orgs/{org}/funding", a.fund)
	a.handleJSON("PUT /admin/orgs/{org}/payout-limits", orgSetting(a, payoutLimitsJSON.read, (*tambala.Operator).SetPayoutLimits))
	a.handleJSON("PUT /admin/rails/{rail}", a.setRail)
	a.handleJSON("PUT /admin/institutions", a.syncInstitutions)
	a.handle("POST /admin/payouts/{id}/clawback", a.clawback)
	a.handle("GET /admin/payouts/in-flight", a.payoutsInFlight)
	a.handleJSON("POST /admin/payouts/{id}/resolve", a.resolvePayout)
	a.handleJSON("PUT /admin/orgs/{org}/webhook", a.setWebhook)
	a.handle("GET /admin/orgs/{org}/deliveries", a.listDeliveries)
	a.handle("POST /admin/orgs/{org}/deliveries/{id}/redeliver", a.redeliver)
	a.handleJSON("POST /admin/orgs/{org}/trades", a.recordTrade)
	a.handle("POST /admin/orgs/{org}/collections/{id}/reverse", a.reverseCollection)
	a.depositRoutes()
	a.orderRoutes()
	a.conversionRoutes()
	a.peopleRoutes()
	a.approvalRoutes()
	a.settlementRoutes()
	a.handle("GET /admin/pause", a.getPause)
	a.handleJSON("PUT /admin/pause", a.setPause)
	a.handle("GET /admin/openapi.json", a.openAPI)
	a.handle("GET /admin/backup", a.backup)
	if o.Metrics != nil {
		// For the scraper, with the admin token as its bearer credential
		// (Prometheus: authorization.credentials_file).
		a.handle("GET /metrics", o.Metrics.ServeHTTP)
	}
	newProbes(a.engine, a.log, o).register(a.mux) // GET /healthz and GET /readyz, without the token
}

func (a *Admin) handle(pattern string, fn http.HandlerFunc) {
	a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		tok, ok := bearer(r)
		got := sha256.Sum256([]byte(tok))
		// Compare fixed-size digests so neither length nor content leaks.
		if !ok || subtle.ConstantTimeCompare(got[:], a.tokenHash[:]) != 1 {
			writeError(w, r, a.log, errcode.New(errcode.Unauthorized))
			return
		}
		// Every call the operator makes carries the caller's address and
		// the request id, which the audit trail records.
		ctx := tambala.WithRequestInfo(r.Context(), tambala.RequestInfo{Address: a.addr(r), RequestID: requestID(r)})
		fn(w, r.WithContext(ctx))
	})
}

// handleJSON registers an admin route whose body is JSON: a body declared
// as another media type is refused (checkJSONBody) before it is read.
func (a *Admin) handleJSON(pattern string, fn http.HandlerFunc) {
	a.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := checkJSONBody(r); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		fn(w, r)
	})
}

// bind reads and decodes the JSON body into v.
func bind(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

func (a *Admin) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, status, v)
}

func (a *Admin) listOrgs(w http.ResponseWriter, r *http.Request) {
	orgs, err := a.engine.Operator().Organizations(r.Context())
	out := renderAll(orgs, renderOrg)
	a.reply(w, r, http.StatusOK, map[string]any{"organizations": out}, err)
}

func (a *Admin) createOrg(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name            string            `json:"name"`
		Assets          []assetAccessJSON `json:"assets"`
		V2Access        tambala.V2Access  `json:"v2_access"`
		BalanceFloorMWK string            `json:"balance_floor_mwk"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	floor, floorErr := optionalMWK(in.BalanceFloorMWK)
	n := tambala.NewOrganization{Name: in.Name, Assets: assetAccesses(in.Assets), V2Access: in.V2Access, BalanceFloorMWK: floor}
	if floorErr != nil {
		// The engine checks the name, the access and the assets before
		// the floor: their failure comes first.
		if _, err := orgs.New("", n, a.engine.Settings().Assets(), time.Time{}); err != nil {
			floorErr = err
		}
		writeError(w, r, a.log, floorErr)
		return
	}
	o, err := a.engine.Operator().CreateOrganization(r.Context(), n)
	a.reply(w, r, http.StatusCreated, renderOrg(o), err)
}

func (a *Admin) getOrg(w http.ResponseWriter, r *http.Request) {
	o, err := a.engine.Operator().Organization(r.Context(), r.PathValue("org"))
	a.reply(w, r, http.StatusOK, renderOrg(o), err)
}

func (a *Admin) setFloor(w http.ResponseWriter, r *http.Request) {
	var in struct {
		FloorMWK string `json:"floor_mwk"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	floor, err := optionalMWK(in.FloorMWK)
	if err != nil {
		// An unknown organization is not_found before its floor is read.
		if _, lookupErr := a.engine.Operator().Organization(r.Context(), r.PathValue("org")); lookupErr != nil {
			err = lookupErr
		}
		writeError(w, r, a.log, err)
		return
	}
	o, err := a.engine.Operator().SetBalanceFloor(r.Context(), r.PathValue("org"), floor)
	a.reply(w, r, http.StatusOK, renderOrg(o), err)
}

func (a *Admin) listKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := a.engine.Operator().Keys(r.Context(), r.PathValue("org"))
	a.reply(w, r, http.StatusOK, map[string]any{"keys": renderAll(keys, renderKey)}, err)
}

func (a *Admin) createKey(w http.ResponseWriter, r *http.Request) {
	full, k, err := a.engine.Operator().CreateKey(r.Context(), r.PathValue("org"))
	a.reply(w, r, http.StatusCreated, json.RawMessage(render.NewAPIKey(full, k)), err)
}

func (a *Admin) revokeKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.engine.Operator().RevokeKey(r.Context(), r.PathValue("org"), r.PathValue("key"))
	a.reply(w, r, http.StatusOK, json.RawMessage(renderKey(k)), err)
}

func (a *Admin) fund(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Asset  string `json:"asset"`
		Amount string `json:"amount"`
		Ref    string `json:"ref"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	asset, amt, err := a.assetAmount(in.Asset, in.Amount, nil)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	org := r.PathValue("org")
	f, err := a.engine.Operator().FundOnce(r.Context(), org, amt, in.Ref)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	markReplayed(w, f.Replayed) // the ref credited this amount before
	a.reply(w, r, http.StatusOK, map[string]any{"org_id": org, "asset": asset.Code, "amount": amt, "ref": in.Ref}, nil)
}

// optionalMWK reads an optional MWK amount of the admin API: "" is unset
// (the zero Amount), anything else money.Parse's.
func optionalMWK(s string) (money.Amount, error) {
	if s == "" {
		return money.Amount{}, nil
	}
	return money.Parse(money.MWK, s)
}

func (a *Admin) setRail(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Disabled bool `json:"disabled"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	rails, err := a.engine.Operator().SetRailDisabled(r.Context(), payouts.Rail(r.PathValue("rail")), in.Disabled)
	a.reply(w, r, http.StatusOK, json.RawMessage(render.Rails(rails.BankDisabled, rails.MomoDisabled)), err)
}

func (a *Admin) syncInstitutions(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Institutions []struct {
			ID             int          `json:"institution_id"`
			Name           string       `json:"name"`
			Rail           payouts.Rail `json:"rail"`
			Network        string       `json:"network"`
			AccountNumbers *struct {
				MinDigits int `json:"min_digits"`
				MaxDigits int `json:"max_digits"`
			} `json:"account_number_digits"`
		} `json:"institutions"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	list := make([]payouts.Institution, 0, len(in.Institutions))
	for _, i := range in.Institutions {
		inst := payouts.Institution{ID: i.ID, Name: i.Name, Rail: i.Rail, Network: i.Network}
		if d := i.AccountNumbers; d != nil {
			inst.AccountNumberMinDigits, inst.AccountNumberMaxDigits = d.MinDigits, d.MaxDigits
		}
		list = append(list, inst)
	}
	err := a.engine.Operator().SyncInstitutions(r.Context(), list)
	a.reply(w, r, http.StatusOK, map[string]any{"institutions": len(list)}, err)
}

func (a *Admin) clawback(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := a.engine.Operator().BackOffice().ClawbackPayout(r.Context(), id)
	a.reply(w, r, http.StatusOK, map[string]any{"payout_id": id, "status": "reversed"}, err)
}

func (a *Admin) recordTrade(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Ref        string `json:"ref"`
		USDTAmount string `json:"usdt_amount"`
		ClientRate string `json:"client_rate"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	usdt, err := a.engine.Settings().Asset(money.USDT.Code)
	if err != nil {
		usdt = money.USDT
	}
	amt, err := money.Parse(usdt, in.USDTAmount)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	rate, err := money.ParseRate(in.ClientRate)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	t, err := a.engine.Operator().Desk().RecordTrade(r.Context(), r.PathValue("org"), tambala.NewTrade{Ref: in.Ref, USDTAmount: amt, ClientRate: rate})
	a.reply(w, r, http.StatusCreated, json.RawMessage(render.Trade(t)), err)
}

func (a *Admin) reverseCollection(w http.ResponseWriter, r *http.Request) {
	c, err := a.engine.Operator().ReverseCollection(r.Context(), r.PathValue("org"), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, json.RawMessage(render.Collection(c)), err)
}

func (a *Admin) setWebhook(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL string `json:"url"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ep, secret, err := a.engine.Operator().SetWebhookEndpoint(r.Context(), r.PathValue("org"), in.URL)
	a.reply(w, r, http.StatusOK, json.RawMessage(render.NewEndpoint(ep, secret)), err)
}

func (a *Admin) listDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.engine.Operator().Deliveries(r.Context(), r.PathValue("org"), page)
	items := renderAll(res.Items, renderDelivery)
	a.reply(w, r, http.StatusOK, pageJSON("deliveries", items, res.HasMore, res.NextBeforeID), err)
}

func (a *Admin) redeliver(w http.ResponseWriter, r *http.Request) {
	v, err := a.engine.Operator().Redeliver(r.Context(), r.PathValue("org"), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, renderDelivery(v), err)
}

func (a *Admin) getPause(w http.ResponseWriter, r *http.Request) {
	s, err := a.engine.Operator().PauseState(r.Context())
	a.reply(w, r, http.StatusOK, pauseJSON(s), err)
}

func (a *Admin) setPause(w http.ResponseWriter, r *http.Request) {
	var in struct {
		API  tambala.API `json:"api"`
		Mode string      `json:"mode"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	mode := tambala.PauseMode(in.Mode)
	if in.Mode == "live" {
		mode = tambala.Live
	} else if in.Mode == "" {
		mode = "unset"
	}
	s, err := a.engine.Operator().SetPause(r.Context(), in.API, mode)
	a.reply(w, r, http.StatusOK, pauseJSON(s), err)
}

func pauseJSON(s tambala.PauseState) json.RawMessage {
	return render.Pause(string(s.V1), string(s.V2))
}

// payoutsInFlight is GET /admin/payouts/in-flight?status=&older_than=&org=&limit=:
// older_than is a Go duration ("15m", "2h").
func (a *Admin) payoutsInFlight(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := tambala.InFlightFilter{Status: payouts.Status(q.Get("status")), OrgID: q.Get("org")}
	if s := q.Get("older_than"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "older_than must be a duration such as 15m or 2h."))
			return
		}
		f.OlderThan = d
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "limit must be an integer from 1 to 1000."))
			return
		}
		f.Limit = n
	}
	list, err := a.engine.Operator().BackOffice().PayoutsInFlight(r.Context(), f)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := make([]json.RawMessage, len(list))
	for i, p := range list {
		out[i] = render.InFlightPayout(p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"payouts": out})
}

// resolvePayout is POST /admin/payouts/{id}/resolve with
// {"outcome":"succeeded","fee":"282.00","reason":"...","reference":"..."}
// or {"outcome":"failed","failure_code":"declined","reason":"..."}; the
// provider's reference is optional.
func (a *Admin) resolvePayout(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Outcome     payouts.Status      `json:"outcome"`
		Fee         json.RawMessage     `json:"fee"`
		FailureCode payouts.FailureCode `json:"failure_code"`
		Reason      string              `json:"reason"`
		Reference   string              `json:"reference"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res := tambala.Resolution{Outcome: in.Outcome, FailureCode: in.FailureCode, Reason: in.Reason, Reference: in.Reference}
	if len(in.Fee) > 0 && string(in.Fee) != "null" {
		fee, err := money.ParseJSON(money.MWK, in.Fee)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		res.Fee = fee
	}
	p, err := a.engine.Operator().BackOffice().ResolvePayout(r.Context(), r.PathValue("id"), res)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Payout(p))
}

// backup is GET /admin/backup: a consistent copy of the whole store,
// streamed as application/octet-stream, for a store that can make one
// (boltstore: its file, pebblestore: a tar of a checkpoint), named by its
// BackupName. Restore: tambala restore FILE into an empty data folder,
// then start the server there (docs/operations-backup.md).
func (a *Admin) backup(w http.ResponseWriter, r *http.Request) {
	streamBackup(w, r, a.log, a.backuper)
}
