package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/wire"
)

// The desk's commands: the /v2 orders it moves by hand, the payouts of the
// manual rail it pays by hand, and the payable institutions.

// direction is the order's direction as the desk says it: to-bank (the
// organization's asset sold for MWK paid to a bank account) or from-bank.
func direction(o wire.Order) string {
	if o.Beneficiary != nil || o.ToAsset == "MWK" && o.FromAsset != "MWK" {
		return "to-bank"
	}
	return "from-bank"
}

// age is how long ago the API time ts was, in whole units ("3m", "2h5m",
// "4d"); ts itself when it does not parse.
func age(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return orNone(ts)
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return strconv.Itoa(max(0, int(d/time.Second))) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		h := int(d / time.Hour)
		if m := int(d%time.Hour) / int(time.Minute); m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return strconv.Itoa(h) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// query makes "?k=v&..." of the non-empty values (pairs of key, value).
func query(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func orderList(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the desk's queue of /v2 orders, newest first: each order's id, its\n"+
		"organization, its direction and assets (to-bank: the asset sold for MWK\n"+
		"paid to a bank account; from-bank: MWK received for the asset), its\n"+
		"amounts, its status and how long ago it was made. Example:\n\n"+
		"  tambala order list -status accepted")
	status := a.fs.String("status", "", "only the orders in `status` (accepted, processing, awaiting_instructions, awaiting_funds, proof_submitted, funds_confirmed, expired, completed, failed, cancelled; default: all)")
	org := a.fs.String("org", "", "only the orders of the organization `ORG` (its id)")
	limit := a.fs.Int("limit", 0, "at most `n` orders (default: the server's page size)")
	before := a.fs.String("before", "", "the page older than the order `id` (as the last page's end says)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	lim := ""
	if *limit != 0 {
		lim = strconv.Itoa(*limit)
	}
	var out wire.DeskOrders
	path := "/admin/orders" + query("status", *status, "org", *org, "limit", lim, "before_id", *before)
	if _, printed, err := a.do("GET", path, nil, &out); err != nil || printed {
		return err
	}
	if len(out.Orders) == 0 {
		_, err := c.println("No orders.")
		return err
	}
	now := time.Now()
	tw := c.table()
	row(tw, "ID", "ORG", "DIRECTION", "FROM", "TO", "STATUS", "AGE")
	for _, d := range out.Orders {
		o := d.Order
		row(tw, o.ID, d.Org, direction(o),
			o.FromAmount+" "+o.FromAsset, o.ToAmount+" "+o.ToAsset, o.Status, age(o.CreatedAt, now))
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

// printDeskOrder writes one order as the desk sees it: the order, its
// destination or funding instructions, its newest proof.
func (c *cli) printDeskOrder(d wire.DeskOrder) error {
	o := d.Order
	tw := c.table()
	row(tw, "ID", o.ID)
	row(tw, "Organization", d.Org)
	row(tw, "Client ref", orNone(o.ClientRef))
	row(tw, "Direction", direction(o))
	row(tw, "From", o.FromAmount+" "+o.FromAsset)
	row(tw, "To", o.ToAmount+" "+o.ToAsset)
	row(tw, "Rate", o.Rate)
	row(tw, "Status", o.Status)
	if f := o.Failure; f != nil {
		row(tw, "Failure", f.Code+": "+f.Message)
	}
	if r := o.Refund; r != nil {
		row(tw, "Refund", r.Status)
	}
	if b := o.Beneficiary; b != nil {
		row(tw, "Beneficiary", b.Name)
		row(tw, "Bank", b.BankName)
		row(tw, "Account number", b.AccountNumber)
		if b.Branch != nil {
			row(tw, "Branch", *b.Branch)
		}
	}
	if f := o.Funding; f != nil {
		row(tw, "Funding bank", f.BankName)
		row(tw, "Account name", f.AccountName)
		row(tw, "Account number", f.AccountNumber)
		row(tw, "Reference", orNone(f.Reference))
		row(tw, "Amount due", f.Amount+" "+f.Asset)
		row(tw, "Deadline", f.Deadline)
	}
	if p := d.Proof; p != nil {
		proof := fmt.Sprintf("%s (%s, %d bytes, sha256 %s)", p.ID, p.ContentType, p.Size, p.SHA256)
		if f := o.Proofs.Funding; f != nil {
			proof += ", uploaded " + f.UploadedAt
			if f.RejectedReason != nil {
				proof += ", rejected: " + *f.RejectedReason
			}
		}
		row(tw, "Proof", proof)
	}
	if d.CoinsLeftAt != nil {
		row(tw, "Coins left", *d.CoinsLeftAt)
	}
	row(tw, "Created", o.CreatedAt)
	row(tw, "Updated", o.UpdatedAt)
	return tw.Flush()
}

func orderShow(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Shows the /v2 order ID as the desk sees it: its organization, amounts and\n"+
		"status, the beneficiary (to-bank) or the funding instructions (from-bank),\n"+
		"and the newest proof of funding with its id (for order move reject-proof\n"+
		"and confirm-funds). Example:\n\n"+
		"  tambala order show 01a21566-9b28-768f-8bf4-93d0bf96fb80")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var d wire.DeskOrder
	if _, printed, err := a.do("GET", "/admin/orders/"+esc(rest[0]), nil, &d); err != nil || printed {
		return err
	}
	return c.printDeskOrder(d)
}

// moveFlags are the flags of order move, each named after the field of
// the move it sets (orders.MoveTakes lists a move's fields), in the order
// they are checked.
var moveFlags = []struct{ flag, field string }{
	{"code", "code"}, {"bank-name", "bank_name"}, {"account-name", "account_name"}, {"account-number", "account_number"},
	{"reference", "reference"}, {"deadline", "deadline"}, {"proof", "proof_id"}, {"reason", "reason"},
}

// flagOf is the flag that sets field.
func flagOf(field string) string {
	for _, f := range moveFlags {
		if f.field == field {
			return f.flag
		}
	}
	return field
}

func orderMove(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID MOVE", "Moves the /v2 order ID by hand and shows it after the move. MOVE is one of:\n\n"+
		"  processing       to-bank: the desk took the order (accepted to processing)\n"+
		"  coins-sent       to-bank: the organization's coins left for the market\n"+
		"  complete         the MWK was paid (to-bank) or the coins sent (from-bank)\n"+
		"  fail             the order failed, with -code\n"+
		"  cancel           the order is cancelled\n"+
		"  refund-returned  to-bank: a failed order's refund came back (above the\n"+
		"                   asset's approval threshold it waits for a staff approval:\n"+
		"                   the command prints the approval's id, exit status 0)\n"+
		"  instructions     from-bank: the funding instructions, with -bank-name,\n"+
		"                   -account-name, -account-number, [-reference], [-deadline]\n"+
		"  reject-proof     from-bank: the proof -proof is refused, with -reason\n"+
		"  confirm-funds    from-bank: the funds of the proof -proof arrived\n\n"+
		"A move the order's state does not allow is refused (exit status 1).\n"+
		"Repeating a move already made answers the order unchanged; a move a staff\n"+
		"member already made in the console is refused: the order already moved\n"+
		"(exit status 1). Examples:\n\n"+
		"  tambala order move ID processing\n"+
		"  tambala order move ID fail -code not_delivered\n"+
		"  tambala order move ID instructions -bank-name \"National Bank of Malawi\" \\\n"+
		"      -account-name \"Tambala Ltd\" -account-number 100200300 -reference ORD0001")
	code := a.fs.String("code", "", "fail: the failure `code` (unable_to_fill, beneficiary_rejected, funds_not_received, not_delivered, other)")
	bankName := a.fs.String("bank-name", "", "instructions: the `bank` the organization pays into")
	accountName := a.fs.String("account-name", "", "instructions: the account's `name`")
	accountNumber := a.fs.String("account-number", "", "instructions: the account's `number`")
	reference := a.fs.String("reference", "", "instructions: the `reference` the organization quotes with its transfer, 6 to 18 of A-Z and 0-9 (default: one is generated)")
	deadline := a.fs.String("deadline", "", "instructions: the funding deadline, an RFC 3339 `time` (2026-11-27T12:00:00Z; default: the server's)")
	proof := a.fs.String("proof", "", "reject-proof, confirm-funds: the proof's `id` (order show prints it)")
	reason := a.fs.String("reason", "", "reject-proof: why the proof is refused (the organization reads it)")
	rest, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	id, move := rest[0], rest[1]
	if _, err := orders.ParseMove(move, orders.MoveFields{}); err != nil {
		return usagef("unknown move %q: want one of %s", move, strings.Join(orders.MoveNames(), ", "))
	}
	takes, required, _ := orders.MoveTakes(move)
	for _, f := range moveFlags {
		if a.set(f.flag) && !slices.Contains(takes, f.field) {
			return usagef("-%s is not a flag of the move %s", f.flag, move)
		}
	}
	for _, f := range required {
		if !a.set(flagOf(f)) {
			return usagef("the move %s needs -%s (run with -h)", move, flagOf(f))
		}
	}
	values := map[string]*string{"code": code, "bank-name": bankName, "account-name": accountName, "account-number": accountNumber,
		"reference": reference, "deadline": deadline, "proof": proof, "reason": reason}
	var body any // no body for a move without fields
	if len(takes) > 0 {
		b := map[string]any{}
		for _, f := range takes {
			if flag := flagOf(f); a.set(flag) {
				b[f] = *values[flag]
			}
		}
		body = b
	}
	var out wire.DeskMove
	status, printed, err := a.do("POST", "/admin/orders/"+esc(id)+"/"+esc(move), body, &out)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && out.Approval != nil {
		ap := out.Approval
		_, err := fmt.Fprintf(c.stdout, "Approval pending: the refund of %s %s returned to %s (order %s) is above the %s approval threshold.\n"+
			"Nothing is credited until a staff member with the %s role approves it in the console.\n"+
			"Approval: %s\n", ap.Amount, ap.Asset, ap.Org, orNone(ap.Details["order"]), ap.Asset, ap.Role, ap.ID)
		return err
	}
	return c.printDeskOrder(out.DeskOrder)
}

func payoutInFlight(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "", "Lists the payouts not terminal yet, oldest first: on the manual rail, the\n"+
		"queue the staff pay by hand (then record each with payout resolve). Each\n"+
		"with its organization, amount, destination, status, age and whether it is\n"+
		"overdue. Example:\n\n"+
		"  tambala payout in-flight -status pending -older-than 15m")
	status := a.fs.String("status", "", "only the payouts in `status`: held, submitted or pending (default: all)")
	olderThan := a.fs.String("older-than", "", "only the payouts accepted at least this long ago, a Go `duration` (15m, 2h)")
	org := a.fs.String("org", "", "only the payouts of the organization `ORG` (its id)")
	limit := a.fs.Int("limit", 0, "at most `n` payouts, 1 to 1000 (default: the server's, 100)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	lim := ""
	if *limit != 0 {
		lim = strconv.Itoa(*limit)
	}
	var out wire.InFlights
	path := "/admin/payouts/in-flight" + query("status", *status, "older_than", *olderThan, "org", *org, "limit", lim)
	if _, printed, err := a.do("GET", path, nil, &out); err != nil || printed {
		return err
	}
	if len(out.Payouts) == 0 {
		_, err := c.println("No payouts in flight.")
		return err
	}
	now := time.Now()
	tw := c.table()
	row(tw, "ID", "API", "ORG", "AMOUNT", "DESTINATION", "STATUS", "AGE", "OVERDUE")
	for _, f := range out.Payouts {
		p := f.Payout
		amount := p.AmountMWK + " MWK"
		if f.APIVersion == "v2" {
			amount = p.Amount + " " + p.Asset
		}
		d := p.Destination
		kind := p.Rail
		if d.Type != "" {
			kind = d.Type
		}
		dest := kind
		switch {
		case d.AccountNumber != "":
			dest += fmt.Sprintf(" %d/%s", d.InstitutionID, d.AccountNumber)
		case d.MobileNumber != "":
			dest += fmt.Sprintf(" %d/%s", d.InstitutionID, d.MobileNumber)
		case d.Address != "":
			dest += " " + d.Address
		}
		if d.BeneficiaryName != "" {
			dest += " (" + d.BeneficiaryName + ")"
		}
		row(tw, p.ID, f.APIVersion, f.Org, amount, dest, p.Status, age(p.CreatedAt, now), strconv.FormatBool(f.Overdue))
	}
	return tw.Flush()
}

func payoutResolve(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "ID", "Records the outcome of the payout ID as found at the provider (on the\n"+
		"manual rail: once the staff paid it by hand), through the worker's own\n"+
		"transition, ledger entries and webhook event: succeeded captures the hold\n"+
		"(with the fee charged), failed releases it whole. -reason is kept with the\n"+
		"payout and in the audit trail. A failure whose hold is above its asset's\n"+
		"approval threshold waits for a staff member's approval in the console:\n"+
		"the command prints the approval's id (exit status 0). Examples:\n\n"+
		"  tambala payout resolve ID -outcome succeeded -fee 250.00 -reference MP240311.1523.A12345 -reason \"Paid through the portal.\"\n"+
		"  tambala payout resolve ID -outcome failed -failure-code recipient_account_invalid -reason \"The bank refused the account.\"")
	outcome := a.fs.String("outcome", "", "succeeded or failed, required")
	fee := a.fs.String("fee", "", "succeeded: the `fee` the provider charged in MWK (default: the fee held at accept)")
	reference := a.fs.String("reference", "", "the provider's own `reference` for the payment")
	failureCode := a.fs.String("failure-code", "", "failed, required: the `code` (recipient_account_invalid, declined, provider_unavailable, temporarily_unavailable)")
	reason := a.fs.String("reason", "", "what the operator found, required (kept with the payout and in the audit trail)")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	switch *outcome {
	case "succeeded":
		if a.set("failure-code") {
			return usagef("-failure-code is for -outcome failed")
		}
	case "failed":
		if a.set("fee") {
			return usagef("-fee is for -outcome succeeded")
		}
		if *failureCode == "" {
			return usagef("-outcome failed needs -failure-code")
		}
	default:
		return usagef("-outcome is required: succeeded or failed")
	}
	if *reason == "" {
		return usagef("-reason is required: what the operator found")
	}
	body := wire.Resolve{Outcome: *outcome, Reason: *reason}
	if a.set("fee") {
		body.Fee = fee
	}
	if a.set("failure-code") {
		body.FailureCode = failureCode
	}
	if a.set("reference") {
		body.Reference = reference
	}
	var p wire.Resolved
	status, printed, err := a.do("POST", "/admin/payouts/"+esc(rest[0])+"/resolve", body, &p)
	if err != nil || printed {
		return err
	}
	if status == http.StatusAccepted && p.Approval != nil {
		ap := p.Approval
		_, err := fmt.Fprintf(c.stdout, "Approval pending: failing payout %s returns %s %s to %s, above the %s approval threshold.\n"+
			"Nothing is released until a staff member with the %s role approves it in the console.\n"+
			"Approval: %s\n", orNone(ap.Details["payout"]), ap.Amount, ap.Asset, ap.Org, ap.Asset, ap.Role, ap.ID)
		return err
	}
	fmt.Fprintf(c.stdout, "Resolved payout %s: %s.\n", p.ID, p.Status)
	tw := c.table()
	row(tw, "ID", p.ID)
	row(tw, "Amount", p.AmountMWK+" MWK")
	if p.Fee != nil {
		row(tw, "Fee", *p.Fee+" MWK")
	} else {
		row(tw, "Fee", "-")
	}
	row(tw, "Rail", p.Rail)
	row(tw, "Status", p.Status)
	if f := p.Failure; f != nil {
		row(tw, "Failure", f.Code+": "+f.Message)
	}
	row(tw, "Terminal", optStr(p.TerminalAt))
	return tw.Flush()
}

func institutionsSync(ctx context.Context, c *cli, args []string) error {
	a := c.adminCommand(ctx, "FILE", "Replaces the payable institutions with the list in the JSON file FILE (\"-\"\n"+
		"reads stdin): {\"institutions\":[{\"institution_id\":1,\"name\":\"National Bank\n"+
		"of Malawi\",\"rail\":\"bank\"},{\"institution_id\":101,\"name\":\"Airtel Money\",\n"+
		"\"rail\":\"momo\",\"network\":\"9\"}]}, a bank's with an optional\n"+
		"\"account_number_digits\":{\"min_digits\",\"max_digits\"}. Production is not\n"+
		"ready until they are synced. Example:\n\n"+
		"  tambala institutions sync institutions.json")
	rest, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var b []byte
	if rest[0] == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	} else {
		b, err = os.ReadFile(rest[0])
	}
	if err != nil {
		return err
	}
	if !json.Valid(b) {
		return fmt.Errorf("%s is not JSON: want {\"institutions\":[...]}", rest[0])
	}
	var out wire.Institutions
	if _, printed, err := a.do("PUT", "/admin/institutions", json.RawMessage(b), &out); err != nil || printed {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Synced %d institutions.\n", out.Institutions)
	return err
}
