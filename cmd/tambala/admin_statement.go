package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tambalapay/tambala/wire"
)

func orgStatement(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG ASSET", "Shows the statement of the organization ORG in ASSET: every ledger movement\n"+
		"of the period in posting order, with the changes on available and held\n"+
		"and the balances after each line, between the opening and the closing\n"+
		"balance. A page at a time (-limit, -after); with -csv, every line of the\n"+
		"period as CSV on standard output (the v1 columns), streamed. -from and -to\n"+
		"take a day (2026-03-01; -to includes it) or an RFC 3339 time. Example:\n\n"+
		"  tambala org statement -from 2026-03-01 -to 2026-03-31 -csv ORG MWK > march.csv")
	from := a.fs.String("from", "", "the first `day` (or RFC 3339 time); empty: from the first line")
	to := a.fs.String("to", "", "the last `day`, included (or an RFC 3339 time, excluded); empty: up to now")
	asCSV := a.fs.Bool("csv", false, "write every line of the period as CSV")
	limit := a.fs.Int("limit", 50, "lines per page, 1 to 200")
	after := a.fs.String("after", "", "the `cursor` a previous page printed, to go on from")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	q := url.Values{"asset": {rest[1]}}
	if *from != "" {
		q.Set("from", *from)
	}
	if *to != "" {
		q.Set("to", *to)
	}
	path := "/admin/orgs/" + esc(rest[0]) + "/statement?"
	if *asCSV {
		q.Set("format", "csv")
		return a.api.stream(ctx, path+q.Encode(), c.stdout)
	}
	q.Set("limit", strconv.Itoa(*limit))
	if *after != "" {
		q.Set("before_id", *after)
	}
	var st wire.Statement
	if _, printed, err := a.do("GET", path+q.Encode(), nil, &st); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "Opening: available %s, held %s %s\n", st.Opening["available"], st.Opening["held"], st.Asset)
	tw := c.table()
	row(tw, "BOOKED", "KIND", "RESOURCE", "AVAILABLE", "HELD", "AVAILABLE AFTER", "HELD AFTER")
	for _, l := range st.Lines {
		row(tw, l.BookedAt, l.Kind, l.ResourceID, l.Available, l.Held, l.AvailableAfter, l.HeldAfter)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if st.HasMore && st.Next != nil {
		_, err = fmt.Fprintf(c.stdout, "More lines: add -after %s\n", *st.Next)
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Closing: available %s, held %s %s\n", st.Closing["available"], st.Closing["held"], st.Asset)
	return err
}

// stream GETs path and copies a 200 answer's body to w as it arrives (a
// download of any length in constant memory); any other status is an
// *apiError.
func (a *adminClient) stream(ctx context.Context, path string, w io.Writer) error {
	if a.checkOnly {
		return errChecked
	}
	req, err := http.NewRequestWithContext(ctx, "GET", a.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("calling the admin API at %s: %w (is the server running? -admin-url)", a.base, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		if err != nil {
			return err
		}
		return answerError(res.StatusCode, b)
	}
	_, err = io.Copy(w, res.Body)
	return err
}
