// Package strictjson is the one decoder of API request bodies. It refuses
// every body that encoding/json (v1) would read in a way the client may not
// have meant, so that an accepted body has exactly one meaning.
//
// Unmarshal decodes a body into a Go value and refuses, with a
// validation_error (*errcode.Error) that names the problem and, where known,
// the field, but never quotes a value:
//
//   - an empty body, malformed JSON, or data after the JSON value;
//   - a duplicated member name in any object, at any depth
//     ({"amount_mwk":"1.00","amount_mwk":"2.00"});
//   - a member name that matches a field of the target struct only when case
//     is ignored ({"AMOUNT_MWK":"3.00"}): names are matched exactly and such a
//     name is never bound to the field, and since encoding/json would have
//     bound it, it is refused rather than ignored;
//   - invalid UTF-8, and \u escapes of unpaired UTF-16 surrogates (\ud800),
//     which encoding/json silently turns into U+FFFD;
//   - a control character, U+0000 to U+001F or U+007F, in any string or
//     member name, also when escaped (\u0000, \n, \u007f);
//   - a value of the wrong JSON type for its Go field.
//
// Members the target does not know (by exact name, and not a case variant
// of a known one) are ignored, as the API documents. Fields of type
// json.RawMessage or jsontext.Value receive the raw bytes of their value,
// already checked by the rules above, for later parsing (money.ParseJSON).
//
// Every accepted body decodes to the same Go value under encoding/json; the
// fuzz target FuzzUnmarshal holds the package to that.
//
// # Why github.com/go-json-experiment/json
//
// The module is the mirror of encoding/json/v2 (the standard library's
// stable JSON API from Go 1.27, which it aliases when built with the
// goexperiment.jsonv2 tag). Its jsontext tokenizer already enforces RFC 8259
// and RFC 7493 (I-JSON) by default: exact UTF-8, no unpaired surrogate
// escapes, no duplicate names at any depth, one top-level value, and it
// reports each failure with a byte offset and a JSON pointer. Its decoder
// matches struct fields by exact name. Hand-written checks on top of
// encoding/json would have had to re-tokenize the body anyway (the v1
// decoder exposes neither duplicates nor the raw escapes of a string) and
// would have been a second JSON grammar to keep in step with the first. What
// the library leaves to this package is small and semantic: control
// characters in decoded strings, case variants of known field names, and
// turning the library's errors into the API's messages.
package strictjson
