package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
)

// adminCommands talk to a running server's admin API. Each is one file
// admin_*.go; the shared parts (flags, arguments, output) are here.
var adminCommands = []command{
	{"org create", "create an organization: its assets and operations, /v2 access, balance floor", orgCreate},
	{"org list", "list the organizations", orgList},
	{"org show", "show an organization's settings", orgShow},
	{"org balances", "show an organization's balances: MWK and each asset it has enabled", orgBalances},
	{"org statement", "show an organization's statement in an asset over a period, or download it as CSV", orgStatement},
	{"org status", "set an organization's status: active or suspended", orgStatus},
	{"org v2-access", "set an organization's access to /v2", orgV2Access},
	{"org assets", "replace an organization's assets and their operations", orgAssets},
	{"org floor", "set or remove an organization's balance floor (MWK)", orgFloor},
	{"org allowlist", "set an organization's IP allowlist (no address: any)", orgAllowlist},
	{"org limits", "set an organization's /v1 payout limits", orgLimits},
	{"org totp-required", "require TOTP of an organization's portal users, or not", orgTOTPRequired},
	{"key create", "create an API key for an organization (the key is shown once)", keyCreate},
	{"key list", "list an organization's API keys", keyList},
	{"key revoke", "revoke an organization's API key", keyRevoke},
	{"asset limits", "show or set the least and most of a /v2 conversion or payout in an asset", assetLimits},
	{"user invite", "invite an organization's admin to its portal (a one-time link)", userInvite},
	{"user list", "list an organization's portal users", userList},
	{"user show", "show a user (a portal user or a member of the staff)", userShow},
	{"user invitations", "list an organization's pending invitations and password resets", userInvitations},
	{"user revoke-invitation", "revoke an organization's pending invitation or password reset", userRevokeInvitation},
	{"user disable", "disable a user: no sign-in, sessions ended", userDisable},
	{"user enable", "enable a disabled user again", userEnable},
	{"user end-sessions", "end every session of a user", userEndSessions},
	{"user reset-totp", "remove a user's TOTP: they enrol again", userResetTOTP},
	{"user reset-password", "start a user's password reset (a one-time link)", userResetPassword},
	{"staff invite", "invite a member of the operator's staff to the console, with roles", staffInvite},
	{"staff list", "list the operator's staff and their roles", staffList},
	{"staff invitations", "list the staff's pending invitations and password resets", staffInvitations},
	{"staff revoke-invitation", "revoke a pending staff invitation or password reset", staffRevokeInvitation},
	{"staff roles", "replace a staff user's roles", staffRoles},
	{"fund", "credit an organization's balance (above the asset's threshold it waits for approval)", fund},
	{"deposit record", "record a blockchain deposit received for an organization (above the threshold it waits for approval)", depositRecord},
	{"deposit rotate-address", "give an organization a new deposit address on a network", depositRotateAddress},
	{"network list", "list the blockchain networks and the assets each carries", networkList},
	{"trade record", "record an OTC trade: USDT sold at a rate, MWK credited (above the threshold it waits for approval)", tradeRecord},
	{"collection reverse", "reverse a /v1 collection whose money did not arrive", collectionReverse},
	{"corridor list", "list the /v2 order corridors: rates, bounds, open or closed", corridorList},
	{"corridor set", "set a corridor's rates, bounds or open state", corridorSet},
	{"webhook set", "set an organization's webhook endpoint (the signing secret is shown once)", webhookSet},
	{"deliveries list", "list an organization's webhook deliveries and their attempts", deliveriesList},
	{"deliveries redeliver", "send a dead-lettered webhook delivery again", deliveriesRedeliver},
	{"pause", "show the pause switches of /v1 and /v2, or set them", pause},
	{"approvals list", "list the approvals (four-eyes) pending or decided", approvalsList},
	{"approvals threshold", "show the approval thresholds, or set or remove an asset's", approvalsThreshold},
	{"approvals show", "show an approval and its decision", approvalsShow},
	{"approvals reject", "reject a pending approval, with a reason", approvalsReject},
	{"audit", "list the audit trail, by organization, actor, action, target and time", audit},
	{"order list", "list the desk's queue of /v2 orders, by status and organization", orderList},
	{"order show", "show a /v2 order as the desk sees it: its proof, its funding instructions", orderShow},
	{"order proof", "save an order's newest funding proof to a file, to look at before confirm-funds", orderProof},
	{"order move", "move a /v2 order by hand: processing, coins-sent, complete, fail, instructions...", orderMove},
	{"payout in-flight", "list the payouts in flight (the manual rail's queue to pay by hand)", payoutInFlight},
	{"payout resolve", "record a payout's outcome at the provider: succeeded or failed", payoutResolve},
	{"payout clawback", "claw back a succeeded /v1 payout (above the threshold it waits for approval)", payoutClawback},
	{"institutions sync", "replace the payable institutions with a JSON file's list", institutionsSync},
	{"rail set", "pause or resume a /v1 payout rail (bank, momo)", railSet},
	{"reconcile import", "import a rail's settlement file (CSV) to match against the payouts and collections", reconcileImport},
	{"reconcile mapping", "show or set the column mapping of a rail's settlement files", reconcileMapping},
	{"reconcile show", "show an imported settlement file's lines in their groups, and the gaps in file numbers", reconcileShow},
}

// adminCmd is a subcommand that talks to the admin API: its flag set,
// the admin flags and, once parsed, the client.
type adminCmd struct {
	*cli
	ctx       context.Context
	fs        *flag.FlagSet
	opts      *adminOptions
	api       *adminClient
	argsUsage string
	// replayed says the last answer was marked Idempotent-Replayed: the
	// request had been made before, and nothing more was done now.
	replayed bool
}

// adminCommand makes the flag set of an admin subcommand with the admin
// flags (-admin-url, -admin-token, -data, -json); the caller adds its own.
func (c *cli) adminCommand(ctx context.Context, argsUsage, about string) *adminCmd {
	about += "\n\n"
	if argsUsage != "" {
		about += "Flags and arguments may come in any order. "
	}
	about += "The admin API is found with -admin-url\n" +
		"(env TAMBALA_ADMIN_URL), its token with -admin-token (env\n" +
		"TAMBALA_ADMIN_TOKEN) or in DATA/admin-token. -json prints the API's own answer."
	fs := c.flags(argsUsage, about)
	return &adminCmd{cli: c, ctx: ctx, fs: fs, opts: c.adminFlags(fs), argsUsage: argsUsage}
}

// parse parses args (flags and between min and max positional
// arguments, in any order) and makes the client.
func (a *adminCmd) parse(args []string, min, max int) ([]string, error) {
	rest, err := parseAnyOrder(a.fs, args)
	if err != nil {
		return nil, err
	}
	switch {
	case len(rest) < min:
		return nil, usagef("missing arguments: want %s (run with -h)", a.argsUsage)
	case len(rest) > max:
		return nil, usagef("unexpected arguments %q: want %s (run with -h)", rest[max:], a.argsUsage)
	}
	if a.api, err = a.opts.client(a.cli); err != nil {
		return nil, err
	}
	return rest, nil
}

// parseAnyOrder parses args into fs with flags before, between or after
// the positional arguments, which it returns; after "--" every argument
// is positional.
func parseAnyOrder(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError{err}
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// set reports whether the flag name was given.
func (a *adminCmd) set(name string) bool {
	given := false
	a.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// do calls method path with body (nil: none) and either prints the
// answer (-json) or decodes it into out (when not nil).
func (a *adminCmd) do(method, path string, body, out any) (status int, printed bool, err error) {
	status, hdr, b, err := a.api.exchange(a.ctx, method, path, body)
	if err != nil {
		return status, false, err
	}
	a.replayed = hdr.Get("Idempotent-Replayed") == "true"
	if a.opts.json {
		return status, true, a.printJSON(b)
	}
	if out != nil {
		if err := jsonUnmarshal(b, out); err != nil {
			return status, false, err
		}
	}
	return status, false, nil
}

// esc escapes one path segment.
func esc(s string) string { return url.PathEscape(s) }

// table is a tabwriter on stdout with the package's spacing.
func (c *cli) table() *tabwriter.Writer { return tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0) }

// row writes one tab-separated row.
func row(w io.Writer, cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }

// orNone is s, or "-" when empty.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// optStr is *s, or "-" when nil or empty.
func optStr(s *string) string {
	if s == nil {
		return "-"
	}
	return orNone(*s)
}

// nullable is an optional JSON value as a flag takes it: "none" is null
// (remove it), anything else the string.
func nullable(s string) *string {
	if s == "none" {
		return nil
	}
	return &s
}

// csv splits a comma-separated list, dropping blanks.
func csv(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// jsonUnmarshal decodes an answer of the admin API into v.
func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return errNoAnswer
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("reading the admin API's answer: %w", err)
	}
	return nil
}

// printJSONValue prints v as indented JSON, for -json when no single
// answer of the API is the output.
func (c *cli) printJSONValue(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.printJSON(b)
}
