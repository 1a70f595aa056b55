package ledger

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tambalapay/tambala/money"
)

// State is what planning a command reads: current balances, holds and
// entries. Storage-backed and in-memory implementations exist; Plan never
// writes through it.
type State interface {
	// Balance returns the account's balance, zero when it has none.
	Balance(a Account) (money.Amount, error)
	// Hold returns the hold with id, ok=false when there is none.
	Hold(id string) (h Hold, ok bool, err error)
	// Entry returns the entry with id, ok=false when there is none.
	Entry(id string) (e Entry, ok bool, err error)
	// ReversedBy returns the id of the entry that reversed id, or "".
	ReversedBy(id string) (string, error)
}

// BalanceChange is an account's balance after an entry.
type BalanceChange struct {
	Account Account
	Balance money.Amount
}

// Effect is what a command does: the entry to record, the resulting
// balances of the accounts it touches, and the holds it opens or closes.
// An Effect with Replayed set changes nothing: the same command was
// already posted as Entry.
type Effect struct {
	Entry    Entry
	Balances []BalanceChange
	Holds    []Hold
	Replayed bool
}

// Plan computes the effect of cmd on st without changing anything. It is a
// pure function of its arguments.
func Plan(st State, cmd Command) (Effect, error) {
	id := cmd.entryID()
	if err := checkID("entry id", id); err != nil {
		return Effect{}, err
	}
	scratch := getScratch()
	defer putScratch(scratch)
	*scratch = cmd.appendDigest((*scratch)[:0])
	digest := *scratch
	// Ids, refs and asset codes must be valid UTF-8: records written
	// before the binary encoding were JSON, which cannot carry anything
	// else, and a digest must read back as it was posted.
	if !utf8.Valid(digest) {
		return Effect{}, invalid("ids, refs and asset codes must be valid UTF-8")
	}
	prev, ok, err := st.Entry(id)
	if err != nil {
		return Effect{}, err
	}
	if ok {
		if prev.Digest != string(digest) {
			return Effect{}, fmt.Errorf("%w: %s", ErrEntryIDReused, id)
		}
		return Effect{Entry: prev, Replayed: true}, nil
	}
	eb := new(effectBuf)
	eff, err := cmd.plan(st, eb)
	if err != nil {
		return Effect{}, err
	}
	eff.Entry.ID = id
	eff.Entry.Digest = string(digest)
	eff.Balances = eb.balances[:0]
	if err := applyPostings(st, &eff); err != nil {
		return Effect{}, err
	}
	return eff, nil
}

func checkID(what, id string) error {
	if id == "" || len(id) > 200 {
		return invalid("%s must be 1 to 200 bytes", what)
	}
	for i := 0; i < len(id); i++ {
		if id[i] == 0 {
			return invalid("%s contains NUL", what)
		}
	}
	if !utf8.ValidString(id) {
		return invalid("%s is not valid UTF-8", what)
	}
	return nil
}

func positive(what string, a money.Amount) error {
	if a.Asset().Code == "" || a.Sign() <= 0 {
		return invalid("%s must be a positive amount", what)
	}
	// The asset code is part of a NUL-separated balance key.
	if strings.ContainsRune(string(a.Asset().Code), 0) {
		return invalid("%s: asset code contains NUL", what)
	}
	return nil
}

// optional returns a's value, or zero of asset when a is the zero Amount.
func optional(what string, a money.Amount, asset money.Asset) (money.Amount, error) {
	if a.Asset().Code == "" {
		if a.Sign() != 0 {
			return money.Amount{}, invalid("%s has no asset", what)
		}
		return money.Zero(asset), nil
	}
	if a.Asset() != asset {
		return money.Amount{}, invalid("%s is in %s, not %s", what, a.Asset().Code, asset.Code)
	}
	if a.Sign() < 0 {
		return money.Amount{}, invalid("%s must not be negative", what)
	}
	return a, nil
}

// effectBuf backs an Effect's slices with one allocation: the commands
// post at most four postings to at most four accounts (a reversal of a
// larger entry spills over into its own).
type effectBuf struct {
	postings [4]Posting
	balances [4]BalanceChange
	holds    [1]Hold
}

// applyPostings checks the entry balances per asset, computes each touched
// account's new balance, and refuses a customer account below zero.
func applyPostings(st State, eff *Effect) error {
	// An entry touches few assets and accounts: linear searches over small
	// arrays beat maps here.
	type assetSum struct {
		asset money.Asset
		sum   money.Amount
	}
	var sumsArr [4]assetSum
	sums := sumsArr[:0]
	for _, p := range eff.Entry.Postings {
		if err := p.Account.valid(); err != nil {
			return err
		}
		if p.Amount.Asset() != p.Account.Asset {
			return invalid("posting of %s to a %s account", p.Amount.Asset().Code, p.Account.Asset.Code)
		}
		if p.Amount.Exceeds(MaxBalanceDigits) {
			return beyondCapacity("a posting", p.Account)
		}
		si := -1
		for i := range sums {
			if sums[i].asset == p.Account.Asset {
				si = i
				break
			}
		}
		if si < 0 {
			si = len(sums)
			sums = append(sums, assetSum{p.Account.Asset, money.Zero(p.Account.Asset)})
		}
		var err error
		if sums[si].sum, err = sums[si].sum.Add(p.Amount); err != nil {
			return err
		}
		i := -1
		for j := range eff.Balances {
			if eff.Balances[j].Account == p.Account {
				i = j
				break
			}
		}
		if i < 0 {
			bal, err := st.Balance(p.Account)
			if err != nil {
				return err
			}
			i = len(eff.Balances)
			eff.Balances = append(eff.Balances, BalanceChange{Account: p.Account, Balance: bal})
		}
		nb, err := eff.Balances[i].Balance.Add(p.Amount)
		if err != nil {
			return err
		}
		eff.Balances[i].Balance = nb
	}
	for _, s := range sums {
		if !s.sum.IsZero() {
			return fmt.Errorf("ledger: entry %s does not balance in %s: %s", eff.Entry.ID, s.asset.Code, s.sum)
		}
	}
	for _, bc := range eff.Balances {
		if bc.Balance.Exceeds(MaxBalanceDigits) {
			return beyondCapacity("the balance", bc.Account)
		}
		if violates(bc.Account.Bucket, bc.Balance.Sign()) {
			before, err := st.Balance(bc.Account)
			if err != nil {
				return err
			}
			needed, _ := before.Sub(bc.Balance) // the amount the entry takes out
			return insufficientFunds(&InsufficientFundsError{Account: bc.Account, Available: before, Needed: needed})
		}
	}
	return nil
}

func (c Credit) plan(st State, eb *effectBuf) (Effect, error) {
	if err := checkID("org", c.Org); err != nil {
		return Effect{}, err
	}
	if err := positive("credit amount", c.Amount); err != nil {
		return Effect{}, err
	}
	asset := c.Amount.Asset()
	fee, err := optional("credit fee", c.Fee, asset)
	if err != nil {
		return Effect{}, err
	}
	if !c.from().IsSystem() {
		return Effect{}, invalid("credit from %q: not a system bucket", c.From)
	}
	net, err := c.Amount.Sub(fee)
	if err != nil {
		return Effect{}, err
	}
	if net.Sign() < 0 {
		return Effect{}, invalid("credit fee %s above amount %s", fee, c.Amount)
	}
	ps := append(eb.postings[:0], Posting{SystemAccount(c.from(), asset), c.Amount.Neg()})
	// A shortfall is covered first.
	short, err := st.Balance(OrgAccount(c.Org, Shortfall, asset))
	if err != nil {
		return Effect{}, err
	}
	if owed := short.Neg(); owed.Sign() > 0 && net.Sign() > 0 {
		cover := owed
		if net.Cmp(owed) < 0 {
			cover = net
		}
		ps = append(ps, Posting{OrgAccount(c.Org, Shortfall, asset), cover})
		net, _ = net.Sub(cover)
	}
	if !net.IsZero() {
		ps = append(ps, Posting{OrgAccount(c.Org, Available, asset), net})
	}
	if !fee.IsZero() {
		ps = append(ps, Posting{SystemAccount(Fees, asset), fee})
	}
	return Effect{Entry: Entry{Kind: KindCredit, Ref: c.Ref, At: c.At, Postings: ps}}, nil
}

func (c PlaceHold) plan(st State, eb *effectBuf) (Effect, error) {
	if err := checkID("org", c.Org); err != nil {
		return Effect{}, err
	}
	if err := checkID("hold id", c.HoldID); err != nil {
		return Effect{}, err
	}
	if err := positive("hold amount", c.Amount); err != nil {
		return Effect{}, err
	}
	if _, ok, err := st.Hold(c.HoldID); err != nil {
		return Effect{}, err
	} else if ok {
		return Effect{}, fmt.Errorf("%w: %s", ErrHoldExists, c.HoldID)
	}
	asset := c.Amount.Asset()
	return Effect{
		Entry: Entry{Kind: KindHold, Ref: c.Ref, HoldID: c.HoldID, At: c.At, Postings: append(eb.postings[:0],
			Posting{OrgAccount(c.Org, Available, asset), c.Amount.Neg()},
			Posting{OrgAccount(c.Org, Held, asset), c.Amount},
		)},
		Holds: append(eb.holds[:0], Hold{ID: c.HoldID, Org: c.Org, Amount: c.Amount, Ref: c.Ref, Open: true, OpenedBy: c.EntryID}),
	}, nil
}

func openHold(st State, id string) (Hold, error) {
	if err := checkID("hold id", id); err != nil {
		return Hold{}, err
	}
	h, ok, err := st.Hold(id)
	if err != nil {
		return Hold{}, err
	}
	if !ok {
		return Hold{}, fmt.Errorf("%w: %s", ErrHoldNotFound, id)
	}
	if !h.Open {
		return Hold{}, fmt.Errorf("%w: %s", ErrHoldClosed, id)
	}
	return h, nil
}

func (c ReleaseHold) plan(st State, eb *effectBuf) (Effect, error) {
	h, err := openHold(st, c.HoldID)
	if err != nil {
		return Effect{}, err
	}
	asset := h.Amount.Asset()
	h.Open, h.ClosedBy = false, c.EntryID
	return Effect{
		Entry: Entry{Kind: KindRelease, Ref: c.Ref, HoldID: c.HoldID, At: c.At, Postings: append(eb.postings[:0],
			Posting{OrgAccount(h.Org, Held, asset), h.Amount.Neg()},
			Posting{OrgAccount(h.Org, Available, asset), h.Amount},
		)},
		Holds: append(eb.holds[:0], h),
	}, nil
}

func (c CaptureHold) plan(st State, eb *effectBuf) (Effect, error) {
	h, err := openHold(st, c.HoldID)
	if err != nil {
		return Effect{}, err
	}
	asset := h.Amount.Asset()
	if c.to() != Provider && c.to() != Desk {
		return Effect{}, invalid("capture to %q: must be provider or desk", c.To)
	}
	out, err := optional("capture amount", c.Amount, asset)
	if err != nil {
		return Effect{}, err
	}
	fee, err := optional("capture fee", c.Fee, asset)
	if err != nil {
		return Effect{}, err
	}
	spent, err := out.Add(fee)
	if err != nil {
		return Effect{}, err
	}
	rest, err := h.Amount.Sub(spent)
	if err != nil {
		return Effect{}, err
	}
	if rest.Sign() < 0 {
		return Effect{}, fmt.Errorf("%w: %s plus fee %s above hold %s", ErrCaptureExceedsHold, out, fee, h.Amount)
	}
	ps := append(eb.postings[:0], Posting{OrgAccount(h.Org, Held, asset), h.Amount.Neg()})
	if !out.IsZero() {
		ps = append(ps, Posting{SystemAccount(c.to(), asset), out})
	}
	if !fee.IsZero() {
		ps = append(ps, Posting{SystemAccount(Fees, asset), fee})
	}
	if !rest.IsZero() {
		ps = append(ps, Posting{OrgAccount(h.Org, Available, asset), rest})
	}
	h.Open, h.ClosedBy = false, c.EntryID
	return Effect{
		Entry: Entry{Kind: KindCapture, Ref: c.Ref, HoldID: c.HoldID, At: c.At, Postings: ps},
		Holds: append(eb.holds[:0], h),
	}, nil
}

func (c Reverse) plan(st State, eb *effectBuf) (Effect, error) {
	if err := checkID("reversed entry id", c.Of); err != nil {
		return Effect{}, err
	}
	orig, ok, err := st.Entry(c.Of)
	if err != nil {
		return Effect{}, err
	}
	if !ok {
		return Effect{}, fmt.Errorf("%w: %s", ErrEntryNotFound, c.Of)
	}
	if by, err := st.ReversedBy(c.Of); err != nil {
		return Effect{}, err
	} else if by != "" {
		return Effect{}, fmt.Errorf("%w: %s by %s", ErrAlreadyReversed, c.Of, by)
	}
	ps := eb.postings[:0]
	switch orig.Kind {
	case KindCredit, KindConvert:
		for _, p := range orig.Postings {
			ps = append(ps, Posting{p.Account, p.Amount.Neg()})
		}
	case KindCapture:
		// The payout leg (to provider or desk) comes back; the fee stays.
		for _, p := range orig.Postings {
			if p.Account.Bucket == Provider || p.Account.Bucket == Desk {
				h, ok, err := st.Hold(orig.HoldID)
				if err != nil {
					return Effect{}, err
				}
				if !ok {
					return Effect{}, fmt.Errorf("%w: %s", ErrHoldNotFound, orig.HoldID)
				}
				ps = append(ps,
					Posting{p.Account, p.Amount.Neg()},
					Posting{OrgAccount(h.Org, Available, p.Account.Asset), p.Amount})
			}
		}
		if len(ps) == 0 {
			return Effect{}, fmt.Errorf("%w: capture %s paid nothing out", ErrNotReversible, c.Of)
		}
	default:
		return Effect{}, fmt.Errorf("%w: %s entry %s", ErrNotReversible, orig.Kind, c.Of)
	}
	return Effect{Entry: Entry{Kind: KindReverse, Ref: c.Ref, Reverses: c.Of, At: c.At, Postings: ps}}, nil
}

func (c Charge) plan(st State, eb *effectBuf) (Effect, error) {
	if err := checkID("org", c.Org); err != nil {
		return Effect{}, err
	}
	if err := positive("charge amount", c.Amount); err != nil {
		return Effect{}, err
	}
	asset := c.Amount.Asset()
	avail, err := st.Balance(OrgAccount(c.Org, Available, asset))
	if err != nil {
		return Effect{}, err
	}
	covered := c.Amount
	if avail.Cmp(c.Amount) < 0 {
		covered = avail
	}
	rest, err := c.Amount.Sub(covered)
	if err != nil {
		return Effect{}, err
	}
	ps := append(eb.postings[:0], Posting{SystemAccount(Fees, asset), c.Amount})
	if covered.Sign() > 0 {
		ps = append(ps, Posting{OrgAccount(c.Org, Available, asset), covered.Neg()})
	}
	if rest.Sign() > 0 {
		ps = append(ps, Posting{OrgAccount(c.Org, Shortfall, asset), rest.Neg()})
	}
	return Effect{Entry: Entry{Kind: KindCharge, Ref: c.Ref, At: c.At, Postings: ps}}, nil
}

func (c Convert) plan(st State, eb *effectBuf) (Effect, error) {
	if err := checkID("org", c.Org); err != nil {
		return Effect{}, err
	}
	if err := positive("convert from", c.From); err != nil {
		return Effect{}, err
	}
	if err := positive("convert to", c.To); err != nil {
		return Effect{}, err
	}
	fa, ta := c.From.Asset(), c.To.Asset()
	if fa == ta {
		return Effect{}, invalid("convert within one asset %s", fa.Code)
	}
	return Effect{Entry: Entry{Kind: KindConvert, Ref: c.Ref, At: c.At, Postings: append(eb.postings[:0],
		Posting{OrgAccount(c.Org, Available, fa), c.From.Neg()},
		Posting{SystemAccount(Desk, fa), c.From},
		Posting{SystemAccount(Desk, ta), c.To.Neg()},
		Posting{OrgAccount(c.Org, Available, ta), c.To},
	)}}, nil
}
