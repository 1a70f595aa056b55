package httpapi

import (
	"net/http"

	"github.com/tambalapay/tambala/money"
)

// adminBalanceJSON is one of an organization's balances on the admin API:
// the /v2 balance's fields and the shortfall (what the organization owes).
type adminBalanceJSON struct {
	Asset     string       `json:"asset"`
	Available money.Amount `json:"available"`
	Held      money.Amount `json:"held"`
	Shortfall money.Amount `json:"shortfall"`
}

// orgBalances is GET /admin/orgs/{org}/balances: {"org_id","balances"},
// the MWK balance first, then each other asset the organization has
// enabled (Operator.OrgBalances, the console's read too), whatever its
// status or the pause switches.
func (a *Admin) orgBalances(w http.ResponseWriter, r *http.Request) {
	org := r.PathValue("org")
	bs, err := a.engine.Operator().OrgBalances(r.Context(), org)
	out := make([]adminBalanceJSON, len(bs))
	for i, b := range bs {
		out[i] = adminBalanceJSON{Asset: string(b.Asset.Code), Available: b.Available, Held: b.Held, Shortfall: b.Shortfall}
	}
	a.reply(w, r, http.StatusOK, map[string]any{"org_id": org, "balances": out}, err)
}
