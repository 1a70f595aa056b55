// Package archtest holds the test that keeps the layering of
// ARCHITECTURE.md true: the pure domain packages do no I/O and know no
// storage, logging or transport, and the ledger knows storage only through
// the store port.
package archtest
