package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
)

// -bare serves the bare handler in process and drives it with the clients
// of a load run: every request accepted, a positive rate, no errors.
func TestBareRun(t *testing.T) {
	c := config{Bare: true, Clients: 4, N: 300, Amount: "1500.00", Rail: "momo", Timeout: 10 * time.Second}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	t.Log("\n" + report)
	require.Contains(t, field(t, report, "target"), "bare net/http")
	require.Equal(t, 300, fieldInt(t, report, "requests"))
	require.Equal(t, 300, fieldInt(t, report, "accepted"))
	require.Equal(t, "none", field(t, report, "errors"))
	rate, err := strconv.ParseFloat(field(t, report, "requests/s"), 64)
	require.NoError(t, err)
	require.Greater(t, rate, 0.0)
	for _, p := range []string{"p50", "p99", "max"} {
		require.Regexp(t, `^\d+\.\d{3} ms$`, field(t, report, "latency "+p))
	}
	require.NotContains(t, report, "balance check")
}

func TestBareRefusals(t *testing.T) {
	for _, c := range []config{
		{Bare: true, BareBaseline: true},
		{Bare: true, Hot: true, Duration: time.Second},
		{Bare: true, VerifyFile: "ids.txt", Key: "k"},
		{Bare: true, Mode: modeOrder},
	} {
		c.Clients, c.N, c.Amount, c.Rail, c.Timeout = 2, 10, "1500.00", "momo", time.Second
		require.ErrorContains(t, run(context.Background(), c, io.Discard), "-bare")
	}
}

// The bare handler answers a 202 of the same shape and size as the real
// handler's answer to the same body, for both rails.
func TestBareAnswerLikeAPayout(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	ctx := context.Background()
	org, err := s.eng.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Bare"})
	require.NoError(t, err)
	require.NoError(t, s.eng.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 1_000_000), "test"))
	key, _, err := s.eng.Operator().CreateKey(ctx, org.ID)
	require.NoError(t, err)
	amount, err := money.Parse(money.MWK, "1500.00")
	require.NoError(t, err)
	for _, rail := range []string{"momo", "bank"} {
		bare, err := startBare(rail)
		require.NoError(t, err)
		body := payoutBodies(rail, amount)[0]
		post := func(url string) (int, []byte) {
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			require.NoError(t, err)
			req.Header = http.Header{"Authorization": {"Bearer " + key}, "Idempotency-Key": {rail + "-shape"}, "Content-Type": {"application/json"}}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			return res.StatusCode, b
		}
		realStatus, real := post(s.pub.URL + "/v1/payouts/" + rail)
		bareStatus, got := post(bare.url)
		bare.close()
		require.Equal(t, http.StatusAccepted, realStatus, "%s", real)
		require.Equal(t, http.StatusAccepted, bareStatus, "%s", got)
		require.Equal(t, shape(t, real), shape(t, got), "real %s\nbare %s", real, got)
		require.Len(t, bytes.TrimSpace(got), len(bytes.TrimSpace(real)), "real %s\nbare %s", real, got)
		require.NotEmpty(t, payoutID(got))
	}
}

// shape lists the keys of a JSON object, nested ones as parent.key.
func shape(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", m)
	slices.Sort(keys)
	return keys
}

// With -bare-baseline a load run first drives the bare handler with as
// many clients for -bare-time and prints its figure and the load's ratio
// to it beside the load's own.
func TestBareBaseline(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.BareBaseline, c.BareTime = true, 300*time.Millisecond
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	t.Log("\n" + report)
	m := regexp.MustCompile(`^(\d+\.\d) req/s \(net/http \+ encoding/json, 8 clients, 300ms\)$`).FindStringSubmatch(field(t, report, "baseline bare HTTP"))
	require.NotNil(t, m, report)
	bareRate, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	require.Greater(t, bareRate, 0.0)
	ratio, err := strconv.ParseFloat(field(t, report, "accepted/s ÷ bare HTTP"), 64)
	require.NoError(t, err)
	acceptedPerSecond, err := strconv.ParseFloat(field(t, report, "accepted/s"), 64)
	require.NoError(t, err)
	require.InDelta(t, acceptedPerSecond/bareRate, ratio, 0.01)
	require.Equal(t, 200, fieldInt(t, report, "accepted"))
	require.Equal(t, "PASS", field(t, report, "balance check"))
}
