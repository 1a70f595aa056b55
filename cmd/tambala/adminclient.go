package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tambalapay/tambala/wire"
)

// adminOptions are the flags of every command that talks to a running
// server's admin API.
type adminOptions struct {
	url   string // -admin-url
	token string // -admin-token
	data  string // -data, where DATA/admin-token is read when no token is given
	json  bool   // -json: print the API's JSON instead of a table
}

// adminFlags declares the admin API's flags on fs, defaulting from the
// environment: TAMBALA_ADMIN_URL (else http:// and TAMBALA_ADMIN_ADDR,
// else http://127.0.0.1:8081), TAMBALA_ADMIN_TOKEN, TAMBALA_DATA.
func (c *cli) adminFlags(fs *flag.FlagSet) *adminOptions {
	o := &adminOptions{}
	defURL := c.getenv("TAMBALA_ADMIN_URL")
	if defURL == "" {
		addr := c.getenv("TAMBALA_ADMIN_ADDR")
		if addr == "" {
			addr = "127.0.0.1:8081"
		}
		defURL = "http://" + addr
	}
	defData := c.getenv("TAMBALA_DATA")
	if defData == "" {
		defData = "data"
	}
	fs.StringVar(&o.url, "admin-url", defURL, "the running server's admin API (env TAMBALA_ADMIN_URL, else http:// and TAMBALA_ADMIN_ADDR)")
	fs.StringVar(&o.token, "admin-token", "", "the admin token (env TAMBALA_ADMIN_TOKEN; default: read from DATA/admin-token)")
	fs.StringVar(&o.data, "data", defData, "the server's data folder, where the admin token is read from when none is given (env TAMBALA_DATA)")
	fs.BoolVar(&o.json, "json", false, "print the admin API's JSON answer instead of a table")
	return o
}

// adminClient calls a server's admin API with its token.
type adminClient struct {
	base  string
	token string
	http  *http.Client
	// checkOnly answers every call with errChecked (cli.checkOnly).
	checkOnly bool
}

// client makes the admin API client of the options: the token from
// -admin-token, else TAMBALA_ADMIN_TOKEN, else DATA/admin-token.
func (o *adminOptions) client(c *cli) (*adminClient, error) {
	u, err := url.Parse(o.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("-admin-url %q: want http://HOST:PORT or https://HOST", o.url)
	}
	if c.checkOnly {
		return &adminClient{base: strings.TrimSuffix(u.String(), "/"), checkOnly: true}, nil
	}
	token := o.token
	if token == "" {
		token = c.getenv("TAMBALA_ADMIN_TOKEN")
	}
	if token == "" {
		path := filepath.Join(o.data, "admin-token")
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("no admin token: give -admin-token, set TAMBALA_ADMIN_TOKEN, or run where -data names the server's data folder (%w); "+
				"a server that shares its database with another has the token only if it made it: copy the admin-token file from that server's data folder to %s", err, path)
		}
		token = strings.TrimSpace(string(b))
	}
	return &adminClient{base: strings.TrimSuffix(u.String(), "/"), token: token, http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// apiError is an error answer of the admin API: its status and the
// envelope's code and message.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("the admin API answered %d", e.Status)
	}
	return fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
}

// call sends method path with body (nil: none; else JSON-encoded) and
// returns the answer's status and body. Any status but 2xx is an
// *apiError; a 202 (an approval pending) is returned as an answer.
func (a *adminClient) call(ctx context.Context, method, path string, body any) (int, []byte, error) {
	status, _, b, err := a.exchange(ctx, method, path, body)
	return status, b, err
}

// exchange is call, also returning the answer's header.
func (a *adminClient) exchange(ctx context.Context, method, path string, body any) (int, http.Header, []byte, error) {
	if a.checkOnly {
		return 0, nil, nil, errChecked
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := a.http.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("calling the admin API at %s: %w (is the server running? -admin-url)", a.base, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return 0, nil, nil, err
	}
	if res.StatusCode/100 != 2 {
		return res.StatusCode, res.Header, b, answerError(res.StatusCode, b)
	}
	return res.StatusCode, res.Header, b, nil
}

// answerError is the *apiError of an answer with status and body b.
func answerError(status int, b []byte) *apiError {
	e := &apiError{Status: status}
	var env wire.Error
	if json.Unmarshal(b, &env) == nil {
		e.Code, e.Message = env.Error.Code, env.Error.Message
	}
	return e
}

// download GETs path, a file, and returns the answer's headers and bytes
// (at most 64 MiB); any status but 200 is an *apiError.
func (a *adminClient) download(ctx context.Context, path string) (http.Header, []byte, error) {
	status, h, b, err := a.exchange(ctx, "GET", path, nil)
	if err != nil {
		return nil, nil, err
	}
	if status != http.StatusOK {
		return nil, nil, answerError(status, b)
	}
	return h, b, nil
}

// callJSON is call, decoding a 2xx answer into out (when not nil).
func (a *adminClient) callJSON(ctx context.Context, method, path string, body, out any) (int, error) {
	status, b, err := a.call(ctx, method, path, body)
	if err != nil {
		return status, err
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return status, fmt.Errorf("reading the admin API's answer: %w", err)
		}
	}
	return status, nil
}

// printJSON writes b, the API's JSON, indented, to stdout.
func (c *cli) printJSON(b []byte) error {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		_, err = c.stdout.Write(b)
		return err
	}
	out.WriteByte('\n')
	_, err := c.stdout.Write(out.Bytes())
	return err
}

var errNoAnswer = errors.New("the admin API answered with no body")
