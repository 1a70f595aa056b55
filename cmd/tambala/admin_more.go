package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala/wire"
)

// The rest of the operator's everyday tasks on the admin API: an
// organization's settings one by one, deposits recorded by hand, an
// approval read or rejected, the audit trail, webhook deliveries, the
// people of the portals and the console, and the payout rails.

// assetsBody is the "assets" of an organization's body from -asset flags
// (ASSET:OP,OP each).
func assetsBody(assets []string) ([]wire.AssetAccess, error) {
	list := make([]wire.AssetAccess, 0, len(assets))
	for _, s := range assets {
		code, ops, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(code) == "" || len(csv(ops)) == 0 {
			return nil, usagef("-asset %q: want ASSET:OP,OP such as MWK:payout,collection", s)
		}
		list = append(list, wire.AssetAccess{Asset: strings.TrimSpace(code), Operations: csv(ops)})
	}
	return list, nil
}

// putOrg sends a PUT of one of an organization's settings and prints the
// organization as the API answers it (or its JSON).
func (a *adminCmd) putOrg(org, setting string, body any) error {
	var o wire.Organization
	if _, printed, err := a.do("PUT", "/admin/orgs/"+esc(org)+"/"+setting, body, &o); err != nil || printed {
		return err
	}
	return a.printOrg(o)
}

func orgStatus(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG active|suspended", "Sets the status of the organization ORG: suspended refuses every call\n"+
		"of its API keys, active lets them in again. Prints the organization. Example:\n\n"+
		"  tambala org status ORG suspended")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	return a.putOrg(rest[0], "status", wire.OrgStatus{Status: rest[1]})
}

func orgV2Access(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG STATE", "Sets the access of the organization ORG to /v2: onboarding_incomplete,\n"+
		"enabled or access_suspended. Prints the organization. Example:\n\n"+
		"  tambala org v2-access ORG enabled")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	return a.putOrg(rest[0], "v2-access", wire.OrgV2Access{V2Access: rest[1]})
}

func orgAssets(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Replaces the assets of the organization ORG and their operations\n"+
		"(payout, collection, convert) with those of -asset: an asset not given\n"+
		"is no longer enabled. Prints the organization. Example:\n\n"+
		"  tambala org assets ORG -asset MWK:payout,collection -asset USDT:convert")
	var assets stringsFlag
	a.fs.Var(&assets, "asset", "`ASSET:OP,OP` an asset and its operations (payout, collection, convert); repeat for more assets (required)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if len(assets) == 0 {
		return usagef("-asset is required: ASSET:OP,OP, once per asset")
	}
	list, err := assetsBody(assets)
	if err != nil {
		return err
	}
	return a.putOrg(rest[0], "assets", wire.OrgAssets{Assets: list})
}

func orgFloor(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG AMOUNT|none", "Sets the balance floor of the organization ORG: the MWK amount below\n"+
		"which its balance is reported low (the balance.low event); none removes\n"+
		"it. Prints the organization. Example:\n\n"+
		"  tambala org floor ORG 5000.00")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	floor := rest[1]
	if floor == "none" {
		floor = ""
	}
	return a.putOrg(rest[0], "balance-floor", wire.BalanceFloor{FloorMWK: floor})
}

func orgAllowlist(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG [ADDR...]", "Sets the IP allowlist of the organization ORG: its API keys are\n"+
		"accepted only from the exact IPv4 or IPv6 addresses ADDR. With no ADDR,\n"+
		"calls from any address are accepted. Prints the list. Example:\n\n"+
		"  tambala org allowlist ORG 203.0.113.7 2001:db8::7")
	rest, err := a.parse(args, 1, math.MaxInt)
	if err != nil {
		return err
	}
	addrs := rest[1:]
	if addrs == nil {
		addrs = []string{}
	}
	var o wire.Organization
	if _, printed, err := a.do("PUT", "/admin/orgs/"+esc(rest[0])+"/allowlist", wire.Allowlist{Addresses: addrs}, &o); err != nil || printed {
		return err
	}
	if len(o.Allowlist) == 0 {
		_, err := fmt.Fprintf(c.stdout, "%s (%s) accepts calls from any address.\n", o.Name, o.ID)
		return err
	}
	tw := c.table()
	row(tw, "ADDRESS")
	for _, s := range o.Allowlist {
		row(tw, s)
	}
	return tw.Flush()
}

func orgLimits(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Sets the /v1 payout limits of the organization ORG: the flags given\n"+
		"change, the rest keep their current values; \"none\" (or 0 for the count)\n"+
		"goes back to the server's default. Prints the organization. Example:\n\n"+
		"  tambala org limits ORG -max-per-payout 500000.00 -daily-volume 5000000.00 -hourly-count 100")
	perPayout := a.fs.String("max-per-payout", "", "the MWK `amount` one payout may not exceed, or none")
	daily := a.fs.String("daily-volume", "", "the MWK `amount` the payouts of a day may not exceed, or none")
	hourly := a.fs.Int("hourly-count", 0, "the `number` of payouts an hour may hold (0: the default)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc([]string{"max-per-payout", "daily-volume", "hourly-count"}, a.set) {
		return usagef("nothing to set: give -max-per-payout, -daily-volume or -hourly-count (run with -h)")
	}
	// The route replaces the limits whole: start from the current ones.
	var cur wire.Organization
	if _, err := a.api.callJSON(ctx, "GET", "/admin/orgs/"+esc(rest[0]), nil, &cur); err != nil {
		return err
	}
	var body wire.SetPayoutLimits
	if l := cur.PayoutLimits; l != nil {
		body = *l
	}
	noneEmpty := func(s string) string {
		if s == "none" {
			return ""
		}
		return s
	}
	if a.set("max-per-payout") {
		body.MaxPerPayoutMWK = noneEmpty(*perPayout)
	}
	if a.set("daily-volume") {
		body.DailyVolumeMWK = noneEmpty(*daily)
	}
	if a.set("hourly-count") {
		body.HourlyCount = *hourly
	}
	return a.putOrg(rest[0], "payout-limits", body)
}

func orgTOTPRequired(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG true|false", "Sets whether the portal users of the organization ORG must sign in\n"+
		"with TOTP (a second factor). Example:\n\n"+
		"  tambala org totp-required ORG true")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	required, err := strconv.ParseBool(rest[1])
	if err != nil {
		return usagef("%q: want true or false", rest[1])
	}
	var out wire.TOTPRequired
	if _, printed, err := a.do("PUT", "/admin/orgs/"+esc(rest[0])+"/totp-required", wire.SetTOTPRequired{Required: required}, &out); err != nil || printed {
		return err
	}
	if out.TOTPRequired {
		_, err = fmt.Fprintf(c.stdout, "The portal users of %s must sign in with TOTP.\n", out.Org)
	} else {
		_, err = fmt.Fprintf(c.stdout, "The portal users of %s need not sign in with TOTP.\n", out.Org)
	}
	return err
}

func depositRecord(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Records a deposit received on a blockchain network for the organization\n"+
		"ORG and credits it (a /v2 collection); the same -network and -tx-ref\n"+
		"again credits nothing more, and says it was already credited (exit\n"+
		"status 0). Above the asset's approval threshold nothing\n"+
		"is credited yet: the deposit waits for a staff member's approval in the\n"+
		"console, and the command prints the approval's id (exit status 0). Example:\n\n"+
		"  tambala deposit record ORG -network tron -asset USDT -amount 250.00 -tx-ref 0xfeed")
	network := a.fs.String("network", "", "the blockchain `network` it arrived on: tron, ethereum... (required)")
	asset := a.fs.String("asset", "", "the `asset` received, such as USDT (required)")
	amount := a.fs.String("amount", "", "the `amount` received, in the asset (required)")
	txRef := a.fs.String("tx-ref", "", "the transaction's `reference` on the network (required): it makes a repeated deposit credit once")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"network", *network}, {"asset", *asset}, {"amount", *amount}, {"tx-ref", *txRef}} {
		if f.v == "" {
			return usagef("-%s is required (run with -h)", f.name)
		}
	}
	var out wire.Deposit
	body := wire.RecordDeposit{Network: *network, Asset: *asset, Amount: *amount, TxRef: *txRef}
	status, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/deposits", body, &out)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && out.Approval != nil {
		ap := out.Approval
		_, err := fmt.Fprintf(c.stdout, "Approval pending: deposit %s %s to %s (network %s, tx %s) is above the %s approval threshold.\n"+
			"Nothing is credited until a staff member with the %s role approves it in the console.\n"+
			"Approval: %s\n", ap.Amount, ap.Asset, ap.Org, ap.Details["network"], ap.Details["tx_ref"], ap.Asset, ap.Role, ap.ID)
		return err
	}
	col := out.CollectionV2
	if a.replayed {
		fmt.Fprintf(c.stdout, "Already credited under this reference: deposit %s %s to %s (network %s, tx %s); nothing more was credited.\n", col.Amount, col.Asset, rest[0], optStr(col.Network), *txRef)
	} else {
		fmt.Fprintf(c.stdout, "Recorded deposit %s %s to %s (network %s, tx %s).\n", col.Amount, col.Asset, rest[0], optStr(col.Network), *txRef)
	}
	tw := c.table()
	row(tw, "Collection", col.ID)
	row(tw, "Status", col.Status)
	row(tw, "Amount", col.Amount+" "+col.Asset)
	row(tw, "Fee", col.Fee+" "+col.Asset)
	row(tw, "Credited", col.AmountCredited+" "+col.Asset)
	row(tw, "Network", optStr(col.Network))
	row(tw, "Source", col.Source)
	row(tw, "Created", col.CreatedAt)
	return tw.Flush()
}

// printApproval writes an approval as lines of name and value.
func (c *cli) printApproval(ap wire.Approval) error {
	tw := c.table()
	row(tw, "ID", ap.ID)
	row(tw, "Kind", ap.Kind)
	row(tw, "Organization", orNone(ap.Org))
	row(tw, "Amount", ap.Amount+" "+ap.Asset)
	row(tw, "Role", ap.Role)
	keys := make([]string, 0, len(ap.Details))
	for k := range ap.Details {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		name := ""
		if i == 0 {
			name = "Details"
		}
		row(tw, name, k+": "+ap.Details[k])
	}
	row(tw, "Requested by", partyString(ap.RequestedBy))
	row(tw, "Requested", ap.RequestedAt)
	row(tw, "Status", ap.Status)
	if ap.DecidedBy != nil || ap.DecidedAt != nil {
		row(tw, "Decided by", partyString(ap.DecidedBy))
		row(tw, "Decided", optStr(ap.DecidedAt))
	}
	if ap.Reason != nil {
		row(tw, "Reason", *ap.Reason)
	}
	return tw.Flush()
}

func approvalsShow(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Shows the approval ID: what waits (its kind, organization, amount and\n"+
		"details), the role that decides it, who asked and when, and its decision.\n"+
		"Example:\n\n"+
		"  tambala approvals show 01a21566-9ca1-78dd-a472-58bb215eafda")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var ap wire.Approval
	if _, printed, err := a.do("GET", "/admin/approvals/"+esc(rest[0]), nil, &ap); err != nil || printed {
		return err
	}
	return c.printApproval(ap)
}

func approvalsReject(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Rejects the pending approval ID with the reason -reason: what waited\n"+
		"(a funding, a deposit, a refund) never moves. Only a staff member\n"+
		"approves, in the console. Prints the approval. Example:\n\n"+
		"  tambala approvals reject -reason \"no such wire\" 01a21566-9ca1-78dd-a472-58bb215eafda")
	reason := a.fs.String("reason", "", "why it is rejected, 1 to 500 `characters` (required)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *reason == "" {
		return usagef("-reason is required: why the approval is rejected")
	}
	var ap wire.Approval
	if _, printed, err := a.do("POST", "/admin/approvals/"+esc(rest[0])+"/reject", wire.Reject{Reason: *reason}, &ap); err != nil || printed {
		return err
	}
	return c.printApproval(ap)
}

func auditActor(e wire.AuditEntry) string {
	switch {
	case e.Actor.Email != nil && *e.Actor.Email != "":
		return *e.Actor.Email
	case e.Actor.UserID != nil && *e.Actor.UserID != "":
		return *e.Actor.UserID
	}
	return e.Actor.Kind
}

// morePage prints how to run for the next page, when there is one.
func (c *cli) morePage(hasMore bool, next *string) error {
	if hasMore && next != nil {
		_, err := fmt.Fprintf(c.stdout, "More: run again with -before %s\n", *next)
		return err
	}
	return nil
}

func audit(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the audit trail, newest first: every change made by the operator,\n"+
		"the staff, the organizations' users and the engine itself, with its\n"+
		"time, actor, action, target and summary; narrowed by the flags. Example:\n\n"+
		"  tambala audit -org ORG -action org.status_changed -since 2026-11-01T00:00:00Z -limit 20")
	org := a.fs.String("org", "", "only the entries of the organization `ORG`")
	actorKind := a.fs.String("actor-kind", "", "only the entries of actors of `kind` user, staff, automation or system")
	actor := a.fs.String("actor", "", "only the entries of the user `actor` (an id or an email)")
	action := a.fs.String("action", "", "only the entries of the `action`, such as org.status_changed (as the ACTION column shows it)")
	target := a.fs.String("target", "", "only the entries on the `target` (an id, as the TARGET column shows it)")
	since := a.fs.String("since", "", "only the entries at or after the RFC 3339 `time`")
	until := a.fs.String("until", "", "only the entries before the RFC 3339 `time`")
	limit := a.fs.Int("limit", 0, "at most `n` entries (default: the server's page size)")
	before := a.fs.String("before", "", "the page older than the entry `id` (as the last page's end says)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	lim := ""
	if *limit != 0 {
		lim = strconv.Itoa(*limit)
	}
	path := "/admin/audit"
	if *org != "" {
		path = "/admin/orgs/" + esc(*org) + "/audit"
	}
	path += query("actor_kind", *actorKind, "actor", *actor, "action", *action, "target", *target,
		"since", *since, "until", *until, "limit", lim, "before_id", *before)
	var out wire.AuditPage
	if _, printed, err := a.do("GET", path, nil, &out); err != nil || printed {
		return err
	}
	if len(out.Entries) == 0 {
		_, err := c.println("No audit entries.")
		return err
	}
	tw := c.table()
	row(tw, "TIME", "ACTOR", "ACTION", "TARGET", "SUMMARY")
	for _, e := range out.Entries {
		row(tw, e.At, auditActor(e), e.Action, orNone(e.Target), orNone(e.Summary))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return c.morePage(out.HasMore, out.NextBeforeID)
}

// lastAttempt is the outcome of the delivery's latest attempt: its status code
// or error, "-" when none was made.
func lastAttempt(d wire.Delivery) string {
	if len(d.Attempts) == 0 {
		return "-"
	}
	at := d.Attempts[0] // newest first
	if at.Error != "" {
		return at.Error
	}
	return strconv.Itoa(at.StatusCode)
}

func deliveriesList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Lists the webhook deliveries of the organization ORG, newest first: the\n"+
		"event, its state (pending, delivered or dead), the attempts made and the\n"+
		"latest one's answer (an HTTP status or an error). Example:\n\n"+
		"  tambala deliveries list -limit 20 ORG")
	limit := a.fs.Int("limit", 0, "at most `n` deliveries (default: the server's page size)")
	before := a.fs.String("before", "", "the page older than the delivery `id` (as the last page's end says)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	lim := ""
	if *limit != 0 {
		lim = strconv.Itoa(*limit)
	}
	var out wire.Deliveries
	if _, printed, err := a.do("GET", "/admin/orgs/"+esc(rest[0])+"/deliveries"+query("limit", lim, "before_id", *before), nil, &out); err != nil || printed {
		return err
	}
	if len(out.Deliveries) == 0 {
		_, err := c.println("No deliveries.")
		return err
	}
	tw := c.table()
	row(tw, "ID", "EVENT", "STATE", "ATTEMPTS", "LAST", "CREATED")
	for _, d := range out.Deliveries {
		row(tw, d.ID, d.EventType, d.State, strconv.Itoa(len(d.Attempts)), lastAttempt(d), d.CreatedAt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return c.morePage(out.HasMore, out.NextBeforeID)
}

func deliveriesRedeliver(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG ID", "Sends the dead-lettered webhook delivery ID of the organization ORG\n"+
		"again: the same bytes, signed with the secret it was made with, for one\n"+
		"more full schedule of retries. Example:\n\n"+
		"  tambala deliveries redeliver ORG 01a21566-9ca1-78dd-a472-58bb215eafda")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var d wire.Delivery
	if _, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/deliveries/"+esc(rest[1])+"/redeliver", nil, &d); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "Redelivering %s.\n", d.ID)
	tw := c.table()
	row(tw, "ID", d.ID)
	row(tw, "Event", d.EventType)
	row(tw, "URL", d.URL)
	row(tw, "State", d.State)
	row(tw, "Attempts", strconv.Itoa(len(d.Attempts)))
	row(tw, "Created", d.CreatedAt)
	return tw.Flush()
}

func totpState(u wire.User) string {
	if !u.TOTPEnrolled {
		return "no"
	}
	return "yes"
}

// printUser writes u as lines of name and value.
func (c *cli) printUser(u wire.User) error {
	tw := c.table()
	row(tw, "ID", u.ID)
	if u.Org != nil {
		row(tw, "Organization", *u.Org)
	}
	row(tw, "Email", u.Email)
	if u.Org == nil || len(u.StaffRoles) > 0 {
		row(tw, "Staff roles", orNone(strings.Join(u.StaffRoles, ",")))
	} else {
		row(tw, "Role", u.Role)
	}
	row(tw, "Status", u.Status)
	totp := "not enrolled"
	if u.TOTPEnrolled {
		totp = fmt.Sprintf("enrolled, %d recovery codes left", u.RecoveryCodesLeft)
	}
	row(tw, "TOTP", totp)
	row(tw, "Created", u.CreatedAt)
	if u.DisabledAt != nil {
		row(tw, "Disabled", *u.DisabledAt)
	}
	return tw.Flush()
}

func userList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Lists the portal users of the organization ORG: id (the ID of the other\n"+
		"user commands), email, role, status, whether TOTP is enrolled; then\n"+
		"whether the organization requires TOTP. Example:\n\n"+
		"  tambala user list ORG")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.Users
	if _, printed, err := a.do("GET", "/admin/orgs/"+esc(rest[0])+"/users", nil, &out); err != nil || printed {
		return err
	}
	if len(out.Users) == 0 {
		c.println("No users.")
	} else {
		tw := c.table()
		row(tw, "ID", "EMAIL", "ROLE", "STATUS", "TOTP", "CREATED")
		for _, u := range out.Users {
			row(tw, u.ID, u.Email, u.Role, u.Status, totpState(u), u.CreatedAt)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if _, err = fmt.Fprintf(c.stdout, "TOTP required: %t\n", out.TOTPRequired); err != nil {
		return err
	}
	return a.pendingInvitations("/admin/orgs/"+esc(rest[0])+"/invitations", "tambala user invitations "+rest[0])
}

// pendingInvitations prints how many invitations at path are pending, when
// any, and the command that lists them: a pending invitation is no user
// yet.
func (a *adminCmd) pendingInvitations(path, lister string) error {
	var out wire.Invitations
	if _, err := a.api.callJSON(a.ctx, "GET", path, nil, &out); err != nil {
		return err
	}
	n := 0
	for _, i := range out.Invitations {
		if i.Status == "pending" {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	_, err := fmt.Fprintf(a.stdout, "Pending invitations: %d (%s lists them)\n", n, lister)
	return err
}

// userAction is a POST /admin/users/{id}/ACTION that answers the user,
// which it prints with what happened.
func userAction(ctx context.Context, c *cli, args []string, action, done, about string) error {
	a := c.adminCommand(ctx, "ID", about)
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var u wire.User
	if _, printed, err := a.do("POST", "/admin/users/"+esc(rest[0])+"/"+action, nil, &u); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "%s %s.\n", done, u.Email)
	return c.printUser(u)
}

func userDisable(ctx context.Context, c *cli, args []string) error {
	return userAction(ctx, c, args, "disable", "Disabled", "Disables the user ID (a portal user or a member of the staff): they can\n"+
		"no longer sign in, and their sessions end. Example:\n\n"+
		"  tambala user disable 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
}

func userEnable(ctx context.Context, c *cli, args []string) error {
	return userAction(ctx, c, args, "enable", "Enabled", "Enables the disabled user ID again: they can sign in. Example:\n\n"+
		"  tambala user enable 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
}

func userResetTOTP(ctx context.Context, c *cli, args []string) error {
	return userAction(ctx, c, args, "totp/reset", "Reset the TOTP of", "Removes the TOTP (second factor) and recovery codes of the user ID, who\n"+
		"lost their device: they enrol again at their next sign-in. Example:\n\n"+
		"  tambala user reset-totp 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
}

func userEndSessions(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Ends every session of the user ID: they sign in again. Example:\n\n"+
		"  tambala user end-sessions 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.SessionsEnded
	if _, printed, err := a.do("POST", "/admin/users/"+esc(rest[0])+"/sessions/end", nil, &out); err != nil || printed {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Ended %d sessions of user %s.\n", out.Ended, out.User)
	return err
}

func userResetPassword(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Starts a password reset of the user ID and prints the one-time link where\n"+
		"they set a new password (shown this once); their TOTP stays. Example:\n\n"+
		"  tambala user reset-password -portal-url http://127.0.0.1:8080 01a21566-9be5-7ab8-a682-d3b05fb1ed3e")
	portalURL := a.portalURLFlag()
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var inv wire.NewInvitation
	if _, printed, err := a.do("POST", "/admin/users/"+esc(rest[0])+"/password-reset", nil, &inv); err != nil || printed {
		return err
	}
	return c.printInvitation(inv, *portalURL, a.opts.url)
}

func staffList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the operator's staff: id (the ID of the user and staff commands),\n"+
		"email, staff roles, status, whether TOTP is enrolled, and whether they may\n"+
		"approve (suspended after their password or TOTP was reset, or their\n"+
		"invitation issued, by someone else, until another staff admin confirms\n"+
		"them in the console). Example:\n\n"+
		"  tambala staff list")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	var out wire.Users
	if _, printed, err := a.do("GET", "/admin/staff/users", nil, &out); err != nil || printed {
		return err
	}
	if len(out.Users) == 0 {
		if _, err := c.println("No staff."); err != nil {
			return err
		}
		return a.pendingInvitations("/admin/staff/invitations", "tambala staff invitations")
	}
	tw := c.table()
	row(tw, "ID", "EMAIL", "ROLES", "STATUS", "TOTP", "APPROVALS", "CREATED")
	for _, u := range out.Users {
		approves := "yes"
		if u.ApprovalsSuspended != nil && *u.ApprovalsSuspended {
			approves = "suspended"
		}
		row(tw, u.ID, u.Email, orNone(strings.Join(u.StaffRoles, ",")), u.Status, totpState(u), approves, u.CreatedAt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return a.pendingInvitations("/admin/staff/invitations", "tambala staff invitations")
}

func staffRoles(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID ROLE,...", "Replaces the staff roles of the staff user ID with ROLE,...: desk,\n"+
		"operations, support, admin. Prints the user. Example:\n\n"+
		"  tambala staff roles 01a21566-9c1f-73e3-ab66-93b32818e755 desk,support")
	rest, err := a.parse(args, 2, math.MaxInt)
	if err != nil {
		return err
	}
	roles := csv(strings.Join(rest[1:], ","))
	if len(roles) == 0 {
		return usagef("no roles: want desk, operations, support or admin, comma-separated")
	}
	var u wire.User
	if _, printed, err := a.do("PUT", "/admin/users/"+esc(rest[0])+"/staff-roles", wire.StaffRoles{Roles: roles}, &u); err != nil || printed {
		return err
	}
	return c.printUser(u)
}

func railSet(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "RAIL", "Pauses or resumes the /v1 payout rail RAIL (bank or momo): -disabled true\n"+
		"refuses new payouts on it (rail_disabled), -disabled false takes them\n"+
		"again. Prints both rails. Example:\n\n"+
		"  tambala rail set momo -disabled true")
	disabled := a.fs.String("disabled", "", "`true` pauses the rail, false resumes it (required)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *disabled == "" {
		return usagef("-disabled is required: true pauses the rail, false resumes it")
	}
	off, err := strconv.ParseBool(*disabled)
	if err != nil {
		return usagef("-disabled %q: want true or false", *disabled)
	}
	var out wire.Rails
	if _, printed, err := a.do("PUT", "/admin/rails/"+esc(rest[0]), wire.SetRail{Disabled: off}, &out); err != nil || printed {
		return err
	}
	state := func(disabled bool) string {
		if disabled {
			return "disabled"
		}
		return "enabled"
	}
	tw := c.table()
	row(tw, "RAIL", "STATE")
	row(tw, "bank", state(out.BankDisabled))
	row(tw, "momo", state(out.MomoDisabled))
	return tw.Flush()
}
