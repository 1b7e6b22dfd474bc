package tool

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// v1Semantics are the options under which the encoding/json/v2 implementation decodes exactly
// as encoding/json does (field names matched case-insensitively, duplicate names allowed, the
// last one winning, invalid UTF-8 replaced, time.Duration as nanoseconds, UnmarshalJSON and
// UnmarshalText methods honored). It is an immutable value.
var v1Semantics = jsonv1.DefaultOptionsV1()

// decodeInto decodes validated arguments into a tool's input, with encoding/json's semantics.
//
// It uses github.com/go-json-experiment/json, the Go team's reference implementation of
// encoding/json/v2 (in the standard library behind GOEXPERIMENT=jsonv2 since Go 1.25), with
// its v1 options: one pass over the bytes, where encoding/json's Unmarshal first scans them
// for validity and then decodes them in a second pass. On a one-field argument object it is
// ~2x faster than encoding/json's Unmarshal, with one allocation instead of six
// (BenchmarkDecodeInto). The module is pinned in go.mod; once encoding/json/v2 is stable this
// becomes the standard library's.
//
// Some types the two treat differently: encoding/json's Number, which the module does not
// know (it has its own); struct tag options only v2 knows (format:…, inline, unknown, case:…),
// and the string option, which v2 parses more loosely ("NaN", "+1"); tag names encoding/json
// refuses; types with v2's UnmarshalJSONFrom method; map keys other than strings and
// integers. An input type holding any of them anywhere is decoded by encoding/json itself
// (decoderFor): plain structs take the fast path.
func decodeInto(args []byte, target any) error {
	return jsonv2.Unmarshal(args, target, v1Semantics)
}

// decoderFor returns how arguments are decoded into t: decodeInto, or encoding/json's
// Unmarshal when t holds something the two decode differently.
func decoderFor(t reflect.Type) func([]byte, any) error {
	if needsV1(t, map[reflect.Type]bool{}) {
		return json.Unmarshal
	}
	return decodeInto
}

var (
	jsonNumberType = reflect.TypeFor[json.Number]()
	fromJSONName   = "UnmarshalJSONFrom" // encoding/json/v2's UnmarshalerFrom
)

// needsV1 reports whether a value of type t can contain something decodeInto decodes
// differently from encoding/json.
func needsV1(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t == jsonNumberType {
		return true
	}
	if _, ok := reflect.PointerTo(t).MethodByName(fromJSONName); ok {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return needsV1(t.Elem(), seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			return true
		}
		return needsV1(t.Key(), seen) || needsV1(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if tag, ok := f.Tag.Lookup("json"); ok && tagNeedsV1(tag) {
				return true
			}
			if needsV1(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// tagNeedsV1 reports whether a json struct tag means something else to the v2
// implementation: a name encoding/json refuses, or an option other than omitempty and
// omitzero.
func tagNeedsV1(tag string) bool {
	name, opts, _ := strings.Cut(tag, ",")
	if name != "" && name != "-" && !validTagName(name) {
		return true
	}
	if tag == "-" || tag == "-," {
		return false
	}
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		if opt != "omitempty" && opt != "omitzero" {
			return true
		}
	}
	return false
}

// validTagName is encoding/json's rule for a name in a tag (isValidTag): letters, digits and
// punctuation but the backslash and quotes.
func validTagName(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
