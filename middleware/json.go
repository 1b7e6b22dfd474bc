package middleware

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON as the middleware reads it: with jsontext (encoding/json/v2's tokenizer, which keeps
// the order of object members and reads nesting without recursing), always within a depth
// bound, the size bounded by the caller.

// argumentsMaxDepth bounds the nesting of the validated arguments Log and Check read: the
// tool's own bound, so that only a tool without one can give them deeper arguments. Their
// size is bounded by the tool's ArgumentLimit, since Tool.Arguments refuses longer text.
const argumentsMaxDepth = 64

// errTooDeep is the error of JSON nested deeper than its reader's bound.
var errTooDeep = errors.New("JSON value nested too deeply")

// redactJSON returns the JSON value data, compact, with the value of every object member
// whose name hide reports replaced by "[redacted]", at any depth, and whether any was.
func redactJSON(data []byte, maxDepth int, hide func(name string) bool) ([]byte, bool, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	hidden, started := false, false
	for {
		if k := dec.PeekKind(); (k == '{' || k == '[') && dec.StackDepth() >= maxDepth {
			return nil, false, errTooDeep
		}
		if started && dec.StackDepth() == 0 { // one value, whole: nothing may follow
			if _, err := dec.ReadToken(); err != io.EOF {
				return nil, false, errors.New("text after the JSON value")
			}
			return bytes.TrimSuffix(out.Bytes(), []byte("\n")), hidden, nil
		}
		tok, err := dec.ReadToken()
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, false, err
		}
		started = true
		// An object member's name is an odd token of its object (the value the even one).
		kind, n := dec.StackIndex(dec.StackDepth())
		if tok.Kind() == '"' && kind == '{' && n%2 == 1 && hide(tok.String()) {
			if err := enc.WriteToken(jsontext.String(tok.String())); err != nil {
				return nil, false, err
			}
			if err := dec.SkipValue(); err != nil {
				return nil, false, err
			}
			tok, hidden = jsontext.String("[redacted]"), true
		}
		if err := enc.WriteToken(tok); err != nil {
			return nil, false, err
		}
	}
}

// decodeAny decodes validated arguments (size bounded by the tool's limit) as encoding/json
// with UseNumber does, refusing nesting deeper than argumentsMaxDepth first.
func decodeAny(b []byte) (any, error) {
	if err := checkDepth(b, argumentsMaxDepth); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// checkDepth reports errTooDeep when the JSON value data nests deeper than maxDepth.
func checkDepth(data []byte, maxDepth int) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		if k := dec.PeekKind(); (k == '{' || k == '[') && dec.StackDepth() >= maxDepth {
			return errTooDeep
		}
		if _, err := dec.ReadToken(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
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
