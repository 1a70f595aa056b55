package collections

import (
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// Details are what an approval keeps of a collection waiting for it: the
// source and the rail (the amount is the approval's own).
func (r Received) Details() map[string]string {
	return map[string]string{"rail": string(r.Rail), "source_customer_name": r.SourceCustomerName,
		"source_account_number": r.SourceAccountNumber, "source_institution": r.SourceInstitution,
		"rtp_reference_number": r.RTPReferenceNumber}
}

// ReceivedOf is the collection of amount an approval's details d keep
// (Details), unchecked.
func ReceivedOf(amount money.Amount, d map[string]string) Received {
	return Received{Amount: amount, Rail: payouts.Rail(d["rail"]), SourceCustomerName: d["source_customer_name"],
		SourceAccountNumber: d["source_account_number"], SourceInstitution: d["source_institution"],
		RTPReferenceNumber: d["rtp_reference_number"]}
}
