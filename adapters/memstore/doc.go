// Package memstore is the in-memory adapter of the storage port: the honest
// reference every other adapter is compared with, and the default store for
// tests. Writers are serialized; a read-write transaction buffers its writes
// and applies them only when its function returns nil, so a failed function
// leaves no trace and readers never see uncommitted data. Nothing survives
// the process.
package memstore
