package codec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/tambalapay/tambala/money"
)

// A WindowCell counts one organization's payouts in one minute: a version
// byte (0x01), the count (uvarint), then 0x00 and the volume in minor units
// (8 bytes, big-endian), or 0x01 and the volume as decimal text beyond
// int64. Cells that start with '{' are the JSON of earlier versions.
type WindowCell struct {
	Count  uint64
	Volume money.Amount
}

// Encode writes the cell.
func (c WindowCell) Encode() []byte { return c.AppendEncode(make([]byte, 0, 24)) }

// AppendEncode appends what Encode writes to b.
func (c WindowCell) AppendEncode(b []byte) []byte {
	b = binary.AppendUvarint(append(b, 1), c.Count)
	return appendVolume(b, c.Volume)
}

// DecodeWindowCell reads a cell of any version.
func DecodeWindowCell(v []byte) (WindowCell, error) {
	if len(v) > 0 && v[0] == '{' { // the JSON of earlier versions
		var old struct {
			Count  uint64 `json:"n"`
			Volume string `json:"v"`
		}
		if err := json.Unmarshal(v, &old); err != nil {
			return WindowCell{}, fmt.Errorf("payouts: bad window cell: %w", err)
		}
		vol, err := money.Parse(money.MWK, old.Volume)
		if err != nil {
			return WindowCell{}, fmt.Errorf("payouts: bad window cell: %w", err)
		}
		return WindowCell{Count: old.Count, Volume: vol}, nil
	}
	if len(v) == 0 || v[0] != 1 {
		return WindowCell{}, fmt.Errorf("payouts: bad window cell %q", v)
	}
	v = v[1:]
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return WindowCell{}, fmt.Errorf("payouts: bad window cell %q", v)
	}
	vol, err := decodeVolume(v[k:])
	if err != nil {
		return WindowCell{}, fmt.Errorf("payouts: bad window cell: %w", err)
	}
	return WindowCell{Count: n, Volume: vol}, nil
}

// A WindowSum is the running total of one organization's window cells,
// so that a payout reads one record instead of a day of cells: the
// volume of the cells from minute DayFrom on and the count of those from
// minute HourFrom on. Encoded as a version byte (0x01), DayFrom and
// HourFrom (uvarint minutes since the epoch), the count (uvarint), then
// the volume as a cell's is (0x00 and 8 bytes of minor units, or 0x01 and
// decimal text).
type WindowSum struct {
	DayFrom, HourFrom int64
	HourCount         uint64
	DayVolume         money.Amount
}

// Encode writes the sum.
func (s WindowSum) Encode() []byte { return s.AppendEncode(make([]byte, 0, 40)) }

// AppendEncode appends what Encode writes to b.
func (s WindowSum) AppendEncode(b []byte) []byte {
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(s.DayFrom))
	b = binary.AppendUvarint(b, uint64(s.HourFrom))
	b = binary.AppendUvarint(b, s.HourCount)
	return appendVolume(b, s.DayVolume)
}

// DecodeWindowSum reads a sum.
func DecodeWindowSum(v []byte) (WindowSum, error) {
	bad := func() (WindowSum, error) { return WindowSum{}, fmt.Errorf("payouts: bad window sum %q", v) }
	if len(v) == 0 || v[0] != 1 {
		return bad()
	}
	rest := v[1:]
	var fields [3]uint64
	for i := range fields {
		n, k := binary.Uvarint(rest)
		if k <= 0 {
			return bad()
		}
		fields[i], rest = n, rest[k:]
	}
	if fields[0] > math.MaxInt64 || fields[1] > math.MaxInt64 {
		return bad()
	}
	vol, err := decodeVolume(rest)
	if err != nil {
		return WindowSum{}, fmt.Errorf("payouts: bad window sum: %w", err)
	}
	return WindowSum{DayFrom: int64(fields[0]), HourFrom: int64(fields[1]), HourCount: fields[2], DayVolume: vol}, nil
}

// appendVolume appends 0x00 and 8 bytes of minor units, or 0x01 and the
// decimal text of a volume beyond int64.
func appendVolume(b []byte, v money.Amount) []byte {
	if u, ok := v.Units(); ok {
		b = append(b, 0)
		return binary.BigEndian.AppendUint64(b, uint64(u))
	}
	b = append(b, 1)
	b, _ = v.AppendText(b)
	return b
}

// decodeVolume reads what appendVolume wrote.
func decodeVolume(v []byte) (money.Amount, error) {
	if len(v) == 0 {
		return money.Amount{}, fmt.Errorf("no volume")
	}
	switch rest := v[1:]; v[0] {
	case 0:
		if len(rest) != 8 {
			return money.Amount{}, fmt.Errorf("volume of %d bytes", len(rest))
		}
		return money.FromUnits(money.MWK, int64(binary.BigEndian.Uint64(rest))), nil
	case 1:
		return money.Parse(money.MWK, string(rest))
	default:
		return money.Amount{}, fmt.Errorf("volume kind %d", v[0])
	}
}
