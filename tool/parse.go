package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// The parse stage: the repaired argument text is read once, with jsontext (the tokenizer of
// encoding/json/v2's reference implementation, github.com/go-json-experiment/json), into the
// tree the validator checks, and written as the canonical text the tool decodes.

// maxDepth bounds the nesting of arguments: deeper text is refused before any recursion.
const maxDepth = 64

// duplicateError is an object with two members of one name: the model's intent is unknown,
// and a reader keeping the first and one keeping the last would see different arguments.
type duplicateError struct {
	path string // JSON pointer of the object
	name string
}

func (e *duplicateError) Error() string {
	return fmt.Sprintf("duplicate property %q: send each property once", e.name)
}

// parseArguments parses b, the bytes of one JSON object, into a tree of map[string]any,
// []any, json.Number, string, bool and nil, and returns it with b's canonical text: no
// whitespace, strings in their shortest form (jsontext.Value.Format). It refuses, with an
// error the model can act on, text over limit bytes, nesting deeper than maxDepth levels,
// invalid UTF-8 (or an escape of half a surrogate pair), and duplicate names
// (*duplicateError).
func parseArguments(b []byte, limit int) (map[string]any, []byte, error) {
	if len(b) > limit {
		return nil, nil, fmt.Errorf("arguments are %d bytes, over the %d-byte limit", len(b), limit)
	}
	d := jsontext.NewDecoder(bytes.NewReader(b))
	v, err := readValue(d, maxDepth, mapObject)
	if err == nil {
		if _, end := d.ReadToken(); end != io.EOF {
			err = errors.New("unexpected text after the object")
		}
	}
	if err != nil {
		return nil, nil, parseError(err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("expected one JSON object")
	}
	canonical := jsontext.Value(bytes.Clone(b))
	if err := canonical.Format(); err != nil { // cannot fail: d read the same text
		return nil, nil, parseError(err)
	}
	return obj, canonical, nil
}

// readValue reads the next value of d into a tree of []any, json.Number, string, bool, nil,
// and objects that object builds from their members, in order. Nesting deeper than depth
// levels is refused before any recursion.
func readValue(d *jsontext.Decoder, depth int, object func([]member) any) (any, error) {
	if k := d.PeekKind(); (k == '{' || k == '[') && d.StackDepth() >= depth {
		return nil, fmt.Errorf("the JSON nests deeper than %d levels", depth)
	}
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		var ms []member
		for d.PeekKind() != '}' {
			name, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			key := name.String() // before the next read voids name
			v, err := readValue(d, depth, object)
			if err != nil {
				return nil, err
			}
			ms = append(ms, member{key, v})
		}
		_, err = d.ReadToken()
		return object(ms), err
	case '[':
		arr := []any{}
		for d.PeekKind() != ']' {
			v, err := readValue(d, depth, object)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err = d.ReadToken()
		return arr, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil
}

// mapObject builds an object of arguments: the decoder refused duplicate names.
func mapObject(ms []member) any {
	obj := make(map[string]any, len(ms))
	for _, m := range ms {
		obj[m.key] = m.value
	}
	return obj
}

// parseError rewrites an error of jsontext for the model.
func parseError(err error) error {
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se):
		return &duplicateError{path: string(se.JSONPointer.Parent()), name: se.JSONPointer.LastToken()}
	case errors.As(err, &se) && se.JSONPointer != "":
		return fmt.Errorf("%v at %s (byte %d)", se.Err, se.JSONPointer, se.ByteOffset)
	case errors.As(err, &se):
		return fmt.Errorf("%v (byte %d)", se.Err, se.ByteOffset)
	}
	return err
}
