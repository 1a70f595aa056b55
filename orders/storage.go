package orders

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/tambalapay/tambala/money"
)

// storageVersion is the version of Encode's format; Decode refuses others.
const storageVersion = 1

// storedAmount keeps an amount with its asset, so that a record decodes
// without the engine's asset table.
type storedAmount struct {
	Asset    string `json:"asset"`
	Decimals int32  `json:"decimals"`
	Value    string `json:"value"`
}

type storedBeneficiary struct {
	Name          string  `json:"name"`
	BankName      string  `json:"bank_name"`
	AccountNumber string  `json:"account_number"`
	Branch        *string `json:"branch,omitempty"`
}

type storedFunding struct {
	BankName      string       `json:"bank_name"`
	AccountName   string       `json:"account_name"`
	AccountNumber string       `json:"account_number"`
	Reference     string       `json:"reference"`
	Amount        storedAmount `json:"amount"`
	Deadline      time.Time    `json:"deadline"`
}

type storedProof struct {
	ID             string    `json:"id"`
	SHA256         string    `json:"sha256"`
	ContentType    string    `json:"content_type"`
	Size           int64     `json:"size"`
	UploadedAt     time.Time `json:"uploaded_at"`
	RejectedReason *string   `json:"rejected_reason,omitempty"`
}

type stored struct {
	V           int                `json:"v"`
	ID          string             `json:"id"`
	Org         string             `json:"org"`
	QuoteID     string             `json:"quote_id"`
	ClientRef   string             `json:"client_ref"`
	Direction   Direction          `json:"direction"`
	From        storedAmount       `json:"from"`
	To          storedAmount       `json:"to"`
	Rate        string             `json:"rate"`
	Status      Status             `json:"status"`
	Failure     *renderedFailure   `json:"failure,omitempty"`
	Refund      *RefundStatus      `json:"refund,omitempty"`
	Beneficiary *storedBeneficiary `json:"beneficiary,omitempty"`
	Funding     *storedFunding     `json:"funding,omitempty"`
	Proof       *storedProof       `json:"proof,omitempty"`
	CoinsLeftAt *time.Time         `json:"coins_left_at,omitempty"`
	CreatedAt   time.Time          `json:"created_at"`
	UpdatedAt   time.Time          `json:"updated_at"`
}

func storeAmount(a money.Amount) storedAmount {
	return storedAmount{Asset: a.Asset().Code, Decimals: a.Asset().Decimals, Value: a.String()}
}

func loadAmount(s storedAmount) (money.Amount, error) {
	asset, err := money.NewAsset(s.Asset, int(s.Decimals))
	if err != nil {
		return money.Amount{}, err
	}
	return money.Parse(asset, s.Value)
}

// Encode is the storage encoding of an order: every field, the internal
// ones included (organization, quote id, direction, CoinsLeftAt, the
// proof's id, hash, type and size), amounts with their assets, the rate
// with its exact digits and times at full precision. Decode reads it back
// to the same order, and Encode(Decode(b)) is b.
func Encode(o Order) []byte {
	s := stored{
		V: storageVersion, ID: o.ID, Org: o.Org, QuoteID: o.QuoteID, ClientRef: o.ClientRef, Direction: o.Direction,
		From: storeAmount(o.From), To: storeAmount(o.To), Status: o.Status,
		CoinsLeftAt: cloneTime(o.CoinsLeftAt), CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	if !o.Rate.IsZero() {
		s.Rate = o.Rate.Decimal().String()
	}
	if o.Failure != nil {
		s.Failure = &renderedFailure{Code: o.Failure.Code, Message: o.Failure.Message}
	}
	if o.Refund != nil {
		st := o.Refund.Status
		s.Refund = &st
	}
	if b := o.Beneficiary; b != nil {
		s.Beneficiary = &storedBeneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
	}
	if f := o.Funding; f != nil {
		s.Funding = &storedFunding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
			Reference: f.Reference, Amount: storeAmount(f.Amount), Deadline: f.Deadline}
	}
	if p := o.Proof; p != nil {
		s.Proof = &storedProof{ID: p.ID, SHA256: p.SHA256, ContentType: p.ContentType, Size: p.Size,
			UploadedAt: p.UploadedAt, RejectedReason: p.RejectedReason}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("orders: encoding an order cannot fail: " + err.Error())
	}
	return b
}

// errCorrupt wraps every Decode failure.
var errCorrupt = errors.New("orders: bad stored order")

// Decode reads an order Encode wrote.
func Decode(b []byte) (Order, error) {
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return Order{}, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	if s.V != storageVersion {
		return Order{}, fmt.Errorf("%w: version %d", errCorrupt, s.V)
	}
	if s.Direction != ToBank && s.Direction != FromBank {
		return Order{}, fmt.Errorf("%w: direction %q", errCorrupt, s.Direction)
	}
	if !slices.Contains(Statuses, s.Status) {
		return Order{}, fmt.Errorf("%w: status %q", errCorrupt, s.Status)
	}
	o := Order{ID: s.ID, Org: s.Org, QuoteID: s.QuoteID, ClientRef: s.ClientRef, Direction: s.Direction,
		Status: s.Status, CoinsLeftAt: s.CoinsLeftAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	var err error
	if o.From, err = loadAmount(s.From); err != nil {
		return Order{}, fmt.Errorf("%w: from: %w", errCorrupt, err)
	}
	if o.To, err = loadAmount(s.To); err != nil {
		return Order{}, fmt.Errorf("%w: to: %w", errCorrupt, err)
	}
	if s.Rate != "" {
		d, _, err := apd.NewFromString(s.Rate)
		if err != nil {
			return Order{}, fmt.Errorf("%w: rate: %w", errCorrupt, err)
		}
		if o.Rate, err = money.RateFromDecimal(d); err != nil {
			return Order{}, fmt.Errorf("%w: rate: %w", errCorrupt, err)
		}
	}
	if s.Failure != nil {
		o.Failure = &Failure{Code: s.Failure.Code, Message: s.Failure.Message}
	}
	if s.Refund != nil {
		o.Refund = &Refund{Status: *s.Refund}
	}
	if b := s.Beneficiary; b != nil {
		o.Beneficiary = &Beneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
	}
	if f := s.Funding; f != nil {
		o.Funding = &Funding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
			Reference: f.Reference, Deadline: f.Deadline}
		if o.Funding.Amount, err = loadAmount(f.Amount); err != nil {
			return Order{}, fmt.Errorf("%w: funding amount: %w", errCorrupt, err)
		}
	}
	if p := s.Proof; p != nil {
		o.Proof = &Proof{ID: p.ID, SHA256: p.SHA256, ContentType: p.ContentType, Size: p.Size,
			UploadedAt: p.UploadedAt, RejectedReason: p.RejectedReason}
	}
	return o, nil
}
