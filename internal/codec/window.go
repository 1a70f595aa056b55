package codec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

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
func (c WindowCell) Encode() []byte {
	b := binary.AppendUvarint(append(make([]byte, 0, 24), 1), c.Count)
	if u, ok := c.Volume.Units(); ok {
		b = append(b, 0)
		return binary.BigEndian.AppendUint64(b, uint64(u))
	}
	b = append(b, 1)
	b, _ = c.Volume.AppendText(b)
	return b
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
	if k <= 0 || len(v) < k+1 {
		return WindowCell{}, fmt.Errorf("payouts: bad window cell %q", v)
	}
	c := WindowCell{Count: n}
	switch rest := v[k+1:]; v[k] {
	case 0:
		if len(rest) != 8 {
			return WindowCell{}, fmt.Errorf("payouts: bad window cell %q", v)
		}
		c.Volume = money.FromUnits(money.MWK, int64(binary.BigEndian.Uint64(rest)))
	default:
		vol, err := money.Parse(money.MWK, string(rest))
		if err != nil {
			return WindowCell{}, fmt.Errorf("payouts: bad window cell: %w", err)
		}
		c.Volume = vol
	}
	return c, nil
}
