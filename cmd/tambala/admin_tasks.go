package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/wire"
)

// The rest of the operator's job that only curl reached before issue #36:
// an organization's balances, per-asset limits, pending invitations, one
// user, a collection reversed, an OTC trade, a payout clawed back, a
// deposit address rotated, the networks, and a funding proof saved.

// printPending prints an approval a 202 answered: what waits, for whom,
// and the approval's id, as fund does.
func (c *cli) printPending(what string, ap *wire.Approval) error {
	_, err := fmt.Fprintf(c.stdout, "Approval pending: %s is above the %s approval threshold.\n"+
		"Nothing moves until a staff member with the %s role approves it in the console.\n"+
		"Approval: %s\n", what, ap.Asset, ap.Role, ap.ID)
	return err
}

func orgBalances(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Shows the balances of the organization ORG: MWK (its /v1 balance) first,\n"+
		"then each other asset it has enabled: available, held by payouts and\n"+
		"orders in flight, and the shortfall (fees it owes). Shown whatever the\n"+
		"organization's status or the pause switches. Example:\n\n"+
		"  tambala org balances ORG")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.Balances
	if _, printed, err := a.do("GET", "/admin/orgs/"+esc(rest[0])+"/balances", nil, &out); err != nil || printed {
		return err
	}
	tw := c.table()
	row(tw, "ASSET", "AVAILABLE", "HELD", "SHORTFALL")
	for _, b := range out.Balances {
		row(tw, b.Asset, b.Available, b.Held, b.Shortfall)
	}
	return tw.Flush()
}

func assetLimits(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ASSET convert|payout", "Shows the limits of the /v2 operation (convert or payout) in ASSET: the\n"+
		"least and the most one conversion or payout may be; with -min or -max,\n"+
		"sets them first (the other keeps its value; \"none\" removes one). Example:\n\n"+
		"  tambala asset limits USDT payout -min 10 -max 5000")
	minFlag := a.fs.String("min", "", "the least `amount` in the asset, or none")
	maxFlag := a.fs.String("max", "", "the most `amount` in the asset, or none")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	path := "/admin/assets/" + esc(rest[0]) + "/limits/" + esc(rest[1])
	var l wire.AssetLimits
	if a.set("min") || a.set("max") {
		// The route replaces both bounds: start from the current ones.
		var cur wire.AssetLimits
		if _, err := a.api.callJSON(ctx, "GET", path, nil, &cur); err != nil {
			return err
		}
		body := wire.SetAssetLimits{Min: cur.Min, Max: cur.Max}
		if a.set("min") {
			body.Min = nullable(*minFlag)
		}
		if a.set("max") {
			body.Max = nullable(*maxFlag)
		}
		if _, printed, err := a.do("PUT", path, body, &l); err != nil || printed {
			return err
		}
	} else if _, printed, err := a.do("GET", path, nil, &l); err != nil || printed {
		return err
	}
	tw := c.table()
	row(tw, "Asset", l.Asset)
	row(tw, "Operation", l.Operation)
	row(tw, "Min", optStr(l.Min))
	row(tw, "Max", optStr(l.Max))
	return tw.Flush()
}

func invitationRoles(i wire.Invitation) string {
	if i.Org == nil {
		return orNone(strings.Join(i.StaffRoles, ","))
	}
	return i.Role
}

// listInvitations prints the invitations at path: the pending ones, or
// every one with all.
func (a *adminCmd) listInvitations(path string, all bool) error {
	var out wire.Invitations
	if _, printed, err := a.do("GET", path, nil, &out); err != nil || printed {
		return err
	}
	list := out.Invitations
	if !all {
		list = slices.DeleteFunc(list, func(i wire.Invitation) bool { return i.Status != "pending" })
	}
	if len(list) == 0 {
		if all {
			_, err := a.println("No invitations.")
			return err
		}
		_, err := a.println("No pending invitations.")
		return err
	}
	tw := a.table()
	row(tw, "ID", "KIND", "EMAIL", "ROLE", "STATUS", "CREATED", "EXPIRES")
	for _, i := range list {
		row(tw, i.ID, i.Kind, i.Email, invitationRoles(i), i.Status, i.CreatedAt, i.ExpiresAt)
	}
	return tw.Flush()
}

// revokeInvitation revokes the invitation at path and prints it.
func (a *adminCmd) revokeInvitation(path string) error {
	var i wire.Invitation
	if _, printed, err := a.do("DELETE", path, nil, &i); err != nil || printed {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "Revoked the invitation %s of %s (%s) at %s: its link no longer works.\n", i.ID, i.Email, i.Kind, optStr(i.RevokedAt))
	return err
}

func userInvitations(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Lists the pending invitations (and password resets) of the organization\n"+
		"ORG's portal: id (the ID of user revoke-invitation), kind, email, role,\n"+
		"creation and expiry; -all lists the accepted, revoked and expired ones\n"+
		"too. The links are never shown again (the server keeps only their\n"+
		"hashes). Example:\n\n"+
		"  tambala user invitations ORG")
	all := a.fs.Bool("all", false, "list every invitation, not only the pending ones")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return a.listInvitations("/admin/orgs/"+esc(rest[0])+"/invitations", *all)
}

func userRevokeInvitation(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG ID", "Revokes the pending invitation (or password reset) ID of the organization\n"+
		"ORG: its link no longer works. One accepted already cannot be revoked.\n"+
		"Example:\n\n"+
		"  tambala user revoke-invitation ORG 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	return a.revokeInvitation("/admin/orgs/" + esc(rest[0]) + "/invitations/" + esc(rest[1]))
}

func staffInvitations(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the pending invitations (and password resets) of the operator's\n"+
		"staff: id (the ID of staff revoke-invitation), kind, email, roles,\n"+
		"creation and expiry; -all lists the accepted, revoked and expired ones\n"+
		"too. Example:\n\n"+
		"  tambala staff invitations")
	all := a.fs.Bool("all", false, "list every invitation, not only the pending ones")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	return a.listInvitations("/admin/staff/invitations", *all)
}

func staffRevokeInvitation(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Revokes the pending staff invitation (or password reset) ID: its link no\n"+
		"longer works. Example:\n\n"+
		"  tambala staff revoke-invitation 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return a.revokeInvitation("/admin/staff/invitations/" + esc(rest[0]))
}

func userShow(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Shows the user ID (a portal user or a member of the staff): email, role\n"+
		"or staff roles, status, TOTP, creation. Example:\n\n"+
		"  tambala user show 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var u wire.User
	if _, printed, err := a.do("GET", "/admin/users/"+esc(rest[0]), nil, &u); err != nil || printed {
		return err
	}
	return c.printUser(u)
}

func collectionReverse(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG ID", "Reverses the /v1 collection ID of the organization ORG (the money did not\n"+
		"arrive after all): what it credited is taken back. Prints the collection.\n"+
		"Example:\n\n"+
		"  tambala collection reverse ORG 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var col wire.CollectionV1
	if _, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/collections/"+esc(rest[1])+"/reverse", nil, &col); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "Reversed collection %s of %s.\n", col.ID, rest[0])
	tw := c.table()
	row(tw, "ID", col.ID)
	row(tw, "Status", col.Status)
	row(tw, "Amount", col.AmountMWK+" MWK")
	row(tw, "Fee", col.Fee+" MWK")
	row(tw, "Credited", col.AmountCredited+" MWK")
	row(tw, "Rail", col.Rail)
	row(tw, "Created", col.CreatedAt)
	return tw.Flush()
}

func tradeRecord(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Records an OTC trade of the organization ORG: it sold -usdt USDT at\n"+
		"-rate MWK per USDT, and the MWK is credited to its balance; the same -ref\n"+
		"again records nothing more. Above the MWK approval threshold nothing is\n"+
		"credited yet: the trade waits for a staff member's approval in the\n"+
		"console, and the command prints the approval's id (exit status 0). Example:\n\n"+
		"  tambala trade record ORG -ref otc-2026-001 -usdt 1000 -rate 1750.50")
	ref := a.fs.String("ref", "", "the trade's `reference` (required): it makes a repeated trade record once")
	usdt := a.fs.String("usdt", "", "the USDT `amount` traded (required)")
	rate := a.fs.String("rate", "", "the client's `rate`, MWK per USDT (required)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"ref", *ref}, {"usdt", *usdt}, {"rate", *rate}} {
		if f.v == "" {
			return usagef("-%s is required (run with -h)", f.name)
		}
	}
	var out wire.Trade
	body := wire.RecordTrade{Ref: *ref, USDTAmount: *usdt, ClientRate: *rate}
	status, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/trades", body, &out)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && out.Approval != nil {
		ap := out.Approval
		return c.printPending(fmt.Sprintf("the trade of %s USDT by %s (ref %s), crediting %s %s,", *usdt, ap.Org, *ref, ap.Amount, ap.Asset), ap)
	}
	fmt.Fprintf(c.stdout, "Recorded trade %s of %s (ref %s).\n", out.ID, rest[0], *ref)
	tw := c.table()
	row(tw, "ID", out.ID)
	row(tw, "USDT", out.USDTAmount)
	row(tw, "Rate", out.ClientRate)
	row(tw, "MWK", strconv.FormatInt(out.MWKAmount, 10))
	row(tw, "Status", out.Status)
	row(tw, "Created", out.CreatedAt)
	return tw.Flush()
}

func payoutClawback(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Claws back the succeeded /v1 payout ID (the provider returned the money):\n"+
		"its amount and fee go back to the organization's balance and the payout\n"+
		"is reversed. Above the asset's approval threshold nothing moves yet: the\n"+
		"clawback waits for a staff member's approval in the console, and the\n"+
		"command prints the approval's id (exit status 0). Example:\n\n"+
		"  tambala payout clawback 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.Clawback
	status, printed, err := a.do("POST", "/admin/payouts/"+esc(rest[0])+"/clawback", nil, &out)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && out.Approval != nil {
		ap := out.Approval
		return c.printPending(fmt.Sprintf("the clawback of payout %s (%s %s to %s)", rest[0], ap.Amount, ap.Asset, ap.Org), ap)
	}
	_, err = fmt.Fprintf(c.stdout, "Clawed back payout %s: %s.\n", out.Payout, out.Status)
	return err
}

func depositRotateAddress(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG NETWORK", "Gives the organization ORG a new deposit address on the blockchain\n"+
		"NETWORK (network list shows them), replacing its current one. Example:\n\n"+
		"  tambala deposit rotate-address ORG tron")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var d wire.DepositAddress
	if _, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/deposit-addresses/"+esc(rest[1])+"/rotate", nil, &d); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "New deposit address of %s on %s.\n", rest[0], d.Network)
	tw := c.table()
	row(tw, "Network", d.Network)
	row(tw, "Address", d.Address)
	row(tw, "Assets", orNone(strings.Join(d.Assets, ",")))
	return tw.Flush()
}

func networkList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the blockchain networks the server accepts deposits and payouts on:\n"+
		"id (the NETWORK of the other commands), address kind, and the assets\n"+
		"each carries. Example:\n\n"+
		"  tambala network list")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	var out wire.Networks
	if _, printed, err := a.do("GET", "/admin/networks", nil, &out); err != nil || printed {
		return err
	}
	if len(out.Networks) == 0 {
		_, err := c.println("No networks.")
		return err
	}
	tw := c.table()
	row(tw, "ID", "KIND", "ASSETS")
	for _, n := range out.Networks {
		row(tw, n.ID, n.Kind, orNone(strings.Join(n.Assets, ",")))
	}
	return tw.Flush()
}

func orderProof(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORDER", "Saves the newest funding proof of the /v2 order ORDER (a PDF, PNG or JPEG\n"+
		"the organization uploaded) to the file -o, to look at before order move\n"+
		"ORDER confirm-funds. An existing file is never overwritten. Example:\n\n"+
		"  tambala order proof -o proof.pdf 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	outFile := a.fs.String("o", "", "the `file` to write, which must not exist (required)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	name := *outFile
	if name == "" {
		return usagef("-o is required: the file to write the proof to")
	}
	if _, err := os.Lstat(name); err == nil {
		return fmt.Errorf("%s exists already: not overwritten (choose another -o)", name)
	}
	hd, body, err := a.api.download(ctx, "/admin/orders/"+esc(rest[0])+"/proofs/funding")
	if err != nil {
		return err
	}
	mt, err := orders.ProofMediaType(hd.Get("Content-Type"))
	if err != nil || !orders.ProofIs(mt, body) {
		return fmt.Errorf("the admin API's answer is not a PDF, PNG or JPEG file (Content-Type %q): nothing saved", hd.Get("Content-Type"))
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists already: not overwritten (choose another -o)", name)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if a.opts.json {
		return c.printJSONValue(map[string]any{"order_id": rest[0], "file": name, "content_type": mt, "size": len(body)})
	}
	_, err = fmt.Fprintf(c.stdout, "Saved the funding proof of order %s to %s (%s, %d bytes).\n", rest[0], name, mt, len(body))
	return err
}
