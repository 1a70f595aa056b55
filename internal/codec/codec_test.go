package codec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/money"
)

// The binary idempotency outcomes and payout window cells: what is encoded
// decodes to an equal value, idempotency outcomes written as JSON by
// earlier versions still decode, and damaged input is an error, never a
// panic.

// --- idempotency outcomes ---

// genIdemTime draws an instant with nanoseconds that Unix nanoseconds
// hold (1678 to 2262), the only ones the binary form keeps.
func genIdemTime(t *rapid.T) time.Time {
	at := time.Unix(0, rapid.Int64().Draw(t, "unixNanos"))
	return at.In(rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("CAT", 2*3600)}).Draw(t, "zone"))
}

func genIdemRecord(t *rapid.T) IdemRecord {
	return IdemRecord{
		Status:    rapid.OneOf(rapid.SampledFrom([]int{200, 201, 202, 400, 409, 422, 500}), rapid.IntRange(0, math.MaxInt)).Draw(t, "status"),
		Body:      rapid.OneOf(rapid.Just([]byte{}), rapid.SliceOf(rapid.Byte()), rapid.SliceOfN(rapid.Byte(), 1000, 5000)).Draw(t, "body"),
		CreatedAt: genIdemTime(t),
	}
}

func requireIdemEqual(t require.TestingT, want, got IdemRecord) {
	require.Equal(t, want.BodySHA256, got.BodySHA256, "BodySHA256")
	require.Equal(t, want.Status, got.Status, "Status")
	require.True(t, bytes.Equal(want.Body, got.Body), "Body: want %q, got %q", want.Body, got.Body)
	require.True(t, want.CreatedAt.Equal(got.CreatedAt), "CreatedAt: want %s, got %s", want.CreatedAt, got.CreatedAt)
}

func TestIdemRecordRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genIdemRecord(t)
		var sum [32]byte
		if rapid.Bool().Draw(t, "realSum") {
			sum = sha256.Sum256(r.Body)
		} else {
			copy(sum[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "sum"))
		}
		v := r.EncodeV1(sum)
		got, err := DecodeIdemRecord(v)
		require.NoError(t, err)
		r.BodySHA256 = hex.EncodeToString(sum[:])
		requireIdemEqual(t, r, got)
		require.Equal(t, time.UTC, got.CreatedAt.Location(), "decoded CreatedAt is UTC")
		require.Equal(t, v, got.EncodeV1(sum), "re-encoding is byte for byte")
	})
}

// Version 2 keeps the fingerprint, the time and the resource, not a status.
func TestIdemRecordV2RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genIdemRecord(t)
		r.Status = 0
		var sum [32]byte
		copy(sum[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "sum"))
		v := r.EncodeV2(sum)
		require.Equal(t, byte(2), v[0])
		got, err := DecodeIdemRecord(v)
		require.NoError(t, err)
		require.Equal(t, 2, got.Version)
		r.BodySHA256 = hex.EncodeToString(sum[:])
		requireIdemEqual(t, r, got)
		require.Equal(t, v, got.EncodeV2(sum), "re-encoding is byte for byte")
		// Every prefix that cuts the fingerprint or the time fails.
		for n := range 34 {
			_, err := DecodeIdemRecord(v[:n])
			require.Error(t, err, "prefix %d", n)
		}
	})
}

// Version 3 adds the operation that decided the key.
func TestIdemRecordV3RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genIdemRecord(t)
		r.Status = 0
		r.Operation = rapid.SampledFrom([]string{"payouts.create.bank", "payouts.create.momo", "orders.create", "x"}).Draw(t, "op")
		var sum [32]byte
		copy(sum[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "sum"))
		v := r.Encode(sum)
		require.Equal(t, byte(3), v[0])
		got, err := DecodeIdemRecord(v)
		require.NoError(t, err)
		require.Equal(t, 3, got.Version)
		require.Equal(t, r.Operation, got.Operation)
		r.BodySHA256 = hex.EncodeToString(sum[:])
		requireIdemEqual(t, r, got)
		require.Equal(t, v, got.Encode(sum), "re-encoding is byte for byte")
		// Every prefix that cuts the fingerprint, the operation or the
		// time fails.
		for n := range 34 + 1 + len(r.Operation) {
			_, err := DecodeIdemRecord(v[:n])
			require.Error(t, err, "prefix %d", n)
		}
	})
}

// The bytes of each version, pinned.
func TestIdemRecordGolden(t *testing.T) {
	var sum [32]byte
	for i := range sum {
		sum[i] = byte(i)
	}
	r := IdemRecord{Operation: "orders.create", Body: []byte("{}"), CreatedAt: time.Unix(1_700_000_000, 5).UTC()}
	require.Equal(t, "03000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0d6f72646572732e6372656174658a80d0e2c6bfce972f7b7d",
		hex.EncodeToString(r.Encode(sum)))
	require.Equal(t, "02000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f8a80d0e2c6bfce972f7b7d",
		hex.EncodeToString(r.EncodeV2(sum)))
	// An empty operation or one longer than the rest is corrupt.
	for _, bad := range []string{"03" + hex.EncodeToString(sum[:]) + "00" + "8a80d0e2c6bfce972f", "03" + hex.EncodeToString(sum[:]) + "7f6f"} {
		b, err := hex.DecodeString(bad)
		require.NoError(t, err)
		_, err = DecodeIdemRecord(b)
		require.Error(t, err, bad)
	}
}

// The replay path compares the stored digest with the hex of the request
// body's SHA-256; both forms must give the same string.
func TestIdemRecordDigestMatchesRequest(t *testing.T) {
	body := []byte(`{"amount":"5000.00","wallet":"265991000001"}`)
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	at := time.Date(2025, 3, 14, 9, 26, 53, 123456789, time.UTC)
	rec := IdemRecord{Status: 201, Body: []byte(`{"id":"po_1"}`), CreatedAt: at}

	got, err := DecodeIdemRecord(rec.EncodeV1(sum))
	require.NoError(t, err)
	require.Equal(t, digest, got.BodySHA256)

	legacy, err := json.Marshal(IdemRecord{BodySHA256: digest, Status: rec.Status, Body: rec.Body, CreatedAt: at})
	require.NoError(t, err)
	got, err = DecodeIdemRecord(legacy)
	require.NoError(t, err)
	require.Equal(t, digest, got.BodySHA256)
	requireIdemEqual(t, IdemRecord{BodySHA256: digest, Status: 201, Body: rec.Body, CreatedAt: at}, got)
}

func TestIdemRecordLegacyJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genIdemRecord(t)
		sum := sha256.Sum256(r.Body)
		r.BodySHA256 = hex.EncodeToString(sum[:])
		r.CreatedAt = r.CreatedAt.UTC() // the earlier writer's clock was UTC
		v, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := DecodeIdemRecord(v)
		require.NoError(t, err)
		requireIdemEqual(t, r, got)
	})
	// As an earlier version stored it.
	got, err := DecodeIdemRecord([]byte(`{"body_sha256":"` + strings.Repeat("ab", 32) + `","status":201,"body":"eyJpZCI6InBvXzEifQ==","created_at":"2025-03-14T09:26:53.123456789Z"}`))
	require.NoError(t, err)
	requireIdemEqual(t, IdemRecord{BodySHA256: strings.Repeat("ab", 32), Status: 201, Body: []byte(`{"id":"po_1"}`),
		CreatedAt: time.Date(2025, 3, 14, 9, 26, 53, 123456789, time.UTC)}, got)
}

func TestIdemRecordCorrupt(t *testing.T) {
	var sum [32]byte
	valid := (&IdemRecord{Status: 201, Body: nil, CreatedAt: time.Unix(1_700_000_000, 5)}).EncodeV1(sum)
	// Every prefix that cuts the digest, the status or the time fails;
	// the body has no length, so longer prefixes are shorter bodies.
	for n := range len(valid) {
		require.NotPanics(t, func() {
			_, err := DecodeIdemRecord(valid[:n])
			require.Error(t, err, "prefix %d: %q", n, valid[:n])
		})
	}
	bad := [][]byte{
		nil, {}, {1}, {0}, {2},
		append([]byte{3}, valid[1:]...), append([]byte{0}, valid[1:]...), // version
		append([]byte{1}, make([]byte, 32)...),                                                                                       // no status
		append(append([]byte{1}, make([]byte, 32)...), 0xc9, 0x01),                                                                   // no time
		append(append([]byte{1}, make([]byte, 32)...), bytes.Repeat([]byte{0xff}, 11)...),                                            // status overflows
		append(append([]byte{1}, make([]byte, 32)...), 0xc9, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), // time overflows
		[]byte("{"), []byte(`{"status":"201"}`), []byte(`{"body":"not base64!"}`), []byte(`{"created_at":"yesterday"}`), []byte(`{} x`),
	}
	for _, v := range bad {
		require.NotPanics(t, func() {
			_, err := DecodeIdemRecord(v)
			require.Error(t, err, "%q", v)
		}, "%q", v)
	}
}

// --- payout window cells ---

// genWindowVolume draws an MWK Volume: any int64 of tambala (the 8-byte
// form), or beyond int64 with at most money.MaxIntegerDigits integer
// digits (the text form; a volume is a sum of payouts, never negative).
func genWindowVolume(t *rapid.T) money.Amount {
	if rapid.Bool().Draw(t, "fits") {
		u := rapid.OneOf(rapid.Int64(), rapid.Int64Range(0, 1e12), rapid.SampledFrom([]int64{0, math.MaxInt64, math.MinInt64})).Draw(t, "units")
		return money.FromUnits(money.MWK, u)
	}
	n := rapid.IntRange(19, money.MaxIntegerDigits+2).Draw(t, "digits")
	var s strings.Builder
	s.WriteByte(byte('1' + rapid.IntRange(0, 8).Draw(t, "lead")))
	for range n - 1 {
		s.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, "digit")))
	}
	u, _ := new(big.Int).SetString(s.String(), 10)
	if u.IsInt64() {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 63))
	}
	text := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(u), -2).Text('f')
	a, err := money.Parse(money.MWK, text)
	require.NoError(t, err, text)
	_, fits := a.Units()
	require.False(t, fits, "%s is beyond int64", text)
	return a
}

func requireCellEqual(t require.TestingT, want, got WindowCell) {
	require.Equal(t, want.Count, got.Count, "count")
	require.Equal(t, want.Volume.Asset(), got.Volume.Asset(), "volume asset")
	require.True(t, want.Volume.Equal(got.Volume), "Volume: want %s, got %s", want.Volume, got.Volume)
	require.Equal(t, want.Volume.String(), got.Volume.String(), "volume text")
	wu, wfits := want.Volume.Units()
	gu, gfits := got.Volume.Units()
	require.Equal(t, wfits, gfits, "volume %s: integer form", want.Volume)
	require.Equal(t, wu, gu, "volume units")
}

func TestWindowCellRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := WindowCell{
			Count:  rapid.OneOf(rapid.Uint64(), rapid.Uint64Range(0, 1000)).Draw(t, "count"),
			Volume: genWindowVolume(t),
		}
		v := c.Encode()
		got, err := DecodeWindowCell(v)
		require.NoError(t, err)
		requireCellEqual(t, c, got)
		require.Equal(t, v, got.Encode(), "re-encoding is byte for byte")

		// The layout: version 0x01, uvarint count, then 0x00 and 8 bytes,
		// or 0x01 and text.
		require.Equal(t, byte(1), v[0], "version")
		count, k := binary.Uvarint(v[1:])
		require.Positive(t, k)
		k++
		require.Equal(t, c.Count, count)
		if u, fits := c.Volume.Units(); fits {
			require.Equal(t, append([]byte{0}, binary.BigEndian.AppendUint64(nil, uint64(u))...), v[k:])
		} else {
			require.Equal(t, "\x01"+c.Volume.String(), string(v[k:]))
		}
	})
}

func TestWindowCellCorrupt(t *testing.T) {
	valid := WindowCell{Count: 300, Volume: money.FromUnits(money.MWK, 500000)}.Encode()
	for n := range len(valid) {
		require.NotPanics(t, func() {
			_, err := DecodeWindowCell(valid[:n])
			require.Error(t, err, "prefix %d: %q", n, valid[:n])
		})
	}
	bad := [][]byte{
		nil, {}, {1},
		append(bytes.Clone(valid), 0),          // 9 bytes of units
		bytes.Repeat([]byte{0xff}, 11),         // count overflows
		{0, 1, 0, 0, 0, 0, 0, 0, 0, 0},         // unknown version
		append([]byte{1, 1, 1}, "5000.001"...), // more decimals than MWK
		append([]byte{1, 1, 1}, "-5000.00"...), // volumes are never negative
		append([]byte{1, 1, 1}, "abc"...),      //
		{1, 1, 1},                              // empty text
		append([]byte{1, 1, 1}, strings.Repeat("9", money.MaxIntegerDigits+1)...), // too large
	}
	for _, v := range bad {
		require.NotPanics(t, func() {
			_, err := DecodeWindowCell(v)
			require.Error(t, err, "%q", v)
		}, "%q", v)
	}
}

// --- fuzz targets ---
//
//	go test -run XXX -fuzz FuzzDecodeIdemRecord -fuzztime 20s .

func FuzzDecodeIdemRecord(f *testing.F) {
	at := time.Date(2025, 3, 14, 9, 26, 53, 123456789, time.UTC)
	for _, body := range [][]byte{nil, []byte(`{"id":"po_1","status":"pending"}`), bytes.Repeat([]byte{0}, 40)} {
		sum := sha256.Sum256(body)
		r := IdemRecord{Status: 201, Body: body, CreatedAt: at}
		f.Add(r.EncodeV1(sum))
		r.BodySHA256 = hex.EncodeToString(sum[:])
		legacy, err := json.Marshal(r)
		require.NoError(f, err)
		f.Add(legacy)
	}
	f.Add([]byte{})
	f.Add([]byte(`{"created_at":"2025-03-14T11:26:53.5+02:00"}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := DecodeIdemRecord(v)
		if err != nil {
			return
		}
		// Re-encoding needs the digest as bytes, which is only as the
		// writers left it: lowercase hex of 32 bytes. The binary form keeps
		// only times Unix nanoseconds hold (1678 to 2262).
		sum, err := hex.DecodeString(r.BodySHA256)
		if err != nil || len(sum) != 32 || hex.EncodeToString(sum) != r.BodySHA256 {
			return
		}
		if !time.Unix(0, r.CreatedAt.UnixNano()).Equal(r.CreatedAt) {
			return
		}
		enc := (*IdemRecord).EncodeV1
		if r.Version == 2 {
			enc = (*IdemRecord).Encode
		}
		b := enc(&r, [32]byte(sum))
		r2, err := DecodeIdemRecord(b)
		require.NoError(t, err, "re-encoded %q as %q", v, b)
		requireIdemEqual(t, r, r2)
		require.Equal(t, b, enc(&r2, [32]byte(sum)), "encoding is a fixpoint")
	})
}

func FuzzDecodeWindowCell(f *testing.F) {
	huge, err := money.Parse(money.MWK, strings.Repeat("9", money.MaxIntegerDigits)+".99")
	require.NoError(f, err)
	for _, c := range []WindowCell{
		{Count: 0, Volume: money.Zero(money.MWK)},
		{Count: 1, Volume: money.FromUnits(money.MWK, 500000)},
		{Count: math.MaxUint64, Volume: money.FromUnits(money.MWK, math.MaxInt64)},
		{Count: 300, Volume: huge},
	} {
		f.Add(c.Encode())
	}
	f.Add([]byte{})
	f.Add([]byte{1, 1, '5', '.', '5'})
	f.Fuzz(func(t *testing.T, v []byte) {
		requireReencodes(t, v, DecodeWindowCell, WindowCell.Encode, requireCellEqual)
	})
}

// requireReencodes checks that what decode accepts of v encodes to bytes
// that decode to the same value and encode again to the same bytes.
func requireReencodes[T any](t *testing.T, v []byte, decode func([]byte) (T, error), encode func(T) []byte, equal func(require.TestingT, T, T)) {
	x, err := decode(v)
	if err != nil {
		return
	}
	b := encode(x)
	x2, err := decode(b)
	require.NoError(t, err, "re-encoded %q as %q", v, b)
	equal(t, x, x2)
	require.Equal(t, b, encode(x2), "encoding is a fixpoint")
}

// A window cell written as JSON by an earlier version still counts.
func TestWindowCellLegacyJSON(t *testing.T) {
	c, err := DecodeWindowCell([]byte(`{"n":3,"v":"15000.00"}`))
	require.NoError(t, err)
	require.Equal(t, uint64(3), c.Count)
	require.Equal(t, "15000.00", c.Volume.String())
}

// A binary cell whose count is 123 starts, after its version byte, with
// '{' (uvarint 123): the version byte keeps it from reading as JSON.
func TestWindowCellCountOfOpeningBrace(t *testing.T) {
	in := WindowCell{Count: '{', Volume: money.FromUnits(money.MWK, 150000)}
	out, err := DecodeWindowCell(in.Encode())
	require.NoError(t, err)
	require.Equal(t, in.Count, out.Count)
	require.True(t, in.Volume.Equal(out.Volume))
}

func requireSumEqual(t require.TestingT, want, got WindowSum) {
	require.Equal(t, want.DayFrom, got.DayFrom, "day from")
	require.Equal(t, want.HourFrom, got.HourFrom, "hour from")
	requireCellEqual(t, WindowCell{Count: want.HourCount, Volume: want.DayVolume}, WindowCell{Count: got.HourCount, Volume: got.DayVolume})
}

func TestWindowSumRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		minute := rapid.OneOf(rapid.Int64Range(0, math.MaxInt64), rapid.Int64Range(29_000_000, 30_000_000)).Draw(t, "minute")
		s := WindowSum{
			DayFrom:   minute,
			HourFrom:  rapid.Int64Range(0, math.MaxInt64).Draw(t, "hour from"),
			HourCount: rapid.OneOf(rapid.Uint64(), rapid.Uint64Range(0, 1000)).Draw(t, "count"),
			DayVolume: genWindowVolume(t),
		}
		v := s.Encode()
		got, err := DecodeWindowSum(v)
		require.NoError(t, err)
		requireSumEqual(t, s, got)
		require.Equal(t, v, got.Encode(), "re-encoding is byte for byte")
		require.Equal(t, byte(1), v[0], "version")
	})
}

func TestWindowSumCorrupt(t *testing.T) {
	valid := WindowSum{DayFrom: 29_000_000, HourFrom: 29_001_380, HourCount: 300, DayVolume: money.FromUnits(money.MWK, 500000)}.Encode()
	for n := range len(valid) {
		require.NotPanics(t, func() {
			_, err := DecodeWindowSum(valid[:n])
			require.Error(t, err, "prefix %d: %q", n, valid[:n])
		})
	}
	bad := [][]byte{
		nil, {}, {1}, {1, 1, 1, 1},
		append(bytes.Clone(valid), 0),                        // 9 bytes of units
		append([]byte{2}, valid[1:]...),                      // unknown version
		append([]byte{1}, bytes.Repeat([]byte{0xff}, 11)...), // minute overflows
		append(append([]byte{1}, binary.AppendUvarint(nil, math.MaxUint64)...), 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), // beyond int64
		append([]byte{1, 1, 1, 1, 1}, "-5000.00"...),                                                             // never negative
		append([]byte{1, 1, 1, 1, 2}, "5000.00"...),                                                              // unknown volume kind
	}
	for _, v := range bad {
		require.NotPanics(t, func() {
			_, err := DecodeWindowSum(v)
			require.Error(t, err, "%q", v)
		}, "%q", v)
	}
}

func FuzzDecodeWindowSum(f *testing.F) {
	f.Add(WindowSum{DayFrom: 29_000_000, HourFrom: 29_001_380, HourCount: 3, DayVolume: money.FromUnits(money.MWK, 500000)}.Encode())
	f.Add([]byte{1, 1, 1, 1, 1, '5', '.', '5'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		requireReencodes(t, v, DecodeWindowSum, WindowSum.Encode, requireSumEqual)
	})
}
