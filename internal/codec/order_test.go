package codec

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/orders"
)

// appendJSON writes what encoding/json writes, for any stored order: every
// optional part present or absent, any text (HTML-sensitive, control
// characters, invalid UTF-8), any time zone, and a time with no JSON form
// refused as encoding/json refuses it.
func TestStoredOrderAppendJSONMatchesEncodingJSON(t *testing.T) {
	text, optText, at := oracleText, oracleOptText, oracleTime
	amount := rapid.Custom(func(t *rapid.T) orderAmount {
		return orderAmount{Asset: text.Draw(t, "asset"), Decimals: rapid.Int32().Draw(t, "decimals"), Value: text.Draw(t, "value")}
	})
	rapid.Check(t, func(t *rapid.T) {
		s := storedOrder{V: rapid.Int().Draw(t, "v"), ID: text.Draw(t, "id"), Org: text.Draw(t, "org"), QuoteID: text.Draw(t, "quote"),
			ClientRef: text.Draw(t, "ref"), Direction: orders.Direction(text.Draw(t, "direction")), From: amount.Draw(t, "from"), To: amount.Draw(t, "to"),
			Rate: text.Draw(t, "rate"), Status: orders.Status(text.Draw(t, "status")), CreatedAt: at.Draw(t, "created"), UpdatedAt: at.Draw(t, "updated")}
		if rapid.Bool().Draw(t, "failed") {
			s.Failure = &Failure{Code: text.Draw(t, "code"), Message: text.Draw(t, "message")}
		}
		if rapid.Bool().Draw(t, "refund") {
			r := orders.RefundStatus(text.Draw(t, "refund status"))
			s.Refund = &r
		}
		if rapid.Bool().Draw(t, "beneficiary") {
			s.Beneficiary = &orderBeneficiary{Name: text.Draw(t, "name"), BankName: text.Draw(t, "bank"), AccountNumber: text.Draw(t, "account"),
				Branch: optText.Draw(t, "branch")}
		}
		if rapid.Bool().Draw(t, "funding") {
			s.Funding = &orderFunding{BankName: text.Draw(t, "funding bank"), AccountName: text.Draw(t, "account name"),
				AccountNumber: text.Draw(t, "funding account"), Reference: text.Draw(t, "reference"), Amount: amount.Draw(t, "funding amount"),
				Deadline: at.Draw(t, "deadline")}
		}
		if rapid.Bool().Draw(t, "proof") {
			s.Proof = &orderProof{ID: text.Draw(t, "proof id"), SHA256: text.Draw(t, "sha"), ContentType: text.Draw(t, "type"),
				Size: rapid.Int64().Draw(t, "size"), UploadedAt: at.Draw(t, "uploaded"), RejectedReason: optText.Draw(t, "reason")}
		}
		if rapid.Bool().Draw(t, "coins left") {
			c := at.Draw(t, "coins")
			s.CoinsLeftAt = &c
		}
		checkAppendJSON(t, s, s.appendJSON)
	})
}
