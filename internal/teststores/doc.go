// Package teststores opens every store adapter for tests, so that one
// suite runs on each: memstore, boltstore (a temporary file, fsync off)
// and pgstore (a schema of its own per store location, dropped when the
// test ends).
//
//	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
//		s := k.Open(t) // closed, and its data removed, when t ends
//		...
//	})
//
// Kind.OpenTwo returns two handles on one data set (for pgstore two
// connection pools over one schema, as two engine processes would have),
// and Kind.NewLocation with Kind.OpenAt reopen a persistent store.
//
// PostgreSQL availability rule: when TAMBALA_PG_URL is set, the server it
// names must answer, and every test that needs it fails otherwise; when it
// is unset, postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable is
// tried and, if nothing answers there, only the PostgreSQL tests (the
// pgstore arm) are skipped. CI sets the variable (.ci/run), so that a
// missing database fails the build instead of skipping silently. Each
// schema the tests create is named tambala_t_<unix time>_<random> and
// dropped at cleanup; schemas older than six hours, left by killed runs,
// are swept when a process first reaches the server.
//
// Like store/storetest, this is a test-support package, imported only by
// tests.
package teststores
