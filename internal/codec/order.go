package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/tambalapay/tambala/internal/jsonw"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// orderVersion is the version of EncodeOrder's format; DecodeOrder
// refuses others.
const orderVersion = 1

// orderAmount keeps an amount with its asset, so that a record decodes
// without the engine's asset table.
type orderAmount struct {
	Asset    string `json:"asset"`
	Decimals int32  `json:"decimals"`
	Value    string `json:"value"`
}

type orderBeneficiary struct {
	Name          string  `json:"name"`
	BankName      string  `json:"bank_name"`
	AccountNumber string  `json:"account_number"`
	Branch        *string `json:"branch,omitempty"`
}

type orderFunding struct {
	BankName      string      `json:"bank_name"`
	AccountName   string      `json:"account_name"`
	AccountNumber string      `json:"account_number"`
	Reference     string      `json:"reference"`
	Amount        orderAmount `json:"amount"`
	Deadline      time.Time   `json:"deadline"`
}

type orderProof struct {
	ID             string    `json:"id"`
	SHA256         string    `json:"sha256"`
	ContentType    string    `json:"content_type"`
	Size           int64     `json:"size"`
	UploadedAt     time.Time `json:"uploaded_at"`
	RejectedReason *string   `json:"rejected_reason,omitempty"`
}

type storedOrder struct {
	V           int                  `json:"v"`
	ID          string               `json:"id"`
	Org         string               `json:"org"`
	QuoteID     string               `json:"quote_id"`
	ClientRef   string               `json:"client_ref"`
	Direction   orders.Direction     `json:"direction"`
	From        orderAmount          `json:"from"`
	To          orderAmount          `json:"to"`
	Rate        string               `json:"rate"`
	Status      orders.Status        `json:"status"`
	Failure     *Failure             `json:"failure,omitempty"`
	Refund      *orders.RefundStatus `json:"refund,omitempty"`
	Beneficiary *orderBeneficiary    `json:"beneficiary,omitempty"`
	Funding     *orderFunding        `json:"funding,omitempty"`
	Proof       *orderProof          `json:"proof,omitempty"`
	CoinsLeftAt *time.Time           `json:"coins_left_at,omitempty"`
	CreatedAt   time.Time            `json:"created_at"`
	UpdatedAt   time.Time            `json:"updated_at"`
}

func storeOrderAmount(a money.Amount) orderAmount {
	return orderAmount{Asset: string(a.Asset().Code), Decimals: a.Asset().Decimals, Value: a.String()}
}

func loadOrderAmount(s orderAmount) (money.Amount, error) {
	asset, err := money.NewAsset(money.AssetCode(s.Asset), int(s.Decimals))
	if err != nil {
		return money.Amount{}, err
	}
	return money.Parse(asset, s.Value)
}

// EncodeOrder is the storage encoding of an order (package orders): every
// field, the internal ones included (organization, quote id, direction,
// CoinsLeftAt, the proof's id, hash, type and size), amounts with their
// assets, the rate with its exact digits and times at full precision.
// DecodeOrder reads it back to the same order, and
// EncodeOrder(DecodeOrder(b)) is b.
func EncodeOrder(o orders.Order) []byte {
	s := storedOrder{
		V: orderVersion, ID: o.ID, Org: o.Org, QuoteID: o.QuoteID, ClientRef: o.ClientRef, Direction: o.Direction,
		From: storeOrderAmount(o.From), To: storeOrderAmount(o.To), Status: o.Status,
		CoinsLeftAt: o.CoinsLeftAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	if !o.Rate.IsZero() {
		s.Rate = o.Rate.Decimal().String()
	}
	if o.Failure != nil {
		s.Failure = &Failure{Code: string(o.Failure.Code), Message: o.Failure.Message}
	}
	if o.Refund != nil {
		st := o.Refund.Status
		s.Refund = &st
	}
	if b := o.Beneficiary; b != nil {
		s.Beneficiary = &orderBeneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
	}
	if f := o.Funding; f != nil {
		s.Funding = &orderFunding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
			Reference: f.Reference, Amount: storeOrderAmount(f.Amount), Deadline: f.Deadline}
	}
	if p := o.Proof; p != nil {
		s.Proof = &orderProof{ID: p.ID, SHA256: p.SHA256, ContentType: p.ContentType, Size: p.Size,
			UploadedAt: p.UploadedAt, RejectedReason: p.RejectedReason}
	}
	b, err := s.appendJSON(make([]byte, 0, 640))
	if err != nil {
		panic("codec: encoding an order cannot fail: " + err.Error())
	}
	return b
}

// appendJSON appends s as encoding/json's Marshal writes it, byte for
// byte (TestStoredOrderAppendJSONMatchesEncodingJSON), and its error for
// a time that has no JSON form; orders are written on every move of the
// desk, and reflection took three quarters of EncodeOrder's time.
func (s *storedOrder) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"v":`...)
	b = jsonw.Int(b, int64(s.V))
	b = append(b, `,"id":`...)
	b = jsonw.String(b, s.ID)
	b = append(b, `,"org":`...)
	b = jsonw.String(b, s.Org)
	b = append(b, `,"quote_id":`...)
	b = jsonw.String(b, s.QuoteID)
	b = append(b, `,"client_ref":`...)
	b = jsonw.String(b, s.ClientRef)
	b = append(b, `,"direction":`...)
	b = jsonw.String(b, string(s.Direction))
	b = append(b, `,"from":`...)
	b = s.From.appendJSON(b)
	b = append(b, `,"to":`...)
	b = s.To.appendJSON(b)
	b = append(b, `,"rate":`...)
	b = jsonw.String(b, s.Rate)
	b = append(b, `,"status":`...)
	b = jsonw.String(b, string(s.Status))
	if s.Failure != nil {
		b = s.Failure.appendJSON(append(b, `,"failure":`...))
	}
	if s.Refund != nil {
		b = append(b, `,"refund":`...)
		b = jsonw.String(b, string(*s.Refund))
	}
	if n := s.Beneficiary; n != nil {
		b = append(b, `,"beneficiary":{"name":`...)
		b = jsonw.String(b, n.Name)
		b = append(b, `,"bank_name":`...)
		b = jsonw.String(b, n.BankName)
		b = append(b, `,"account_number":`...)
		b = jsonw.String(b, n.AccountNumber)
		if n.Branch != nil {
			b = append(b, `,"branch":`...)
			b = jsonw.String(b, *n.Branch)
		}
		b = append(b, '}')
	}
	if f := s.Funding; f != nil {
		b = append(b, `,"funding":{"bank_name":`...)
		b = jsonw.String(b, f.BankName)
		b = append(b, `,"account_name":`...)
		b = jsonw.String(b, f.AccountName)
		b = append(b, `,"account_number":`...)
		b = jsonw.String(b, f.AccountNumber)
		b = append(b, `,"reference":`...)
		b = jsonw.String(b, f.Reference)
		b = append(b, `,"amount":`...)
		b = f.Amount.appendJSON(b)
		b = append(b, `,"deadline":`...)
		if b, err = jsonw.Time(b, f.Deadline); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	if p := s.Proof; p != nil {
		b = append(b, `,"proof":{"id":`...)
		b = jsonw.String(b, p.ID)
		b = append(b, `,"sha256":`...)
		b = jsonw.String(b, p.SHA256)
		b = append(b, `,"content_type":`...)
		b = jsonw.String(b, p.ContentType)
		b = append(b, `,"size":`...)
		b = jsonw.Int(b, p.Size)
		b = append(b, `,"uploaded_at":`...)
		if b, err = jsonw.Time(b, p.UploadedAt); err != nil {
			return nil, err
		}
		if p.RejectedReason != nil {
			b = append(b, `,"rejected_reason":`...)
			b = jsonw.String(b, *p.RejectedReason)
		}
		b = append(b, '}')
	}
	if s.CoinsLeftAt != nil {
		b = append(b, `,"coins_left_at":`...)
		if b, err = jsonw.Time(b, *s.CoinsLeftAt); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"created_at":`...)
	if b, err = jsonw.Time(b, s.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updated_at":`...)
	if b, err = jsonw.Time(b, s.UpdatedAt); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendJSON appends a as encoding/json's Marshal writes it.
func (a orderAmount) appendJSON(b []byte) []byte {
	b = append(b, `{"asset":`...)
	b = jsonw.String(b, a.Asset)
	b = append(b, `,"decimals":`...)
	b = jsonw.Int(b, int64(a.Decimals))
	b = append(b, `,"value":`...)
	b = jsonw.String(b, a.Value)
	return append(b, '}')
}

// errCorruptOrder wraps every DecodeOrder failure.
var errCorruptOrder = errors.New("orders: bad stored order")

// DecodeOrder reads an order EncodeOrder wrote.
func DecodeOrder(b []byte) (orders.Order, error) {
	var s storedOrder
	if err := json.Unmarshal(b, &s); err != nil {
		return orders.Order{}, fmt.Errorf("%w: %w", errCorruptOrder, err)
	}
	if s.V != orderVersion {
		return orders.Order{}, fmt.Errorf("%w: version %d", errCorruptOrder, s.V)
	}
	if s.Direction != orders.ToBank && s.Direction != orders.FromBank {
		return orders.Order{}, fmt.Errorf("%w: direction %q", errCorruptOrder, s.Direction)
	}
	if !slices.Contains(orders.Statuses, s.Status) {
		return orders.Order{}, fmt.Errorf("%w: status %q", errCorruptOrder, s.Status)
	}
	o := orders.Order{ID: s.ID, Org: s.Org, QuoteID: s.QuoteID, ClientRef: s.ClientRef, Direction: s.Direction,
		Status: s.Status, CoinsLeftAt: s.CoinsLeftAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	var err error
	if o.From, err = loadOrderAmount(s.From); err != nil {
		return orders.Order{}, fmt.Errorf("%w: from: %w", errCorruptOrder, err)
	}
	if o.To, err = loadOrderAmount(s.To); err != nil {
		return orders.Order{}, fmt.Errorf("%w: to: %w", errCorruptOrder, err)
	}
	if s.Rate != "" {
		d, _, err := apd.NewFromString(s.Rate)
		if err != nil {
			return orders.Order{}, fmt.Errorf("%w: rate: %w", errCorruptOrder, err)
		}
		if o.Rate, err = money.RateFromDecimal(d); err != nil {
			return orders.Order{}, fmt.Errorf("%w: rate: %w", errCorruptOrder, err)
		}
	}
	if s.Failure != nil {
		o.Failure = &orders.Failure{Code: orders.FailureCode(s.Failure.Code), Message: s.Failure.Message}
	}
	if s.Refund != nil {
		o.Refund = &orders.Refund{Status: *s.Refund}
	}
	if b := s.Beneficiary; b != nil {
		o.Beneficiary = &orders.Beneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
	}
	if f := s.Funding; f != nil {
		o.Funding = &orders.Funding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
			Reference: f.Reference, Deadline: f.Deadline}
		if o.Funding.Amount, err = loadOrderAmount(f.Amount); err != nil {
			return orders.Order{}, fmt.Errorf("%w: funding amount: %w", errCorruptOrder, err)
		}
	}
	if p := s.Proof; p != nil {
		o.Proof = &orders.Proof{ID: p.ID, SHA256: p.SHA256, ContentType: p.ContentType, Size: p.Size,
			UploadedAt: p.UploadedAt, RejectedReason: p.RejectedReason}
	}
	return o, nil
}
