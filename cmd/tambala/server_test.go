package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/teststores"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is a real server (tambala serve) run in the test's process
// on loopback ports of its own, over a store of the test's own.
type testServer struct {
	Data      string // its data folder
	Store     string // its -store ("" bbolt, "pebble", or a postgres:// URL)
	PublicURL string
	AdminURL  string
	Token     string // the admin token it printed (or was given)
	DemoKey   string // the demo organization's API key, when it made one
	Out       *syncBuffer
	Log       *syncBuffer
	stop      func() int
}

// storeKinds are the stores a command that touches the store is tried on.
var storeKinds = []string{"bbolt", "pebble", "postgres"}

// storeFlag returns the -store of kind for a test: "" for bbolt, "pebble",
// or the URL of a fresh PostgreSQL schema of the test's own.
func storeFlag(t *testing.T, kind string) string {
	switch kind {
	case "bbolt":
		return ""
	case "pebble":
		return "pebble"
	case "postgres":
		return teststores.NewPGSchemaURL(t)
	}
	t.Fatalf("unknown store kind %q", kind)
	return ""
}

// startServer runs tambala serve on data (a new folder when "") over
// store with extra flags, until the test ends or Stop is called, and
// waits for it to listen. environ is the server's environment.
func startServer(t *testing.T, data, store string, extra ...string) *testServer {
	t.Helper()
	return startServerEnv(t, nil, data, store, extra...)
}

func startServerEnv(t *testing.T, environ []string, data, store string, extra ...string) *testServer {
	t.Helper()
	if data == "" {
		data = filepath.Join(t.TempDir(), "data")
	}
	s := &testServer{Data: data, Store: store, Out: &syncBuffer{}, Log: &syncBuffer{}}
	args := []string{"serve", "-data", data, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-payout-delay", "20ms", "-store", store}
	args = append(args, extra...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, environ, s.Out, s.Log) }()
	var once sync.Once
	code := 0
	s.stop = func() int {
		once.Do(func() {
			cancel()
			code = <-done
		})
		return code
	}
	t.Cleanup(func() { s.stop() })
	require.Eventually(t, func() bool {
		select {
		case c := <-done:
			done <- c
			return true
		default:
		}
		return strings.Contains(s.Out.String(), "Admin API on")
	}, 60*time.Second, 10*time.Millisecond)
	out := s.Out.String()
	require.Contains(t, out, "Admin API on", "the server did not start:\n%s\n%s", out, s.Log)
	s.PublicURL = regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out)[1]
	s.AdminURL = regexp.MustCompile(`Admin API on (http://\S+)`).FindStringSubmatch(out)[1]
	if m := regexp.MustCompile(`Admin token[^:]*:\s+(adm_\S+)`).FindStringSubmatch(out); m != nil {
		s.Token = m[1]
	}
	if m := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out); m != nil {
		s.DemoKey = m[1]
	}
	return s
}

// Stop stops the server and returns its exit status.
func (s *testServer) Stop() int { return s.stop() }

// tambala runs the command line args with environ and returns its exit
// status, stdout and stderr.
func tambala(t *testing.T, environ []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, environ, &out, &errb)
	return code, out.String(), errb.String()
}

// admin runs an admin command against s, with its admin URL and token
// given by flag (so the test's environment never matters): args are the
// command's words, then its flags and arguments.
func (s *testServer) admin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	words := commandWords(args)
	full := append(append(append([]string{}, args[:words]...), "-admin-url", s.AdminURL, "-admin-token", s.Token), args[words:]...)
	return tambala(t, nil, full...)
}

// commandWords is how many of args name the command.
func commandWords(args []string) int {
	best := 0
	for _, c := range commands() {
		w := strings.Fields(c.name)
		if len(w) <= len(args) && len(w) > best && strings.Join(w, " ") == strings.Join(args[:len(w)], " ") {
			best = len(w)
		}
	}
	return best
}
