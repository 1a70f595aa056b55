package ledger

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
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

// The binary records of codec.go, held to three properties: what the
// writers encode decodes to an equal value, the JSON of earlier versions
// still decodes, and damaged input is an error, never a panic.

var (
	codecETH = money.Asset{Code: "ETH", Decimals: 18}
	codecJPY = money.Asset{Code: "JPY", Decimals: 0}
	// codecAssets covers 2, 6, 18 and 0 decimals.
	codecAssets = []money.Asset{money.MWK, money.USDT, codecETH, codecJPY}
	// codecNames are the strings reader.name shares instead of allocating.
	codecNames = []string{
		"", "MWK", "USDT",
		string(Available), string(Held), string(Shortfall), string(Float),
		string(Provider), string(Fees), string(Desk), string(External),
		string(KindCredit), string(KindHold), string(KindRelease), string(KindCapture),
		string(KindReverse), string(KindConvert), string(KindCharge),
	}
)

// --- generators ---

// genCodecString draws a valid UTF-8 string: empty, short, one of the
// shared names, or (when long) hundreds of runes.
func genCodecString(t *rapid.T, label string, long bool) string {
	gens := []*rapid.Generator[string]{
		rapid.Just(""),
		rapid.String(),
		rapid.SampledFrom(codecNames),
		rapid.StringMatching(`[a-z]{2,4}_[0-9A-Za-z]{8,26}`),
	}
	if long {
		gens = append(gens, rapid.StringN(200, 1500, -1))
	}
	return rapid.OneOf(gens...).Draw(t, label)
}

// genCodecUnits draws minor units: small, any int64, at the int64 edges, or
// beyond int64 with at most money.MaxIntegerDigits integer digits at dec
// decimals. When signed is false the result is not negative.
func genCodecUnits(t *rapid.T, label string, dec int32, signed bool) *big.Int {
	var u *big.Int
	switch rapid.IntRange(0, 3).Draw(t, label+"_kind") {
	case 0:
		u = big.NewInt(rapid.Int64Range(-1_000_000_00, 1_000_000_00).Draw(t, label+"_small"))
	case 1:
		u = big.NewInt(rapid.Int64().Draw(t, label+"_int64"))
	case 2:
		u = big.NewInt(math.MaxInt64)
		if rapid.Bool().Draw(t, label+"_min") {
			u = big.NewInt(math.MinInt64)
		}
		u.Add(u, big.NewInt(rapid.Int64Range(-3, 3).Draw(t, label+"_off")))
	default:
		// 19 .. MaxIntegerDigits+dec digits, forced beyond int64.
		n := rapid.IntRange(19, money.MaxIntegerDigits+int(dec)).Draw(t, label+"_digits")
		var s strings.Builder
		s.WriteByte(byte('1' + rapid.IntRange(0, 8).Draw(t, label+"_lead")))
		for range n - 1 {
			s.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, label+"_digit")))
		}
		u, _ = new(big.Int).SetString(s.String(), 10)
		if u.IsInt64() {
			u.Add(u, new(big.Int).Lsh(big.NewInt(1), 63))
		}
		if rapid.Bool().Draw(t, label+"_neg") {
			u.Neg(u)
		}
	}
	if !signed {
		u.Abs(u)
	}
	return u
}

// codecAmount is units minor units of asset, parsed from the text an
// earlier version stored.
func codecAmount(t require.TestingT, asset money.Asset, units *big.Int) money.Amount {
	text := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(units), -asset.Decimals).Text('f')
	a, err := money.ParseSigned(asset, text)
	require.NoError(t, err, "ParseSigned(%q)", text)
	require.Equal(t, text, a.String())
	_, fits := a.Units()
	require.Equal(t, units.IsInt64(), fits, "%s: integer form iff the units fit an int64", text)
	return a
}

func genCodecAmount(t *rapid.T, label string, signed bool) money.Amount {
	asset := rapid.SampledFrom(codecAssets).Draw(t, label+"_asset")
	return codecAmount(t, asset, genCodecUnits(t, label, asset.Decimals, signed))
}

var codecZones = []*time.Location{time.UTC, time.FixedZone("CAT", 2*3600), time.FixedZone("odd", -(9*3600 + 30*60))}

// genCodecTime draws an instant with nanoseconds: about now, before 1970,
// after 2262 (beyond int64 Unix nanoseconds), or, unless legacy, anywhere
// within ±2^50 seconds. legacy keeps to the years JSON can write (1..9999).
func genCodecTime(t *rapid.T, label string, legacy bool) time.Time {
	const year1, year9999 = -62135596800, 253402300799
	kinds := 4
	if legacy {
		kinds = 3
	}
	var sec int64
	switch rapid.IntRange(0, kinds).Draw(t, label+"_kind") {
	case 0:
		sec = rapid.Int64Range(1_600_000_000, 2_000_000_000).Draw(t, label+"_now")
	case 1:
		sec = rapid.Int64Range(year1, -1).Draw(t, label+"_before1970")
	case 2:
		sec = rapid.Int64Range(9_223_372_037, year9999).Draw(t, label+"_after2262")
	case 3:
		return time.Time{}
	default:
		sec = rapid.Int64Range(-1<<50, 1<<50).Draw(t, label+"_any")
	}
	nsec := rapid.Int64Range(0, 999_999_999).Draw(t, label+"_nsec")
	return time.Unix(sec, nsec).In(rapid.SampledFrom(codecZones).Draw(t, label+"_zone"))
}

func genCodecHold(t *rapid.T, long bool) Hold {
	return Hold{
		ID:       genCodecString(t, "id", long),
		Org:      genCodecString(t, "org", long),
		Amount:   genCodecAmount(t, "amount", false),
		Ref:      genCodecString(t, "ref", long),
		Open:     rapid.Bool().Draw(t, "open"),
		OpenedBy: genCodecString(t, "openedBy", long),
		ClosedBy: genCodecString(t, "closedBy", long),
	}
}

func genCodecEntry(t *rapid.T, long, legacy bool) Entry {
	e := Entry{
		ID:       genCodecString(t, "id", long),
		Kind:     Kind(genCodecString(t, "kind", long)),
		Ref:      genCodecString(t, "ref", long),
		HoldID:   genCodecString(t, "holdID", long),
		Reverses: genCodecString(t, "reverses", long),
		At:       genCodecTime(t, "at", legacy),
		Digest:   genCodecString(t, "digest", long),
	}
	n := rapid.IntRange(0, 6).Draw(t, "postings")
	for i := range n {
		l := fmt.Sprintf("p%d", i)
		a := genCodecAmount(t, l+"_amount", true)
		e.Postings = append(e.Postings, Posting{
			Account: Account{Owner: genCodecString(t, l+"_owner", long), Bucket: Bucket(genCodecString(t, l+"_bucket", long)), Asset: a.Asset()},
			Amount:  a,
		})
	}
	return e
}

// --- comparisons ---

func requireAmountEqual(t require.TestingT, want, got money.Amount, what string) {
	require.Equal(t, want.Asset(), got.Asset(), "%s asset", what)
	require.True(t, want.Equal(got), "%s: want %s, got %s", what, want, got)
	require.Equal(t, want.String(), got.String(), "%s text", what)
	wu, wfits := want.Units()
	gu, gfits := got.Units()
	require.Equal(t, wfits, gfits, "%s %s: integer form", what, want)
	require.Equal(t, wu, gu, "%s %s: units", what, want)
}

func requireHoldEqual(t require.TestingT, want, got Hold) {
	require.Equal(t, want.ID, got.ID, "ID")
	require.Equal(t, want.Org, got.Org, "Org")
	requireAmountEqual(t, want.Amount, got.Amount, "Amount")
	require.Equal(t, want.Ref, got.Ref, "Ref")
	require.Equal(t, want.Open, got.Open, "Open")
	require.Equal(t, want.OpenedBy, got.OpenedBy, "OpenedBy")
	require.Equal(t, want.ClosedBy, got.ClosedBy, "ClosedBy")
}

func requireEntryEqual(t require.TestingT, want, got Entry) {
	require.Equal(t, want.ID, got.ID, "ID")
	require.Equal(t, want.Kind, got.Kind, "Kind")
	require.Equal(t, want.Ref, got.Ref, "Ref")
	require.Equal(t, want.HoldID, got.HoldID, "HoldID")
	require.Equal(t, want.Reverses, got.Reverses, "Reverses")
	require.True(t, want.At.Equal(got.At), "At: want %s, got %s", want.At, got.At)
	require.Equal(t, want.Digest, got.Digest, "Digest")
	require.Len(t, got.Postings, len(want.Postings), "postings")
	for i, p := range want.Postings {
		q := got.Postings[i]
		require.Equal(t, p.Account, q.Account, "posting %d account", i)
		requireAmountEqual(t, p.Amount, q.Amount, fmt.Sprintf("posting %d", i))
	}
}

// --- the JSON writers of earlier versions, as they were ---

func legacyAmount(a money.Amount) wireAmount {
	return wireAmount{Asset: string(a.Asset().Code), Decimals: a.Asset().Decimals, Value: a.String()}
}

func legacyHoldJSON(t require.TestingT, h Hold) []byte {
	b, err := json.Marshal(wireHold{ID: h.ID, Org: h.Org, Amount: legacyAmount(h.Amount), Ref: h.Ref, Open: h.Open, OpenedBy: h.OpenedBy, ClosedBy: h.ClosedBy})
	require.NoError(t, err)
	return b
}

func legacyEntryJSON(t require.TestingT, e Entry) []byte {
	w := wireEntry{ID: e.ID, Kind: e.Kind, Ref: e.Ref, HoldID: e.HoldID, Reverses: e.Reverses, At: e.At.UTC(), Digest: e.Digest}
	for _, p := range e.Postings {
		w.Postings = append(w.Postings, wirePosting{Owner: p.Account.Owner, Bucket: p.Account.Bucket, Amount: legacyAmount(p.Amount)})
	}
	b, err := json.Marshal(w)
	require.NoError(t, err)
	return b
}

// --- fixed records, also the fuzz seeds ---

func codecBig(t require.TestingT, asset money.Asset, text string) money.Amount {
	a, err := money.ParseSigned(asset, text)
	require.NoError(t, err)
	return a
}

func codecSampleHolds(t require.TestingT) []Hold {
	return []Hold{
		{ID: "hold_01J9", Org: "org_1", Amount: money.FromUnits(money.MWK, 500000), Ref: "po_1", Open: true, OpenedBy: "ent_1"},
		{ID: "h", Org: "o", Amount: money.FromUnits(money.USDT, math.MaxInt64), OpenedBy: "e1", ClosedBy: "e2"},
		{ID: "", Org: "", Amount: money.Zero(codecJPY)},
		{ID: "ĥöłd ✓", Org: strings.Repeat("org", 100), Amount: codecBig(t, codecETH, "123456789012345678901234567890.123456789012345678"), Ref: "r", Open: true},
		{ID: "big", Org: "o", Amount: codecBig(t, money.MWK, "922337203685477580.80"), Open: true, OpenedBy: "e"},
	}
}

func codecSampleEntries(t require.TestingT) []Entry {
	posting := func(owner string, b Bucket, a money.Amount) Posting {
		return Posting{Account: Account{Owner: owner, Bucket: b, Asset: a.Asset()}, Amount: a}
	}
	mwk := money.FromUnits(money.MWK, 500000)
	huge := codecBig(t, codecETH, "999999999999999999999999999999.999999999999999999")
	return []Entry{
		{ID: "ent_1", Kind: KindHold, Ref: "po_1", HoldID: "hold_1", At: time.Date(2025, 3, 14, 9, 26, 53, 123456789, time.UTC), Digest: "d1",
			Postings: []Posting{posting("org_1", Available, mwk.Neg()), posting("org_1", Held, mwk)}},
		{ID: "ent_2", Kind: KindReverse, Reverses: "ent_1", At: time.Date(1969, 7, 20, 20, 17, 40, 1, time.UTC), Digest: "",
			Postings: []Posting{posting("", External, huge.Neg()), posting("org", Available, huge)}},
		{ID: "e3", Kind: "custom kind", At: time.Date(2262, 4, 11, 23, 47, 16, 854775808, time.UTC), Digest: "x"},
		{ID: "e4", Kind: KindConvert, At: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
			Postings: []Posting{
				posting("o", Desk, money.FromUnits(money.USDT, math.MinInt64)),
				posting("o", Float, codecBig(t, money.USDT, "9223372036854.775808")),
				posting("o", Fees, money.FromUnits(codecJPY, -1)),
			}},
		{ID: "e5", Kind: KindCredit, At: time.Time{}},
	}
}

// --- round trips ---

func TestHoldRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genCodecHold(t, true)
		prefix := []byte(genCodecString(t, "prefix", false))
		b := appendHold(bytes.Clone(prefix), &h)
		require.Equal(t, prefix, b[:len(prefix)], "append keeps what the buffer held")
		got, err := decodeHold(b[len(prefix):])
		require.NoError(t, err)
		requireHoldEqual(t, h, got)
		require.Equal(t, b[len(prefix):], appendHold(nil, &got), "re-encoding is byte for byte")
	})
}

func TestEntryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := genCodecEntry(t, true, false)
		prefix := []byte(genCodecString(t, "prefix", false))
		b := appendEntry(bytes.Clone(prefix), &e)
		require.Equal(t, prefix, b[:len(prefix)], "append keeps what the buffer held")
		got, err := decodeEntry(b[len(prefix):])
		require.NoError(t, err)
		requireEntryEqual(t, e, got)
		require.Equal(t, time.UTC, got.At.Location(), "decoded At is UTC")
		require.Equal(t, b[len(prefix):], appendEntry(nil, &got), "re-encoding is byte for byte")
	})
}

func TestSampleRecordsRoundTrip(t *testing.T) {
	for _, h := range codecSampleHolds(t) {
		got, err := decodeHold(appendHold(nil, &h))
		require.NoError(t, err)
		requireHoldEqual(t, h, got)
	}
	for _, e := range codecSampleEntries(t) {
		got, err := decodeEntry(appendEntry(nil, &e))
		require.NoError(t, err)
		requireEntryEqual(t, e, got)
	}
}

// Decoding shares the constant names instead of allocating them, which
// must not change the values.
func TestDecodeSharesNames(t *testing.T) {
	for _, n := range codecNames {
		a := money.FromUnits(money.Asset{Code: money.AssetCode(n), Decimals: 2}, 1)
		e := Entry{ID: n, Kind: Kind(n), At: time.Unix(0, 0).UTC(),
			Postings: []Posting{{Account: Account{Owner: n, Bucket: Bucket(n), Asset: a.Asset()}, Amount: a}}}
		got, err := decodeEntry(appendEntry(nil, &e))
		require.NoError(t, err)
		requireEntryEqual(t, e, got)
	}
}

// --- balance values ---

func TestAmountValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genCodecAmount(t, "amount", true)
		asset := a.Asset()
		prefix := []byte(genCodecString(t, "prefix", false))
		b := appendAmountValue(bytes.Clone(prefix), a)
		require.Equal(t, prefix, b[:len(prefix)])
		v := b[len(prefix):]

		require.Equal(t, byte(asset.Decimals), v[0], "decimals byte")
		if u, fits := a.Units(); fits {
			require.Len(t, v, 10)
			require.Equal(t, byte(0), v[1])
			require.Equal(t, uint64(u), binary.BigEndian.Uint64(v[2:]))
		} else {
			require.Equal(t, a.String(), string(v[1:]), "beyond int64: the signed decimal text")
		}

		for _, want := range []*money.Asset{nil, &asset} {
			got, err := decodeAmountValue(string(asset.Code), v, want)
			require.NoError(t, err)
			requireAmountEqual(t, a, got, "balance")
		}

		other := asset
		other.Decimals = (asset.Decimals + 1) % (money.MaxDecimals + 1)
		_, err := decodeAmountValue(string(asset.Code), v, &other)
		require.Error(t, err, "stored decimals differ from the configured ones")
	})
}

// Balances written before the binary form are the decimals byte and the
// signed text, for every value.
func TestAmountValueLegacyText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genCodecAmount(t, "amount", true)
		v := append([]byte{byte(a.Asset().Decimals)}, a.String()...)
		asset := a.Asset()
		got, err := decodeAmountValue(string(asset.Code), v, &asset)
		require.NoError(t, err)
		requireAmountEqual(t, a, got, "legacy balance")
	})
	for _, c := range []struct {
		asset money.Asset
		v     string
		want  string
	}{
		{money.MWK, "\x025000.00", "5000.00"},
		{money.MWK, "\x02-12.34", "-12.34"},
		{money.MWK, "\x020.00", "0.00"},
		{codecJPY, "\x000", "0"},
		{codecJPY, "\x00-7", "-7"},
		{money.USDT, "\x06-0.000001", "-0.000001"},
		{money.USDT, "\x069223372036854.775808", "9223372036854.775808"},
		{money.USDT, "\x06-9223372036854.775808", "-9223372036854.775808"},
		{codecETH, "\x12999999999999999999999999999999.999999999999999999", "999999999999999999999999999999.999999999999999999"},
	} {
		got, err := decodeAmountValue(string(c.asset.Code), []byte(c.v), &c.asset)
		require.NoError(t, err, "%q", c.v)
		require.Equal(t, c.asset, got.Asset())
		require.Equal(t, c.want, got.String())
	}
}

func TestAmountValueCorrupt(t *testing.T) {
	valid := appendAmountValue(nil, money.FromUnits(money.MWK, 500000))
	bad := [][]byte{
		nil, {}, {2},
		{2, 0}, valid[:9], append(bytes.Clone(valid), 0), // units of the wrong length
		[]byte("\x02abc"), []byte("\x021.234"), []byte("\x02-"), []byte("\x02--1"), []byte("\x02+1"),
		[]byte("\x02 1"), []byte("\x021e5"), []byte("\x02" + strings.Repeat("9", money.MaxStoredIntegerDigits+1)),
	}
	for _, v := range bad {
		require.NotPanics(t, func() {
			_, err := decodeAmountValue("MWK", v, nil)
			require.Error(t, err, "%q", v)
		}, "%q", v)
	}
}

// --- the JSON of earlier versions ---

func TestHoldLegacyJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genCodecHold(t, true)
		got, err := decodeHold(legacyHoldJSON(t, h))
		require.NoError(t, err)
		requireHoldEqual(t, h, got)
	})
}

func TestEntryLegacyJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := genCodecEntry(t, true, true)
		got, err := decodeEntry(legacyEntryJSON(t, e))
		require.NoError(t, err)
		requireEntryEqual(t, e, got)
	})
}

// Records exactly as an earlier version stored them, in case the wire
// types drift.
func TestLegacyJSONGolden(t *testing.T) {
	h, err := decodeHold([]byte(`{"id":"hold_1","org":"org_1","m":{"a":"MWK","d":2,"v":"5000.00"},"r":"po_1","open":true,"ob":"ent_1"}`))
	require.NoError(t, err)
	requireHoldEqual(t, Hold{ID: "hold_1", Org: "org_1", Amount: money.FromUnits(money.MWK, 500000), Ref: "po_1", Open: true, OpenedBy: "ent_1"}, h)

	e, err := decodeEntry([]byte(`{"id":"ent_2","k":"capture","h":"hold_1","at":"2025-03-14T09:26:53.123456789Z",` +
		`"p":[{"o":"org_1","b":"held","m":{"a":"MWK","d":2,"v":"-5000.00"}},{"b":"provider","m":{"a":"MWK","d":2,"v":"5000.00"}}],"dg":"abc"}`))
	require.NoError(t, err)
	mwk := money.FromUnits(money.MWK, 500000)
	requireEntryEqual(t, Entry{ID: "ent_2", Kind: KindCapture, HoldID: "hold_1", At: time.Date(2025, 3, 14, 9, 26, 53, 123456789, time.UTC), Digest: "abc",
		Postings: []Posting{
			{Account: Account{Owner: "org_1", Bucket: Held, Asset: money.MWK}, Amount: mwk.Neg()},
			{Account: Account{Bucket: Provider, Asset: money.MWK}, Amount: mwk},
		}}, e)

	for _, h := range codecSampleHolds(t) {
		got, err := decodeHold(legacyHoldJSON(t, h))
		require.NoError(t, err)
		requireHoldEqual(t, h, got)
	}
	for _, e := range codecSampleEntries(t) {
		got, err := decodeEntry(legacyEntryJSON(t, e))
		require.NoError(t, err)
		requireEntryEqual(t, e, got)
	}
}

// --- damaged input ---

func requireHoldError(t require.TestingT, v []byte, what string) {
	require.NotPanics(t, func() {
		_, err := decodeHold(v)
		require.Error(t, err, "%s: %q", what, v)
	}, "%s: %q", what, v)
}

func requireEntryError(t require.TestingT, v []byte, what string) {
	require.NotPanics(t, func() {
		_, err := decodeEntry(v)
		require.Error(t, err, "%s: %q", what, v)
	}, "%s: %q", what, v)
}

func requireEveryPrefixFails(t require.TestingT, v []byte, decode func([]byte) error) {
	for n := range len(v) {
		require.NotPanics(t, func() {
			require.Error(t, decode(v[:n]), "prefix %d of %d: %q", n, len(v), v[:n])
		}, "prefix %d of %d: %q", n, len(v), v[:n])
	}
}

func holdErr(v []byte) error  { _, err := decodeHold(v); return err }
func entryErr(v []byte) error { _, err := decodeEntry(v); return err }

func TestHoldCorrupt(t *testing.T) {
	for _, h := range codecSampleHolds(t) {
		v := appendHold(nil, &h)
		requireEveryPrefixFails(t, v, holdErr)
		for _, version := range []byte{0x00, 0x02, 0x7f, 0xff} {
			w := bytes.Clone(v)
			w[0] = version
			requireHoldError(t, w, "version")
		}
		requireHoldError(t, append(bytes.Clone(v), 0), "trailing byte")
		requireHoldError(t, append(bytes.Clone(v), v...), "trailing record")
	}
	rapid.Check(t, func(t *rapid.T) {
		h := genCodecHold(t, false)
		requireEveryPrefixFails(t, appendHold(nil, &h), holdErr)
	})

	// A bad amount tag, and an amount text that does not parse.
	tag := append([]byte{recordV1}, 0, 0) // id, org
	tag = appendString(tag, "MWK")
	tag = append(tag, 2)
	requireHoldError(t, append(bytes.Clone(tag), 2, 0, 0, 0, 0, 0), "amount tag 2")
	requireHoldError(t, append(appendString(append(bytes.Clone(tag), 1), "12.345"), 0, 0, 0, 0), "amount text")
	requireHoldError(t, append(appendString(append(bytes.Clone(tag), 1), "abc"), 0, 0, 0, 0), "amount text")
	// A string longer than the record.
	requireHoldError(t, []byte{recordV1, 0x7f, 'a'}, "string length")
	requireHoldError(t, append([]byte{recordV1}, bytes.Repeat([]byte{0xff}, 11)...), "varint overflow")

	for _, v := range []string{"{", "{}", `{"m":{"a":"MWK","d":2,"v":"abc"}}`, `{"m":{"a":"MWK","d":2,"v":"1.234"}}`, `{"id":1}`, `{"m":{}} x`} {
		requireHoldError(t, []byte(v), "json")
	}
}

func TestEntryCorrupt(t *testing.T) {
	for _, e := range codecSampleEntries(t) {
		v := appendEntry(nil, &e)
		requireEveryPrefixFails(t, v, entryErr)
		for _, version := range []byte{0x00, 0x02, 0x7f, 0xff} {
			w := bytes.Clone(v)
			w[0] = version
			requireEntryError(t, w, "version")
		}
		requireEntryError(t, append(bytes.Clone(v), 0), "trailing byte")
		requireEntryError(t, append(bytes.Clone(v), v...), "trailing record")
	}
	rapid.Check(t, func(t *rapid.T) {
		e := genCodecEntry(t, false, false)
		requireEveryPrefixFails(t, appendEntry(nil, &e), entryErr)
	})

	// An entry up to its posting count, which the cases supply.
	head := func(nanos uint64) []byte {
		b := append([]byte{recordV1}, 0, 0, 0, 0, 0) // id kind ref holdID reverses
		b = binary.AppendVarint(b, 1_700_000_000)
		b = binary.AppendUvarint(b, nanos)
		return appendString(b, "digest")
	}
	ok := binary.AppendUvarint(head(999_999_999), 0)
	_, err := decodeEntry(ok)
	require.NoError(t, err, "the hand-built record is valid")

	requireEntryError(t, binary.AppendUvarint(head(1_000_000_000), 0), "nanoseconds")
	requireEntryError(t, binary.AppendUvarint(head(math.MaxUint64), 0), "nanoseconds")
	for _, n := range []uint64{1, 2, 100, math.MaxInt16, math.MaxInt16 + 1, 1 << 31, 1 << 40, math.MaxUint64} {
		requireEntryError(t, binary.AppendUvarint(head(0), n), fmt.Sprintf("posting count %d", n))
		// With room for a few postings, still fewer than counted.
		padded := binary.AppendUvarint(head(0), n)
		for range 3 {
			padded = appendString(padded, "o")
			padded = appendString(padded, "available")
			padded = appendAmount(padded, money.FromUnits(money.MWK, 1))
		}
		if n != 3 {
			requireEntryError(t, padded, fmt.Sprintf("posting count %d with 3 postings", n))
		}
	}
	requireEntryError(t, append(head(0), bytes.Repeat([]byte{0xff}, 11)...), "posting count overflows")

	for _, v := range []string{"{", "{}x", `{"at":"yesterday"}`, `{"p":[{"m":{"a":"MWK","d":2,"v":"x"}}]}`, `{"p":{}}`} {
		requireEntryError(t, []byte(v), "json")
	}
}

// A stored asset's decimals come from the record: one byte in the binary
// form, an int32 in the JSON one. Values no writer produces (beyond
// money.MaxDecimals, or negative) must be an error like any other damage,
// not a panic.
func TestDecodeRejectsDecimalsBeyondMax(t *testing.T) {
	amountText := func(dec byte, text string) []byte {
		b := appendString(nil, "MWK")
		b = append(b, dec, 1)
		return appendString(b, text)
	}
	for _, dec := range []byte{money.MaxDecimals + 1, 40, 200, 255} {
		for _, text := range []string{"1", "1.5", "-1", strings.Repeat("9", 30)} {
			v := append([]byte{dec}, text...)
			require.NotPanics(t, func() {
				_, err := decodeAmountValue("MWK", v, nil)
				require.Error(t, err)
			}, "balance %q", v)

			hold := append([]byte{recordV1}, 0, 0)
			hold = append(hold, amountText(dec, text)...)
			hold = append(hold, 0, 0, 0, 0)
			requireHoldError(t, hold, "hold decimals")

			entry := append([]byte{recordV1}, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)
			entry = append(entry, amountText(dec, text)...)
			requireEntryError(t, entry, "entry decimals")

			requireHoldError(t, fmt.Appendf(nil, `{"m":{"a":"MWK","d":%d,"v":%q}}`, dec, text), "JSON hold decimals")
			requireEntryError(t, fmt.Appendf(nil, `{"p":[{"m":{"a":"MWK","d":%d,"v":%q}}]}`, dec, text), "JSON entry decimals")
		}
	}
	for _, dec := range []int64{-1, math.MinInt32, math.MaxInt32} {
		requireHoldError(t, fmt.Appendf(nil, `{"m":{"a":"MWK","d":%d,"v":"1"}}`, dec), "JSON hold decimals")
	}
}
