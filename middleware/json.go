package middleware

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jvalue is a parsed JSON value that keeps the order of object keys (a map would not), for
// Structure's lines and Log's redacted arguments to read like the original.
type jvalue struct {
	kind  byte     // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text  string   // a scalar: the string's value, or the literal text of a number, bool or null
	keys  []string // an object's keys, in order
	elems []jvalue // an object's values (parallel to keys), or an array's elements
}

// argumentsMaxDepth bounds the nesting of the validated arguments Log and Check parse: the
// tool's own bound, so that only a tool without one can give them deeper arguments. Their
// size is bounded by the tool's ArgumentLimit, since Tool.Arguments refuses longer text.
const argumentsMaxDepth = 64

// parseJSON parses exactly one JSON value nested at most maxDepth levels deep (a scalar is at
// level 0, the elements of a top-level object or array at level 1). The recursion is bounded
// by maxDepth, never by the input; the caller bounds the input's size.
func parseJSON(data []byte, maxDepth int) (jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, maxDepth)
	if err != nil {
		return jvalue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jvalue{}, errors.New("trailing data after JSON value")
	}
	return v, nil
}

// errTooDeep is parseJSON's error for a value nested deeper than its bound.
var errTooDeep = errors.New("JSON value nested too deeply")

func parseValue(dec *json.Decoder, depth int) (jvalue, error) {
	t, err := dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	switch x := t.(type) {
	case json.Delim:
		if depth <= 0 {
			return jvalue{}, errTooDeep
		}
		v := jvalue{kind: 'a'}
		if x == '{' {
			v.kind = 'o'
		}
		for dec.More() {
			if v.kind == 'o' {
				k, err := dec.Token()
				if err != nil {
					return jvalue{}, err
				}
				v.keys = append(v.keys, k.(string))
			}
			e, err := parseValue(dec, depth-1)
			if err != nil {
				return jvalue{}, err
			}
			v.elems = append(v.elems, e)
		}
		_, err := dec.Token() // '}' or ']'
		return v, err
	case string:
		return jvalue{kind: 's', text: x}, nil
	case json.Number:
		return jvalue{kind: 'n', text: x.String()}, nil
	case bool:
		return jvalue{kind: 'b', text: strconv.FormatBool(x)}, nil
	default: // nil
		return jvalue{kind: 'z', text: "null"}, nil
	}
}

// decodeAny decodes validated arguments (size bounded by the tool's limit) as encoding/json
// with UseNumber would, refusing nesting deeper than argumentsMaxDepth.
func decodeAny(b []byte) (any, error) {
	v, err := parseJSON(b, argumentsMaxDepth)
	if err != nil {
		return nil, err
	}
	return v.toAny(), nil
}

// toAny returns v as encoding/json decodes into an any with UseNumber (the last of duplicate
// keys wins).
func (v jvalue) toAny() any {
	switch v.kind {
	case 'o':
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			m[k] = v.elems[i].toAny()
		}
		return m
	case 'a':
		a := make([]any, len(v.elems))
		for i, e := range v.elems {
			a[i] = e.toAny()
		}
		return a
	case 's':
		return v.text
	case 'n':
		return json.Number(v.text)
	case 'b':
		return v.text == "true"
	}
	return nil
}

// appendJSON appends v as compact JSON. The value of every object key for which redact
// returns true is replaced by the string "[redacted]", at any depth.
func appendJSON(b []byte, v jvalue, redact func(key string) bool) []byte {
	switch v.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, k)
			b = append(b, ':')
			if redact != nil && redact(k) {
				b = append(b, `"[redacted]"`...)
				continue
			}
			b = appendJSON(b, v.elems[i], redact)
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, e := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, redact)
		}
		return append(b, ']')
	case 's':
		return appendQuoted(b, v.text)
	}
	return append(b, v.text...)
}

// appendQuoted appends s as a JSON string, escaping only what JSON requires (no HTML escapes,
// non-ASCII kept as is).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		i++
	}
	return append(b, '"')
}

// lookupPath returns the value at a dotted path ("a.b.0.c": object keys, and array indexes as
// decimal numbers) in v, decoded by encoding/json with UseNumber.
func lookupPath(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for seg := range strings.SplitSeq(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
