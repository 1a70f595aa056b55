package tambala

import (
	"testing"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/trades"
)

// Every entry id the engine makes maps to its statement kind (the table
// in docs/decisions.md, "Issue #37: statements"); the ids come from the
// same functions and literals the engine posts with.
func TestLineKind(t *testing.T) {
	for _, c := range []struct {
		id   string
		kind ledger.Kind
		want StatementKind
	}{
		{"payout:p1:hold", ledger.KindHold, LinePayoutHeld},
		{captureEntry("p1"), ledger.KindCapture, LinePayoutSettled},
		{"payout:p1:fee-excess", ledger.KindCharge, LineFee},
		{"payout:p1:release", ledger.KindRelease, LinePayoutReleased},
		{"payout:p1:clawback", ledger.KindReverse, LineReversal},
		{collections.EntryID("c1"), ledger.KindCredit, LineCollection},
		{collections.ReverseEntryID("c1"), ledger.KindReverse, LineReversal},
		{collections.EntryIDV2("c2"), ledger.KindCredit, LineCollection},
		{conversions.HoldID("v1"), ledger.KindHold, LineConversionHeld},
		{"conversion:v1:capture", ledger.KindCapture, LineConversionOut},
		{"conversion:v1:credit", ledger.KindCredit, LineConversionIn},
		{"conversion:v1:release", ledger.KindRelease, LineConversionReleased},
		{orders.EntryID("o1", "hold"), ledger.KindHold, LineDeskOrderHeld},
		{orders.EntryID("o1", "capture"), ledger.KindCapture, LineDeskOrderCaptured},
		{orders.EntryID("o1", "credit"), ledger.KindCredit, LineDeskOrderCredited},
		{orders.EntryID("o1", "release"), ledger.KindRelease, LineDeskOrderReleased},
		{orders.EntryID("o1", "refund"), ledger.KindCredit, LineRefund},
		{orgs.FundingEntryID("org", "MWK", "wire:hold"), ledger.KindCredit, LineFunding},
		{trades.EntryID("t1"), ledger.KindCredit, LineTrade},
		{"host-made", ledger.KindCredit, LineOther},
	} {
		if got := lineKind(c.id, c.kind); got != c.want {
			t.Errorf("%s: %s, want %s", c.id, got, c.want)
		}
	}
}
