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

// parseJSON parses exactly one JSON value.
func parseJSON(data []byte) (jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return jvalue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jvalue{}, errors.New("trailing data after JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (jvalue, error) {
	t, err := dec.Token()
	if err != nil {
		return jvalue{}, err
	}
	switch x := t.(type) {
	case json.Delim:
		if x == '{' {
			v := jvalue{kind: 'o'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return jvalue{}, err
				}
				e, err := parseValue(dec)
				if err != nil {
					return jvalue{}, err
				}
				v.keys = append(v.keys, k.(string))
				v.elems = append(v.elems, e)
			}
			_, err := dec.Token() // '}'
			return v, err
		}
		v := jvalue{kind: 'a'}
		for dec.More() {
			e, err := parseValue(dec)
			if err != nil {
				return jvalue{}, err
			}
			v.elems = append(v.elems, e)
		}
		_, err := dec.Token() // ']'
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
