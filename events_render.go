package tambala

import "github.com/tambalapay/tambala/internal/render"

// The renderings of the engine's own resources that its events carry as
// data (internal/render holds them; it cannot import the engine, so the
// engine hands it each resource's fields). The binding renders its reads
// of the same resources with the same functions.

// renderCollection is the data of collection.settled and
// collection.reversed.
func renderCollection(c Collection) []byte {
	return render.Collection(render.CollectionFields{ID: c.ID, Status: string(c.Status), AmountMWK: c.AmountMWK, Fee: c.Fee,
		AmountCredited: c.AmountCredited, Rail: string(c.Rail), SourceCustomerName: c.SourceCustomerName,
		SourceAccountNumber: c.SourceAccountNumber, SourceInstitution: c.SourceInstitution,
		RTPReferenceNumber: c.RTPReferenceNumber, CreatedAt: render.Time(c.CreatedAt)})
}

// renderTrade is the data of trade.settled.
func renderTrade(t Trade) []byte {
	return render.Trade(render.TradeFields{ID: t.ID, USDTAmount: t.USDTAmount, ClientRate: t.ClientRate, MWKAmount: t.MWKAmount,
		Status: string(t.Status), CreatedAt: render.Time(t.CreatedAt), SettledAt: render.Time(t.SettledAt)})
}

// renderCollectionV2 is the data of collection_v2.settled, stored with the
// collection.
func renderCollectionV2(c CollectionV2) []byte {
	return render.CollectionV2(render.CollectionV2Fields{ID: c.ID, Status: string(c.Status), Asset: string(c.Asset.Code), Amount: c.Amount,
		Fee: c.Fee, AmountCredited: c.AmountCredited, Network: nullable(c.Network), Source: string(c.Source), OrderID: c.OrderID,
		CreatedAt: render.Time(c.CreatedAt)})
}

// nullable is s for a rendering field that is null when empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// renderPayoutV2 is the data of the payout_v2.* events.
func renderPayoutV2(p PayoutV2) []byte {
	d := p.Destination
	return render.PayoutV2(render.PayoutV2Fields{ID: p.ID, SourceAsset: string(p.SourceAsset.Code), SourceAmount: p.SourceAmount,
		Asset: string(p.Asset.Code), Amount: p.Amount, Rate: p.Rate, Fee: p.Fee, Status: p.Status, Failure: p.Failure,
		CreatedAt: p.CreatedAt, TerminalAt: p.TerminalAt,
		Destination: render.PayoutV2Destination{Type: string(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
			MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}})
}
