package strictjson

import (
	"encoding"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	unmarshalerFromType = reflect.TypeFor[json.UnmarshalerFrom]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// opaque reports whether t decodes itself (json.RawMessage, jsontext.Value,
// time.Time, ...): what is inside its JSON is its own business, and only the
// syntactic rules apply there.
func opaque(t reflect.Type) bool {
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	for _, i := range []reflect.Type{unmarshalerType, unmarshalerFromType, textUnmarshalerType} {
		if t.Implements(i) || pt.Implements(i) {
			return true
		}
	}
	return false
}

// resolve returns the type whose shape a JSON value decoding into t takes:
// t without its pointers, or nil when that is not known from t (an
// interface, an opaque type, or nil).
func resolve(t reflect.Type) reflect.Type {
	for t != nil {
		if opaque(t) {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

type field struct {
	name  string
	typ   reflect.Type
	depth int // embedding depth; a shallower field hides a deeper one
}

// structFields are the JSON member names a struct type decodes, with the Go
// type of each.
type structFields struct {
	byName map[string]field
	names  []string // the keys of byName, sorted
}

var fieldCache sync.Map // reflect.Type -> *structFields

// fieldsOf returns the fields of struct type t, computed once per type.
func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	sf := &structFields{byName: map[string]field{}}
	collect(t, 0, map[reflect.Type]bool{}, sf.byName)
	for n := range sf.byName {
		sf.names = append(sf.names, n)
	}
	slices.Sort(sf.names)
	f, _ := fieldCache.LoadOrStore(t, sf)
	return f.(*structFields)
}

// collect adds the member names of struct type t to out, following the
// naming rules both encoding/json and its v2 share: the json tag's name or
// else the Go field name, exported fields only, "-" skipped, and the fields
// of an untagged embedded struct (or one tagged inline) promoted.
func collect(t reflect.Type, depth int, seen map[reflect.Type]bool, out map[string]field) {
	if seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, inline, unknown := parseTag(tag)
		if (sf.Anonymous && name == "") || inline {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && !opaque(et) {
				collect(et, depth+1, seen, out)
				continue
			}
			if inline {
				continue // an inlined map or jsontext.Value takes unknown members
			}
		}
		if unknown || !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if f, ok := out[name]; !ok || depth < f.depth {
			out[name] = field{name: name, typ: sf.Type, depth: depth}
		}
	}
}

// parseTag splits a json struct tag into its name (which v2 lets one
// single-quote) and the options this package cares about.
func parseTag(tag string) (name string, inline, unknown bool) {
	opts := tag
	if strings.HasPrefix(tag, "'") {
		var b strings.Builder
		i := 1
		for ; i < len(tag) && tag[i] != '\''; i++ {
			if tag[i] == '\\' && i+1 < len(tag) {
				i++
			}
			b.WriteByte(tag[i])
		}
		name, opts = b.String(), tag[min(i+1, len(tag)):]
	} else {
		name, opts, _ = strings.Cut(tag, ",")
	}
	for o := range strings.SplitSeq(opts, ",") {
		switch strings.TrimSpace(o) {
		case "inline":
			inline = true
		case "unknown":
			unknown = true
		}
	}
	return name, inline, unknown
}

// fold returns the field name that name matches when case is ignored, as
// encoding/json matches names (Unicode simple folding, as strings.EqualFold).
func (s *structFields) fold(name string) (string, bool) {
	for _, n := range s.names {
		if strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

// pointerPath renders JSON pointer p as the field path of messages:
// names joined by dots, array indices in brackets ("items[2].name"). kinds,
// when it knows, says whether the container of the i-th token is an array;
// otherwise the Go type under root says, and failing that a token of digits
// is taken for an index.
func pointerPath(p jsontext.Pointer, kinds func(i int) (array, known bool), root reflect.Type) string {
	path := ""
	t := resolve(root)
	i := 0
	for tok := range p.Tokens() {
		array, known := false, false
		if kinds != nil {
			array, known = kinds(i)
		}
		if !known {
			switch {
			case t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
				array = true
			case t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
			default:
				array = tok != "" && strings.Trim(tok, "0123456789") == ""
			}
		}
		if array {
			path += "[" + tok + "]"
		} else {
			path = joinName(path, tok)
		}
		var next reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Struct:
				next = fieldsOf(t).byName[tok].typ
			case reflect.Map, reflect.Slice, reflect.Array:
				next = t.Elem()
			}
		}
		t = resolve(next)
		i++
	}
	return path
}

func joinName(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// maxPath bounds the field path quoted in a message.
const maxPath = 100

// quotePath quotes a field path for a message, shortened when long, with
// anything unprintable escaped.
func quotePath(path string) string {
	if len(path) > maxPath {
		cut := maxPath
		for cut > 0 && !utf8.RuneStart(path[cut]) {
			cut--
		}
		path = path[:cut] + "…"
	}
	return strconv.Quote(path)
}
