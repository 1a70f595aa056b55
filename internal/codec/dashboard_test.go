package codec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The dashboard's records are written without reflection; these hold the
// bytes to encoding/json's, and DecodeCountRecord to json.Unmarshal's
// answer for any input.

func TestDayCloseRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := DayCloseRecord{Available: rapid.OneOf(rapid.StringMatching(`-?[0-9]{1,20}\.[0-9]{2}`), rapid.String()).Draw(t, "available")}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := r.AppendJSON([]byte("prefix"))
		require.NoError(t, err)
		require.Equal(t, "prefix"+string(want), string(got))
	})
}

func TestCountRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := CountRecord{N: rapid.Int64().Draw(t, "n")}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := r.AppendJSON(nil)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		back, err := DecodeCountRecord(got)
		require.NoError(t, err)
		require.Equal(t, r, back)
	})
}

// DecodeCountRecord answers every input as json.Unmarshal does: the
// canonical bytes it reads itself, the rest (spacing, other fields,
// leading zeros, overflow, damage) it hands to encoding/json.
func TestDecodeCountRecordAnswersAsUnmarshal(t *testing.T) {
	cases := []string{
		`{"n":0}`, `{"n":-0}`, `{"n":007}`, `{"n":-}`, `{"n":}`, `{"n":1.5}`, `{"n":1e3}`,
		`{"n":9223372036854775807}`, `{"n":9223372036854775808}`, `{"n":-9223372036854775808}`,
		`{"n":-9223372036854775809}`, `{"n": 3}`, `{"N":4}`, `{"n":5,"x":1}`, `{"n":null}`,
		`{"n":"6"}`, `{"n":12}}`, `{"n":1`, `{}`, `null`, ``, `{"n":+1}`, `{"n":0x1}`,
	}
	check := func(t require.TestingT, in []byte) {
		var want CountRecord
		wantErr := json.Unmarshal(in, &want)
		got, err := DecodeCountRecord(in)
		if wantErr != nil {
			require.Error(t, err, "%q", in)
			return
		}
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, got, "%q", in)
	}
	for _, c := range cases {
		check(t, []byte(c))
	}
	rapid.Check(t, func(t *rapid.T) {
		in := rapid.OneOf(
			rapid.Map(rapid.StringMatching(`\{"n":-?[0-9]{0,21}\}`), func(s string) []byte { return []byte(s) }),
			rapid.SliceOf(rapid.Byte()),
		).Draw(t, "in")
		check(t, in)
	})
}
