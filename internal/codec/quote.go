package codec

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/tambalapay/tambala/internal/binrec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// The stored forms of a quote and a corridor (package quotes) are binary,
// in the style of the ledger's records:
//
//	quote:    0x01 id org kind(1) direction(1) amount(from) amount(to)
//	          rate time(created) time(expires) usedBy
//	corridor: 0x01 code decimals(1) flags(1) [rate_off_ramp] [rate_on_ramp]
//	          units(min) [units(max)]
//
// where a string is uvarint length + bytes; an amount is code, decimals(1),
// then units; units are 0x00 varint(minor units) or 0x01 string(decimal
// text) beyond int64; a rate is the string of its exact decimal (apd's
// scientific form, which keeps coefficient and exponent); a time is
// varint(Unix seconds) uvarint(nanoseconds), read back in UTC. The
// corridor's flags are 1 open, 2 rate_off_ramp, 4 rate_on_ramp, 8 max.

const storedV1 = 0x01

const (
	kindOrderByte      = 1
	kindConversionByte = 2
	dirToBankByte      = 1
	dirFromBankByte    = 2
)

// EncodeQuote is the stored form of q; DecodeQuote reads it back
// exactly: every field, the amounts with their assets and decimals, and
// the rate with its exact decimal (times in UTC). q must be valid (a kind
// and direction of package quotes).
func EncodeQuote(q quotes.Quote) []byte {
	b := make([]byte, 0, 128)
	b = append(b, storedV1)
	b = appendString(b, q.ID)
	b = appendString(b, q.Org)
	var k, d byte
	switch q.Kind {
	case quotes.KindOrder:
		k = kindOrderByte
	case quotes.KindConversion:
		k = kindConversionByte
	}
	switch q.Direction {
	case quotes.ToBank:
		d = dirToBankByte
	case quotes.FromBank:
		d = dirFromBankByte
	}
	b = append(b, k, d)
	b = appendAmount(b, q.From)
	b = appendAmount(b, q.To)
	b = appendRate(b, q.Rate)
	b = appendTime(b, q.CreatedAt)
	b = appendTime(b, q.ExpiresAt)
	return appendString(b, q.UsedBy)
}

// DecodeQuote reads a quote written by EncodeQuote.
func DecodeQuote(b []byte) (quotes.Quote, error) {
	r := reader{binrec.Reader{B: b}}
	if v := r.Byte(); r.Err == nil && v != storedV1 {
		return quotes.Quote{}, fmt.Errorf("quotes: stored quote has version %d", v)
	}
	var q quotes.Quote
	q.ID = r.string()
	q.Org = r.string()
	switch k := r.Byte(); k {
	case kindOrderByte:
		q.Kind = quotes.KindOrder
	case kindConversionByte:
		q.Kind = quotes.KindConversion
	default:
		r.FailWith(fmt.Errorf("kind %d", k))
	}
	switch d := r.Byte(); d {
	case dirToBankByte:
		q.Direction = quotes.ToBank
	case dirFromBankByte:
		q.Direction = quotes.FromBank
	default:
		r.FailWith(fmt.Errorf("direction %d", d))
	}
	q.From = r.amount()
	q.To = r.amount()
	q.Rate = r.rate()
	q.CreatedAt = r.time()
	q.ExpiresAt = r.time()
	q.UsedBy = r.string()
	if err := r.done(); err != nil {
		return quotes.Quote{}, fmt.Errorf("quotes: bad stored quote: %w", err)
	}
	return q, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendAmount(b []byte, a money.Amount) []byte {
	b = appendString(b, string(a.Asset().Code))
	b = append(b, byte(a.Asset().Decimals))
	return appendUnits(b, a)
}

func appendUnits(b []byte, a money.Amount) []byte {
	if u, ok := a.Units(); ok {
		b = append(b, 0)
		return binary.AppendVarint(b, u)
	}
	b = append(b, 1)
	return appendString(b, a.String())
}

func appendRate(b []byte, r money.Rate) []byte {
	return appendString(b, r.Decimal().String())
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// reader decodes a stored record; the first error sticks.
type reader struct{ binrec.Reader }

func (r *reader) done() error {
	if r.Err == nil && len(r.B) != 0 {
		r.Err = fmt.Errorf("%d trailing bytes", len(r.B))
	}
	return r.Err
}

func (r *reader) string() string { return string(r.Bytes()) }

func (r *reader) asset() money.Asset {
	code := r.string()
	dec := r.Byte()
	if r.Err != nil {
		return money.Asset{}
	}
	a, err := money.NewAsset(money.AssetCode(code), int(dec))
	if err != nil {
		r.FailWith(err)
	}
	return a
}

func (r *reader) amount() money.Amount {
	a := r.asset()
	if r.Err != nil {
		return money.Amount{}
	}
	return r.units(a)
}

func (r *reader) units(a money.Asset) money.Amount {
	switch tag := r.Byte(); {
	case r.Err != nil:
		return money.Amount{}
	case tag == 0:
		return money.FromUnits(a, r.Varint())
	case tag == 1:
		s := r.string()
		if r.Err != nil {
			return money.Amount{}
		}
		v, err := money.ParseSigned(a, s)
		if err != nil {
			r.FailWith(err)
			return money.Amount{}
		}
		if _, small := v.Units(); small {
			// The text form is only written beyond int64: one value, one form.
			r.FailWith(fmt.Errorf("amount %s stored as text", s))
		}
		return v
	default:
		r.FailWith(fmt.Errorf("amount tag %d", tag))
		return money.Amount{}
	}
}

func (r *reader) rate() money.Rate {
	s := r.string()
	if r.Err != nil {
		return money.Rate{}
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		r.FailWith(fmt.Errorf("rate %q: %w", s, err))
		return money.Rate{}
	}
	rate, err := money.RateFromDecimal(d)
	if err != nil {
		r.FailWith(fmt.Errorf("rate %q: %w", s, err))
	}
	return rate
}

func (r *reader) time() time.Time {
	s := r.Varint()
	ns := r.Uvarint()
	if r.Err != nil {
		return time.Time{}
	}
	if ns >= 1e9 {
		r.FailWith(fmt.Errorf("%d nanoseconds", ns))
		return time.Time{}
	}
	return time.Unix(s, int64(ns)).UTC()
}
