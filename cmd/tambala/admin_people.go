package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tambalapay/tambala/wire"
)

// portalURLFlag declares -portal-url: the public listener's address, to
// print an invitation's link whole.
func (a *adminCmd) portalURLFlag() *string {
	return a.fs.String("portal-url", a.getenv("TAMBALA_PUBLIC_URL"),
		"the public listener's `address` as people reach it (http://127.0.0.1:8080), to print the whole link (env TAMBALA_PUBLIC_URL; default: the path only)")
}

// printInvitation writes a new invitation: who, the token once, and the
// link (or the path under the public listener's address). A staff
// member's link is the console's, under the admin listener's address.
func (c *cli) printInvitation(inv wire.NewInvitation, portalURL, adminURL string) error {
	i := inv.Invitation
	if strings.HasPrefix(inv.AcceptPath, "/console/") {
		portalURL = adminURL
	}
	tw := c.table()
	row(tw, "Invitation", i.ID)
	if i.Org != nil {
		row(tw, "Organization", *i.Org)
	}
	row(tw, "Email", i.Email)
	if len(i.StaffRoles) > 0 {
		row(tw, "Staff roles", strings.Join(i.StaffRoles, ","))
	} else {
		row(tw, "Role", i.Role)
	}
	row(tw, "Status", i.Status)
	row(tw, "Expires", i.ExpiresAt)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "\nToken (shown once): %s\n", inv.Token)
	if portalURL != "" {
		_, err := fmt.Fprintf(c.stdout, "Send this link to %s (shown once):\n  %s%s\n", i.Email, strings.TrimSuffix(portalURL, "/"), inv.AcceptPath)
		return err
	}
	_, err := fmt.Fprintf(c.stdout, "Send %s this link, under the public listener's address (-portal-url prints it whole):\n  %s\n", i.Email, inv.AcceptPath)
	return err
}

func userInvite(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ORG EMAIL", "Invites EMAIL to the portal of the organization ORG as its admin and\n"+
		"prints the one-time link where they set a password (valid for 72 hours,\n"+
		"shown this once).")
	role := a.fs.String("role", "", "the user's `role` (default: the server's, org_admin)")
	portalURL := a.portalURLFlag()
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	body := wire.Invite{Email: rest[1], Role: *role}
	var inv wire.NewInvitation
	if _, printed, err := a.do("POST", "/admin/orgs/"+esc(rest[0])+"/invitations", body, &inv); err != nil || printed {
		return err
	}
	return c.printInvitation(inv, *portalURL, a.opts.url)
}

func staffInvite(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "EMAIL", "Invites EMAIL to the operator's staff with the roles of -role and prints\n"+
		"the one-time link where they set a password (shown this once); they then\n"+
		"sign in to the console on the admin listener and enrol TOTP. Example:\n\n"+
		"  tambala staff invite -role admin,desk ops@example.com")
	roles := a.fs.String("role", "", "the staff `roles`, comma-separated: desk, operations, support, admin (required)")
	portalURL := a.portalURLFlag()
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if len(csv(*roles)) == 0 {
		return usagef("-role is required: desk, operations, support or admin, comma-separated")
	}
	var inv wire.NewInvitation
	body := wire.InviteStaff{Email: rest[0], Roles: csv(*roles)}
	if _, printed, err := a.do("POST", "/admin/staff/invitations", body, &inv); err != nil || printed {
		return err
	}
	return c.printInvitation(inv, *portalURL, a.opts.url)
}
