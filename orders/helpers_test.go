package orders_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

var t0 = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

func amt(a money.Asset, s string) money.Amount {
	v, err := money.Parse(a, s)
	if err != nil {
		panic(err)
	}
	return v
}

func strp(s string) *string { return &s }

const (
	sha1hex = "1111111111111111111111111111111111111111111111111111111111111111"
	sha2hex = "2222222222222222222222222222222222222222222222222222222222222222"
)

func toBankParams() orders.Params {
	return orders.Params{
		ID: "0195f000-0000-7000-8000-000000000001", Org: "org-1", QuoteID: "q-1", Direction: orders.ToBank,
		From: amt(money.USDT, "123.456789"), To: amt(money.MWK, "216111.10"), Rate: money.MustRate("1750.5"),
		ClientRef: "inv-42",
		Beneficiary: &orders.Beneficiary{Name: "Chikondi Banda", BankName: "National Bank of Malawi",
			AccountNumber: "1000123456", Branch: strp("Blantyre")},
	}
}

func fromBankParams() orders.Params {
	return orders.Params{
		ID: "0195f000-0000-7000-8000-000000000002", Org: "org-1", QuoteID: "q-2", Direction: orders.FromBank,
		From: amt(money.MWK, "100000.00"), To: amt(money.USDT, "55.555556"), Rate: money.MustRate("1800"),
		ClientRef: "topup-7",
	}
}

// instr is the canonical instructions every from-bank fixture got.
var instr = orders.Instructions{BankName: "Desk Bank", AccountName: "Tambala Desk Ltd", AccountNumber: "0099887766",
	Reference: "ABC123XYZ"}

func newOrder(t testing.TB, p orders.Params) orders.Order {
	t.Helper()
	o, _, err := orders.New(p, t0)
	require.NoError(t, err)
	return o
}

// run applies cmds in turn, one minute apart from at, and fails the test
// on any error.
func run(t testing.TB, o orders.Order, at time.Time, cmds ...orders.Command) orders.Order {
	t.Helper()
	for i, c := range cmds {
		var err error
		o, _, err = orders.Apply(o, c, at.Add(time.Duration(i)*time.Minute))
		require.NoError(t, err, "%s", c.Name())
	}
	return o
}

// tb is what both *testing.T and *rapid.T offer.
type tb interface {
	require.TestingT
	Helper()
}

var timeRE = regexp.MustCompile(`^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$`)

// checkRendered holds a rendering to the presence rules of render.Order.
// instructed says whether the order ever got its funding instructions.
func checkRendered(t tb, o orders.Order, b []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	want := []string{"id", "client_ref", "from_asset", "from_amount", "to_asset", "to_amount", "rate", "status",
		"failure", "proofs", "created_at", "updated_at"}
	has := func(k string) bool { _, ok := m[k]; return ok }
	for _, k := range want {
		require.True(t, has(k), "missing %s in %s", k, b)
	}
	optional := map[string]bool{}
	if o.Direction == orders.ToBank {
		optional["beneficiary"] = true
		require.True(t, has("beneficiary"), "to-bank without beneficiary: %s", b)
		require.Equal(t, o.Status == orders.Failed && o.CoinsLeftAt != nil, has("refund"), "refund presence: %s", b)
		if has("refund") {
			optional["refund"] = true
		}
		require.False(t, has("funding") || has("expires_at"), "to-bank with funding: %s", b)
		require.Equal(t, "{}", string(m["proofs"]))
	} else {
		require.False(t, has("beneficiary") || has("refund"), "from-bank with beneficiary or refund: %s", b)
		require.Equal(t, o.Funding != nil, has("funding"), "funding presence: %s", b)
		require.Equal(t, o.Funding != nil, has("expires_at"), "expires_at presence: %s", b)
		if o.Funding != nil {
			optional["funding"], optional["expires_at"] = true, true
			var f map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(m["funding"], &f))
			require.Equal(t, string(m["expires_at"]), string(f["deadline"]))
			require.Regexp(t, timeRE, string(f["deadline"]))
			require.Equal(t, `"`+o.From.String()+`"`, string(f["amount"]))
			require.Equal(t, `"`+string(o.From.Asset().Code)+`"`, string(f["asset"]))
			require.Len(t, f, 7)
		}
		if o.Proof == nil {
			require.Equal(t, "{}", string(m["proofs"]))
		} else {
			var p struct {
				Funding map[string]json.RawMessage `json:"funding"`
			}
			require.NoError(t, json.Unmarshal(m["proofs"], &p))
			require.Regexp(t, timeRE, string(p.Funding["uploaded_at"]))
			_, rejected := p.Funding["rejected_reason"]
			require.Equal(t, o.Proof.RejectedReason != nil, rejected)
			require.Len(t, p.Funding, map[bool]int{false: 1, true: 2}[rejected])
		}
	}
	for k := range m {
		require.True(t, slices.Contains(want, k) || optional[k], "unexpected %s in %s", k, b)
	}
	if o.Status == orders.Failed {
		var f struct{ Code, Message string }
		require.NoError(t, json.Unmarshal(m["failure"], &f))
		msg, ok := orders.FailureMessage(orders.FailureCode(f.Code))
		require.True(t, ok)
		require.Equal(t, msg, f.Message)
	} else {
		require.Equal(t, "null", string(m["failure"]))
	}
	for _, k := range []string{"created_at", "updated_at"} {
		require.Regexp(t, timeRE, string(m[k]))
	}
	require.Equal(t, `"`+o.Rate.String()+`"`, string(m["rate"]))
	require.False(t, strings.Contains(string(b), "coins_left"), "coins_left_at rendered: %s", b)
}
