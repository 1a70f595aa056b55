package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/errcode"
)

// wantStatus is the HTTP status of every error code the API documents,
// plus the statuses decisions.md fixes for the codes documented without
// one, and the 405 of a wrong method. Written out literally so that a
// change to the table must change this list too.
var wantStatus = []struct {
	code   errcode.Code
	status int
}{
	// 7.2
	{"validation_error", 400},
	{"unauthorized", 401},
	{"insufficient_funds", 402},
	{"forbidden", 403},
	{"onboarding_incomplete", 403},
	{"access_suspended", 403},
	{"corridor_not_enabled", 403},
	{"sandbox_only", 403},
	{"not_found", 404},
	{"conflict", 409},
	{"quote_used", 409},
	{"client_ref_used", 409},
	{"unsupported_pair", 422},
	{"invalid_wallet_address", 422},
	{"amount_below_minimum", 422},
	{"limit_exceeded", 422},
	{"quote_expired", 422},
	{"beneficiary_required", 422},
	{"beneficiary_not_allowed", 422},
	{"unknown_bank", 422},
	{"unknown_operator", 422},
	{"invalid_mobile_number", 422},
	{"invalid_account_number", 422},
	{"amount_limit_exceeded", 422},
	{"rate_limited", 429},
	{"org_limit_exceeded", 429},
	{"internal_error", 500},
	{"rail_disabled", 503},
	{"rate_unavailable", 503},
	{"service_unavailable", 503},
	{"service_incident", 503},
	{"service_maintenance", 503},
	// decisions.md: "Statuses of the codes the reference lists without one".
	{"unsupported_asset", 422},
	{"unsupported_network", 422},
	{"unknown_institution", 422},
	{"mobile_number_institution_mismatch", 422},
	{"proof_not_expected", 409},
	{"unsupported_media_type", 415},
	{"payload_too_large", 413},
	// decisions.md: "Errors on other endpoints".
	{"method_not_allowed", 405},
}

func TestTableStatuses(t *testing.T) {
	require.Len(t, errcode.Table, len(wantStatus), "every code in the table is listed here, and no more")
	for _, w := range wantStatus {
		t.Run(string(w.code), func(t *testing.T) {
			require.True(t, errcode.Known(w.code))
			s := errcode.Lookup(w.code)
			assert.Equal(t, w.code, s.Code)
			assert.Equal(t, w.status, httpapi.Status(w.code))
			assert.NotEmpty(t, http.StatusText(httpapi.Status(w.code)))
		})
	}
}

// TestStatusOfEveryCode: every code of errcode.Table has a status, an
// error status; an unknown code is answered as internal_error.
func TestStatusOfEveryCode(t *testing.T) {
	for _, s := range errcode.Table {
		st := httpapi.Status(s.Code)
		assert.GreaterOrEqual(t, st, 400, s.Code)
		assert.Less(t, st, 600, s.Code)
	}
	for _, c := range []errcode.Code{"", "no_such_code", "VALIDATION_ERROR", "validation_error "} {
		assert.Equal(t, 500, httpapi.Status(c), c)
	}
}
