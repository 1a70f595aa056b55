// Package binrec is the reading side the binary record codecs of the
// domain packages (ledger, quotes) share: a cursor over one stored record
// whose first error sticks, with the primitives every layout is built of
// (a byte, varints, length-prefixed bytes). Each codec adds its own
// fields (amounts, assets, rates, times) and its own end-of-record check.
package binrec
