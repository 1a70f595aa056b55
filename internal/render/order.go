package render

import (
	"github.com/tambalapay/tambala/internal/jsonw"
	"github.com/tambalapay/tambala/orders"
)

// Order is the one JSON rendering of an order: a read of one order (the
// engine's Client.Order), each item of the order lists and the data of
// every order event are these bytes. Presence rules: failure is null unless
// failed; refund only on a failed to-bank order whose coins had left;
// beneficiary on to-bank orders only, branch only when sent; funding and
// expires_at on from-bank orders from awaiting_funds on; proofs is {} until
// a proof, then {"funding":{"uploaded_at", "rejected_reason"?}} for the
// newest one; amounts at their asset's decimals, the rate trimmed, times in
// UTC with milliseconds. CoinsLeftAt, the organization, the quote id and
// the proof's id, hash, type and size are never rendered.
func Order(o orders.Order) []byte {
	return appendOrder(make([]byte, 0, 512), o)
}

// appendOrder appends Order(o) to b. It writes what encoding/json writes
// for the shape of Order (TestOrderMatchesEncodingJSON holds it to that):
// orders are rendered on every read and in every event of the desk.
func appendOrder(b []byte, o orders.Order) []byte {
	b = append(b, `{"id":`...)
	b = jsonw.String(b, o.ID)
	b = append(b, `,"client_ref":`...)
	b = jsonw.String(b, o.ClientRef)
	b = append(b, `,"from_asset":`...)
	b = jsonw.String(b, string(o.From.Asset().Code))
	b = append(b, `,"from_amount":"`...)
	b, _ = o.From.AppendText(b)
	b = append(b, `","to_asset":`...)
	b = jsonw.String(b, string(o.To.Asset().Code))
	b = append(b, `,"to_amount":"`...)
	b, _ = o.To.AppendText(b)
	b = append(b, `","rate":`...)
	b = jsonw.String(b, o.Rate.String())
	b = append(b, `,"status":`...)
	b = jsonw.String(b, string(o.Status))
	b = append(b, `,"failure":`...)
	if o.Status == orders.Failed && o.Failure != nil {
		b = append(b, `{"code":`...)
		b = jsonw.String(b, string(o.Failure.Code))
		b = append(b, `,"message":`...)
		b = jsonw.String(b, o.Failure.Message)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	switch o.Direction {
	case orders.ToBank:
		if o.Status == orders.Failed && o.Refund != nil {
			b = append(b, `,"refund":{"status":`...)
			b = jsonw.String(b, string(o.Refund.Status))
			b = append(b, '}')
		}
		if n := o.Beneficiary; n != nil {
			b = append(b, `,"beneficiary":{"name":`...)
			b = jsonw.String(b, n.Name)
			b = append(b, `,"bank_name":`...)
			b = jsonw.String(b, n.BankName)
			b = append(b, `,"account_number":`...)
			b = jsonw.String(b, n.AccountNumber)
			if n.Branch != nil {
				b = append(b, `,"branch":`...)
				b = jsonw.String(b, *n.Branch)
			}
			b = append(b, '}')
		}
	case orders.FromBank:
		if f := o.Funding; f != nil {
			b = append(b, `,"funding":{"bank_name":`...)
			b = jsonw.String(b, f.BankName)
			b = append(b, `,"account_name":`...)
			b = jsonw.String(b, f.AccountName)
			b = append(b, `,"account_number":`...)
			b = jsonw.String(b, f.AccountNumber)
			b = append(b, `,"reference":`...)
			b = jsonw.String(b, f.Reference)
			b = append(b, `,"amount":"`...)
			b, _ = f.Amount.AppendText(b)
			b = append(b, `","asset":`...)
			b = jsonw.String(b, string(f.Amount.Asset().Code))
			b = append(b, `,"deadline":`...)
			b = jsonw.String(b, Time(f.Deadline))
			b = append(b, '}')
		}
	}
	b = append(b, `,"proofs":{`...)
	if p := o.Proof; p != nil && o.Direction == orders.FromBank {
		b = append(b, `"funding":{"uploaded_at":`...)
		b = jsonw.String(b, Time(p.UploadedAt))
		if p.RejectedReason != nil {
			b = append(b, `,"rejected_reason":`...)
			b = jsonw.String(b, *p.RejectedReason)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	b = append(b, `,"created_at":`...)
	b = jsonw.String(b, Time(o.CreatedAt))
	b = append(b, `,"updated_at":`...)
	b = jsonw.String(b, Time(o.UpdatedAt))
	if f := o.Funding; f != nil && o.Direction == orders.FromBank {
		b = append(b, `,"expires_at":`...)
		b = jsonw.String(b, Time(f.Deadline))
	}
	return append(b, '}')
}
