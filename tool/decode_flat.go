package tool

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// flatDecoder decodes an argument object into a struct of plain fields — strings, booleans,
// integers and floats, each under its exact JSON name — straight from the bytes, with the
// validator's scanner: most tools take such a struct, and decoding it is most of a call's
// cost after validation.
//
// It decodes as encoding/json does, or not at all: an escape in a name or a string, a name
// that is not a field's exact name (encoding/json also matches names case-insensitively), a
// number the field cannot hold, a value of another type — anything it is not sure of makes
// decode return false, and the caller decodes the same bytes with decodeInto into a zero
// value, which gives encoding/json's value or error (FuzzFlatDecoder compares the two).
type flatDecoder struct {
	fields []flatField
}

type flatField struct {
	name string
	off  uintptr
	kind reflect.Kind
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newFlatDecoder returns the flat decoder of t, or nil when t is not a struct of plain
// fields: a struct with its own decoding methods, an embedded field, a field of another kind
// or with its own decoding methods, a tag option other than omitempty and omitzero, or two
// fields of one name.
func newFlatDecoder(t reflect.Type) *flatDecoder {
	if t.Kind() != reflect.Struct || hasDecodeMethods(t) {
		return nil
	}
	d := &flatDecoder{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue // encoding/json never sets it
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			if tagNeedsV1(tag) {
				return nil
			}
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		if !plainKind(f.Type) {
			return nil
		}
		for _, g := range d.fields {
			if strings.EqualFold(g.name, name) {
				return nil // encoding/json's rules for clashing names are not worth repeating
			}
		}
		d.fields = append(d.fields, flatField{name: name, off: f.Offset, kind: f.Type.Kind()})
	}
	return d
}

// plainKind reports whether encoding/json decodes t from a JSON string, boolean or number by
// its kind alone.
func plainKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	default:
		return false
	}
	if t == jsonNumberType {
		return false // a string kind that encoding/json decodes from numbers
	}
	return !hasDecodeMethods(t)
}

// hasDecodeMethods reports whether t or *t decodes itself: UnmarshalJSON, UnmarshalText, or
// encoding/json/v2's UnmarshalJSONFrom.
func hasDecodeMethods(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	if p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) {
		return true
	}
	_, from := p.MethodByName(fromJSONName)
	return from
}

// decode decodes data, a JSON object the validator accepted, into the struct at p. On false
// the struct may be partly written: the caller starts again from a zero value.
func (d *flatDecoder) decode(data []byte, p unsafe.Pointer) bool {
	s := scanner{data: data}
	s.ws()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return false
	}
	s.pos++
	for first := true; ; first = false {
		s.ws()
		if s.pos >= len(data) {
			return false
		}
		if data[s.pos] == '}' && first {
			s.pos++
			break
		}
		raw, escaped, ok := s.string()
		if !ok || escaped {
			return false
		}
		f := d.field(data[raw:s.rawEnd])
		if f == nil {
			return false
		}
		s.ws()
		if s.pos >= len(data) || data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.ws()
		if !d.value(&s, f, unsafe.Add(p, f.off)) {
			return false
		}
		s.ws()
		if s.pos >= len(data) {
			return false
		}
		if data[s.pos] == '}' {
			s.pos++
			break
		}
		if data[s.pos] != ',' {
			return false
		}
		s.pos++
	}
	s.ws()
	return s.pos == len(data)
}

func (d *flatDecoder) field(name []byte) *flatField {
	for i := range d.fields {
		if d.fields[i].name == string(name) {
			return &d.fields[i]
		}
	}
	return nil
}

// value decodes the value at the scanner into the field at p.
func (d *flatDecoder) value(s *scanner, f *flatField, p unsafe.Pointer) bool {
	data := s.data
	if s.pos >= len(data) {
		return false
	}
	if bytes.HasPrefix(data[s.pos:], []byte("null")) {
		s.pos += 4 // encoding/json leaves the field as it is
		return true
	}
	switch f.kind {
	case reflect.String:
		raw, escaped, ok := s.string()
		if !ok || escaped {
			return false
		}
		*(*string)(p) = string(data[raw:s.rawEnd])
		return true
	case reflect.Bool:
		switch {
		case bytes.HasPrefix(data[s.pos:], []byte("true")):
			*(*bool)(p), s.pos = true, s.pos+4
		case bytes.HasPrefix(data[s.pos:], []byte("false")):
			*(*bool)(p), s.pos = false, s.pos+5
		default:
			return false
		}
		return true
	}
	start := s.pos
	if _, ok := s.number(); !ok {
		return false
	}
	lit := unsafe.String(&data[start], s.pos-start) // read, not kept, by strconv
	switch f.kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := intBits(f.kind)
		i, err := strconv.ParseInt(lit, 10, bits)
		if err != nil {
			return false
		}
		storeBits(p, bits, uint64(i)) // in range: the low bits are the value
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := intBits(f.kind)
		u, err := strconv.ParseUint(lit, 10, bits)
		if err != nil {
			return false
		}
		storeBits(p, bits, u)
	case reflect.Float32:
		x, err := strconv.ParseFloat(lit, 32)
		if err != nil {
			return false
		}
		*(*float32)(p) = float32(x)
	case reflect.Float64:
		x, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return false
		}
		*(*float64)(p) = x
	default:
		return false
	}
	return true
}

// storeBits stores the low bits of v in the integer of that width at p.
func storeBits(p unsafe.Pointer, bits int, v uint64) {
	switch bits {
	case 8:
		*(*uint8)(p) = uint8(v)
	case 16:
		*(*uint16)(p) = uint16(v)
	case 32:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// intBits is the width of an integer kind; int and uint are as wide as a pointer.
func intBits(k reflect.Kind) int {
	switch k {
	case reflect.Int8, reflect.Uint8:
		return 8
	case reflect.Int16, reflect.Uint16:
		return 16
	case reflect.Int32, reflect.Uint32:
		return 32
	case reflect.Int, reflect.Uint:
		return strconv.IntSize
	}
	return 64
}
