package ledger_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

const org = "acme"

// Fixture commands; each test case posts the ones it needs first.
var (
	credit1000 = ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(100000), Ref: "dep-1", At: t0}          // 1000.00 MWK
	credit50   = ledger.Credit{EntryID: "c-2", Org: org, Amount: us(50_000000), From: ledger.Float, At: t0} // 50 USDT
	creditFee  = ledger.Credit{EntryID: "c-f", Org: org, Amount: mw(100000), Fee: mw(1500), At: t0}         // 1000.00 less 15.00
	hold300    = ledger.PlaceHold{EntryID: "h-1", HoldID: "hold-1", Org: org, Amount: mw(30000), Ref: "payout-1", At: t0}
	release1   = ledger.ReleaseHold{EntryID: "r-1", HoldID: "hold-1", At: t0}
	capture1   = ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(25000), Fee: mw(500), At: t0}
	captureFee = ledger.CaptureHold{EntryID: "x-f", HoldID: "hold-1", Fee: mw(30000), At: t0}       // pays nothing out
	convert1   = ledger.Convert{EntryID: "cv-1", Org: org, From: mw(87500), To: us(500000), At: t0} // 875.00 MWK -> 0.5 USDT
	reverseC1  = ledger.Reverse{EntryID: "rv-1", Of: "c-1", At: t0}
)

func cmds(c ...ledger.Command) []ledger.Command { return c }

type planCase struct {
	name  string
	setup []ledger.Command
	cmd   ledger.Command
	err   error // the sentinel the command fails with; nil when it succeeds

	// On success:
	kind     ledger.Kind
	postings []string // the entry's postings, in order
	balances []string // the touched accounts' balances after, in order
	holds    []string // hold changes: "id open=... closed=..."
}

func TestPlanCommands(t *testing.T) {
	acct := func(b ledger.Bucket, a money.Asset) string { return ledger.OrgAccount(org, b, a).String() }
	sys := func(b ledger.Bucket, a money.Asset) string { return ledger.SystemAccount(b, a).String() }
	avM, hdM, avU := acct(ledger.Available, mwk), acct(ledger.Held, mwk), acct(ledger.Available, usdt)

	cases := []planCase{
		// Credits.
		{
			name: "credit", cmd: credit1000, kind: ledger.KindCredit,
			postings: []string{sys(ledger.External, mwk) + " -1000.00", avM + " 1000.00"},
			balances: []string{sys(ledger.External, mwk) + " -1000.00", avM + " 1000.00"},
		},
		{
			name: "credit on top of a balance", setup: cmds(credit1000),
			cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(5), At: t0}, kind: ledger.KindCredit,
			postings: []string{sys(ledger.External, mwk) + " -0.05", avM + " 0.05"},
			balances: []string{sys(ledger.External, mwk) + " -1000.05", avM + " 1000.05"},
		},
		{
			name:     "credit with fee from float",
			cmd:      ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100000), Fee: mw(1500), From: ledger.Float, Ref: "trade-1"},
			kind:     ledger.KindCredit,
			postings: []string{sys(ledger.Float, mwk) + " -1000.00", avM + " 985.00", sys(ledger.Fees, mwk) + " 15.00"},
			balances: []string{sys(ledger.Float, mwk) + " -1000.00", avM + " 985.00", sys(ledger.Fees, mwk) + " 15.00"},
		},
		{
			name: "credit whose fee is the whole amount",
			cmd:  ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(1000), Fee: mw(1000)}, kind: ledger.KindCredit,
			postings: []string{sys(ledger.External, mwk) + " -10.00", sys(ledger.Fees, mwk) + " 10.00"},
			balances: []string{sys(ledger.External, mwk) + " -10.00", sys(ledger.Fees, mwk) + " 10.00"},
		},
		{
			name: "credit of USDT from the desk, 200-byte entry id",
			cmd:  ledger.Credit{EntryID: strings.Repeat("e", 200), Org: org, Amount: us(1_500001), From: ledger.Desk}, kind: ledger.KindCredit,
			postings: []string{sys(ledger.Desk, usdt) + " -1.500001", avU + " 1.500001"},
			balances: []string{sys(ledger.Desk, usdt) + " -1.500001", avU + " 1.500001"},
		},
		{name: "credit without entry id", cmd: ledger.Credit{Org: org, Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit with 201-byte entry id", cmd: ledger.Credit{EntryID: strings.Repeat("e", 201), Org: org, Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit with NUL in entry id", cmd: ledger.Credit{EntryID: "c\x00", Org: org, Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit without org", cmd: ledger.Credit{EntryID: "c-3", Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit with NUL in org", cmd: ledger.Credit{EntryID: "c-3", Org: "a\x00b", Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit of zero", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(0)}, err: ledger.ErrInvalidCommand},
		{name: "credit of a negative amount", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(-100)}, err: ledger.ErrInvalidCommand},
		{name: "credit of the zero Amount", cmd: ledger.Credit{EntryID: "c-3", Org: org}, err: ledger.ErrInvalidCommand},
		{name: "credit with a negative fee", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), Fee: mw(-1)}, err: ledger.ErrInvalidCommand},
		{name: "credit with fee above amount", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), Fee: mw(101)}, err: ledger.ErrInvalidCommand},
		{name: "credit with fee in another asset", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), Fee: us(1)}, err: ledger.ErrInvalidCommand},
		{name: "credit with fee of no asset", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), Fee: money.FromUnits(money.Asset{}, 1)}, err: ledger.ErrInvalidCommand},
		{name: "credit from a customer bucket", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), From: ledger.Available}, err: ledger.ErrInvalidCommand},
		{name: "credit from an unknown bucket", cmd: ledger.Credit{EntryID: "c-3", Org: org, Amount: mw(100), From: "nowhere"}, err: ledger.ErrInvalidCommand},

		// Holds.
		{
			name: "hold", setup: cmds(credit1000), cmd: hold300, kind: ledger.KindHold,
			postings: []string{avM + " -300.00", hdM + " 300.00"},
			balances: []string{avM + " 700.00", hdM + " 300.00"},
			holds:    []string{"hold-1 open=true opened=h-1 closed="},
		},
		{
			name: "hold of everything available", setup: cmds(credit1000, hold300),
			cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(70000)}, kind: ledger.KindHold,
			postings: []string{avM + " -700.00", hdM + " 700.00"},
			balances: []string{avM + " 0.00", hdM + " 1000.00"},
			holds:    []string{"hold-2 open=true opened=h-2 closed="},
		},
		{name: "hold above available", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(100001)}, err: ledger.ErrInsufficientFunds},
		{name: "hold above what other holds left", setup: cmds(credit1000, hold300), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(70001)}, err: ledger.ErrInsufficientFunds},
		{name: "hold without any balance", cmd: hold300, err: ledger.ErrInsufficientFunds},
		{name: "hold in an asset the org has none of", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: us(1)}, err: ledger.ErrInsufficientFunds},
		{name: "hold of another org's money", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: "other", Amount: mw(1)}, err: ledger.ErrInsufficientFunds},
		{name: "hold of zero", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(0)}, err: ledger.ErrInvalidCommand},
		{name: "hold of a negative amount", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(-1)}, err: ledger.ErrInvalidCommand},
		{name: "hold without hold id", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", Org: org, Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "hold without org", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Amount: mw(1)}, err: ledger.ErrInvalidCommand},
		{name: "hold id reused while open", setup: cmds(credit1000, hold300), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-1", Org: org, Amount: mw(1)}, err: ledger.ErrHoldExists},
		{name: "hold id reused after release", setup: cmds(credit1000, hold300, release1), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-1", Org: org, Amount: mw(1)}, err: ledger.ErrHoldExists},
		{name: "hold id reused by another org", setup: cmds(credit1000, hold300, ledger.Credit{EntryID: "c-o", Org: "other", Amount: mw(100)}), cmd: ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-1", Org: "other", Amount: mw(1)}, err: ledger.ErrHoldExists},

		// Releases.
		{
			name: "release", setup: cmds(credit1000, hold300), cmd: release1, kind: ledger.KindRelease,
			postings: []string{hdM + " -300.00", avM + " 300.00"},
			balances: []string{hdM + " 0.00", avM + " 1000.00"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=r-1"},
		},
		{name: "release of a missing hold", setup: cmds(credit1000), cmd: release1, err: ledger.ErrHoldNotFound},
		{name: "release of a released hold", setup: cmds(credit1000, hold300, release1), cmd: ledger.ReleaseHold{EntryID: "r-2", HoldID: "hold-1"}, err: ledger.ErrHoldClosed},
		{name: "release of a captured hold", setup: cmds(credit1000, hold300, capture1), cmd: release1, err: ledger.ErrHoldClosed},
		{name: "release without hold id", setup: cmds(credit1000, hold300), cmd: ledger.ReleaseHold{EntryID: "r-1"}, err: ledger.ErrInvalidCommand},

		// Captures.
		{
			name: "capture of the whole hold to the provider", setup: cmds(credit1000, hold300),
			cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(30000)}, kind: ledger.KindCapture,
			postings: []string{hdM + " -300.00", sys(ledger.Provider, mwk) + " 300.00"},
			balances: []string{hdM + " 0.00", sys(ledger.Provider, mwk) + " 300.00"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=x-1"},
		},
		{
			name: "capture with fee, the rest back to available", setup: cmds(credit1000, hold300), cmd: capture1, kind: ledger.KindCapture,
			postings: []string{hdM + " -300.00", sys(ledger.Provider, mwk) + " 250.00", sys(ledger.Fees, mwk) + " 5.00", avM + " 45.00"},
			balances: []string{hdM + " 0.00", sys(ledger.Provider, mwk) + " 250.00", sys(ledger.Fees, mwk) + " 5.00", avM + " 745.00"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=x-1"},
		},
		{
			name: "capture to the desk", setup: cmds(credit1000, hold300),
			cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(29999), To: ledger.Desk}, kind: ledger.KindCapture,
			postings: []string{hdM + " -300.00", sys(ledger.Desk, mwk) + " 299.99", avM + " 0.01"},
			balances: []string{hdM + " 0.00", sys(ledger.Desk, mwk) + " 299.99", avM + " 700.01"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=x-1"},
		},
		{
			name: "capture of nothing returns the hold", setup: cmds(credit1000, hold300),
			cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1"}, kind: ledger.KindCapture,
			postings: []string{hdM + " -300.00", avM + " 300.00"},
			balances: []string{hdM + " 0.00", avM + " 1000.00"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=x-1"},
		},
		{
			name: "capture of the fee only", setup: cmds(credit1000, hold300), cmd: captureFee, kind: ledger.KindCapture,
			postings: []string{hdM + " -300.00", sys(ledger.Fees, mwk) + " 300.00"},
			balances: []string{hdM + " 0.00", sys(ledger.Fees, mwk) + " 300.00"},
			holds:    []string{"hold-1 open=false opened=h-1 closed=x-f"},
		},
		{name: "capture of a missing hold", setup: cmds(credit1000), cmd: capture1, err: ledger.ErrHoldNotFound},
		{name: "capture of a released hold", setup: cmds(credit1000, hold300, release1), cmd: capture1, err: ledger.ErrHoldClosed},
		{name: "capture of a captured hold", setup: cmds(credit1000, hold300, capture1), cmd: ledger.CaptureHold{EntryID: "x-2", HoldID: "hold-1", Amount: mw(1)}, err: ledger.ErrHoldClosed},
		{name: "capture above the hold", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(30001)}, err: ledger.ErrCaptureExceedsHold},
		{name: "capture plus fee above the hold", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(29500), Fee: mw(501)}, err: ledger.ErrCaptureExceedsHold},
		{name: "capture of a fee above the hold", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Fee: mw(30001)}, err: ledger.ErrCaptureExceedsHold},
		{name: "capture in another asset", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: us(1)}, err: ledger.ErrInvalidCommand},
		{name: "capture with fee in another asset", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(1), Fee: us(1)}, err: ledger.ErrInvalidCommand},
		{name: "capture of a negative amount", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(-1)}, err: ledger.ErrInvalidCommand},
		{name: "capture with a negative fee", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(1), Fee: mw(-1)}, err: ledger.ErrInvalidCommand},
		{name: "capture to fees", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(1), To: ledger.Fees}, err: ledger.ErrInvalidCommand},
		{name: "capture to a customer bucket", setup: cmds(credit1000, hold300), cmd: ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(1), To: ledger.Available}, err: ledger.ErrInvalidCommand},

		// Entry ids.
		{name: "entry id reused by another amount", setup: cmds(credit1000), cmd: ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(100001), Ref: "dep-1"}, err: ledger.ErrEntryIDReused},
		{name: "entry id reused by another ref", setup: cmds(credit1000), cmd: ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(100000), Ref: "dep-2"}, err: ledger.ErrEntryIDReused},
		{name: "entry id reused by another org", setup: cmds(credit1000), cmd: ledger.Credit{EntryID: "c-1", Org: "other", Amount: mw(100000), Ref: "dep-1"}, err: ledger.ErrEntryIDReused},
		{name: "entry id reused by another source", setup: cmds(credit1000), cmd: ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(100000), Ref: "dep-1", From: ledger.Float}, err: ledger.ErrEntryIDReused},
		{name: "entry id reused by another kind", setup: cmds(credit1000), cmd: ledger.PlaceHold{EntryID: "c-1", HoldID: "hold-1", Org: org, Amount: mw(1)}, err: ledger.ErrEntryIDReused},
		{name: "entry id reused by an invalid command", setup: cmds(credit1000), cmd: ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(0)}, err: ledger.ErrEntryIDReused},
		{name: "hold's entry id reused by another hold id", setup: cmds(credit1000, hold300), cmd: ledger.PlaceHold{EntryID: "h-1", HoldID: "hold-2", Org: org, Amount: mw(30000), Ref: "payout-1"}, err: ledger.ErrEntryIDReused},

		// Reversals.
		{
			name: "reverse of a credit with fee", setup: cmds(creditFee), cmd: ledger.Reverse{EntryID: "rv-1", Of: "c-f", Ref: "chargeback"}, kind: ledger.KindReverse,
			postings: []string{sys(ledger.External, mwk) + " 1000.00", avM + " -985.00", sys(ledger.Fees, mwk) + " -15.00"},
			balances: []string{sys(ledger.External, mwk) + " 0.00", avM + " 0.00", sys(ledger.Fees, mwk) + " 0.00"},
		},
		{
			name: "reverse of a capture returns the payout leg, the fee stays", setup: cmds(credit1000, hold300, capture1),
			cmd: ledger.Reverse{EntryID: "rv-1", Of: "x-1"}, kind: ledger.KindReverse,
			postings: []string{sys(ledger.Provider, mwk) + " -250.00", avM + " 250.00"},
			balances: []string{sys(ledger.Provider, mwk) + " 0.00", avM + " 995.00"},
		},
		{
			name: "reverse of a capture to the desk", setup: cmds(credit1000, hold300, ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(30000), To: ledger.Desk}),
			cmd: ledger.Reverse{EntryID: "rv-1", Of: "x-1"}, kind: ledger.KindReverse,
			postings: []string{sys(ledger.Desk, mwk) + " -300.00", avM + " 300.00"},
			balances: []string{sys(ledger.Desk, mwk) + " 0.00", avM + " 1000.00"},
		},
		{
			name: "reverse of a capture whose money was spent since", setup: cmds(credit1000, hold300, capture1, ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(74500)}),
			cmd: ledger.Reverse{EntryID: "rv-1", Of: "x-1"}, kind: ledger.KindReverse,
			postings: []string{sys(ledger.Provider, mwk) + " -250.00", avM + " 250.00"},
			balances: []string{sys(ledger.Provider, mwk) + " 0.00", avM + " 250.00"},
		},
		{
			name: "reverse of a convert", setup: cmds(credit1000, convert1), cmd: ledger.Reverse{EntryID: "rv-1", Of: "cv-1"}, kind: ledger.KindReverse,
			postings: []string{avM + " 875.00", sys(ledger.Desk, mwk) + " -875.00", sys(ledger.Desk, usdt) + " 0.500000", avU + " -0.500000"},
			balances: []string{avM + " 1000.00", sys(ledger.Desk, mwk) + " 0.00", sys(ledger.Desk, usdt) + " 0.000000", avU + " 0.000000"},
		},
		{name: "reverse of a missing entry", setup: cmds(credit1000), cmd: ledger.Reverse{EntryID: "rv-1", Of: "nope"}, err: ledger.ErrEntryNotFound},
		{name: "reverse of itself", cmd: ledger.Reverse{EntryID: "rv-1", Of: "rv-1"}, err: ledger.ErrEntryNotFound},
		{name: "reverse without original", setup: cmds(credit1000), cmd: ledger.Reverse{EntryID: "rv-1"}, err: ledger.ErrInvalidCommand},
		{name: "second reverse of a credit", setup: cmds(credit1000, reverseC1), cmd: ledger.Reverse{EntryID: "rv-2", Of: "c-1"}, err: ledger.ErrAlreadyReversed},
		{name: "second reverse of a capture", setup: cmds(credit1000, hold300, capture1, ledger.Reverse{EntryID: "rv-1", Of: "x-1"}), cmd: ledger.Reverse{EntryID: "rv-2", Of: "x-1"}, err: ledger.ErrAlreadyReversed},
		{name: "reverse of a hold", setup: cmds(credit1000, hold300), cmd: ledger.Reverse{EntryID: "rv-1", Of: "h-1"}, err: ledger.ErrNotReversible},
		{name: "reverse of a release", setup: cmds(credit1000, hold300, release1), cmd: ledger.Reverse{EntryID: "rv-1", Of: "r-1"}, err: ledger.ErrNotReversible},
		{name: "reverse of a reverse", setup: cmds(credit1000, reverseC1), cmd: ledger.Reverse{EntryID: "rv-2", Of: "rv-1"}, err: ledger.ErrNotReversible},
		{name: "reverse of a capture that paid out nothing but a fee", setup: cmds(credit1000, hold300, captureFee), cmd: ledger.Reverse{EntryID: "rv-1", Of: "x-f"}, err: ledger.ErrNotReversible},
		{name: "reverse of a capture that paid out nothing", setup: cmds(credit1000, hold300, ledger.CaptureHold{EntryID: "x-0", HoldID: "hold-1"}), cmd: ledger.Reverse{EntryID: "rv-1", Of: "x-0"}, err: ledger.ErrNotReversible},
		{name: "reverse of a credit whose money is held", setup: cmds(credit1000, hold300), cmd: reverseC1, err: ledger.ErrInsufficientFunds},
		{name: "reverse of a credit whose money was captured", setup: cmds(credit1000, hold300, capture1), cmd: reverseC1, err: ledger.ErrInsufficientFunds},
		{name: "reverse of a convert whose proceeds were held", setup: cmds(credit1000, convert1, ledger.PlaceHold{EntryID: "h-u", HoldID: "hold-u", Org: org, Amount: us(1)}), cmd: ledger.Reverse{EntryID: "rv-1", Of: "cv-1"}, err: ledger.ErrInsufficientFunds},

		// Conversions.
		{
			name: "convert MWK to USDT", setup: cmds(credit1000), cmd: convert1, kind: ledger.KindConvert,
			postings: []string{avM + " -875.00", sys(ledger.Desk, mwk) + " 875.00", sys(ledger.Desk, usdt) + " -0.500000", avU + " 0.500000"},
			balances: []string{avM + " 125.00", sys(ledger.Desk, mwk) + " 875.00", sys(ledger.Desk, usdt) + " -0.500000", avU + " 0.500000"},
		},
		{
			name: "convert USDT to MWK", setup: cmds(credit50),
			cmd: ledger.Convert{EntryID: "cv-2", Org: org, From: us(50_000000), To: mw(8_750_000)}, kind: ledger.KindConvert,
			postings: []string{avU + " -50.000000", sys(ledger.Desk, usdt) + " 50.000000", sys(ledger.Desk, mwk) + " -87500.00", avM + " 87500.00"},
			balances: []string{avU + " 0.000000", sys(ledger.Desk, usdt) + " 50.000000", sys(ledger.Desk, mwk) + " -87500.00", avM + " 87500.00"},
		},
		{name: "convert above available", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(100001), To: us(1)}, err: ledger.ErrInsufficientFunds},
		{name: "convert of held money", setup: cmds(credit1000, hold300), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(70001), To: us(1)}, err: ledger.ErrInsufficientFunds},
		{name: "convert within one asset", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(100), To: mw(100)}, err: ledger.ErrInvalidCommand},
		{name: "convert from zero", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(0), To: us(1)}, err: ledger.ErrInvalidCommand},
		{name: "convert to zero", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(1), To: us(0)}, err: ledger.ErrInvalidCommand},
		{name: "convert to a negative amount", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", Org: org, From: mw(1), To: us(-1)}, err: ledger.ErrInvalidCommand},
		{name: "convert without org", setup: cmds(credit1000), cmd: ledger.Convert{EntryID: "cv-1", From: mw(1), To: us(1)}, err: ledger.ErrInvalidCommand},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newMem(t)
			mustPost(t, s, tc.setup...)
			before := render(snapshot(t, s))

			planned, planErr := plan(s, tc.cmd)
			eff, err := post(s, tc.cmd)
			// Plan is pure: it agrees with Post and wrote nothing (it ran in a
			// read-only transaction).
			assert.Equal(t, renderOutcome(planned, planErr), renderOutcome(eff, err))

			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Equal(t, before, render(snapshot(t, s)), "a rejected command writes nothing")
				return
			}
			require.NoError(t, err)
			require.False(t, eff.Replayed)
			assert.Equal(t, tc.kind, eff.Entry.Kind)
			var ps, bs, hs []string
			for _, p := range eff.Entry.Postings {
				ps = append(ps, renderPosting(p))
			}
			for _, bc := range eff.Balances {
				bs = append(bs, bc.Account.String()+" "+bc.Balance.String())
				assert.True(t, bc.Balance.Equal(accountOf(t, s, bc.Account)), "stored balance of %s", bc.Account)
			}
			for _, h := range eff.Holds {
				hs = append(hs, h.ID+" open="+boolStr(h.Open)+" opened="+h.OpenedBy+" closed="+h.ClosedBy)
			}
			assert.Equal(t, tc.postings, ps, "postings")
			assert.Equal(t, tc.balances, bs, "balances")
			assert.Equal(t, tc.holds, hs, "holds")

			// The entry is stored as returned.
			var got ledger.Entry
			require.NoError(t, s.View(bg, func(tx store.Tx) error {
				var err error
				got, err = ledger.GetEntry(tx, eff.Entry.ID)
				return err
			}))
			assert.Equal(t, renderEntry(eff.Entry), renderEntry(got))
			if tc.kind == ledger.KindReverse {
				snap := snapshot(t, s)
				assert.Equal(t, eff.Entry.ID, snap.Reversals[eff.Entry.Reverses])
			}
			require.NoError(t, ledger.CheckStore(bg, s))
		})
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestReplay posts each kind of command again under its entry id, with
// another At and after the state moved on: no second effect, and the
// original entry comes back.
func TestReplay(t *testing.T) {
	later := t0.Add(time.Hour)
	at := func(c ledger.Command) ledger.Command { return withAt(c, later) }
	s := newMem(t)
	hold2 := ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(100)}
	release2 := ledger.ReleaseHold{EntryID: "r-2", HoldID: "hold-2"}
	reverseX := ledger.Reverse{EntryID: "rv-x", Of: "x-1"}
	all := cmds(creditFee, credit1000, hold300, capture1, reverseX, hold2, release2, convert1, credit50)
	effs := map[string]ledger.Effect{}
	for _, c := range all {
		eff := mustPost(t, s, c)
		effs[eff.Entry.ID] = eff
	}
	// An extra entry so that the state differs from when each was posted.
	mustPost(t, s, ledger.PlaceHold{EntryID: "h-3", HoldID: "hold-3", Org: org, Amount: mw(1)})
	for _, c := range append(all, reverseC1) {
		c := at(c)
		eff, err := post(s, c)
		if c == at(reverseC1) {
			// Not posted before: a real reversal, replayed in turn below.
			require.NoError(t, err)
			eff2, err := post(s, c)
			require.NoError(t, err)
			require.True(t, eff2.Replayed)
			assert.Equal(t, renderEntry(eff.Entry), renderEntry(eff2.Entry))
			continue
		}
		require.NoError(t, err, "%#v", c)
		require.True(t, eff.Replayed, "%#v", c)
		orig := effs[eff.Entry.ID]
		assert.Equal(t, renderEntry(orig.Entry), renderEntry(eff.Entry))
		assert.True(t, eff.Entry.At.Equal(t0) || eff.Entry.At.IsZero(), "the replay reports the original At, got %s", eff.Entry.At)
		assert.Empty(t, eff.Balances)
		assert.Empty(t, eff.Holds)
		// Plan agrees.
		planned, err := plan(s, c)
		require.NoError(t, err)
		assert.True(t, planned.Replayed)
	}
	after := snapshot(t, s)
	assert.Equal(t, "rv-1", after.Reversals["c-1"])
	assert.Len(t, after.Entries, len(all)+2, "only h-3 and rv-1 were added")

	// A replay never writes: the snapshot stays byte-identical.
	before := render(after)
	for _, c := range append(all, reverseC1) {
		eff, err := post(s, at(c))
		require.NoError(t, err)
		require.True(t, eff.Replayed)
	}
	assert.Equal(t, before, render(snapshot(t, s)))
}

// TestReplayDefaults: a command spelling out a default is the same command.
func TestReplayDefaults(t *testing.T) {
	s := newMem(t)
	mustPost(t, s,
		ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(1000)},
		ledger.PlaceHold{EntryID: "h-1", HoldID: "hold-1", Org: org, Amount: mw(500)},
		ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(500)},
	)
	for _, c := range cmds(
		ledger.Credit{EntryID: "c-1", Org: org, Amount: mw(1000), From: ledger.External},
		ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(500), To: ledger.Provider},
	) {
		eff, err := post(s, c)
		require.NoError(t, err)
		assert.True(t, eff.Replayed)
	}
	eff, err := post(s, ledger.CaptureHold{EntryID: "x-1", HoldID: "hold-1", Amount: mw(500), To: ledger.Desk})
	require.ErrorIs(t, err, ledger.ErrEntryIDReused)
	assert.False(t, eff.Replayed)
}

// TestFailedCommandLeavesIDFree: a rejected command does not take its id.
func TestFailedCommandLeavesIDFree(t *testing.T) {
	s := newMem(t)
	_, err := post(s, ledger.PlaceHold{EntryID: "e-1", HoldID: "hold-1", Org: org, Amount: mw(100)})
	require.ErrorIs(t, err, ledger.ErrInsufficientFunds)
	mustPost(t, s, ledger.Credit{EntryID: "e-1", Org: org, Amount: mw(100)})
	// The hold id is free too.
	mustPost(t, s, ledger.PlaceHold{EntryID: "e-2", HoldID: "hold-1", Org: org, Amount: mw(100)})
	b := balanceOf(t, s, org, mwk)
	assert.Equal(t, "0.00", b.Available.String())
	assert.Equal(t, "1.00", b.Held.String())
}

func TestInsufficientFundsError(t *testing.T) {
	s := newMem(t)
	mustPost(t, s, credit1000, hold300)
	_, err := post(s, reverseC1)
	require.ErrorIs(t, err, ledger.ErrInsufficientFunds)
	var ife *ledger.InsufficientFundsError
	require.True(t, errors.As(err, &ife))
	assert.Equal(t, ledger.OrgAccount(org, ledger.Available, mwk), ife.Account)
	assert.Equal(t, "700.00", ife.Available.String())
	assert.Equal(t, "1000.00", ife.Needed.String())
	assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))
	assert.NotContains(t, errcode.Message(err), org, "the public message does not name the organization")
	assert.Contains(t, errcode.Message(err), "MWK")

	_, err = post(s, ledger.PlaceHold{EntryID: "h-2", HoldID: "hold-2", Org: org, Amount: mw(70001)})
	require.True(t, errors.As(err, &ife))
	assert.Equal(t, "700.00", ife.Available.String())
	assert.Equal(t, "700.01", ife.Needed.String())
	assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))

	// Other ledger errors carry no code of their own.
	_, err = post(s, ledger.ReleaseHold{EntryID: "r-9", HoldID: "nope"})
	require.ErrorIs(t, err, ledger.ErrHoldNotFound)
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
}

// TestPostInCallerTransaction: Post writes within the caller's transaction,
// so several postings commit or roll back together, and a later posting in
// the same transaction sees the earlier ones.
func TestPostInCallerTransaction(t *testing.T) {
	s := newMem(t)
	boom := errors.New("boom")
	err := s.Update(bg, func(tx store.Tx) error {
		if _, err := ledger.Post(tx, credit1000); err != nil {
			return err
		}
		if _, err := ledger.Post(tx, hold300); err != nil {
			return err
		}
		b, err := ledger.ReadBalance(tx, org, mwk)
		require.NoError(t, err)
		assert.Equal(t, "700.00", b.Available.String())
		require.NoError(t, ledger.CheckTx(tx))
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Empty(t, render(snapshot(t, s)), "a rolled back transaction leaves no ledger trace")

	// A rejected posting inside a transaction that commits anyway leaves
	// the other postings intact and adds nothing of its own.
	require.NoError(t, s.Update(bg, func(tx store.Tx) error {
		if _, err := ledger.Post(tx, credit1000); err != nil {
			return err
		}
		_, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "h-9", HoldID: "hold-9", Org: org, Amount: mw(100001)})
		require.ErrorIs(t, err, ledger.ErrInsufficientFunds)
		_, err = ledger.Post(tx, ledger.Reverse{EntryID: "rv-9", Of: "h-9"})
		require.ErrorIs(t, err, ledger.ErrEntryNotFound)
		return nil
	}))
	snap := snapshot(t, s)
	require.Len(t, snap.Entries, 1)
	assert.Empty(t, snap.Holds)

	_, err = ledger.Post(readOnly{}, credit1000)
	require.Error(t, err)
}

// readOnly is a Tx that fails every call, to check Post surfaces store errors.
type readOnly struct{}

var errStore = errors.New("store down")

func (readOnly) Get(_, _ []byte) ([]byte, error) { return nil, errStore }
func (readOnly) Put(_, _, _ []byte) error        { return errStore }
func (readOnly) Delete(_, _ []byte) error        { return errStore }
func (readOnly) Scan(_ []byte, _ store.ScanOptions, _ func(k, v []byte) (bool, error)) error {
	return errStore
}

func TestReadHelpers(t *testing.T) {
	s := newMem(t)
	mustPost(t, s, credit1000, hold300)
	require.NoError(t, s.View(bg, func(tx store.Tx) error {
		h, err := ledger.GetHold(tx, "hold-1")
		require.NoError(t, err)
		assert.Equal(t, "hold-1 org=acme MWK/2:300.00 ref=\"payout-1\" open=true opened=h-1 closed=", renderHold(h))
		_, err = ledger.GetHold(tx, "nope")
		require.ErrorIs(t, err, ledger.ErrHoldNotFound)
		_, err = ledger.GetEntry(tx, "nope")
		require.ErrorIs(t, err, ledger.ErrEntryNotFound)
		b, err := ledger.ReadBalance(tx, "nobody", usdt)
		require.NoError(t, err)
		assert.Equal(t, "0.000000", b.Available.String())
		assert.Equal(t, "0.000000", b.Held.String())
		assert.Equal(t, usdt, b.Asset)
		// An asset configured with other decimals than stored is an error,
		// not a silently rescaled balance.
		_, err = ledger.ReadBalance(tx, org, money.Asset{Code: "MWK", Decimals: 3})
		require.Error(t, err)
		return nil
	}))
	_, err := post(s, ledger.PlaceHold{EntryID: "h-9", HoldID: "hold-9", Org: org, Amount: money.FromUnits(money.Asset{Code: "MWK", Decimals: 3}, 1)})
	require.Error(t, err)
}
