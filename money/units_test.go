package money_test

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/money"
)

// Amounts whose minor units fit an int64 are kept as integers; larger ones
// as apd decimals. These tests hold both forms to one reference: apd
// arithmetic on the decimal text, with no rounding.

// genUnits draws minor units biased towards the int64 edges, where the
// integer form overflows into apd.
func genUnits(t *rapid.T, label string) *big.Int {
	switch rapid.IntRange(0, 3).Draw(t, label+"_kind") {
	case 0: // small
		return big.NewInt(rapid.Int64Range(-1_000_000_00, 1_000_000_00).Draw(t, label))
	case 1: // near the int64 bounds
		edge := big.NewInt(math.MaxInt64)
		if rapid.Bool().Draw(t, label+"_neg") {
			edge = big.NewInt(math.MinInt64)
		}
		return edge.Add(edge, big.NewInt(rapid.Int64Range(-3, 3).Draw(t, label+"_off")))
	case 2: // any int64
		return big.NewInt(rapid.Int64().Draw(t, label))
	default: // beyond int64
		n := new(big.Int).Lsh(big.NewInt(rapid.Int64Range(1, 1<<20).Draw(t, label)), uint(rapid.IntRange(60, 75).Draw(t, label+"_shift")))
		if rapid.Bool().Draw(t, label+"_neg") {
			n.Neg(n)
		}
		return n
	}
}

func text(units *big.Int, dec int32) string {
	d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(units), -dec)
	return d.Text('f')
}

func amountOf(t *rapid.T, a money.Asset, units *big.Int) money.Amount {
	s := text(units, a.Decimals)
	x, err := money.ParseSigned(a, s)
	if err != nil {
		t.Fatalf("ParseSigned(%q): %v", s, err)
	}
	return x
}

func TestIntegerAndDecimalFormsAgree(t *testing.T) {
	assets := []money.Asset{money.MWK, money.USDT, eth, jpy}
	rapid.Check(t, func(t *rapid.T) {
		a := assets[rapid.IntRange(0, len(assets)-1).Draw(t, "asset")]
		xu, yu := genUnits(t, "x"), genUnits(t, "y")
		x, y := amountOf(t, a, xu), amountOf(t, a, yu)

		// Parse and String round-trip, as the reference writes them.
		if x.String() != text(xu, a.Decimals) {
			t.Fatalf("String %s, want %s", x, text(xu, a.Decimals))
		}
		if b, _ := x.AppendText([]byte("=")); string(b) != "="+x.String() {
			t.Fatalf("AppendText %q", b)
		}
		if j, _ := x.MarshalJSON(); string(j) != `"`+x.String()+`"` {
			t.Fatalf("MarshalJSON %s", j)
		}
		u, ok := x.Units()
		if ok != xu.IsInt64() || (ok && u != xu.Int64()) {
			t.Fatalf("Units %d %v for %s", u, ok, xu)
		}
		if ok && !money.FromUnits(a, u).Equal(x) {
			t.Fatalf("FromUnits(%d) != %s", u, x)
		}

		// Sign, Cmp, Equal.
		if x.Sign() != xu.Sign() {
			t.Fatalf("Sign %d, want %d", x.Sign(), xu.Sign())
		}
		if x.Cmp(y) != xu.Cmp(yu) || x.Equal(y) != (xu.Cmp(yu) == 0) {
			t.Fatalf("Cmp(%s, %s) = %d", x, y, x.Cmp(y))
		}

		// Add, Sub, Neg, Abs give exactly the reference.
		check := func(op string, got money.Amount, err error, want *big.Int) {
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			if got.String() != text(want, a.Decimals) {
				t.Fatalf("%s(%s, %s) = %s, want %s", op, x, y, got, text(want, a.Decimals))
			}
			// Whatever path produced it, the result compares equal to the
			// same value parsed afresh (one canonical form per value).
			if !got.Equal(amountOf(t, a, want)) {
				t.Fatalf("%s result %s not Equal to its parse", op, got)
			}
		}
		s, err := x.Add(y)
		check("Add", s, err, new(big.Int).Add(xu, yu))
		d, err := x.Sub(y)
		check("Sub", d, err, new(big.Int).Sub(xu, yu))
		check("Neg", x.Neg(), nil, new(big.Int).Neg(xu))
		check("Abs", x.Abs(), nil, new(big.Int).Abs(xu))

		// Decimal agrees with the text.
		want, _, _ := apd.NewFromString(x.String())
		if x.Decimal().Cmp(want) != 0 {
			t.Fatalf("Decimal %s, want %s", x.Decimal(), want)
		}
	})
}

func TestParseAtTheInt64Edge(t *testing.T) {
	// 9223372036854775807 minor units fit; one more does not, and both
	// parse exactly.
	for _, s := range []string{"92233720368547758.07", "92233720368547758.08", "-92233720368547758.08", "-92233720368547758.09", "0.01", "000000000000000000000000000001.50"} {
		a, err := money.ParseSigned(money.MWK, s)
		require.NoError(t, err, s)
		want := strings.TrimLeft(s, "0")
		if strings.HasPrefix(want, ".") {
			want = "0" + want
		}
		require.Equal(t, want, a.String(), s)
	}
	fits, _ := money.Parse(money.MWK, "92233720368547758.07")
	_, ok := fits.Units()
	require.True(t, ok)
	over, _ := money.Parse(money.MWK, "92233720368547758.08")
	_, ok = over.Units()
	require.False(t, ok)
}

func TestIntegerFormAllocatesNothing(t *testing.T) {
	x := money.FromUnits(money.MWK, 150000)
	y := money.FromUnits(money.MWK, 2500)
	buf := make([]byte, 0, 64)
	n := testing.AllocsPerRun(100, func() {
		s, _ := x.Add(y)
		d, _ := s.Sub(y)
		_ = d.Cmp(x) + d.Neg().Sign()
		buf, _ = d.AppendText(buf[:0])
		if _, err := money.Parse(money.MWK, "1500.25"); err != nil {
			panic(err)
		}
	})
	require.Zero(t, n)
}

// ParseJSON reads a plain JSON string without encoding/json; what it
// answers (amount or error) is what it answered through json.Unmarshal.
func TestParseJSONPlainStringAnswersAsUnmarshal(t *testing.T) {
	viaUnmarshal := func(raw []byte) (money.Amount, error) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return money.Amount{}, err
		}
		return money.Parse(money.MWK, s)
	}
	rapid.Check(t, func(t *rapid.T) {
		raw := []byte(`"` + rapid.OneOf(
			rapid.StringMatching(`-?[0-9]{0,20}(\.[0-9]{0,4})?`),
			rapid.StringMatching(`[ -~]{0,12}`),
		).Draw(t, "text") + `"`)
		got, gotErr := money.ParseJSON(money.MWK, raw)
		want, wantErr := viaUnmarshal(raw)
		if wantErr != nil {
			if gotErr == nil {
				t.Fatalf("ParseJSON(%s) = %v, want an error (%v)", raw, got, wantErr)
			}
			return
		}
		if gotErr != nil || !got.Equal(want) || got.String() != want.String() {
			t.Fatalf("ParseJSON(%s) = %v, %v; want %v", raw, got, gotErr, want)
		}
	})
}
