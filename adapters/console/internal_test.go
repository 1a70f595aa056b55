package console

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

func TestVisible(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Segment
	}{
		{"", nil},
		{"Chikondi Banda", []Segment{{Text: "Chikondi Banda"}}},
		{"Ali\u200Bce", []Segment{{Text: "Ali"}, {Text: "⟨U+200B⟩", Marker: true}, {Text: "ce"}}},
		{"\u202Eevil\u00AD\n", []Segment{{Text: "⟨U+202E⟩", Marker: true}, {Text: "evil"}, {Text: "⟨U+00AD⟩", Marker: true}, {Text: "⟨U+000A⟩", Marker: true}}},
		{"\U000E0041Łukasz", []Segment{{Text: "⟨U+E0041⟩", Marker: true}, {Text: "Łukasz"}}},
	} {
		if got := Visible(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Visible(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestOrderPageShowsInvisibles renders an order whose beneficiary holds
// what the engine refuses today (stored before the rule, or by another
// writer): each invisible character is a marker, and the markup escaped.
func TestOrderPageShowsInvisibles(t *testing.T) {
	site := &webui.Site{Pages: parsePages()}
	o := orders.Order{ID: "ord-1", Org: "org-1", Direction: orders.ToBank, Status: orders.Accepted,
		From: money.FromInt(money.USDT, 10), To: money.FromInt(money.MWK, 17505), Rate: money.MustRate("1750.5"),
		CreatedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	b := orders.Beneficiary{Name: "Ali\u200Bce <script>alert(1)</script>\u202Egnp.exe", BankName: "NBM", AccountNumber: "100\u200D1"}
	d := orderData{Order: o, Beneficiary: &beneficiary{Name: Visible(b.Name), BankName: Visible(b.BankName), AccountNumber: Visible(b.AccountNumber)}}
	w := httptest.NewRecorder()
	site.Render(w, 200, "order", webui.View{Title: "Order", Email: "desk@operator.example", Data: d})
	body := w.Body.String()
	for _, want := range []string{
		`Ali<mark class="invisible" title="an invisible character">⟨U&#43;200B⟩</mark>ce &lt;script&gt;alert(1)&lt;/script&gt;<mark class="invisible" title="an invisible character">⟨U&#43;202E⟩</mark>gnp.exe`,
		`100<mark class="invisible" title="an invisible character">⟨U&#43;200D⟩</mark>1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>") || strings.ContainsRune(body, '\u200B') || strings.ContainsRune(body, '\u202E') {
		t.Errorf("the page holds the raw text: %s", body)
	}
}

func TestLegalMoves(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	to := orders.Order{ID: "o", Direction: orders.ToBank, Status: orders.Accepted, From: money.FromInt(money.USDT, 10), CreatedAt: now}
	m := legalMoves(to, now)
	if !m.Processing || !m.Cancel || m.Complete || m.CoinsSent || m.Instructions || m.ReturnRefund ||
		!slices.Equal(m.FailCodes, []orders.FailureCode{orders.UnableToFill, orders.Other}) {
		t.Errorf("accepted to-bank: %+v", m)
	}
	to.Status = orders.Processing
	m = legalMoves(to, now)
	if m.Processing || !m.CoinsSent || !m.Complete || !m.Cancel || len(m.FailCodes) != 4 {
		t.Errorf("processing to-bank: %+v", m)
	}
	to.Status, to.Refund = orders.Failed, &orders.Refund{Status: orders.RefundPending}
	if m = legalMoves(to, now); !m.ReturnRefund || m.Cancel || m.Any() && !m.ReturnRefund {
		t.Errorf("failed to-bank with a refund pending: %+v", m)
	}
	from := orders.Order{ID: "f", Direction: orders.FromBank, Status: orders.AwaitingInstructions, From: money.FromInt(money.MWK, 18000), CreatedAt: now}
	if m = legalMoves(from, now); !m.Instructions || !m.Cancel || m.Complete || m.ConfirmFunds {
		t.Errorf("awaiting instructions: %+v", m)
	}
	from.Status, from.Proof = orders.ProofSubmitted, &orders.Proof{ID: "p1"}
	if m = legalMoves(from, now); !m.ConfirmFunds || !m.RejectProof || m.Instructions || m.Complete {
		t.Errorf("proof submitted: %+v", m)
	}
	from.Status = orders.Completed
	if m = legalMoves(from, now); m.Any() {
		t.Errorf("completed: %+v", m)
	}
}

// TestTyped pins the desk's marking (issue #33): printable ASCII as it is;
// invisible characters, spaces other than U+0020 and combining marks as
// markers in their place; other characters outside ASCII as themselves,
// flagged with their code point.
func TestTyped(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Segment
	}{
		{"", nil},
		{"Chikondi Banda ~!", []Segment{{Text: "Chikondi Banda ~!"}}},
		{"Grace\u034F Phiri\u3164", []Segment{{Text: "Grace"}, {Text: "⟨U+034F⟩", Marker: true}, {Text: " Phiri"}, {Text: "⟨U+3164⟩", Marker: true}}},
		{"National\u00A0Bank", []Segment{{Text: "National"}, {Text: "⟨U+00A0⟩", Marker: true}, {Text: "Bank"}}},
		{"a\u2009b\u3000c\u2028", []Segment{{Text: "a"}, {Text: "⟨U+2009⟩", Marker: true}, {Text: "b"}, {Text: "⟨U+3000⟩", Marker: true}, {Text: "c"}, {Text: "⟨U+2028⟩", Marker: true}}},
		{"Jose\u0301", []Segment{{Text: "Jose"}, {Text: "⟨U+0301⟩", Marker: true}}},
		{"x\u0903\u20DD", []Segment{{Text: "x"}, {Text: "⟨U+0903⟩", Marker: true}, {Text: "⟨U+20DD⟩", Marker: true}}},
		{"Ali\u200Bce\t", []Segment{{Text: "Ali"}, {Text: "⟨U+200B⟩", Marker: true}, {Text: "ce"}, {Text: "⟨U+0009⟩", Marker: true}}},
		{"Gr\u0430ce", []Segment{{Text: "Gr"}, {Text: "\u0430", Code: "U+0430"}, {Text: "ce"}}},
		{"Łukasz", []Segment{{Text: "Ł", Code: "U+0141"}, {Text: "ukasz"}}},
		{"\uFF21\u2019\U0001F600", []Segment{{Text: "\uFF21", Code: "U+FF21"}, {Text: "\u2019", Code: "U+2019"}, {Text: "\U0001F600", Code: "U+1F600"}}},
	} {
		got := Typed(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Typed(%q) = %v, want %v", c.in, got, c.want)
		}
		plain := true
		for _, r := range c.in {
			plain = plain && r >= 0x20 && r <= 0x7E
		}
		if Flagged(got) == plain {
			t.Errorf("Flagged(Typed(%q)) = %v", c.in, Flagged(got))
		}
	}
	// Visible, for the other pages, still marks the invisible only, the
	// default-ignorable code points included.
	if got, want := Visible("Grace\u034F Ph\u00A0iri\u3164"), []Segment{{Text: "Grace"}, {Text: "⟨U+034F⟩", Marker: true}, {Text: " Ph\u00A0iri"}, {Text: "⟨U+3164⟩", Marker: true}}; !slices.Equal(got, want) {
		t.Errorf("Visible = %v, want %v", got, want)
	}
}
