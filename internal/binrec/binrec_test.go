package binrec

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReader(t *testing.T) {
	b := []byte{7}
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -5)
	b = binary.AppendUvarint(b, 3)
	b = append(b, "abc"...)
	r := Reader{B: b}
	require.Equal(t, byte(7), r.Byte())
	require.Equal(t, uint64(300), r.Uvarint())
	require.Equal(t, int64(-5), r.Varint())
	require.Equal(t, "abc", string(r.Bytes()))
	require.NoError(t, r.Err)
	require.Empty(t, r.B)

	// Past the end: ErrTruncated, and it sticks.
	require.Equal(t, byte(0), r.Byte())
	require.ErrorIs(t, r.Err, ErrTruncated)
	other := errors.New("other")
	r.FailWith(other)
	require.ErrorIs(t, r.Err, ErrTruncated, "the first error stays")

	for _, bad := range [][]byte{{}, {0x80}, {5, 'a'}} {
		r := Reader{B: bad}
		r.Bytes()
		require.ErrorIs(t, r.Err, ErrTruncated, "%q", bad)
		require.Empty(t, r.B)
	}
	r = Reader{B: []byte{1, 2}}
	r.FailWith(other)
	require.ErrorIs(t, r.Err, other)
	require.Zero(t, r.Uvarint())
	require.Zero(t, r.Varint())
}
