package pgstore

// SetRuns sets how the committer runs a round of functions: "auto",
// "in-order" or "concurrent". Set it before the first Update.
func (s *Store) SetRuns(policy string) {
	switch policy {
	case "auto":
		s.runs = runsAuto
	case "in-order":
		s.runs = runsInOrder
	case "concurrent":
		s.runs = runsConcurrent
	default:
		panic("pgstore: unknown run policy " + policy)
	}
}
