package tambala_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
)

// peakRSS is the process's peak resident set (VmHWM), in bytes; 0 where
// /proc is not there.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// BenchmarkSignInFlood200 is #33's measurement: 200 sign-ins at once,
// unknown emails from one address, at accounts.DefaultParams, through the
// engine with its default options, while another organization's
// authenticated balance read (what /v1 does) runs in a loop. It reports
// the process's peak RSS and the peak heap (sampled), and that read's
// median, 99th percentile and slowest during the flood against the same reads
// with no flood. Run it alone, in a process of its own, once:
// go test -run '^$' -bench BenchmarkSignInFlood200 -benchtime 1x .
func BenchmarkSignInFlood200(b *testing.B) {
	s := memstore.New()
	defer s.Close()
	e, err := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.DefaultParams}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Other Ltd"})
	if err != nil {
		b.Fatal(err)
	}
	key, _, err := e.Operator().CreateKey(ctx, org.ID)
	if err != nil {
		b.Fatal(err)
	}
	call := func() time.Duration {
		start := time.Now()
		p, err := e.Authenticate(ctx, key)
		if err == nil {
			_, err = e.Client(p).V1().Balance(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	quantiles := func(d []time.Duration) (time.Duration, time.Duration, time.Duration) {
		slices.Sort(d)
		return d[len(d)/2], d[len(d)*99/100], d[len(d)-1]
	}
	idle := make([]time.Duration, 2000)
	for i := range idle {
		idle[i] = call()
	}

	runtime.GC()
	rssBefore := peakRSS()
	var maxHeap uint64
	stop := make(chan struct{})
	var side sync.WaitGroup
	side.Go(func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			maxHeap = max(maxHeap, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			default:
				time.Sleep(100 * time.Microsecond)
			}
		}
	})
	var flood []time.Duration
	side.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				flood = append(flood, call())
			}
		}
	})
	from := tambala.WithRequestInfo(ctx, tambala.RequestInfo{Address: netip.MustParseAddr("203.0.113.9")})
	started := time.Now()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			_, _ = e.Sessions().SignIn(from, fmt.Sprintf("guess%d@example.net", i), "wrong password here")
		})
	}
	wg.Wait()
	took := time.Since(started)
	close(stop)
	side.Wait()

	i50, i99, imax := quantiles(idle)
	f50, f99, fmax := quantiles(flood)
	b.ReportMetric(float64(rssBefore>>20), "rss_before_MiB")
	b.ReportMetric(float64(peakRSS()>>20), "peak_rss_MiB")
	b.ReportMetric(float64(maxHeap>>20), "peak_heap_MiB")
	b.ReportMetric(float64(took.Milliseconds()), "flood_ms")
	b.ReportMetric(float64(i50.Microseconds()), "api_p50_idle_us")
	b.ReportMetric(float64(f50.Microseconds()), "api_p50_flood_us")
	b.ReportMetric(float64(i99.Microseconds()), "api_p99_idle_us")
	b.ReportMetric(float64(f99.Microseconds()), "api_p99_flood_us")
	b.ReportMetric(float64(imax.Microseconds()), "api_max_idle_us")
	b.ReportMetric(float64(fmax.Microseconds()), "api_max_flood_us")
}
