// Package wiretime holds the one timestamp layout the wire uses: RFC 3339
// in UTC with millisecond precision ("2006-01-02T15:04:05.000Z"). The
// renderings, the webhook envelope, the quote messages and the records
// that keep a time as text all format with it, so that every timestamp a
// caller reads has the same shape.
package wiretime
