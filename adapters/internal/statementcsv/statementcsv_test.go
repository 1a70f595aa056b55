package statementcsv_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/statementcsv"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

var t0 = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// seed makes an organization with n funding lines in MWK, the i-th of
// refs(i), posted straight into the ledger a thousand to a transaction.
func seed(t *testing.T, n int, refs func(int) string) (*tambala.Engine, string) {
	t.Helper()
	ctx := context.Background()
	s := memstore.New()
	t.Cleanup(func() { _ = s.Close() })
	e, err := tambala.New(s, &tambala.Options{Clock: func() time.Time { return t0 }})
	require.NoError(t, err)
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Statements", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpPayout}}}})
	require.NoError(t, err)
	for i := 0; i < n; {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
			for j := 0; j < 1000 && i+j < n; j++ {
				ref := refs(i + j)
				if _, err := ledger.Post(tx, ledger.Credit{EntryID: "fund:" + org.ID + ":MWK:" + ref, Org: org.ID,
					Amount: money.FromUnits(money.MWK, int64(100+i+j)), From: ledger.Float, Ref: ref, At: t0.Add(time.Duration(i+j) * time.Millisecond)}); err != nil {
					return err
				}
			}
			return nil
		}))
		i += 1000
	}
	return e, org.ID
}

func reader(e *tambala.Engine, org string) statementcsv.Reader {
	return func(ctx context.Context, page tambala.PageRequest) (tambala.Statement, error) {
		return e.Operator().BackOffice().OrgStatement(ctx, org, tambala.StatementRequest{Asset: "MWK"}, page)
	}
}

// A download's rows: the header, then each line with exact decimals; a
// text cell that starts like a formula is neutralised, a negative amount
// stays a number.
func TestWriteRowsAndNeutralisation(t *testing.T) {
	refs := []string{"=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "plain"}
	e, org := seed(t, len(refs), func(i int) string { return refs[i] })
	var buf bytes.Buffer
	require.NoError(t, statementcsv.Write(context.Background(), &buf, reader(e, org)))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, len(refs)+1)
	assert.Equal(t, statementcsv.Columns, rows[0])
	for i, ref := range refs {
		row := rows[i+1]
		want := ref
		if ref != "plain" {
			want = "'" + ref
		}
		assert.Equal(t, want, row[3], "resource_id of line %d", i)
		assert.Equal(t, "funding", row[2])
		assert.Equal(t, money.FromUnits(money.MWK, int64(100+i)).String(), row[5], "available_change is exact")
		assert.Equal(t, "0.00", row[6])
		assert.True(t, strings.HasPrefix(row[0], "fund:"), row[0])
	}
	assert.Equal(t, "-2.50", statementcsv.Amount(money.FromUnits(money.MWK, -250)), "a negative amount is written as a number")
	assert.Equal(t, "'-2.50", statementcsv.Neutral("-2.50"), "the same text in a text cell is neutralised")
}

// countingWriter counts bytes and, every sampleEvery rows' worth of
// flushes, samples the live heap after a collection.
type countingWriter struct {
	n        int64
	flushes  int
	maxLive  uint64
	baseline uint64
}

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func (w *countingWriter) Flush() {
	w.flushes++
	if w.flushes%50 == 0 { // every 10^4 lines
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > w.maxLive {
			w.maxLive = m.HeapAlloc
		}
	}
}

// A download of 10^5 lines streams in constant memory: the live heap
// sampled while it is written stays within a bound far below what the
// lines would take if held (the output alone is several megabytes), and
// the bytes allocated per line are bounded, as they are for 10^4 lines.
func TestWriteConstantMemory(t *testing.T) {
	perLine := func(n int) (allocPerLine float64, liveGrowth int64, out int64) {
		e, org := seed(t, n, func(i int) string { return fmt.Sprintf("ref-%07d", i) })
		// One page first: memstore builds its ordered index of a bucket at
		// the first scan, which is the store's memory, not the download's.
		_, err := reader(e, org)(context.Background(), tambala.PageRequest{Limit: 1})
		require.NoError(t, err)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w := &countingWriter{}
		require.NoError(t, statementcsv.Write(context.Background(), w, reader(e, org)))
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), int64(w.maxLive) - int64(before.HeapAlloc), w.n
	}
	small, _, _ := perLine(10_000)
	big, growth, out := perLine(100_000)
	t.Logf("bytes allocated per line: %.0f at 10^4 lines, %.0f at 10^5; live heap growth while writing 10^5 lines: %d bytes; output %d bytes",
		small, big, growth, out)
	require.Greater(t, out, int64(8<<20), "the output is larger than the bound below")
	assert.Less(t, growth, int64(4<<20), "the live heap while writing stays within 4 MiB of where it started")
	assert.Less(t, big, 2*small+512, "bytes allocated per line do not grow with the statement's length")
	assert.Less(t, big, float64(8<<10), "bytes allocated per line are bounded")
}

func TestNeutral(t *testing.T) {
	for in, want := range map[string]string{"": "", "a=b": "a=b", "=1": "'=1", "+1": "'+1", "-1": "'-1", "@a": "'@a", "\t": "'\t", "\r": "'\r", "payout_held": "payout_held"} {
		assert.Equal(t, want, statementcsv.Neutral(in), "%q", in)
	}
}

// Records end with CRLF (RFC 4180); a field with a comma, a quote or a
// line break is quoted, its bytes kept as they are.
func TestWriteRFC4180(t *testing.T) {
	e, org := seed(t, 1, func(int) string { return "a,\"b\"\nc" })
	var buf bytes.Buffer
	require.NoError(t, statementcsv.Write(context.Background(), &buf, reader(e, org)))
	out := buf.String()
	assert.True(t, strings.HasPrefix(out, strings.Join(statementcsv.Columns, ",")+"\r\n"), out)
	assert.Contains(t, out, `,"a,""b""`+"\nc\",MWK,1.00,0.00,1.00,0.00\r\n")
}
