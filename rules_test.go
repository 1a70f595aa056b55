package tambala_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// The rules every use case obeys are the engine's, not the transport's:
// these tests call the engine directly, with Principals from Act and
// Authenticate taken before the rule changed, on every store.

func momoRequest(amount string) payouts.Request {
	return payouts.Request{Rail: payouts.Momo, Amount: mustParse(money.MWK, amount),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}}
}

// useCases are one call of each Principal use case, with what it needs.
func useCases(e *tambala.Engine) map[string]func(ctx context.Context, p tambala.Principal, key string) error {
	return map[string]func(ctx context.Context, p tambala.Principal, key string) error{
		"CreatePayout": func(ctx context.Context, p tambala.Principal, key string) error {
			_, err := e.Client(p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: key})
			return err
		},
		"RefuseCreate": func(ctx context.Context, p tambala.Principal, key string) error {
			err := tambala.GateOf(e).RefuseCreate(ctx, e.Client(p), tambala.CreateMomoPayout, tambala.Idempotency{Key: key}, errors.New("undecodable"))
			if err != nil && err.Error() == "undecodable" {
				return nil
			}
			return err
		},
		"Payouts": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
			return err
		},
		"Payout": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().Payout(ctx, "00000000-0000-0000-0000-000000000000")
			if errcode.Of(err) == errcode.NotFound {
				return nil
			}
			return err
		},
		"BalanceV1": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().Balance(ctx)
			return err
		},
		"QuoteFee": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().QuoteFee(ctx, payouts.DirPayout, payouts.Momo, money.FromInt(money.MWK, 100))
			return err
		},
		"SimulateCollection": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 100)})
			return err
		},
		"Collections": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().Collections(ctx, tambala.PageRequest{})
			return err
		},
		"Trades": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).Trades(ctx, tambala.PageRequest{})
			return err
		},
		"Institutions": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, _, err := e.Client(p).Institutions(ctx)
			return err
		},
		"Banks": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, err := e.Client(p).V1().Banks(ctx)
			return err
		},
		"Operators": func(ctx context.Context, p tambala.Principal, _ string) error {
			_, _, err := e.Client(p).V1().MobileOperators(ctx)
			return err
		},
	}
}

// v2UseCases are the /v2 ones.
func v2UseCases(e *tambala.Engine) map[string]func(ctx context.Context, p tambala.Principal) error {
	return map[string]func(ctx context.Context, p tambala.Principal) error{
		"Balance": func(ctx context.Context, p tambala.Principal) error {
			_, err := e.Client(p).Balance(ctx, "MWK")
			return err
		},
		"Balances": func(ctx context.Context, p tambala.Principal) error {
			_, err := e.Client(p).Balances(ctx)
			return err
		},
		"EnabledAssets": func(ctx context.Context, p tambala.Principal) error {
			_, err := e.Client(p).EnabledAssets(ctx)
			return err
		},
	}
}

type ruleEnv struct {
	e   *tambala.Engine
	s   store.Store
	org tambala.Organization
	p   tambala.Principal // taken before any rule changed
}

func newRuleEnv(t *testing.T, s store.Store) *ruleEnv {
	ctx := context.Background()
	e, err := tambala.New(s, nil)
	require.NoError(t, err)
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Rules", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}}, {Asset: "USDT", Operations: []string{tambala.OpConvert}}}})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "seed"))
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, ledger.CheckStore(ctx, s)) })
	return &ruleEnv{e: e, s: s, org: org, p: p}
}

// assertNothingMoved checks that no payout exists and nothing is held.
func (r *ruleEnv) assertNothingMoved(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var n int
	require.NoError(t, r.s.View(ctx, func(tx store.Tx) error {
		return tx.Scan([]byte("payouts"), store.ScanOptions{}, func(_, _ []byte) (bool, error) { n++; return true, nil })
	}))
	assert.Zero(t, n, "payouts created")
	b, err := r.e.Client(r.p).V1().Balance(ctx)
	if err == nil {
		assert.Equal(t, "0.00", b.Held.String(), "held")
	}
}

func TestRules_HandBuiltPrincipalIsUnauthorized(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		forged := tambala.Principal{Org: r.org}
		for name, call := range useCases(r.e) {
			assert.Equal(t, errcode.Unauthorized, errcode.Of(call(context.Background(), forged, "k-"+name)), name)
		}
		for name, call := range v2UseCases(r.e) {
			assert.Equal(t, errcode.Unauthorized, errcode.Of(call(context.Background(), forged)), name)
		}
		assert.Equal(t, errcode.Unauthorized, errcode.Of(tambala.GateOf(r.e).Admit(context.Background(), r.e.Client(tambala.Principal{}), tambala.APIv1)))
		assert.Equal(t, errcode.Unauthorized, errcode.Of(tambala.GateOf(r.e).Admitted(tambala.Principal{}, tambala.APIv1)))
		assert.Equal(t, errcode.Unauthorized, errcode.Of(tambala.GateOf(r.e).Admitted(forged, tambala.APIv1)))
		r.assertNothingMoved(t)
	})
}

func TestRules_SuspendedOrganization(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		ctx := context.Background()
		_, err := r.e.Operator().SetOrganizationStatus(ctx, r.org.ID, tambala.OrgSuspended)
		require.NoError(t, err)
		for name, call := range useCases(r.e) {
			assert.Equal(t, errcode.Forbidden, errcode.Of(call(ctx, r.p, "k-"+name)), name)
		}
		for name, call := range v2UseCases(r.e) {
			assert.Equal(t, errcode.Forbidden, errcode.Of(call(ctx, r.p)), name)
		}
		_, err = r.e.Act(ctx, r.org.ID)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		_, err = r.e.Operator().SetOrganizationStatus(ctx, r.org.ID, tambala.OrgActive)
		require.NoError(t, err)
		r.assertNothingMoved(t)
		// Reactivated, the same Principal works again.
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "after"})
		assert.NoError(t, err)
	})
}

func TestRules_Pause(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		for _, c := range []struct {
			api  tambala.API
			mode tambala.PauseMode
			code errcode.Code
		}{
			{tambala.APIv1, tambala.Maintenance, errcode.ServiceMaintenance},
			{tambala.APIv1, tambala.Incident, errcode.ServiceIncident},
			{tambala.APIv2, tambala.Maintenance, errcode.ServiceMaintenance},
			{tambala.APIv2, tambala.Incident, errcode.ServiceIncident},
		} {
			r := newRuleEnv(t, s)
			_, err := r.e.Operator().SetPause(ctx, c.api, c.mode)
			require.NoError(t, err)
			v1, v2 := errcode.Code(""), errcode.Code("")
			if c.api == tambala.APIv1 {
				v1 = c.code
			} else {
				v2 = c.code
			}
			for name, call := range useCases(r.e) {
				got := errcode.Of(call(ctx, r.p, "k-"+name+string(c.api)+string(c.mode)))
				assert.Equal(t, v1, got, "%s while %s is %s", name, c.api, c.mode)
			}
			for name, call := range v2UseCases(r.e) {
				assert.Equal(t, v2, errcode.Of(call(ctx, r.p)), "%s while %s is %s", name, c.api, c.mode)
			}
			assert.Equal(t, v1, errcode.Of(tambala.GateOf(r.e).Admit(ctx, r.e.Client(r.p), tambala.APIv1)))
			assert.Equal(t, v2, errcode.Of(tambala.GateOf(r.e).Admit(ctx, r.e.Client(r.p), tambala.APIv2)))
			// A Principal made now carries the switches: Admitted answers
			// as Admit does, without reading the store.
			now, err := r.e.Act(ctx, r.org.ID)
			require.NoError(t, err)
			assert.Equal(t, v1, errcode.Of(tambala.GateOf(r.e).Admitted(now, tambala.APIv1)))
			assert.Equal(t, v2, errcode.Of(tambala.GateOf(r.e).Admitted(now, tambala.APIv2)))
			// The /v2 ping status reads the switch, never refused.
			ps, err := r.e.Operator().PauseState(ctx)
			require.NoError(t, err)
			if c.api == tambala.APIv2 {
				assert.NotEqual(t, "live", ps.PingStatus())
			}
			_, err = r.e.Operator().SetPause(ctx, c.api, tambala.Live)
			require.NoError(t, err)
			require.NoError(t, tambala.GateOf(r.e).Admit(ctx, r.e.Client(r.p), c.api))
		}
	})
}

func TestRules_V2Access(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		ctx := context.Background()
		for access, code := range map[tambala.V2Access]errcode.Code{
			tambala.V2OnboardingIncomplete: errcode.OnboardingIncomplete,
			tambala.V2AccessSuspended:      errcode.AccessSuspended,
		} {
			_, err := r.e.Operator().SetV2Access(ctx, r.org.ID, access)
			require.NoError(t, err)
			for name, call := range v2UseCases(r.e) {
				assert.Equal(t, code, errcode.Of(call(ctx, r.p)), name)
			}
			now, err := r.e.Act(ctx, r.org.ID)
			require.NoError(t, err)
			assert.Equal(t, code, errcode.Of(tambala.GateOf(r.e).Admitted(now, tambala.APIv2)))
			assert.Equal(t, code, errcode.Of(tambala.GateOf(r.e).Admit(ctx, r.e.Client(r.p), tambala.APIv2)))
			assert.NoError(t, tambala.GateOf(r.e).Admitted(now, tambala.APIv1))
			// /v1 is not concerned.
			_, err = r.e.Client(r.p).V1().Balance(ctx)
			assert.NoError(t, err)
		}
		_, err := r.e.Operator().SetV2Access(ctx, r.org.ID, tambala.V2Enabled)
		require.NoError(t, err)
		for name, call := range v2UseCases(r.e) {
			assert.NoError(t, call(ctx, r.p), name)
		}
	})
}

func TestRules_AssetAndOperationEnabled(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		ctx := context.Background()
		// USDT is enabled for convert only; an unknown asset is not enabled.
		_, err := r.e.Client(r.p).Balance(ctx, "USDT")
		assert.NoError(t, err)
		_, err = r.e.Client(r.p).Balance(ctx, "EURC")
		assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(err))
		// Taking MWK payouts away refuses a payout to the same Principal.
		_, err = r.e.Operator().SetAssets(ctx, r.org.ID, []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpCollection}}})
		require.NoError(t, err)
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "k"})
		assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(err))
		_, err = r.e.Client(r.p).Balance(ctx, "USDT")
		assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(err), "USDT was taken away too")
		r.assertNothingMoved(t)
		// Collections are still enabled.
		_, err = r.e.Client(r.p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 10)})
		assert.NoError(t, err)
	})
}

func TestRules_ActUnknownOrganization(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		e, err := tambala.New(s, nil)
		require.NoError(t, err)
		_, err = e.Act(context.Background(), "no-such-org")
		assert.Equal(t, errcode.NotFound, errcode.Of(err))
	})
}

// Every error the engine returns with a code is an *errcode.Error:
// errors.Is, errors.As and errcode.Of agree, insufficient funds included.
func TestRules_CodedErrorsAgree(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		ctx := context.Background()
		check := func(err error, code errcode.Code) {
			t.Helper()
			require.Error(t, err)
			assert.True(t, errors.Is(err, errcode.New(code)), "errors.Is %s: %v", code, err)
			var ce *errcode.Error
			if assert.True(t, errors.As(err, &ce), "errors.As: %v", err) {
				assert.Equal(t, code, ce.Code)
			}
			assert.Equal(t, code, errcode.Of(err))
		}
		_, err := r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("1000000"), tambala.Idempotency{Key: "big"})
		check(err, errcode.InsufficientFunds)
		assert.True(t, errors.Is(err, ledger.ErrInsufficientFunds), "the ledger's detail rides along")
		var detail *ledger.InsufficientFundsError
		assert.True(t, errors.As(err, &detail))
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, payouts.Request{}, tambala.Idempotency{Key: "empty"})
		check(err, errcode.ValidationError)
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{})
		check(err, errcode.ValidationError)
		_, err = r.e.Client(r.p).V1().Payout(ctx, "nope")
		check(err, errcode.NotFound)
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "same"})
		require.NoError(t, err)
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("101"), tambala.Idempotency{Key: "same"})
		check(err, errcode.Conflict)
		_, perr := money.Parse(money.MWK, "1.005")
		check(perr, errcode.ValidationError)
	})
}

// A Go host without a body: the default fingerprint is the typed
// request's, so the same request replays and another one conflicts.
func TestIdempotency_TypedDefaultFingerprint(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		r := newRuleEnv(t, s)
		ctx := context.Background()
		first, err := r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.False(t, first.Replayed)
		again, err := r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100.00"), tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, render.Payout(first.Resource), render.Payout(again.Resource))
		assert.Equal(t, first.Resource.HeldFee.String(), again.Resource.HeldFee.String(), "the stored resource is whole")
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, momoRequest("100.01"), tambala.Idempotency{Key: "k"})
		assert.Equal(t, errcode.Conflict, errcode.Of(err))
		// The same key on the other rail names the same create: conflict,
		// and nothing is created (one namespace per organization).
		bank := payouts.Request{Rail: payouts.Bank, Amount: money.FromInt(money.MWK, 100),
			Destination: payouts.Destination{InstitutionID: 1, AccountNumber: "3333888800", BeneficiaryName: "B"}}
		_, err = r.e.Client(r.p).V1().CreatePayout(ctx, bank, tambala.Idempotency{Key: "k"})
		assert.Equal(t, errcode.Conflict, errcode.Of(err))
		list, err := r.e.Client(r.p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
		require.NoError(t, err)
		assert.Len(t, list.Items, 1)
	})
}
