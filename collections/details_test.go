package collections_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestDetailsRoundTrip(t *testing.T) {
	r := collections.Received{Amount: money.FromInt(money.MWK, 5000), Rail: payouts.Bank, SourceCustomerName: "Chisomo",
		SourceAccountNumber: "1002003", SourceInstitution: "NBM", RTPReferenceNumber: "RTP-1"}
	d := r.Details()
	assert.Equal(t, map[string]string{"rail": "bank", "source_customer_name": "Chisomo", "source_account_number": "1002003",
		"source_institution": "NBM", "rtp_reference_number": "RTP-1"}, d)
	assert.Equal(t, r, collections.ReceivedOf(r.Amount, d))
}
