// Package chart draws small bar and line charts as inline SVG, for pages
// rendered on the server under a content security policy that allows no
// script and no inline style: every colour is an SVG presentation
// attribute, never a style attribute. Each chart is an <svg role="img">
// whose aria-label and <title> name it, followed by a <table> (in a
// <details>, open on demand) that gives its values as text, for screen
// readers and for reading exactly.
//
// Values are exact decimals (their text, as money.Amount.String gives it):
// the table prints them as given, and the scale compares them exactly;
// floats only place pixels. The package is pure: the same series gives the
// same bytes.
package chart

import (
	"errors"
	"html/template"
	"math/big"
	"strconv"
	"strings"
)

// Point is one value of a series: its label (a day, an age bucket, a rail)
// and its exact decimal value.
type Point struct {
	Label string
	Value string
}

// Chart is what a chart draws: a title (its accessible name), the name of
// its values' column in the text table, and the points in order.
type Chart struct {
	// ID is the chart's element id, unique on the page; the table's id is
	// ID + "-table".
	ID    string
	Title string
	// Unit names the values' column ("MWK", "payouts").
	Unit   string
	Points []Point
}

// Geometry of every chart: the view box, its margins and the bars' gap.
const (
	width     = 640
	height    = 240
	marginL   = 36
	marginR   = 36
	marginTop = 32
	marginBot = 40
	fontSize  = "18"
	// valueLabels is the most bars that each show their value above.
	valueLabels = 12
	plotW       = width - marginL - marginR
	plotH       = height - marginTop - marginBot
)

// ErrValue is returned for a point whose value is not a decimal number.
var ErrValue = errors.New("chart: a value is not a decimal number")

// Bar draws c as a bar chart (zero at the bottom; negative values are drawn
// as zero-height bars and keep their exact value in the table).
func Bar(c Chart) (template.HTML, error) {
	vals, maxV, at, err := scaleAt(c.Points)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	open(&b, c)
	if len(c.Points) > valueLabels {
		peak(&b, c, at)
	}
	n := len(c.Points)
	if n > 0 {
		slot := float64(plotW) / float64(n)
		bw := slot * 0.7
		for i, p := range c.Points {
			h := frac(vals[i], maxV) * plotH
			x := marginL + slot*float64(i) + (slot-bw)/2
			y := marginTop + plotH - h
			b.WriteString(`<rect x="` + px(x) + `" y="` + px(y) + `" width="` + px(bw) + `" height="` + px(h) + `" fill="#2f6f4f"><title>`)
			b.WriteString(esc(p.Label + ": " + p.Value + " " + c.Unit))
			b.WriteString("</title></rect>")
			if n <= valueLabels {
				b.WriteString(`<text x="` + px(x+bw/2) + `" y="` + px(y-6) + `" font-size="` + fontSize + `" text-anchor="middle" fill="currentColor">` + esc(p.Value) + `</text>`)
			}
			label(&b, c.Points, i, marginL+slot*float64(i)+slot/2)
		}
	}
	closeSVG(&b, c)
	return template.HTML(b.String()), nil
}

// Line draws c as a line chart over its points from left to right, with a
// dot on each point.
func Line(c Chart) (template.HTML, error) {
	vals, maxV, at, err := scaleAt(c.Points)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	open(&b, c)
	peak(&b, c, at)
	n := len(c.Points)
	if n > 0 {
		step := 0.0
		if n > 1 {
			step = float64(plotW) / float64(n-1)
		}
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range c.Points {
			xs[i] = marginL + step*float64(i)
			if n == 1 {
				xs[i] = marginL + plotW/2
			}
			ys[i] = marginTop + plotH - frac(vals[i], maxV)*plotH
		}
		b.WriteString(`<polyline fill="none" stroke="#2f6f4f" stroke-width="2" points="`)
		for i := range xs {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(px(xs[i]) + "," + px(ys[i]))
		}
		b.WriteString(`"/>`)
		for i, p := range c.Points {
			b.WriteString(`<circle cx="` + px(xs[i]) + `" cy="` + px(ys[i]) + `" r="3" fill="#2f6f4f"><title>`)
			b.WriteString(esc(p.Label + ": " + p.Value + " " + c.Unit))
			b.WriteString("</title></circle>")
			label(&b, c.Points, i, xs[i])
		}
	}
	closeSVG(&b, c)
	return template.HTML(b.String()), nil
}

// open writes the figure, the svg element with its name, and the axis.
func open(b *strings.Builder, c Chart) {
	b.WriteString(`<figure class="chart" id="` + esc(c.ID) + `"><figcaption>` + esc(c.Title) + `</figcaption>`)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + strconv.Itoa(width) + " " + strconv.Itoa(height) +
		`" width="100%" preserveAspectRatio="xMidYMid meet" role="img" aria-label="` + esc(c.Title) + `"><title>` + esc(c.Title) + `</title>`)
	y := px(marginTop + plotH)
	b.WriteString(`<line x1="` + px(marginL) + `" y1="` + y + `" x2="` + px(marginL+plotW) + `" y2="` + y + `" stroke="#888" stroke-width="1"/>`)
}

// closeSVG ends the svg and writes the text table.
func closeSVG(b *strings.Builder, c Chart) {
	b.WriteString(`</svg>`)
	b.WriteString(`<details><summary>The values as a table</summary>`)
	b.WriteString(`<table class="chart-data" id="` + esc(c.ID) + `-table"><caption>` + esc(c.Title) + `</caption>`)
	b.WriteString(`<thead><tr><th scope="col"></th><th scope="col">` + esc(c.Unit) + `</th></tr></thead><tbody>`)
	for _, p := range c.Points {
		b.WriteString(`<tr><th scope="row">` + esc(p.Label) + `</th><td>` + esc(p.Value) + `</td></tr>`)
	}
	b.WriteString(`</tbody></table></details></figure>`)
}

// label writes the x-axis label of point i, thinned so that at most about
// eight labels show (the first always, the last when it falls on the
// step).
func label(b *strings.Builder, pts []Point, i int, x float64) {
	every := (len(pts) + 7) / 8
	if i%every != 0 {
		return
	}
	b.WriteString(`<text x="` + px(x) + `" y="` + px(height-8) + `" font-size="` + fontSize + `" text-anchor="middle" fill="currentColor">` + esc(pts[i].Label) + `</text>`)
}

// scale parses the values exactly and returns them with the largest (at
// least zero).
func scale(pts []Point) ([]*big.Rat, *big.Rat, error) {
	vals, maxV, _, err := scaleAt(pts)
	return vals, maxV, err
}

// scaleAt is scale with the index of the largest value (-1 when none is
// above zero).
func scaleAt(pts []Point) ([]*big.Rat, *big.Rat, int, error) {
	vals := make([]*big.Rat, len(pts))
	maxV, at := new(big.Rat), -1
	for i, p := range pts {
		v, ok := new(big.Rat).SetString(p.Value)
		if !ok || strings.ContainsAny(p.Value, "/eE") {
			return nil, nil, -1, ErrValue
		}
		vals[i] = v
		if v.Cmp(maxV) > 0 {
			maxV, at = v, i
		}
	}
	return vals, maxV, at, nil
}

// peak writes the largest value at the top left, where a chart with too
// many points for a label on each shows its scale.
func peak(b *strings.Builder, c Chart, at int) {
	text := "none above zero"
	if at >= 0 {
		text = "highest " + c.Points[at].Value + " " + c.Unit + " (" + c.Points[at].Label + ")"
	}
	b.WriteString(`<text x="` + px(marginL) + `" y="` + px(marginTop-10) + `" font-size="` + fontSize + `" text-anchor="start" fill="currentColor">` +
		esc(text) + `</text>`)
}

// frac is v/max in [0, 1] as a float, for a pixel position.
func frac(v, maxV *big.Rat) float64 {
	if maxV.Sign() == 0 || v.Sign() <= 0 {
		return 0
	}
	f, _ := new(big.Rat).Quo(v, maxV).Float64()
	return f
}

// px is a pixel position with at most one decimal.
func px(f float64) string { return strconv.FormatFloat(float64(int64(f*10+0.5))/10, 'f', -1, 64) }

// esc escapes text for HTML and SVG content and attribute values.
func esc(s string) string { return template.HTMLEscapeString(s) }
