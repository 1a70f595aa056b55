package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tambalapay/tambala/wire"
)

func assetCodes(o wire.Organization) string {
	codes := make([]string, len(o.Assets))
	for i, a := range o.Assets {
		codes[i] = a.Asset
	}
	return orNone(strings.Join(codes, ","))
}

// printOrg writes o as lines of name and value.
func (c *cli) printOrg(o wire.Organization) error {
	tw := c.table()
	row(tw, "ID", o.ID)
	row(tw, "Name", o.Name)
	row(tw, "Status", o.Status)
	row(tw, "V2 access", o.V2Access)
	if len(o.Assets) == 0 {
		row(tw, "Assets", "-")
	}
	for i, a := range o.Assets {
		name := ""
		if i == 0 {
			name = "Assets"
		}
		row(tw, name, a.Asset+": "+strings.Join(a.Operations, ","))
	}
	floor := "-"
	if o.BalanceFloorMWK != "" {
		floor = o.BalanceFloorMWK + " MWK"
	}
	row(tw, "Balance floor", floor)
	allow := "- (any address)"
	if len(o.Allowlist) > 0 {
		allow = strings.Join(o.Allowlist, ", ")
	}
	row(tw, "IP allowlist", allow)
	if l := o.PayoutLimits; l != nil {
		row(tw, "Payout limits", fmt.Sprintf("per payout %s MWK, daily %s MWK, hourly count %d", orNone(l.MaxPerPayoutMWK), orNone(l.DailyVolumeMWK), l.HourlyCount))
	}
	row(tw, "Created", o.CreatedAt)
	return tw.Flush()
}

func orgCreate(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "NAME", "Creates an organization named NAME and prints it; its id is what the other\n"+
		"commands take as ORG. Each -asset enables an asset and its operations\n"+
		"(payout, collection, convert); with none, the server's default (MWK for\n"+
		"payout and collection). Example:\n\n"+
		"  tambala org create -asset MWK:payout,collection -asset USDT:convert -v2 enabled Acme")
	var assets stringsFlag
	a.fs.Var(&assets, "asset", "`ASSET:OP,OP` an asset and its operations (payout, collection, convert); repeat for more assets")
	v2 := a.fs.String("v2", "", "the `access` to /v2: onboarding_incomplete (the server's default), enabled or access_suspended")
	floor := a.fs.String("balance-floor", "", "the MWK `amount` below which the /v1 balance is reported low (the balance.low event; default: none)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	list, err := assetsBody(assets)
	if err != nil {
		return err
	}
	body := wire.NewOrganization{Name: rest[0], Assets: list, V2Access: *v2, BalanceFloorMWK: *floor}
	var o wire.Organization
	if _, printed, err := a.do("POST", "/admin/orgs", body, &o); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "Created organization %q.\n", o.Name)
	return c.printOrg(o)
}

func orgList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists every organization: its id (the ORG of the other commands), name,\n"+
		"status, /v2 access, assets and creation time.")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	var out wire.Organizations
	if _, printed, err := a.do("GET", "/admin/orgs", nil, &out); err != nil || printed {
		return err
	}
	if len(out.Organizations) == 0 {
		_, err := c.println("No organizations.")
		return err
	}
	tw := c.table()
	row(tw, "ID", "NAME", "STATUS", "V2 ACCESS", "ASSETS", "CREATED")
	for _, o := range out.Organizations {
		row(tw, o.ID, o.Name, o.Status, o.V2Access, assetCodes(o), o.CreatedAt)
	}
	return tw.Flush()
}

func orgShow(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Shows the organization ORG (its id): status, /v2 access, assets and\n"+
		"operations, balance floor, IP allowlist, payout limits.")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var o wire.Organization
	if _, printed, err := a.do("GET", "/admin/orgs/"+esc(rest[0]), nil, &o); err != nil || printed {
		return err
	}
	return c.printOrg(o)
}

func keyCreate(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Creates an API key for the organization ORG and prints it. The full key\n"+
		"is shown this once: store it now (the server keeps only its hash).")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var k wire.Key
	if _, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/keys", nil, &k); err != nil || printed {
		return err
	}
	fmt.Fprintf(c.stdout, "API key (shown once, store it now): %s\n\n", k.Key)
	tw := c.table()
	row(tw, "ID", k.ID)
	row(tw, "Organization", k.Org)
	row(tw, "Prefix", k.Prefix)
	row(tw, "Environment", k.Environment)
	row(tw, "Created", k.CreatedAt)
	return tw.Flush()
}

func keyList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG", "Lists the API keys of the organization ORG, active and revoked: id,\n"+
		"prefix (the key's first characters), environment, creation and revocation.")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out wire.Keys
	if _, printed, err := a.do("GET", "/admin/orgs/"+esc(rest[0])+"/keys", nil, &out); err != nil || printed {
		return err
	}
	if len(out.Keys) == 0 {
		_, err := c.println("No API keys.")
		return err
	}
	tw := c.table()
	row(tw, "ID", "PREFIX", "ENVIRONMENT", "CREATED", "REVOKED")
	for _, k := range out.Keys {
		row(tw, k.ID, k.Prefix, k.Environment, k.CreatedAt, optStr(k.RevokedAt))
	}
	return tw.Flush()
}

func keyRevoke(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG KEY", "Revokes the API key KEY (its id or prefix, as key list shows) of the\n"+
		"organization ORG: calls with it are refused from now on.")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var k wire.Key
	if _, printed, err := a.do("DELETE", "/admin/orgs/"+esc(rest[0])+"/keys/"+esc(rest[1]), nil, &k); err != nil || printed {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Revoked API key %s (%s) at %s.\n", k.ID, k.Prefix, optStr(k.RevokedAt))
	return err
}
