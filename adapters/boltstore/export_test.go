package boltstore

// SetFailCommit makes the pipelined writer fail the commits fn returns an
// error for; set it before the first Update.
func (s *Store) SetFailCommit(fn func(seq int64) error) { s.failCommit = fn }
