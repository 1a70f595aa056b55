package codec

// DayCloseRecord is an organization's available balance in one asset at the
// end of its last change on one UTC day: {"available"} (decimal text).
type DayCloseRecord struct {
	Available string `json:"available"`
}

// CountRecord is a counter the engine keeps in the transaction of each
// change it counts: {"n"}.
type CountRecord struct {
	N int64 `json:"n"`
}
