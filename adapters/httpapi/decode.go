package httpapi

import (
	"github.com/tambalapay/tambala/errcode"
)

// The request decoders of the domain's bodies (decode_*.go) read a body
// with decodeJSON and call the domain packages' pure checks; these are
// the two messages they share.

// required is the validation_error of an absent (or null) field.
func required(field string) error {
	return errcode.Newf(errcode.ValidationError, "%s is required.", field)
}

// fieldError is the validation_error of a field whose value does not
// parse: the field's name, then the parse error's message.
func fieldError(field string, err error) error {
	return errcode.Newf(errcode.ValidationError, "%s: %s", field, errcode.Message(err))
}
