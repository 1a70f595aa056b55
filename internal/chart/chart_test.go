package chart

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n got %s\nwant %s", name, got, want)
	}
}

func TestBarGolden(t *testing.T) {
	got, err := Bar(Chart{ID: "ages", Title: "Desk queue by age", Unit: "orders", Points: []Point{
		{"< 1 h", "3"}, {"1–24 h", "0"}, {"1–3 d", "1"}, {"> 3 d", "6"}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bar.svg.html", string(got))
}

func TestLineGolden(t *testing.T) {
	got, err := Line(Chart{ID: "bal", Title: "MWK available <30 days>", Unit: "MWK", Points: []Point{
		{"11-01", "100.50"}, {"11-02", "100.50"}, {"11-03", "0"}, {"11-04", "-2.25"}, {"11-05", "250.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "line.svg.html", string(got))
}

// TestEscapes: every text lands escaped, in attributes and content alike.
func TestEscapes(t *testing.T) {
	got, err := Bar(Chart{ID: `x"y`, Title: `<script>alert(1)</script>`, Unit: `"u"`, Points: []Point{{`<b>&`, "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, bad := range []string{"<script>", `id="x"y"`, "<b>", `"u"<`} {
		if strings.Contains(s, bad) {
			t.Errorf("unescaped %q in %s", bad, s)
		}
	}
	if !strings.Contains(s, `role="img" aria-label="&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Errorf("no accessible name: %s", s)
	}
	if strings.Contains(s, "style=") {
		t.Errorf("a style attribute (blocked by the CSP): %s", s)
	}
}

// TestExactScale: values too close for a float still order exactly, and
// a value that is not a decimal is refused.
func TestExactScale(t *testing.T) {
	vals, maxV, err := scale([]Point{{"a", "12345678901234567890.000001"}, {"b", "12345678901234567890.000002"}})
	if err != nil {
		t.Fatal(err)
	}
	if maxV != vals[1] || vals[0].Cmp(vals[1]) >= 0 {
		t.Errorf("max %v of %v", maxV, vals)
	}
	for _, bad := range []string{"x", "1/3", "1e5", ""} {
		if _, err := Line(Chart{Points: []Point{{"a", bad}}}); err != ErrValue {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestEmpty(t *testing.T) {
	got, err := Bar(Chart{ID: "e", Title: "Nothing yet", Unit: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `aria-label="Nothing yet"`) || !strings.Contains(string(got), "<tbody></tbody>") {
		t.Errorf("%s", got)
	}
}

// TestBarManyGolden: past valueLabels bars, the highest value shows at the
// top instead of a value on each bar, and the day labels are thinned.
func TestBarManyGolden(t *testing.T) {
	c := Chart{ID: "many", Title: "Payouts per day", Unit: "payouts"}
	for i := range 30 {
		c.Points = append(c.Points, Point{Label: fmt.Sprintf("11-%02d", i+1), Value: fmt.Sprint(i % 7)})
	}
	got, err := Bar(c)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bar_many.svg.html", string(got))
}
