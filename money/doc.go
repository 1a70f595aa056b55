// Package money holds exact amounts of an asset and the rounding rules the
// reference names, over github.com/cockroachdb/apd/v3. There is no float
// anywhere on a money path.
//
// An Amount is immutable and always carries exactly its asset's decimals, so
// adding and subtracting amounts of one asset is exact; an operation that
// would lose a digit fails instead of rounding. Rounding happens only in the
// helpers that take a Rounding mode (Mul, Quo, Round), which callers use
// where the reference says to round: quotes (corridor currency down,
// stablecoin up) and fee lines (half-up to the tambala).
//
// Amounts come from the wire only through Parse (a decimal string) and
// ParseJSON (a JSON string, or a JSON integer): fractional JSON numbers,
// exponents, signs, whitespace and more decimals than the asset carries are
// rejected with a *ParseError whose code is validation_error.
package money
