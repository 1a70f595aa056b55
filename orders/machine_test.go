package orders_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/webhooks"
)

type fixture struct {
	o   orders.Order
	now time.Time // when the matrix applies its commands
}

// fixtures builds an order in every state (and the sub-states that matter:
// coins sent, refund pending or returned, proof rejected, deadline passed).
func fixtures(t *testing.T) map[string]fixture {
	tb, fb := newOrder(t, toBankParams()), newOrder(t, fromBankParams())
	at := t0.Add(time.Minute)
	later := t0.Add(2 * time.Hour)
	proof := orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "application/pdf", Size: 1000}
	f := map[string]fixture{
		"tb accepted":        {tb, later},
		"tb processing":      {run(t, tb, at, orders.StartProcessing{}), later},
		"tb coins sent":      {run(t, tb, at, orders.StartProcessing{}, orders.CoinsSent{}), later},
		"tb completed":       {run(t, tb, at, orders.StartProcessing{}, orders.Complete{}), later},
		"tb failed":          {run(t, tb, at, orders.StartProcessing{}, orders.Fail{Code: orders.Other}), later},
		"tb refund pending":  {run(t, tb, at, orders.StartProcessing{}, orders.CoinsSent{}, orders.Fail{Code: orders.Other}), later},
		"tb refund returned": {run(t, tb, at, orders.StartProcessing{}, orders.CoinsSent{}, orders.Fail{Code: orders.Other}, orders.ReturnRefund{}), later},
		"tb cancelled":       {run(t, tb, at, orders.Cancel{}), later},

		"fb awaiting instructions": {fb, later},
		"fb awaiting funds":        {run(t, fb, at, instr), later},
		"fb overdue":               {run(t, fb, at, instr), t0.Add(orders.DefaultFundingWindow + time.Hour)},
		"fb proof submitted":       {run(t, fb, at, instr, proof), later},
		"fb proof rejected":        {run(t, fb, at, instr, proof, orders.RejectProof{ProofID: "p1", Reason: "blurry"}), later},
		"fb rejected overdue":      {run(t, fb, at, instr, proof, orders.RejectProof{ProofID: "p1", Reason: "blurry"}), t0.Add(orders.DefaultFundingWindow + time.Hour)},
		"fb funds confirmed":       {run(t, fb, at, instr, proof, orders.ConfirmFunds{ProofID: "p1"}), later},
		"fb completed":             {run(t, fb, at, instr, proof, orders.ConfirmFunds{ProofID: "p1"}, orders.Complete{}), later},
		"fb failed":                {run(t, fb, at, instr, orders.Fail{Code: orders.Other}), later},
		"fb cancelled":             {run(t, fb, at, orders.Cancel{}), later},
	}
	exp := run(t, fb, at, instr)
	exp, _, err := orders.Apply(exp, orders.Expire{}, t0.Add(orders.DefaultFundingWindow+time.Hour))
	require.NoError(t, err)
	f["fb expired"] = fixture{exp, later}
	return f
}

// commands is one of every move, with the data the fixtures were built
// with (so that a move already made is a repeat).
var commands = map[string]orders.Command{
	"processing":                orders.StartProcessing{},
	"coins-sent":                orders.CoinsSent{},
	"complete":                  orders.Complete{},
	"fail unable_to_fill":       orders.Fail{Code: orders.UnableToFill},
	"fail beneficiary_rejected": orders.Fail{Code: orders.BeneficiaryRejected},
	"fail not_delivered":        orders.Fail{Code: orders.NotDelivered},
	"fail funds_not_received":   orders.Fail{Code: orders.FundsNotReceived},
	"fail other":                orders.Fail{Code: orders.Other},
	"fail bogus":                orders.Fail{Code: "bogus"},
	"cancel":                    orders.Cancel{},
	"refund-returned":           orders.ReturnRefund{},
	"instructions":              instr,
	"proof":                     orders.ProofUploaded{ID: "p2", SHA256: sha2hex, ContentType: "image/png", Size: 10},
	"reject-proof":              orders.RejectProof{ProofID: "p1", Reason: "blurry"},
	"confirm-funds":             orders.ConfirmFunds{ProofID: "p1"},
	"expire":                    orders.Expire{},
}

// outcome is what a (fixture, command) pair must give: an error code, a
// repeat, or a move to status with postings (kind:step) and events.
type outcome struct {
	code     errcode.Code
	repeat   bool
	status   orders.Status
	postings []string
	events   []string
}

var repeat = outcome{repeat: true}

func moved(s orders.Status, postings []string, events ...string) outcome {
	return outcome{status: s, postings: postings, events: events}
}

func ps(p ...string) []string { return p }

// allowed lists every pair that is not an error; every other pair must be
// the default error: 400 for a fail code outside the direction's list,
// proof_not_expected for an upload, conflict for the rest.
var allowed = map[string]map[string]outcome{
	"tb accepted": {
		"processing":          moved(orders.Processing, nil, orders.EventProcessing),
		"fail unable_to_fill": moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"fail other":          moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"cancel":              moved(orders.Cancelled, ps("release:release"), orders.EventCancelled),
	},
	"tb processing": {
		"processing":                repeat,
		"coins-sent":                moved(orders.Processing, ps("capture:capture")),
		"complete":                  moved(orders.Completed, ps("capture:capture"), orders.EventCompleted),
		"fail unable_to_fill":       moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"fail beneficiary_rejected": moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"fail not_delivered":        moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"fail other":                moved(orders.Failed, ps("release:release"), orders.EventFailed),
		"cancel":                    moved(orders.Cancelled, ps("release:release"), orders.EventCancelled),
	},
	"tb coins sent": {
		"processing":                repeat,
		"coins-sent":                repeat,
		"complete":                  moved(orders.Completed, nil, orders.EventCompleted),
		"fail unable_to_fill":       moved(orders.Failed, nil, orders.EventFailed),
		"fail beneficiary_rejected": moved(orders.Failed, nil, orders.EventFailed),
		"fail not_delivered":        moved(orders.Failed, nil, orders.EventFailed),
		"fail other":                moved(orders.Failed, nil, orders.EventFailed),
	},
	"tb completed":       {"complete": repeat},
	"tb failed":          {"fail other": repeat},
	"tb refund pending":  {"fail other": repeat, "refund-returned": moved(orders.Failed, ps("credit:refund"), orders.EventRefundReturned)},
	"tb refund returned": {"fail other": repeat, "refund-returned": repeat},
	"tb cancelled":       {"cancel": repeat},

	"fb awaiting instructions": {
		"instructions":        moved(orders.AwaitingFunds, nil, orders.EventAwaitingFunds),
		"fail unable_to_fill": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":          moved(orders.Failed, nil, orders.EventFailed),
		"cancel":              moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb awaiting funds": {
		"instructions":            repeat,
		"proof":                   moved(orders.ProofSubmitted, nil),
		"fail funds_not_received": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":              moved(orders.Failed, nil, orders.EventFailed),
		"cancel":                  moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb overdue": {
		"instructions":            repeat,
		"fail funds_not_received": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":              moved(orders.Failed, nil, orders.EventFailed),
		"cancel":                  moved(orders.Cancelled, nil, orders.EventCancelled),
		"expire":                  moved(orders.Expired, nil, orders.EventExpired),
	},
	"fb proof submitted": {
		"reject-proof":            moved(orders.AwaitingFunds, nil, orders.EventAwaitingFunds),
		"confirm-funds":           moved(orders.FundsConfirmed, nil, orders.EventFundsConfirmed),
		"fail funds_not_received": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":              moved(orders.Failed, nil, orders.EventFailed),
		"cancel":                  moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb proof rejected": {
		"instructions":            repeat,
		"proof":                   moved(orders.ProofSubmitted, nil),
		"reject-proof":            repeat,
		"fail funds_not_received": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":              moved(orders.Failed, nil, orders.EventFailed),
		"cancel":                  moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb rejected overdue": {
		"instructions":            repeat,
		"proof":                   moved(orders.ProofSubmitted, nil), // a rejected order takes a new proof past the deadline
		"reject-proof":            repeat,
		"fail funds_not_received": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":              moved(orders.Failed, nil, orders.EventFailed),
		"cancel":                  moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb funds confirmed": {
		"confirm-funds":       repeat,
		"complete":            moved(orders.Completed, ps("credit:credit"), orders.EventCompleted),
		"fail unable_to_fill": moved(orders.Failed, nil, orders.EventFailed),
		"fail other":          moved(orders.Failed, nil, orders.EventFailed),
		"cancel":              moved(orders.Cancelled, nil, orders.EventCancelled),
	},
	"fb completed": {"complete": repeat},
	"fb failed":    {"fail other": repeat},
	"fb cancelled": {"cancel": repeat},
	"fb expired":   {"expire": repeat},
}

func defaultOutcome(o orders.Order, cmd orders.Command) outcome {
	switch c := cmd.(type) {
	case orders.Fail:
		valid := false
		for _, code := range orders.FailureCodes(o.Direction) {
			valid = valid || code == c.Code
		}
		if !valid {
			return outcome{code: errcode.ValidationError}
		}
	case orders.ProofUploaded:
		return outcome{code: errcode.ProofNotExpected}
	}
	return outcome{code: errcode.Conflict}
}

func TestTransitionMatrix(t *testing.T) {
	fx := fixtures(t)
	require.Len(t, fx, len(allowed), "every fixture has a row")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for fname, f := range fx {
		row, ok := allowed[fname]
		require.True(t, ok, fname)
		for n := range row {
			require.Contains(t, commands, n, "row %s names an unknown command", fname)
		}
		for _, cname := range names {
			cmd := commands[cname]
			t.Run(fname+"/"+cname, func(t *testing.T) {
				want, ok := row[cname]
				if !ok {
					want = defaultOutcome(f.o, cmd)
				}
				before := codec.EncodeOrder(f.o)
				got, eff, err := orders.Apply(f.o, cmd, f.now)
				require.Equal(t, string(before), string(codec.EncodeOrder(f.o)), "Apply changed its input")
				if want.code != "" || want.repeat {
					if want.code != "" {
						require.Error(t, err)
						assert.Equal(t, want.code, errcode.Of(err), "%v", err)
						assert.NotEmpty(t, errcode.Message(err))
					} else {
						require.NoError(t, err)
					}
					assert.Equal(t, f.o, got, "order changed")
					assert.Equal(t, orders.Effects{}, eff, "effects on a refusal or repeat")
					return
				}
				require.NoError(t, err)
				require.True(t, eff.Changed)
				assert.Equal(t, want.status, got.Status)
				var posts []string
				for _, p := range eff.Postings {
					posts = append(posts, string(p.Kind)+":"+strings.TrimPrefix(p.EntryID, "order:"+f.o.ID+":"))
				}
				assert.Equal(t, want.postings, posts)
				var events []string
				for _, e := range eff.Events {
					events = append(events, e.Type)
				}
				assert.Equal(t, want.events, events)
				assert.Equal(t, cname == "refund-returned", eff.Collection != nil)
				if want.status != f.o.Status || cname == "refund-returned" || cname == "proof" {
					assert.Equal(t, f.now, got.UpdatedAt, "updated_at on a status, proof or refund change")
				} else {
					assert.Equal(t, f.o.UpdatedAt, got.UpdatedAt, "updated_at without a status, proof or refund change")
				}
				checkRendered(t, got, render.Order(got))
			})
		}
	}
}

func TestPostings(t *testing.T) {
	p := toBankParams()
	o, posts, err := orders.New(p, t0)
	require.NoError(t, err)
	id := p.ID
	require.Equal(t, []orders.Posting{{Kind: orders.KindPlaceHold, EntryID: "order:" + id + ":hold", HoldID: "order:" + id,
		Org: "org-1", Amount: p.From, Ref: id}}, posts)

	capture := orders.Posting{Kind: orders.KindCaptureHold, EntryID: "order:" + id + ":capture", HoldID: "order:" + id,
		Amount: p.From, System: orders.Desk, Ref: id}
	release := orders.Posting{Kind: orders.KindReleaseHold, EntryID: "order:" + id + ":release", HoldID: "order:" + id, Ref: id}

	proc := run(t, o, t0, orders.StartProcessing{})
	_, eff, err := orders.Apply(proc, orders.Complete{}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []orders.Posting{capture}, eff.Postings)

	_, eff, err = orders.Apply(proc, orders.CoinsSent{}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []orders.Posting{capture}, eff.Postings)

	_, eff, err = orders.Apply(o, orders.Cancel{}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []orders.Posting{release}, eff.Postings)

	failed := run(t, proc, t0, orders.CoinsSent{}, orders.Fail{Code: orders.NotDelivered})
	require.Equal(t, &orders.Refund{Status: orders.RefundPending}, failed.Refund)
	back, eff, err := orders.Apply(failed, orders.ReturnRefund{}, t0.Add(time.Hour))
	require.NoError(t, err)
	refund := orders.Posting{Kind: orders.KindCredit, EntryID: "order:" + id + ":refund", Org: "org-1", Amount: p.From,
		System: orders.Desk, Ref: id}
	assert.Equal(t, []orders.Posting{refund}, eff.Postings)
	assert.Equal(t, &orders.RefundCollection{OrderID: id, Org: "org-1", EntryID: refund.EntryID, Amount: p.From}, eff.Collection)
	assert.Equal(t, orders.RefundReturned, back.Refund.Status)
	assert.Equal(t, orders.Failed, back.Status)
	assert.Equal(t, orders.NotDelivered, back.Failure.Code)

	fp := fromBankParams()
	fb := run(t, newOrder(t, fp), t0, instr,
		orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "image/jpeg", Size: 3},
		orders.ConfirmFunds{ProofID: "p1"})
	_, eff, err = orders.Apply(fb, orders.Complete{}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []orders.Posting{{Kind: orders.KindCredit, EntryID: "order:" + fp.ID + ":credit", Org: "org-1",
		Amount: fp.To, System: orders.Desk, Ref: fp.ID}}, eff.Postings)
	assert.Nil(t, eff.Collection)
}

func TestFailureCodesPerDirection(t *testing.T) {
	assert.Equal(t, []orders.FailureCode{orders.UnableToFill, orders.BeneficiaryRejected, orders.NotDelivered, orders.Other},
		orders.FailureCodes(orders.ToBank))
	assert.Equal(t, []orders.FailureCode{orders.UnableToFill, orders.FundsNotReceived, orders.Other},
		orders.FailureCodes(orders.FromBank))

	tb := run(t, newOrder(t, toBankParams()), t0, orders.StartProcessing{})
	_, _, err := orders.Apply(tb, orders.Fail{Code: orders.FundsNotReceived}, t0)
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "unable_to_fill, beneficiary_rejected, not_delivered, other")

	fb := run(t, newOrder(t, fromBankParams()), t0, instr)
	for _, c := range []orders.FailureCode{orders.BeneficiaryRejected, orders.NotDelivered, "", "OTHER"} {
		_, _, err := orders.Apply(fb, orders.Fail{Code: c}, t0)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), c)
	}
	// Known to the direction, not to the state: funds were confirmed, so
	// never funds_not_received.
	conf := run(t, fb, t0, orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "image/png", Size: 1},
		orders.ConfirmFunds{ProofID: "p1"})
	_, _, err = orders.Apply(conf, orders.Fail{Code: orders.FundsNotReceived}, t0)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "unable_to_fill, other")

	// A failed order failed again with another code is a conflict, not a repeat.
	failed := run(t, tb, t0, orders.Fail{Code: orders.NotDelivered})
	_, _, err = orders.Apply(failed, orders.Fail{Code: orders.Other}, t0)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.Equal(t, orders.Failure{Code: orders.NotDelivered, Message: "The payment could not be delivered."}, *failed.Failure)
}

func TestFailureMessages(t *testing.T) {
	want := map[orders.FailureCode]string{
		orders.UnableToFill:        "The desk could not fill the order.",
		orders.BeneficiaryRejected: "The beneficiary's bank rejected the payment.",
		orders.FundsNotReceived:    "The desk did not receive the funds.",
		orders.NotDelivered:        "The payment could not be delivered.",
		orders.Other:               "The order failed.",
	}
	for c, m := range want {
		got, ok := orders.FailureMessage(c)
		assert.True(t, ok)
		assert.Equal(t, m, got)
	}
	_, ok := orders.FailureMessage("declined")
	assert.False(t, ok)
}

func TestCancelAfterCoinsSent(t *testing.T) {
	o := run(t, newOrder(t, toBankParams()), t0, orders.StartProcessing{}, orders.CoinsSent{})
	got, eff, err := orders.Apply(o, orders.Cancel{}, t0.Add(time.Hour))
	require.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.Contains(t, errcode.Message(err), "Use fail")
	assert.Equal(t, o, got)
	assert.Empty(t, eff.Postings)
}

func TestCoinsSentKeepsTheRendering(t *testing.T) {
	o := run(t, newOrder(t, toBankParams()), t0, orders.StartProcessing{})
	sent, eff, err := orders.Apply(o, orders.CoinsSent{}, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, eff.Changed)
	assert.Empty(t, eff.Events)
	require.NotNil(t, sent.CoinsLeftAt)
	assert.Equal(t, t0.Add(time.Hour), *sent.CoinsLeftAt)
	assert.Equal(t, string(render.Order(o)), string(render.Order(sent)))
	assert.NotEqual(t, string(codec.EncodeOrder(o)), string(codec.EncodeOrder(sent)))
}

func TestStaleProofIDs(t *testing.T) {
	fb := run(t, newOrder(t, fromBankParams()), t0, instr)
	p1 := orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "application/pdf", Size: 5}
	p2 := orders.ProofUploaded{ID: "p2", SHA256: sha2hex, ContentType: "application/pdf", Size: 6}

	// No proof at all.
	for _, c := range []orders.Command{orders.RejectProof{ProofID: "p1", Reason: "x"}, orders.ConfirmFunds{ProofID: "p1"}} {
		_, _, err := orders.Apply(fb, c, t0)
		assert.Equal(t, errcode.Conflict, errcode.Of(err), c.Name())
	}

	// p1 rejected, p2 uploaded: the desk's stale retry on p1 never acts.
	o := run(t, fb, t0, p1, orders.RejectProof{ProofID: "p1", Reason: "wrong amount"}, p2)
	require.Equal(t, orders.ProofSubmitted, o.Status)
	for _, c := range []orders.Command{
		orders.RejectProof{ProofID: "p1", Reason: "wrong amount"},
		orders.RejectProof{ProofID: "p1", Reason: "other"},
		orders.ConfirmFunds{ProofID: "p1"},
		orders.ConfirmFunds{ProofID: "nope"},
	} {
		got, eff, err := orders.Apply(o, c, t0.Add(time.Hour))
		assert.Equal(t, errcode.Conflict, errcode.Of(err), "%s %+v", c.Name(), c)
		assert.Contains(t, errcode.Message(err), "not the order's newest proof")
		assert.Equal(t, o, got)
		assert.False(t, eff.Changed)
	}
	// The newest one works, and a stale id stays refused after the move.
	conf := run(t, o, t0.Add(time.Hour), orders.ConfirmFunds{ProofID: "p2"})
	_, _, err := orders.Apply(conf, orders.ConfirmFunds{ProofID: "p1"}, t0.Add(2*time.Hour))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	_, eff, err := orders.Apply(conf, orders.ConfirmFunds{ProofID: "p2"}, t0.Add(2*time.Hour))
	assert.NoError(t, err)
	assert.False(t, eff.Changed)

	// A repeat rejection with another reason is a conflict.
	rej := run(t, fb, t0, p1, orders.RejectProof{ProofID: "p1", Reason: "blurry"})
	_, _, err = orders.Apply(rej, orders.RejectProof{ProofID: "p1", Reason: "dark"}, t0)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))

	// Bad data is 400 before anything else.
	for _, c := range []orders.Command{
		orders.RejectProof{ProofID: "", Reason: "x"},
		orders.RejectProof{ProofID: "p1", Reason: ""},
		orders.RejectProof{ProofID: "p1", Reason: strings.Repeat("é", 501)},
		orders.RejectProof{ProofID: "p1", Reason: "a\nb"},
		orders.RejectProof{ProofID: "p1", Reason: "wrong \u202Etnuoma"},
		orders.RejectProof{ProofID: "p1", Reason: "blurry\u200B"},
		orders.ConfirmFunds{},
	} {
		_, _, err := orders.Apply(o, c, t0)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "%+v", c)
	}
	_, eff, err = orders.Apply(run(t, fb, t0, p1), orders.RejectProof{ProofID: "p1", Reason: strings.Repeat("é", 500)}, t0)
	assert.NoError(t, err)
	assert.True(t, eff.Changed)
}

func TestProofUpload(t *testing.T) {
	fb := run(t, newOrder(t, fromBankParams()), t0, instr)
	deadline, ok := fb.ExpiresAt()
	require.True(t, ok)
	require.Equal(t, t0.Add(orders.DefaultFundingWindow), deadline)
	p1 := orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "application/pdf", Size: 5}

	sub, eff, err := orders.Apply(fb, p1, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, eff.Changed)
	assert.Empty(t, eff.Events, "no event on the caller's own upload")
	assert.Empty(t, eff.Postings)
	assert.Equal(t, &orders.Proof{ID: "p1", SHA256: sha1hex, ContentType: "application/pdf", Size: 5, UploadedAt: t0.Add(time.Hour)}, sub.Proof)

	// The same bytes again while proof_submitted: unchanged, success.
	again, eff, err := orders.Apply(sub, orders.ProofUploaded{ID: "p9", SHA256: sha1hex, ContentType: "application/pdf", Size: 5}, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.False(t, eff.Changed)
	assert.Equal(t, sub, again)
	// Other bytes: 409.
	_, _, err = orders.Apply(sub, orders.ProofUploaded{ID: "p9", SHA256: sha2hex, ContentType: "application/pdf", Size: 5}, t0)
	assert.Equal(t, errcode.ProofNotExpected, errcode.Of(err))

	// A new upload after a rejection clears rejected_reason, even with the same bytes.
	rej := run(t, sub, t0.Add(3*time.Hour), orders.RejectProof{ProofID: "p1", Reason: "blurry"})
	require.Equal(t, "blurry", *rej.Proof.RejectedReason)
	re, _, err := orders.Apply(rej, orders.ProofUploaded{ID: "p2", SHA256: sha1hex, ContentType: "application/pdf", Size: 5}, t0.Add(4*time.Hour))
	require.NoError(t, err)
	assert.Nil(t, re.Proof.RejectedReason)
	assert.Equal(t, "p2", re.Proof.ID)
	assert.Equal(t, t0.Add(4*time.Hour), re.UpdatedAt)
	require.Equal(t, "blurry", *rej.Proof.RejectedReason, "the input kept its proof")

	// Deadline: an order that never had a proof takes none after it.
	_, _, err = orders.Apply(fb, p1, deadline)
	assert.NoError(t, err, "exactly at the deadline")
	_, _, err = orders.Apply(fb, p1, deadline.Add(time.Millisecond))
	assert.Equal(t, errcode.ProofNotExpected, errcode.Of(err))
	p1.Deadline = deadline.Add(time.Hour) // a deadline that fell inside a pause, honoured for the grace
	_, _, err = orders.Apply(fb, p1, deadline.Add(time.Hour))
	assert.NoError(t, err)
	_, _, err = orders.Apply(fb, p1, deadline.Add(time.Hour+time.Millisecond))
	assert.Equal(t, errcode.ProofNotExpected, errcode.Of(err))
	p1.Deadline = deadline.Add(-time.Hour) // an earlier one never shortens expires_at
	_, _, err = orders.Apply(fb, p1, deadline)
	assert.NoError(t, err)
	p1.Deadline = time.Time{}

	// To-bank orders and other states.
	tb := newOrder(t, toBankParams())
	_, _, err = orders.Apply(tb, p1, t0)
	assert.Equal(t, errcode.ProofNotExpected, errcode.Of(err))
	_, _, err = orders.Apply(newOrder(t, fromBankParams()), p1, t0)
	assert.Equal(t, errcode.ProofNotExpected, errcode.Of(err))

	// Bad uploads.
	_, _, err = orders.Apply(fb, orders.ProofUploaded{ID: "p", SHA256: sha1hex, ContentType: "image/gif", Size: 5}, t0)
	assert.Equal(t, errcode.UnsupportedMediaType, errcode.Of(err))
	_, _, err = orders.Apply(fb, orders.ProofUploaded{ID: "p", SHA256: sha1hex, ContentType: "image/png", Size: 0}, t0)
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, _, err = orders.Apply(fb, orders.ProofUploaded{ID: "p", SHA256: "ABC", ContentType: "image/png", Size: 1}, t0)
	assert.Equal(t, errcode.InternalError, errcode.Of(err), "a bad hash is the engine's bug")
}

func TestExpiryBoundary(t *testing.T) {
	fb := run(t, newOrder(t, fromBankParams()), t0, instr)
	exp, _ := fb.ExpiresAt()
	cases := []struct {
		now       time.Time
		effective time.Time
		due       bool
	}{
		{exp.Add(-time.Millisecond), time.Time{}, false},
		{exp, time.Time{}, false},
		{exp.Add(999 * time.Microsecond), time.Time{}, false}, // millisecond precision
		{exp.Add(time.Millisecond), time.Time{}, true},
		{exp.Add(time.Millisecond), exp.Add(time.Hour), false}, // pause plus grace
		{exp.Add(time.Hour), exp.Add(time.Hour), false},
		{exp.Add(time.Hour + time.Millisecond), exp.Add(time.Hour), true},
		{exp.Add(time.Millisecond), exp.Add(-time.Hour), true}, // an earlier one is ignored
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s", c.now.Sub(exp), c.effective)
		assert.Equal(t, c.due, orders.ExpiryDue(fb, c.now, c.effective), name)
		got, eff, err := orders.Apply(fb, orders.Expire{Deadline: c.effective}, c.now)
		if c.due {
			require.NoError(t, err, name)
			assert.Equal(t, orders.Expired, got.Status)
			assert.Equal(t, clockMS(c.now), got.UpdatedAt)
			require.Len(t, eff.Events, 1)
			assert.Equal(t, orders.EventExpired, eff.Events[0].Type)
			exp2, _ := got.ExpiresAt()
			assert.Equal(t, exp, exp2, "expires_at never moves")
		} else {
			assert.Equal(t, errcode.Conflict, errcode.Of(err), name)
			assert.Equal(t, fb, got)
		}
	}
	// Never expires once it had a proof, or outside awaiting_funds.
	rej := run(t, fb, t0, orders.ProofUploaded{ID: "p1", SHA256: sha1hex, ContentType: "image/png", Size: 1},
		orders.RejectProof{ProofID: "p1", Reason: "x"})
	assert.False(t, orders.ExpiryDue(rej, exp.Add(24*time.Hour), time.Time{}))
	_, _, err := orders.Apply(rej, orders.Expire{}, exp.Add(24*time.Hour))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.False(t, orders.ExpiryDue(newOrder(t, fromBankParams()), exp.Add(24*time.Hour), time.Time{}))
	assert.False(t, orders.ExpiryDue(newOrder(t, toBankParams()), exp.Add(24*time.Hour), time.Time{}))
}

func clockMS(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func TestInstructions(t *testing.T) {
	fb := newOrder(t, fromBankParams())
	now := t0.Add(time.Hour)
	long := strings.Repeat("ŵ", 201)
	bad := []orders.Instructions{
		{AccountName: "a", AccountNumber: "1"},
		{BankName: "b", AccountNumber: "1"},
		{BankName: "b", AccountName: "a"},
		{BankName: long, AccountName: "a", AccountNumber: "1"},
		{BankName: "b", AccountName: long, AccountNumber: "1"},
		{BankName: "b", AccountName: "a", AccountNumber: long},
		{BankName: "b\t", AccountName: "a", AccountNumber: "1"},
		{BankName: "b", AccountName: "a\xff", AccountNumber: "1"},
		{BankName: "b\u202E", AccountName: "a", AccountNumber: "1"},
		{BankName: "b", AccountName: "Tambala\u2068 Desk", AccountNumber: "1"},
		{BankName: "b", AccountName: "a", AccountNumber: "9100\uFEFF000123"},
		{BankName: "b", AccountName: "a", AccountNumber: "9100\u00AD000123"},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Reference: "abc123"},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Reference: "ABC12"},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Reference: "ABCDEFGHIJ123456789"},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Reference: "ABC-123"},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Deadline: ptime(now.Add(time.Hour))},
		{BankName: "b", AccountName: "a", AccountNumber: "1", Deadline: ptime(now.Add(-time.Hour))},
	}
	for i, c := range bad {
		got, _, err := orders.Apply(fb, c, now)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "case %d: %v", i, err)
		assert.Equal(t, fb, got)
	}
	edge := strings.Repeat("ŵ", 200)
	good := orders.Instructions{BankName: edge, AccountName: " a ", AccountNumber: edge, Reference: "ABCDEF",
		Deadline: ptime(now.Add(time.Hour + time.Millisecond))}
	o, eff, err := orders.Apply(fb, good, now)
	require.NoError(t, err)
	assert.Equal(t, &orders.Funding{BankName: edge, AccountName: " a ", AccountNumber: edge, Reference: "ABCDEF",
		Amount: fb.From, Deadline: now.Add(time.Hour + time.Millisecond)}, o.Funding)
	assert.Equal(t, orders.AwaitingFunds, o.Status)
	require.Len(t, eff.Events, 1)
	assert.Equal(t, orders.EventAwaitingFunds, eff.Events[0].Type)
	assert.Equal(t, webhooks.OrderAwaitingFunds, eff.Events[0].Type)

	// Repeats: the same data, or without the optional fields.
	for _, c := range []orders.Instructions{good, {BankName: edge, AccountName: " a ", AccountNumber: edge}} {
		got, eff, err := orders.Apply(o, c, now.Add(2*time.Hour))
		assert.NoError(t, err)
		assert.False(t, eff.Changed)
		assert.Equal(t, o, got)
	}
	// Other data: the funding never changes.
	for _, c := range []orders.Instructions{
		{BankName: "other", AccountName: " a ", AccountNumber: edge},
		{BankName: edge, AccountName: "a", AccountNumber: edge},
		{BankName: edge, AccountName: " a ", AccountNumber: edge, Reference: "ABCDEG"},
		{BankName: edge, AccountName: " a ", AccountNumber: edge, Deadline: ptime(now.Add(5 * time.Hour))},
	} {
		_, _, err := orders.Apply(o, c, now)
		assert.Equal(t, errcode.Conflict, errcode.Of(err))
		assert.Contains(t, errcode.Message(err), "never change")
	}

	// Defaults: the window and a generated reference from the random bytes.
	gen := orders.Instructions{BankName: "b", AccountName: "a", AccountNumber: "1", Random: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}}
	o, _, err = orders.Apply(fb, gen, now.Add(123456789*time.Nanosecond))
	require.NoError(t, err)
	assert.Equal(t, orders.GenerateReference(gen.Random), o.Funding.Reference)
	assert.True(t, orders.ValidReference(o.Funding.Reference))
	assert.Equal(t, now.Add(123*time.Millisecond+orders.DefaultFundingWindow), o.Funding.Deadline)
	gen.Window = 24 * time.Hour
	o, _, err = orders.Apply(fb, gen, now)
	require.NoError(t, err)
	assert.Equal(t, now.Add(24*time.Hour), o.Funding.Deadline)

	// Wrong direction or state.
	_, _, err = orders.Apply(newOrder(t, toBankParams()), instr, now)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	_, _, err = orders.Apply(run(t, fb, now, orders.Cancel{}), instr, now)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
}

func ptime(t time.Time) *time.Time { return &t }

func TestGenerateReference(t *testing.T) {
	assert.Equal(t, "TMB0000000000", orders.GenerateReference([8]byte{}))
	assert.Equal(t, "TMBZZZZZZZZZZ", orders.GenerateReference([8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}))
	// 50 bits: the first six bytes and the top two bits of the seventh.
	assert.Equal(t, "TMB0000000001", orders.GenerateReference([8]byte{0, 0, 0, 0, 0, 0, 0x40, 0xff}))
	assert.Equal(t, "TMB0000000000", orders.GenerateReference([8]byte{0, 0, 0, 0, 0, 0, 0x3f, 0xff}))
	seen := map[string]bool{}
	for i := range 1000 {
		r := orders.GenerateReference([8]byte{byte(i), byte(i >> 8), 7, 9, byte(i * 31), 0, 0, 0})
		require.Regexp(t, `^TMB[0-9A-HJKMNP-TV-Z]{10}$`, r)
		require.True(t, orders.ValidReference(r))
		require.False(t, seen[r])
		seen[r] = true
	}
}

func TestUpdatedAt(t *testing.T) {
	o := newOrder(t, toBankParams())
	require.Equal(t, t0, o.CreatedAt)
	require.Equal(t, t0, o.UpdatedAt)
	p, _, err := orders.Apply(o, orders.StartProcessing{}, t0.Add(time.Hour+1500*time.Microsecond))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour+time.Millisecond), p.UpdatedAt, "truncated to the millisecond")
	// A clock that steps back never moves updated_at backwards.
	f, _, err := orders.Apply(p, orders.Fail{Code: orders.Other}, t0)
	require.NoError(t, err)
	assert.Equal(t, p.UpdatedAt, f.UpdatedAt)
	// Times are kept in UTC whatever zone now is in.
	loc := time.FixedZone("CAT", 2*3600)
	c, _, err := orders.Apply(o, orders.Cancel{}, t0.Add(2*time.Hour).In(loc))
	require.NoError(t, err)
	assert.Equal(t, time.UTC, c.UpdatedAt.Location())
	assert.Equal(t, t0.Add(2*time.Hour), c.UpdatedAt)
}

func TestApplyNilCommand(t *testing.T) {
	o := newOrder(t, toBankParams())
	got, eff, err := orders.Apply(o, nil, t0)
	assert.Error(t, err)
	assert.Equal(t, o, got)
	assert.False(t, eff.Changed)
}

func TestStatuses(t *testing.T) {
	for _, s := range orders.Statuses {
		got, err := orders.ParseStatus(string(s))
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := orders.ParseStatus("ACCEPTED")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	var terminal []orders.Status
	for _, s := range orders.Statuses {
		if s.Terminal() {
			terminal = append(terminal, s)
		}
	}
	assert.Equal(t, []orders.Status{orders.Expired, orders.Completed, orders.Failed, orders.Cancelled}, terminal)
	assert.Len(t, orders.EventTypes, 8)
	_ = money.USDT
}
