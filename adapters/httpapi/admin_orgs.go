package httpapi

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/orgs"
)

// orgSetting answers an admin route that sets one setting of the
// organization {org} from a JSON body In: the body bound strictly, read
// into the setting (a wrong value answered with its error), set, and the
// organization rendered.
func orgSetting[In, V any](a *Admin, read func(In) (V, error),
	set func(*tambala.Operator, context.Context, string, V) (tambala.Organization, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in In
		if err := bind(r, &in); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		v, err := read(in)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		o, err := set(a.engine.Operator(), r.Context(), r.PathValue("org"), v)
		a.reply(w, r, http.StatusOK, renderOrg(o), err)
	}
}

// statusBody is PUT /admin/orgs/{org}/status's.
type statusBody struct {
	Status tambala.OrgStatus `json:"status"`
}

func (b statusBody) read() (tambala.OrgStatus, error) { return b.Status, nil }

// v2AccessBody is PUT /admin/orgs/{org}/v2-access's.
type v2AccessBody struct {
	V2Access tambala.V2Access `json:"v2_access"`
}

func (b v2AccessBody) read() (tambala.V2Access, error) { return b.V2Access, nil }

// assetsBody is PUT /admin/orgs/{org}/assets's.
type assetsBody struct {
	Assets []assetAccessJSON `json:"assets"`
}

func (b assetsBody) read() ([]tambala.AssetAccess, error) { return assetAccesses(b.Assets), nil }

// allowlistBody is PUT /admin/orgs/{org}/allowlist's.
type allowlistBody struct {
	Addresses []string `json:"addresses"`
}

func (b allowlistBody) read() ([]netip.Addr, error) { return orgs.ParseAllowlist(b.Addresses) }

// read is the payout limits of PUT /admin/orgs/{org}/payout-limits: the
// amounts optional MWK texts, in this order.
func (in payoutLimitsJSON) read() (tambala.PayoutLimits, error) {
	l := tambala.PayoutLimits{HourlyCount: in.HourlyCount}
	var err error
	if l.MaxPerPayoutMWK, err = optionalMWK(in.MaxPerPayoutMWK); err != nil {
		return l, err
	}
	l.DailyVolumeMWK, err = optionalMWK(in.DailyVolumeMWK)
	return l, err
}
