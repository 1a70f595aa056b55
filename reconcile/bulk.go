package reconcile

import "fmt"

// ByID indexes items by id.
func ByID(items []Item) map[string]Item {
	byID := make(map[string]Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	return byID
}

// PayoutsInFlight are those of m's items that are payouts in flight: in the
// matched group, the payouts a bulk resolution may resolve.
func PayoutsInFlight(m LineMatch, byID map[string]Item) []string {
	var out []string
	for _, id := range m.Items {
		if it := byID[id]; it.Kind == Payout && it.Status == InFlight {
			out = append(out, id)
		}
	}
	return out
}

// MatchedLines maps each item of the matched group of ms to its line.
func MatchedLines(ms []LineMatch) map[string]Line {
	lineOf := map[string]Line{}
	for _, m := range ms {
		if m.Group != Matched {
			continue
		}
		for _, id := range m.Items {
			lineOf[id] = m.Line
		}
	}
	return lineOf
}

// Settlement is what a line of a settlement file says of a payout it
// settles: whether it failed, the provider's reference to keep ("" for
// none) and the reason to record.
type Settlement struct {
	Failed    bool
	Reference string
	Reason    string
}

// Settles is what line l of file says of payout id: reason (may be "")
// followed by the file's name and line; the line's reference is kept
// when it is not the payout's id and at most maxReference bytes long.
func Settles(l Line, id, file, reason string, maxReference int) Settlement {
	s := Settlement{Failed: l.Status == Failed, Reason: fmt.Sprintf("%s (settlement file %q line %d)", reason, file, l.Number)}
	if reason == "" {
		s.Reason = fmt.Sprintf("settled per settlement file %q line %d", file, l.Number)
	}
	if l.Reference != id && len(l.Reference) <= maxReference {
		s.Reference = l.Reference
	}
	return s
}
