package money

// Decimal is an amount written before its asset is known: what a request
// carries until the use case has looked the asset up. It keeps the text
// as written ("50", "12.75"), and In checks it (Parse's grammar, the
// asset's decimals) when the use case binds it to its asset, at the point
// of its checks where an amount's errors belong. The zero Decimal is
// absent (IsSet is false).
//
// A host that knows the asset passes DecimalOf(amount); a transport passes
// the text it decoded, DecimalText(s).
type Decimal struct {
	text string
	set  bool
}

// DecimalText returns the decimal written s. Nothing is checked until the
// decimal is bound to an asset (In) or its grammar checked (Check).
func DecimalText(s string) Decimal { return Decimal{text: s, set: true} }

// DecimalOf returns the decimal of a, written as a.String().
func DecimalOf(a Amount) Decimal { return Decimal{text: a.String(), set: true} }

// String returns the text of d as written; "" when d is absent.
func (d Decimal) String() string { return d.text }

// IsSet reports whether d was given.
func (d Decimal) IsSet() bool { return d.set }

// In binds d to asset: Parse(asset, d.String()).
func (d Decimal) In(asset Asset) (Amount, error) { return Parse(asset, d.text) }

// Check checks d against Parse's grammar alone, with as many decimals as
// any asset may have: what can be checked before the asset is known.
func (d Decimal) Check() error {
	_, err := Parse(Asset{Decimals: MaxDecimals}, d.text)
	return err
}
