package tool

import (
	"encoding/json"
	"reflect"

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
// The one type the two treat differently is encoding/json's Number, which the module does not
// know (it has its own): an input type holding one anywhere is decoded by encoding/json
// (decoderFor).
func decodeInto(args []byte, target any) error {
	return jsonv2.Unmarshal(args, target, v1Semantics)
}

// decoderFor returns how arguments are decoded into t: decodeInto, or encoding/json's
// Unmarshal when t holds a json.Number.
func decoderFor(t reflect.Type) func([]byte, any) error {
	if holds(t, reflect.TypeFor[json.Number](), map[reflect.Type]bool{}) {
		return json.Unmarshal
	}
	return decodeInto
}

// holds reports whether a value of type t can contain a value of type want.
func holds(t, want reflect.Type, seen map[reflect.Type]bool) bool {
	if t == want {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holds(t.Elem(), want, seen)
	case reflect.Map:
		return holds(t.Key(), want, seen) || holds(t.Elem(), want, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holds(t.Field(i).Type, want, seen) {
				return true
			}
		}
	}
	return false
}
