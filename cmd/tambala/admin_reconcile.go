package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala/wire"
)

// The reconciliation's commands: a rail's settlement file imported, and
// an import's report.

func reconcileImport(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "RAIL FILE", "Imports the settlement FILE (CSV, with a header line) of RAIL (bank, momo\n"+
		"or wallet), read with the rail's column mapping (by default the columns\n"+
		"reference, amount, currency, status, time and file_number). A file with a\n"+
		"malformed line is refused whole, naming each malformed line, and nothing\n"+
		"is kept; the same file again changes nothing. Then see its groups with\n"+
		"reconcile show ID. Example:\n\n"+
		"  tambala reconcile import momo airtel-2026-11-21.csv")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(rest[1])
	if err != nil {
		return err
	}
	body := wire.ImportSettlement{Rail: rest[0], Name: filepath.Base(rest[1]), ContentBase64: base64.StdEncoding.EncodeToString(b)}
	var out wire.SettlementImport
	if _, printed, err := a.do("POST", "/admin/settlements", body, &out); err != nil || printed {
		return err
	}
	if out.Repeated {
		_, err := fmt.Fprintf(c.stdout, "Already imported as %s (same SHA-256); nothing changed.\n", out.ID)
		return err
	}
	num := ""
	if out.FileNumber != nil {
		num = fmt.Sprintf(", file number %d", *out.FileNumber)
	}
	_, err = fmt.Fprintf(c.stdout, "Imported %s: %d lines%s. See it with: tambala reconcile show %s\n", out.ID, out.Lines, num, out.ID)
	return err
}

func reconcileShow(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Shows the import ID matched against the payouts and collections of its\n"+
		"rail as they are now: each line in one group (matched, amount_differs,\n"+
		"status_differs, file_only), the terminal payouts and collections of the\n"+
		"file's window that no line names (tambala_only), and the gaps in the\n"+
		"rail's file numbers. Example:\n\n"+
		"  tambala reconcile show ID")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.SettlementReport
	if _, printed, err := a.do("GET", "/admin/settlements/"+esc(rest[0]), nil, &out); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "File %s (%s), %d lines, imported %s by %s; window %s to %s\n", out.Import.Name, out.Import.Rail,
		out.Import.Lines, out.Import.ImportedAt, out.Import.By, out.From, out.To)
	if len(out.MissingNumbers) > 0 {
		fmt.Fprintf(c.stdout, "Missing file numbers: %s\n", ints(out.MissingNumbers))
	}
	if len(out.RepeatedNumbers) > 0 {
		fmt.Fprintf(c.stdout, "File numbers imported more than once: %s\n", ints(out.RepeatedNumbers))
	}
	tw := c.table()
	row(tw, "LINE", "GROUP", "REFERENCE", "AMOUNT", "STATUS", "IN TAMBALA", "EXPLAINED")
	for _, l := range out.Lines {
		items := strings.Join(l.Items, " ")
		if len(l.InFlight) > 0 {
			items += " (in flight: " + strings.Join(l.InFlight, " ") + ")"
		}
		explained := "-"
		if l.Explained != nil {
			explained = l.Explained.Reason
		}
		row(tw, strconv.Itoa(l.Line), l.Group, l.Reference, l.Amount+" "+l.Currency, l.Status, orDash(items), explained)
	}
	for _, m := range out.Missing {
		row(tw, "-", "tambala_only", m.ID, m.Amount+" "+m.Currency, m.Status, m.Kind, "-")
	}
	return tw.Flush()
}

func ints(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
		if n < 0 {
			s[i] = "too many to list"
		}
	}
	return strings.Join(s, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func reconcileMapping(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "RAIL", "Shows the column mapping RAIL's settlement files are read with (bank, momo\n"+
		"or wallet): the header of each column. With flags, sets it: every column\n"+
		"but the file number is then required. Example:\n\n"+
		"  tambala reconcile mapping bank -reference \"PSP Reference\" -amount Net -currency Ccy -status Type -time Booked -file-number Batch")
	m := map[string]*string{}
	for _, f := range []struct{ flag, key string }{{"reference", "reference"}, {"amount", "amount"}, {"currency", "currency"},
		{"status", "status"}, {"time", "time"}, {"file-number", "file_number"}} {
		m[f.key] = a.fs.String(f.flag, "", "the `header` of the "+strings.ReplaceAll(f.key, "_", " ")+" column")
	}
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	setting := false
	body := map[string]string{}
	for k, v := range m {
		body[k] = *v
		setting = setting || *v != ""
	}
	method, send := "GET", any(nil)
	if setting {
		method, send = "PUT", wire.SettlementColumns{Columns: body}
	}
	var out wire.SettlementColumns
	if _, printed, err := a.do(method, "/admin/settlements/mappings/"+esc(rest[0]), send, &out); err != nil || printed {
		return err
	}
	tw := c.table()
	row(tw, "COLUMN", "HEADER")
	for _, k := range []string{"reference", "amount", "currency", "status", "time", "file_number"} {
		row(tw, k, orDash(out.Columns[k]))
	}
	return tw.Flush()
}
