package orders_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// edges is every status change the state machines may make; anything
// else is a bug.
var edges = map[orders.Direction]map[[2]orders.Status]bool{
	orders.ToBank: {
		{orders.Accepted, orders.Processing}:   true,
		{orders.Accepted, orders.Failed}:       true,
		{orders.Accepted, orders.Cancelled}:    true,
		{orders.Processing, orders.Completed}:  true,
		{orders.Processing, orders.Failed}:     true,
		{orders.Processing, orders.Cancelled}:  true,
		{orders.Processing, orders.Processing}: true, // coins-sent
		{orders.Failed, orders.Failed}:         true, // refund returned
	},
	orders.FromBank: {
		{orders.AwaitingInstructions, orders.AwaitingFunds}: true,
		{orders.AwaitingInstructions, orders.Failed}:        true,
		{orders.AwaitingInstructions, orders.Cancelled}:     true,
		{orders.AwaitingFunds, orders.ProofSubmitted}:       true,
		{orders.AwaitingFunds, orders.Expired}:              true,
		{orders.AwaitingFunds, orders.Failed}:               true,
		{orders.AwaitingFunds, orders.Cancelled}:            true,
		{orders.ProofSubmitted, orders.AwaitingFunds}:       true,
		{orders.ProofSubmitted, orders.FundsConfirmed}:      true,
		{orders.ProofSubmitted, orders.Failed}:              true,
		{orders.ProofSubmitted, orders.Cancelled}:           true,
		{orders.FundsConfirmed, orders.Completed}:           true,
		{orders.FundsConfirmed, orders.Failed}:              true,
		{orders.FundsConfirmed, orders.Cancelled}:           true,
	},
}

// book is a small model of the ledger the postings go to.
type book struct {
	entries       map[string]bool
	holdOpen      bool
	holdPlaced    bool
	captured      bool
	released      bool
	refundCredits int
	fbCredits     int
}

func (b *book) post(t *rapid.T, o orders.Order, p orders.Posting) {
	if b.entries[p.EntryID] {
		t.Fatalf("entry %s posted twice", p.EntryID)
	}
	b.entries[p.EntryID] = true
	if p.Ref != o.ID || !strings.HasPrefix(p.EntryID, "order:"+o.ID+":") {
		t.Fatalf("posting %+v not of order %s", p, o.ID)
	}
	switch p.Kind {
	case orders.KindPlaceHold:
		if b.holdPlaced || o.Direction != orders.ToBank || !p.Amount.Equal(o.From) {
			t.Fatalf("bad hold %+v", p)
		}
		b.holdPlaced, b.holdOpen = true, true
	case orders.KindCaptureHold, orders.KindReleaseHold:
		if !b.holdOpen || p.HoldID != "order:"+o.ID {
			t.Fatalf("%s of a hold that is not open: %+v", p.Kind, p)
		}
		b.holdOpen = false
		if p.Kind == orders.KindCaptureHold {
			if !p.Amount.Equal(o.From) || p.System != orders.Desk {
				t.Fatalf("bad capture %+v", p)
			}
			b.captured = true
		} else {
			b.released = true
		}
	case orders.KindCredit:
		if p.System != orders.Desk || p.Org != o.Org {
			t.Fatalf("bad credit %+v", p)
		}
		switch o.Direction {
		case orders.ToBank:
			if !b.captured || !p.Amount.Equal(o.From) || p.EntryID != "order:"+o.ID+":refund" {
				t.Fatalf("refund credit without a capture or of the wrong amount: %+v", p)
			}
			b.refundCredits++
		case orders.FromBank:
			if !p.Amount.Equal(o.To) || p.EntryID != "order:"+o.ID+":credit" {
				t.Fatalf("bad from-bank credit %+v", p)
			}
			b.fbCredits++
		}
	default:
		t.Fatalf("unknown posting %+v", p)
	}
}

func (b *book) check(t *rapid.T, o orders.Order) {
	if b.refundCredits > 1 || b.fbCredits > 1 {
		t.Fatalf("credited more than once: %+v", b)
	}
	switch o.Direction {
	case orders.ToBank:
		if !b.holdPlaced {
			t.Fatal("to-bank order without a hold")
		}
		if o.Status.Terminal() && b.holdOpen {
			t.Fatalf("terminal order %s with an open hold", o.Status)
		}
		if !o.Status.Terminal() && b.holdOpen != (o.CoinsLeftAt == nil) {
			t.Fatalf("%s order: hold open %v, coins left %v", o.Status, b.holdOpen, o.CoinsLeftAt != nil)
		}
		switch o.Status {
		case orders.Completed:
			if !b.captured {
				t.Fatal("completed without a capture")
			}
		case orders.Cancelled:
			if !b.released {
				t.Fatal("cancelled without a release")
			}
		case orders.Failed:
			// Failed after the coins left: captured and a refund; before:
			// released and none.
			if b.captured != (o.Refund != nil) || b.released == b.captured {
				t.Fatalf("failed: captured %v released %v refund %v", b.captured, b.released, o.Refund)
			}
		}
		returned := o.Refund != nil && o.Refund.Status == orders.RefundReturned
		if returned != (b.refundCredits == 1) {
			t.Fatalf("refund %v with %d credits", o.Refund, b.refundCredits)
		}
	case orders.FromBank:
		if b.holdPlaced || b.captured || b.released || b.refundCredits > 0 {
			t.Fatalf("from-bank order touched a hold: %+v", b)
		}
		if (o.Status == orders.Completed) != (b.fbCredits == 1) {
			t.Fatalf("from-bank %s with %d credits", o.Status, b.fbCredits)
		}
	}
}

var shas = []string{sha1hex, sha2hex, strings.Repeat("3", 64)}

func genCommand(t *rapid.T, o orders.Order, proofs []string, next int) orders.Command {
	proofID := func() string {
		if len(proofs) > 0 && rapid.Bool().Draw(t, "known proof") {
			return rapid.SampledFrom(proofs).Draw(t, "proof id")
		}
		return rapid.SampledFrom([]string{"", "p-unknown"}).Draw(t, "odd proof id")
	}
	switch rapid.IntRange(0, 10).Draw(t, "kind") {
	case 0:
		return orders.StartProcessing{}
	case 1:
		return orders.CoinsSent{}
	case 2:
		return orders.Complete{}
	case 3:
		return orders.Fail{Code: rapid.SampledFrom([]orders.FailureCode{orders.UnableToFill, orders.BeneficiaryRejected,
			orders.FundsNotReceived, orders.NotDelivered, orders.Other, "bogus"}).Draw(t, "code")}
	case 4:
		return orders.Cancel{}
	case 5:
		return orders.ReturnRefund{}
	case 6:
		c := orders.Instructions{BankName: "Desk Bank", AccountName: "Desk", AccountNumber: "42",
			Reference: rapid.SampledFrom([]string{"", "ABC123", "bad"}).Draw(t, "reference")}
		if rapid.Bool().Draw(t, "deadline given") {
			d := o.CreatedAt.Add(time.Duration(rapid.Int64Range(0, int64(200*time.Hour)).Draw(t, "deadline")))
			c.Deadline = &d
		}
		c.Random[0] = rapid.Byte().Draw(t, "random")
		return c
	case 7:
		c := orders.ProofUploaded{ID: fmt.Sprintf("p%d", next), SHA256: rapid.SampledFrom(shas).Draw(t, "sha"),
			ContentType: "application/pdf", Size: rapid.Int64Range(0, 10).Draw(t, "size")}
		if rapid.Bool().Draw(t, "pause") {
			c.Deadline = o.CreatedAt.Add(time.Duration(rapid.Int64Range(0, int64(300*time.Hour)).Draw(t, "effective")))
		}
		return c
	case 8:
		return orders.RejectProof{ProofID: proofID(), Reason: rapid.SampledFrom([]string{"blurry", "wrong amount", ""}).Draw(t, "reason")}
	case 9:
		return orders.ConfirmFunds{ProofID: proofID()}
	default:
		c := orders.Expire{}
		if rapid.Bool().Draw(t, "pause") {
			c.Deadline = o.CreatedAt.Add(time.Duration(rapid.Int64Range(0, int64(300*time.Hour)).Draw(t, "effective")))
		}
		return c
	}
}

// TestStateMachine drives random orders of both directions with random
// commands at random times and holds every step to the invariants.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir := rapid.SampledFrom([]orders.Direction{orders.ToBank, orders.FromBank}).Draw(t, "direction")
		p := toBankParams()
		if dir == orders.FromBank {
			p = fromBankParams()
		}
		now := t0
		o, posts, err := orders.New(p, now)
		if err != nil {
			t.Fatal(err)
		}
		b := &book{entries: map[string]bool{}}
		for _, ps := range posts {
			b.post(t, o, ps)
		}
		b.check(t, o)
		var proofs []string
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			// Mostly forward, up to four days; sometimes a clock step back.
			now = now.Add(time.Duration(rapid.Int64Range(-int64(time.Minute), int64(96*time.Hour)).Draw(t, "dt")))
			cmd := genCommand(t, o, proofs, i)
			got, eff, err := orders.Apply(o, cmd, now)
			if err != nil {
				if c := errcode.Of(err); c == errcode.InternalError || !errcode.Known(c) {
					t.Fatalf("%s: uncoded error %v", cmd.Name(), err)
				}
				if !equalOrders(o, got) || eff.Changed || eff.Postings != nil || eff.Events != nil || eff.Collection != nil {
					t.Fatalf("%s refused with %v but changed something", cmd.Name(), err)
				}
				continue
			}
			if !eff.Changed {
				if !equalOrders(o, got) || eff.Postings != nil || eff.Events != nil || eff.Collection != nil {
					t.Fatalf("%s unchanged but with effects", cmd.Name())
				}
				continue
			}
			if got.Status != o.Status || cmd.Name() == "coins-sent" || cmd.Name() == "refund-returned" {
				if !edges[dir][[2]orders.Status{o.Status, got.Status}] {
					t.Fatalf("%s moved %s -> %s", cmd.Name(), o.Status, got.Status)
				}
			}
			if got.UpdatedAt.Before(o.UpdatedAt) || !got.CreatedAt.Equal(o.CreatedAt) {
				t.Fatalf("updated_at went back or created_at moved: %v -> %v", o.UpdatedAt, got.UpdatedAt)
			}
			// updated_at changes exactly on a status, proof or refund
			// change, to now, and never goes back.
			touched := got.Status != o.Status || !equalProof(o.Proof, got.Proof) || !equalRefund(o.Refund, got.Refund)
			want := o.UpdatedAt
			if n := now.UTC().Truncate(time.Millisecond); touched && n.After(want) {
				want = n
			}
			if !got.UpdatedAt.Equal(want) {
				t.Fatalf("%s: updated_at %v, want %v (touched %v)", cmd.Name(), got.UpdatedAt, want, touched)
			}
			if eo, _ := o.ExpiresAt(); o.Funding != nil {
				if eg, _ := got.ExpiresAt(); !eg.Equal(eo) || *got.Funding != *o.Funding {
					t.Fatal("the funding changed")
				}
			}
			for _, ps := range eff.Postings {
				b.post(t, got, ps)
			}
			rendered := render.Order(got)
			if (eff.Collection != nil) != (cmd.Name() == "refund-returned") {
				t.Fatalf("collection %v on %s", eff.Collection, cmd.Name())
			}
			if pu, ok := cmd.(orders.ProofUploaded); ok {
				proofs = append(proofs, pu.ID)
			}
			// Every move made is a repeat when made again.
			again, eff2, err := orders.Apply(got, cmd, now)
			if err != nil || eff2.Changed || !equalOrders(again, got) {
				t.Fatalf("%s again: %v %+v", cmd.Name(), err, eff2)
			}
			o = got
			b.check(t, o)
			checkRendered(t, o, rendered)
			back, err := codec.DecodeOrder(codec.EncodeOrder(o))
			if err != nil || !equalOrders(o, back) {
				t.Fatalf("storage round trip: %v\n%s", err, codec.EncodeOrder(o))
			}
		}
	})
}

func equalOrders(a, b orders.Order) bool {
	return string(codec.EncodeOrder(a)) == string(codec.EncodeOrder(b))
}

func equalProof(a, b *orders.Proof) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && (a.RejectedReason == nil) == (b.RejectedReason == nil) &&
		(a.RejectedReason == nil || *a.RejectedReason == *b.RejectedReason)
}

func equalRefund(a, b *orders.Refund) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func genTime(t *rapid.T, label string) time.Time {
	return time.Unix(rapid.Int64Range(0, 8_000_000_000).Draw(t, label+" s"), rapid.Int64Range(0, 999_999_999).Draw(t, label+" ns")).UTC()
}

func genAmount(t *rapid.T, label string) money.Amount {
	code := rapid.SampledFrom([]string{"MWK", "USDT", "ZAR", "USDC", "X1"}).Draw(t, label+" asset")
	asset, err := money.NewAsset(money.AssetCode(code), rapid.IntRange(0, money.MaxDecimals).Draw(t, label+" decimals"))
	if err != nil {
		t.Fatal(err)
	}
	// At most 30 integer digits (money.MaxIntegerDigits), as every parsed amount.
	digits := rapid.StringMatching(`[1-9][0-9]{0,29}`).Draw(t, label+" digits")
	d, _, err := apd.NewFromString(digits)
	if err != nil {
		t.Fatal(err)
	}
	d.Exponent = -asset.Decimals
	a, err := money.FromDecimal(asset, d)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func genOptString(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label+" set") {
		s := rapid.String().Draw(t, label)
		return &s
	}
	return nil
}

func genOrder(t *rapid.T) orders.Order {
	o := orders.Order{
		ID: rapid.String().Draw(t, "id"), Org: rapid.String().Draw(t, "org"), QuoteID: rapid.String().Draw(t, "quote"),
		ClientRef: rapid.String().Draw(t, "client_ref"),
		Direction: rapid.SampledFrom([]orders.Direction{orders.ToBank, orders.FromBank}).Draw(t, "direction"),
		From:      genAmount(t, "from"), To: genAmount(t, "to"),
		Status:    rapid.SampledFrom(orders.Statuses).Draw(t, "status"),
		CreatedAt: genTime(t, "created"), UpdatedAt: genTime(t, "updated"),
	}
	if rapid.Bool().Draw(t, "rate set") {
		coeff := rapid.StringMatching(`[1-9][0-9]{0,20}`).Draw(t, "rate digits")
		d, _, err := apd.NewFromString(coeff)
		if err != nil {
			t.Fatal(err)
		}
		d.Exponent = rapid.Int32Range(-18, 6).Draw(t, "rate exponent")
		if o.Rate, err = money.RateFromDecimal(d); err != nil {
			t.Fatal(err)
		}
	}
	if rapid.Bool().Draw(t, "failure") {
		o.Failure = &orders.Failure{Code: orders.FailureCode(rapid.String().Draw(t, "code")), Message: rapid.String().Draw(t, "message")}
	}
	if rapid.Bool().Draw(t, "refund") {
		o.Refund = &orders.Refund{Status: rapid.SampledFrom([]orders.RefundStatus{orders.RefundPending, orders.RefundReturned}).Draw(t, "refund status")}
	}
	if rapid.Bool().Draw(t, "beneficiary") {
		o.Beneficiary = &orders.Beneficiary{Name: rapid.String().Draw(t, "name"), BankName: rapid.String().Draw(t, "bank"),
			AccountNumber: rapid.String().Draw(t, "account"), Branch: genOptString(t, "branch")}
	}
	if rapid.Bool().Draw(t, "funding") {
		o.Funding = &orders.Funding{BankName: rapid.String().Draw(t, "f bank"), AccountName: rapid.String().Draw(t, "f name"),
			AccountNumber: rapid.String().Draw(t, "f account"), Reference: rapid.String().Draw(t, "reference"),
			Amount: genAmount(t, "funding"), Deadline: genTime(t, "deadline")}
	}
	if rapid.Bool().Draw(t, "proof") {
		o.Proof = &orders.Proof{ID: rapid.String().Draw(t, "proof id"), SHA256: rapid.String().Draw(t, "sha"),
			ContentType: rapid.String().Draw(t, "type"), Size: rapid.Int64().Draw(t, "size"),
			UploadedAt: genTime(t, "uploaded"), RejectedReason: genOptString(t, "reason")}
	}
	if rapid.Bool().Draw(t, "coins left") {
		c := genTime(t, "coins")
		o.CoinsLeftAt = &c
	}
	return o
}

// TestStorageRoundTrip: codec.DecodeOrder(codec.EncodeOrder(o)) is o, field
// for field, and codec.EncodeOrder(codec.DecodeOrder(b)) is b.
func TestStorageRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOrder(t)
		b := codec.EncodeOrder(o)
		back, err := codec.DecodeOrder(b)
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		require.Equal(t, o, back)
		require.Equal(t, string(b), string(codec.EncodeOrder(back)))
		require.Equal(t, string(render.Order(o)), string(render.Order(back)))
	})
}

func TestDecodeRefusesBadRecords(t *testing.T) {
	good := string(codec.EncodeOrder(newOrder(t, toBankParams())))
	for _, bad := range []string{
		"", "{", "null", `{"v":2}`,
		strings.Replace(good, `"v":1`, `"v":2`, 1),
		strings.Replace(good, `"direction":"to_bank"`, `"direction":"up"`, 1),
		strings.Replace(good, `"status":"accepted"`, `"status":"won"`, 1),
		strings.Replace(good, `"value":"123.456789"`, `"value":"1.2345678"`, 1),
		strings.Replace(good, `"asset":"USDT"`, `"asset":"usdt"`, 1),
		strings.Replace(good, `"rate":"1750.5"`, `"rate":"-1"`, 1),
		strings.Replace(good, `"rate":"1750.5"`, `"rate":"x"`, 1),
	} {
		if bad == good {
			t.Fatalf("replacement did not apply in %s", good)
		}
		_, err := codec.DecodeOrder([]byte(bad))
		require.Error(t, err, bad)
	}
}
