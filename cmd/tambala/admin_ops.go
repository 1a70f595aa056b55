package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/tambalapay/tambala/wire"
)

func partyString(p *wire.Party) string {
	switch {
	case p == nil:
		return "-"
	case p.Email != nil:
		return *p.Email
	}
	return p.Kind
}

func fund(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG AMOUNT ASSET", "Credits AMOUNT of ASSET (the money received, such as 5000.00 MWK) to the\n"+
		"balance of the organization ORG, under the reference -ref: the same\n"+
		"reference again credits nothing more, and says it was already credited\n"+
		"(exit status 0). Above the asset's approval threshold\n"+
		"nothing moves yet: the funding waits for a staff member's approval in the\n"+
		"console, and the command prints the approval's id (exit status 0). Example:\n\n"+
		"  tambala fund -ref wire-2026-001 ORG 5000.00 MWK")
	ref := a.fs.String("ref", "", "the funding's `reference` (the bank transfer's, for instance), required: it makes a repeated funding credit once")
	rest, err := a.parse(args, 3, 3)
	if err != nil {
		return err
	}
	if *ref == "" {
		return usagef("-ref is required: the funding's reference (a repeated funding with it credits once)")
	}
	org, amount, asset := rest[0], rest[1], rest[2]
	var out wire.Funding
	status, printed, err := a.do("POST", "/admin/orgs/"+esc(org)+"/funding", wire.Fund{Asset: asset, Amount: amount, Ref: *ref}, &out)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && out.Approval != nil {
		ap := out.Approval
		_, err := fmt.Fprintf(c.stdout, "Approval pending: funding %s %s to %s (ref %s) is above the %s approval threshold.\n"+
			"Nothing is credited until a staff member with the %s role approves it in the console.\n"+
			"Approval: %s\n", ap.Amount, ap.Asset, ap.Org, ap.Details["ref"], ap.Asset, ap.Role, ap.ID)
		return err
	}
	if a.replayed {
		_, err = fmt.Fprintf(c.stdout, "Already credited under this reference: %s %s to %s (ref %s); nothing more was credited.\n", out.Amount, out.Asset, out.Org, out.Ref)
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Credited %s %s to %s (ref %s).\n", out.Amount, out.Asset, out.Org, out.Ref)
	return err
}

func (c *cli) printCorridors(cs []wire.Corridor) error {
	if len(cs) == 0 {
		_, err := c.println("No corridors.")
		return err
	}
	tw := c.table()
	row(tw, "ASSET", "RATE OFF-RAMP", "RATE ON-RAMP", "MIN", "MAX", "OPEN")
	for _, k := range cs {
		row(tw, k.Asset, optStr(k.RateOffRamp), optStr(k.RateOnRamp), k.Min, optStr(k.Max), strconv.FormatBool(k.Open))
	}
	return tw.Flush()
}

func corridorList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the /v2 order corridors: per asset, the off-ramp rate (to-bank, the\n"+
		"asset sold for MWK) and the on-ramp rate (from-bank), in MWK per unit,\n"+
		"the bounds of an order in the asset, and whether the corridor is open.")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	var out wire.Corridors
	if _, printed, err := a.do("GET", "/admin/corridors", nil, &out); err != nil || printed {
		return err
	}
	return c.printCorridors(out.Corridors)
}

func corridorSet(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ASSET", "Sets the /v2 order corridor of ASSET: the flags given change, the rest\n"+
		"keep the corridor's current values (a new corridor: no rates, closed, and\n"+
		"-min is required). \"none\" removes a rate (closing that direction) or the\n"+
		"maximum. Prints the corridor. Example:\n\n"+
		"  tambala corridor set -rate-off-ramp 1750.5 -rate-on-ramp 1800 -min 1000.00 -open MWK")
	offRamp := a.fs.String("rate-off-ramp", "", "the to-bank `rate` (MWK per unit of the asset), or none")
	onRamp := a.fs.String("rate-on-ramp", "", "the from-bank `rate` (MWK per unit of the asset), or none")
	minimum := a.fs.String("min", "", "an order's minimum `amount`")
	maximum := a.fs.String("max", "", "an order's maximum `amount`, or none")
	open := a.fs.Bool("open", false, "open the corridor to new orders (-open=false closes it)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	asset := rest[0]
	if !slices.ContainsFunc([]string{"rate-off-ramp", "rate-on-ramp", "min", "max", "open"}, a.set) {
		return usagef("nothing to set: give -rate-off-ramp, -rate-on-ramp, -min, -max or -open (run with -h)")
	}
	// The route replaces the whole corridor: start from the current one.
	var list wire.Corridors
	if _, err := a.api.callJSON(ctx, "GET", "/admin/corridors", nil, &list); err != nil {
		return err
	}
	closed := false
	body := wire.CorridorUpdate{RateOffRamp: wire.Text(nil), RateOnRamp: wire.Text(nil), Open: &closed}
	for _, k := range list.Corridors {
		if k.Asset == asset {
			body = wire.CorridorUpdate{RateOffRamp: wire.Text(k.RateOffRamp), RateOnRamp: wire.Text(k.RateOnRamp),
				Min: wire.Text(&k.Min), Max: wire.Text(k.Max), Open: &k.Open}
		}
	}
	if a.set("rate-off-ramp") {
		body.RateOffRamp = wire.Text(nullable(*offRamp))
	}
	if a.set("rate-on-ramp") {
		body.RateOnRamp = wire.Text(nullable(*onRamp))
	}
	if a.set("min") {
		body.Min = wire.Text(minimum)
	}
	if a.set("max") {
		body.Max = wire.Text(nullable(*maximum))
	}
	if a.set("open") {
		body.Open = open
	}
	if body.Min == nil {
		return usagef("%s has no corridor yet: -min is required", asset)
	}
	var out wire.Corridors
	if _, printed, err := a.do("PUT", "/admin/corridors/"+esc(asset), body, &out); err != nil || printed {
		return err
	}
	return c.printCorridors(out.Corridors)
}

func webhookSet(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG URL", "Sets the webhook endpoint of the organization ORG to URL, with a new\n"+
		"signing secret, and prints the secret: shown this once, give it to the\n"+
		"receiver to check each event's signature.")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var ep wire.Endpoint
	if _, printed, err := a.do("PUT", "/admin/orgs/"+esc(rest[0])+"/webhook", wire.SetWebhook{URL: rest[1]}, &ep); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "Signing secret (shown once, store it now): %s\n\n", ep.Secret)
	tw := c.table()
	row(tw, "URL", ep.URL)
	row(tw, "Secret ID", ep.SecretID)
	row(tw, "Created", ep.CreatedAt)
	return tw.Flush()
}

func pause(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "With no flags, shows the pause switches: each API (/v1, /v2) is live,\n"+
		"or paused for maintenance or an incident (its calls answer 503). With\n"+
		"-v1 or -v2, sets that switch, then shows both. Example:\n\n"+
		"  tambala pause -v2 maintenance")
	v1 := a.fs.String("v1", "", "set /v1 to `mode`: live, maintenance or incident")
	v2 := a.fs.String("v2", "", "set /v2 to `mode`: live, maintenance or incident")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	var err error
	var state wire.Pause
	var b []byte
	get := true
	for _, s := range []struct{ api, mode string }{{"v1", *v1}, {"v2", *v2}} {
		if !a.set(s.api) {
			continue
		}
		if s.mode == "" {
			return usagef("-%s: want live, maintenance or incident", s.api)
		}
		get = false
		if _, b, err = a.api.call(ctx, "PUT", "/admin/pause", wire.SetPause{API: s.api, Mode: s.mode}); err != nil {
			return err
		}
	}
	if get {
		if _, b, err = a.api.call(ctx, "GET", "/admin/pause", nil); err != nil {
			return err
		}
	}
	if a.opts.json {
		return c.printJSON(b)
	}
	if err := jsonUnmarshal(b, &state); err != nil {
		return err
	}
	tw := c.table()
	row(tw, "API", "MODE")
	row(tw, "v1", state.V1)
	row(tw, "v2", state.V2)
	return tw.Flush()
}

func approvalsList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the approvals, newest first: an operator's move above its asset's\n"+
		"threshold (a funding, a deposit recorded by hand, a refund returned) that\n"+
		"waits for a staff member with the role to approve it in the console.")
	status := a.fs.String("status", "", "only the approvals in `status`: pending, approved or rejected (default: all)")
	limit := a.fs.Int("limit", 0, "at most `n` approvals (default: the server's page size)")
	before := a.fs.String("before", "", "the page older than the approval `id` (as the last page's end says)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	q := url.Values{}
	if *status != "" {
		q.Set("status", *status)
	}
	if *limit != 0 {
		q.Set("limit", strconv.Itoa(*limit))
	}
	if *before != "" {
		q.Set("before_id", *before)
	}
	path := "/admin/approvals"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out wire.Approvals
	if _, printed, err := a.do("GET", path, nil, &out); err != nil || printed {
		return err
	}
	if len(out.Approvals) == 0 {
		_, err := c.println("No approvals.")
		return err
	}
	tw := c.table()
	row(tw, "ID", "KIND", "ORG", "AMOUNT", "ASSET", "ROLE", "STATUS", "REQUESTED BY", "REQUESTED")
	for _, ap := range out.Approvals {
		row(tw, ap.ID, ap.Kind, orNone(ap.Org), ap.Amount, ap.Asset, ap.Role, ap.Status, partyString(ap.RequestedBy), ap.RequestedAt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if out.HasMore && out.NextBeforeID != nil {
		_, err := fmt.Fprintf(c.stdout, "More: run again with -before %s\n", *out.NextBeforeID)
		return err
	}
	return nil
}

func approvalsThreshold(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "[ASSET [AMOUNT|none]]", "With no arguments, lists the approval thresholds: an operator's move that\n"+
		"credits an organization (a funding, a deposit or collection recorded by\n"+
		"hand, an OTC trade, a refund returned, a payout failed or clawed back)\n"+
		"above its asset's threshold waits for a staff member's approval. With\n"+
		"ASSET, shows that asset's; with ASSET and AMOUNT, sets it (none removes\n"+
		"it). Once there are staff, removing or raising a threshold waits for a\n"+
		"staff member's approval too: the command prints the approval's id. Example:\n\n"+
		"  tambala approvals threshold MWK 1000000.00")
	rest, err := a.parse(args, 0, 2)
	if err != nil {
		return err
	}
	if len(rest) == 2 {
		var out wire.Threshold
		status, printed, err := a.do("PUT", "/admin/approval-thresholds/"+esc(rest[0]), wire.SetThreshold{Threshold: nullable(rest[1])}, &out)
		if err != nil || printed {
			return err
		}
		if status == http.StatusAccepted && out.Approval != nil {
			ap := out.Approval
			_, err := fmt.Fprintf(c.stdout, "Approval pending: the %s approval threshold %s -> %s weakens four-eyes.\n"+
				"The threshold stays until a staff member with the %s role approves it in the console.\n"+
				"Approval: %s\n", ap.Asset, orNone(ap.Details["from"]), orNone(ap.Details["threshold"]), ap.Role, ap.ID)
			return err
		}
		if out.Threshold == nil {
			_, err = fmt.Fprintf(c.stdout, "Removed the %s approval threshold.\n", out.Asset)
		} else {
			_, err = fmt.Fprintf(c.stdout, "The %s approval threshold is %s %s.\n", out.Asset, *out.Threshold, out.Asset)
		}
		return err
	}
	var out wire.Thresholds
	_, b, err := a.api.call(ctx, "GET", "/admin/approval-thresholds", nil)
	if err != nil {
		return err
	}
	if err := jsonUnmarshal(b, &out); err != nil {
		return err
	}
	if len(rest) == 1 {
		t, ok := out.Thresholds[rest[0]]
		if a.opts.json {
			v := wire.Threshold{Asset: rest[0]}
			if ok {
				v.Threshold = &t
			}
			return c.printJSONValue(v)
		}
		if !ok {
			_, err = fmt.Fprintf(c.stdout, "%s has no approval threshold.\n", rest[0])
			return err
		}
		_, err = fmt.Fprintf(c.stdout, "The %s approval threshold is %s %s.\n", rest[0], t, rest[0])
		return err
	}
	if a.opts.json {
		return c.printJSON(b)
	}
	if len(out.Thresholds) == 0 {
		_, err := c.println("No approval thresholds.")
		return err
	}
	codes := make([]string, 0, len(out.Thresholds))
	for code := range out.Thresholds {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	tw := c.table()
	row(tw, "ASSET", "THRESHOLD")
	for _, code := range codes {
		row(tw, code, out.Thresholds[code])
	}
	return tw.Flush()
}
