package strictjson

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/tambalapay/tambala/errcode"
)

// decodeOptions are the library's options, spelled out although they are its
// defaults, so that the rules this package promises cannot change with a
// default: names matched exactly, unknown members ignored, duplicates and
// invalid UTF-8 refused.
var decodeOptions = json.JoinOptions(
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	json.MatchCaseInsensitiveNames(false),
	json.RejectUnknownMembers(false),
	json.WithUnmarshalers(json.UnmarshalFromFunc(unmarshalNumber)),
)

// unmarshalNumber decodes encoding/json's Number as encoding/json does (v2
// knows it only as a string): from a JSON number, or from a JSON string
// that holds one.
func unmarshalNumber(dec *jsontext.Decoder, n *stdjson.Number) error {
	switch dec.PeekKind() {
	case '0':
		v, err := dec.ReadValue()
		*n = stdjson.Number(v)
		return err
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		s := tok.String()
		if !isNumber(s) {
			return errNotANumber
		}
		*n = stdjson.Number(s)
		return nil
	}
	return errors.ErrUnsupported // null, and the library's errors for the rest
}

var errNotANumber = errors.New("not a JSON number")

// isNumber reports whether s is exactly one JSON number, with no space
// around it.
func isNumber(s string) bool {
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	v := jsontext.Value(s)
	return s != "" && (s[0] == '-' || isDigit(s[0])) && isDigit(s[len(s)-1]) && v.Kind() == '0' && v.IsValid()
}

// Unmarshal decodes the request body data into v, which must be a non-nil
// pointer, under the rules of the package documentation. Every refusal of
// the body is a *errcode.Error with code errcode.ValidationError; any other
// error (v not a pointer, a target type the library cannot decode into) is
// a programming error.
//
// A body that is the JSON literal null leaves v at its zero value, as
// encoding/json does; callers see every field missing.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("strictjson: Unmarshal needs a non-nil pointer, not %T", v)
	}
	root := rv.Type().Elem()
	if err := check(data, root); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v, decodeOptions); err != nil {
		return semanticError(err, root)
	}
	return nil
}

// Validate checks data under the syntactic rules of Unmarshal without
// decoding it: one JSON value, exact UTF-8, no unpaired surrogate escapes,
// no duplicate names, no control characters in strings or names. Having no
// target, it cannot tell case variants of field names; use Unmarshal for
// bodies bound to a struct.
func Validate(data []byte) error { return check(data, nil) }

// Messages of the refusals that name no field.
const (
	msgEmpty    = "The request body is empty."
	msgTrailing = "The request body has data after its JSON value."
)

func invalid(format string, args ...any) *errcode.Error {
	return errcode.Newf(errcode.ValidationError, format, args...)
}

// frame is an object or array being walked.
type frame struct {
	object bool
	typ    reflect.Type // the Go type it decodes into; nil when unknown
	fields *structFields
	name   string // the member name whose value comes next (objects)
	index  int    // the index of the next element (arrays)
	path   string // path of the container itself, "" at the top
}

// checker is the reusable state of check: the tokenizer, the stack of
// containers and a buffer for unquoting strings.
type checker struct {
	buf   bytes.Buffer
	dec   jsontext.Decoder
	stack []frame
	text  []byte
}

var checkers = sync.Pool{New: func() any { return new(checker) }}

// emptyBuffer is what a checker's tokenizer reads between uses, so that it
// holds no body.
var emptyBuffer bytes.Buffer

// maxKeptStack bounds the stack a pooled checker keeps.
const maxKeptStack = 64

// check walks the tokens of data once, with the target type alongside, and
// refuses what the rules refuse.
func check(data []byte, root reflect.Type) error {
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return invalid(msgEmpty)
	}
	c := checkers.Get().(*checker)
	// The tokenizer parses a bytes.Buffer in place, without a copy.
	c.buf = *bytes.NewBuffer(data)
	c.dec.Reset(&c.buf, decodeOptions)
	err := c.check(data, root)
	c.dec.Reset(&emptyBuffer)
	c.buf = bytes.Buffer{}
	clear(c.stack)
	if cap(c.stack) > maxKeptStack {
		c.stack = nil
	}
	if cap(c.text) > 1<<10 {
		c.text = nil
	}
	checkers.Put(c)
	return err
}

func (c *checker) check(data []byte, root reflect.Type) error {
	dec := &c.dec
	stack := c.stack[:0]
	defer func() { c.stack = stack[:0] }()
	for {
		var (
			tok  jsontext.Token
			text []byte // the content of a string token, unquoted
			err  error
		)
		kind := dec.PeekKind()
		if kind == '"' {
			// A string's raw bytes, unquoted into c.text only when they
			// hold an escape: no copy of each name and string.
			var v jsontext.Value
			if v, err = dec.ReadValue(); err == nil {
				text, err = c.unquote(v)
			}
		} else {
			tok, err = dec.ReadToken()
			kind = tok.Kind()
		}
		if err != nil {
			_, n := dec.StackIndex(dec.StackDepth())
			inName := len(stack) > 0 && stack[len(stack)-1].object && n&1 == 0
			return syntaxError(err, data, stack, inName, root)
		}
		if kind == '}' || kind == ']' {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				break
			}
			continue
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if _, n := dec.StackIndex(dec.StackDepth()); top != nil && top.object && n&1 == 1 {
			// An object member's name: the object's length, counting names
			// and values, is odd right after one.
			if err := checkName(text, top); err != nil {
				return err
			}
			continue
		}
		typ, at := root, place{}
		if top != nil {
			typ, at = top.child()
		}
		switch kind {
		case '"':
			if hasControl(text) {
				return invalid("Control character in %s.", where(at.path(), false))
			}
		case '{', '[':
			f := frame{object: kind == '{', typ: resolve(typ), path: at.path()}
			if f.object && f.typ != nil && f.typ.Kind() == reflect.Struct {
				f.fields = fieldsOf(f.typ)
			}
			stack = append(stack, f)
			continue
		}
		if top == nil {
			break // a scalar top-level value
		}
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return invalid(msgTrailing)
	}
	return nil
}

// unquote returns the content of the valid JSON string v: its bytes
// between the quotes when it has no escape, else its decoding in c.text.
func (c *checker) unquote(v jsontext.Value) ([]byte, error) {
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, nil
	}
	var err error
	c.text, err = jsontext.AppendUnquote(c.text[:0], v)
	return c.text, err
}

// place is where the value that comes next in a container sits, of which
// path makes the path of messages only when one is needed.
type place struct {
	parent string
	name   string
	index  int
	array  bool
}

func (p place) path() string {
	if len(p.parent) > maxPath {
		// A message quotes no more of a path than its first maxPath bytes
		// (quotePath), so a longer one stops growing: a deeply nested body
		// then costs paths in proportion to its depth, not to its square.
		return p.parent
	}
	if p.array {
		return p.parent + "[" + strconv.Itoa(p.index) + "]"
	}
	return joinName(p.parent, p.name)
}

// child returns the type and place of the value that comes next in f, and
// advances f past it.
func (f *frame) child() (reflect.Type, place) {
	if f.object {
		name := f.name
		f.name = ""
		var t reflect.Type
		switch {
		case f.fields != nil:
			t = f.fields.byName[name].typ // nil for an unknown member
		case f.typ != nil && f.typ.Kind() == reflect.Map:
			t = f.typ.Elem()
		}
		return t, place{parent: f.path, name: name}
	}
	i := f.index
	f.index++
	var t reflect.Type
	if f.typ != nil && (f.typ.Kind() == reflect.Slice || f.typ.Kind() == reflect.Array) {
		t = f.typ.Elem()
	}
	return t, place{parent: f.path, index: i, array: true}
}

// checkName refuses a control character in a member name, and a name that
// is a case variant of a field of the struct the object decodes into. The
// name of a known field is not copied: the field's own is kept.
func checkName(b []byte, f *frame) error {
	if hasControl(b) {
		return invalid("Control character in %s.", where(f.path, true))
	}
	if f.fields != nil {
		if fd, ok := f.fields.byName[string(b)]; ok {
			f.name = fd.name
			return nil
		}
		name := string(b)
		if known, ok := f.fields.fold(name); ok {
			return invalid("Unknown field %s: field names are case-sensitive; the field is %s.",
				quotePath(joinName(f.path, name)), quotePath(joinName(f.path, known)))
		}
		f.name = name
		return nil
	}
	f.name = string(b)
	return nil
}

// hasControl reports whether s holds U+0000 to U+001F or U+007F.
func hasControl[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// where names the place of a problem in a message: the field at path, or a
// member name of the object at path.
func where(path string, inName bool) string {
	switch {
	case inName && path == "":
		return "a field name"
	case inName:
		return "a field name in " + quotePath(path)
	case path == "":
		return "the request body"
	}
	return "field " + quotePath(path)
}

// syntaxError turns an error of the tokenizer into the API's refusal. The
// kind of problem is read from the bytes at the error's offset, the field
// from its JSON pointer (which, for a problem in a member name, points at
// the object). inName says whether a member name was being read.
func syntaxError(err error, data []byte, stack []frame, inName bool, root reflect.Type) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return invalid("The request body is not valid JSON: it ends early.")
		}
		return fmt.Errorf("strictjson: reading the body: %w", err)
	}
	if len(stack) == 0 && se.JSONPointer == "" && nonSpaceBefore(data, se.ByteOffset) {
		return invalid(msgTrailing)
	}
	path := pointerPath(se.JSONPointer, func(i int) (array, known bool) {
		if i < len(stack) {
			return !stack[i].object, true
		}
		return false, false
	}, root)
	at := data[min(int(se.ByteOffset), len(data)):]
	switch {
	case se.Err == jsontext.ErrDuplicateName:
		return invalid("Duplicate field %s.", quotePath(path))
	case errors.Is(se.Err, io.ErrUnexpectedEOF):
		return invalid("The request body is not valid JSON: it ends early.")
	case invalidUTF8(at):
		return invalid("Invalid UTF-8 in %s.", where(path, inName))
	case surrogateEscape(at):
		return invalid("Unpaired UTF-16 surrogate escape in %s.", where(path, inName))
	case len(at) > 0 && at[0] < 0x20 && inString(data, se.ByteOffset):
		return invalid("Control character in %s.", where(path, inName))
	}
	return invalid("The request body is not valid JSON: syntax error at byte %d.", se.ByteOffset)
}

// nonSpaceBefore reports whether data holds anything but whitespace before
// offset, i.e. whether an error at offset follows a complete value.
func nonSpaceBefore(data []byte, offset int64) bool {
	return len(bytes.TrimLeft(data[:min(int(offset), len(data))], " \t\r\n")) > 0
}

// inString reports whether offset is inside a string of data, which is
// well-formed up to offset: it counts the unescaped quotes before it.
func inString(data []byte, offset int64) bool {
	in := false
	for i := 0; i < int(offset) && i < len(data); i++ {
		switch data[i] {
		case '"':
			in = !in
		case '\\':
			if in {
				i++
			}
		}
	}
	return in
}

func invalidUTF8(b []byte) bool {
	if len(b) == 0 || b[0] < utf8.RuneSelf {
		return false
	}
	r, n := utf8.DecodeRune(b)
	return r == utf8.RuneError && n <= 1
}

// surrogateEscape reports whether b starts with a \u escape of a UTF-16
// surrogate (U+D800 to U+DFFF).
func surrogateEscape(b []byte) bool {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return false
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return err == nil && v >= 0xd800 && v <= 0xdfff
}

// semanticError turns an error of the decoder (the body is well-formed but
// a value has the wrong JSON type for its Go field) into the API's refusal.
func semanticError(err error, root reflect.Type) error {
	var ce *errcode.Error
	if errors.As(err, &ce) {
		return ce // a type's own UnmarshalJSON refused with a code
	}
	var se *json.SemanticError
	if !errors.As(err, &se) {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			// check already walked the same bytes, so this cannot happen.
			return invalid("The request body is not valid JSON: syntax error at byte %d.", syn.ByteOffset)
		}
		return fmt.Errorf("strictjson: %w", err)
	}
	if badTarget(se) {
		return fmt.Errorf("strictjson: cannot decode into %s: %w", root, err)
	}
	path := pointerPath(se.JSONPointer, nil, root)
	if errors.Is(se.Err, strconv.ErrRange) {
		if path == "" {
			return invalid("The request body is a number out of range.")
		}
		return invalid("Field %s is out of range.", quotePath(path))
	}
	want := "of another type"
	switch {
	case se.GoType != nil && opaque(se.GoType):
		// The type's own method refused the value, for a reason of its own
		// that may quote the value.
		if path == "" {
			return invalid("The request body is not valid.")
		}
		return invalid("Field %s is not valid.", quotePath(path))
	case se.GoType != nil:
		want = expected(se.GoType)
	}
	if path == "" {
		return invalid("The request body must be %s.", want)
	}
	return invalid("Field %s must be %s.", quotePath(path), want)
}

// badTarget reports whether a decoding error is the target type's fault,
// whatever the body: a Go type without a JSON form (a channel, a function,
// a complex number, a non-empty interface), or a struct the library refuses
// (two fields of one name), which fails although an object came for it.
var numberType = reflect.TypeFor[stdjson.Number]()

func badTarget(se *json.SemanticError) bool {
	t := se.GoType
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return true
	case reflect.Interface:
		return t.NumMethod() > 0 && !opaque(t)
	case reflect.Struct:
		return se.JSONKind == '{' && !opaque(t)
	}
	return se.JSONKind == 0 && se.Err == nil
}

// expected describes the JSON a Go type decodes from.
func expected(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == numberType {
		return "a JSON number"
	}
	switch t.Kind() {
	case reflect.String:
		return "a JSON string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a JSON integer"
	case reflect.Float32, reflect.Float64:
		return "a JSON number"
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 JSON string"
		}
		return "a JSON array"
	case reflect.Array:
		return "a JSON array"
	}
	return "of another type"
}
