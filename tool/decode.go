package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The decode stage: the canonical text of validated arguments is decoded into a typed tool's
// input with github.com/go-json-experiment/json (encoding/json/v2), with its semantics: a
// member fills the field of exactly its name, as the validator matches properties
// (encoding/json would also match "City" to a field "city"); duplicate names and invalid
// UTF-8 never reach it (the parse stage refused them). Struct tag options that would make it
// read something else than the schema describes are refused when the tool is built.
//
// The options keep what the reflected schema says: a time.Duration is an integer of
// nanoseconds, encoding/json's json.Number (unknown to the module) decodes from a number, and
// a float field refuses a number it holds only as 0 or an infinity (1e-400, 1e400): the
// validator compares numbers exactly, and the rounded value could be one the schema forbids
// (exclusiveMinimum 0). Other decimals round to the nearest float, as in every JSON reader.
var decodeOptions = jsonv2.JoinOptions(
	jsonv1.FormatDurationAsNano(true),
	jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
		jsonv2.UnmarshalFromFunc(decodeNumber),
		jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, f *float64) error { return decodeFloat(d, f, 64) }),
		jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, f *float32) error {
			x := float64(*f)
			err := decodeFloat(d, &x, 32)
			*f = float32(x)
			return err
		}),
	)),
)

// errFloatRange is the error of a number a float field holds only as 0 or an infinity.
var errFloatRange = errors.New("out of the range of a float")

// decodeFloat decodes a float of bits bits from a JSON number (or from a string holding one,
// for a field with the string tag option; null leaves it), refusing one out of its range.
func decodeFloat(d *jsontext.Decoder, f *float64, bits int) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	lit := string(v)
	switch v.Kind() {
	case 'n':
		return nil
	case '"':
		if err := json.Unmarshal(v, &lit); err != nil {
			return err
		}
		if n := jsontext.Value(lit); n.Kind() != '0' || !n.IsValid() {
			return errors.New("expected a string holding a JSON number")
		}
	case '0':
	default:
		return errors.New("expected a number")
	}
	x, err := strconv.ParseFloat(lit, bits)
	if r, ok := new(big.Rat).SetString(lit); err != nil || !ok || x == 0 && r.Sign() != 0 {
		return errFloatRange
	}
	*f = x
	return nil
}

// decodeInto decodes args, canonical validated arguments, into target, a pointer.
func decodeInto(args []byte, target any) error {
	return jsonv2.Unmarshal(args, target, decodeOptions)
}

// decodeNumber decodes encoding/json's json.Number from a JSON number (null leaves it).
func decodeNumber(d *jsontext.Decoder, n *json.Number) error {
	v, err := d.ReadValue()
	switch {
	case err != nil:
		return err
	case v.Kind() == '0':
		*n = json.Number(v)
	case v.Kind() != 'n':
		return errors.New("expected a number")
	}
	return nil
}

// decodeViolation reports a decode failure of arguments the schema accepted (1.0 or 1e2 for
// an int field, 300 for an int8) in the schema's terms, at its JSON pointer in tree, the
// arguments decoded.
func decodeViolation(err error, args []byte, tree map[string]any) Violation {
	var se *jsonv2.SemanticError
	if !errors.As(err, &se) {
		return Violation{Message: "the arguments cannot be used: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	path := string(se.JSONPointer)
	if isKey(args, se.ByteOffset) { // a map key the Go type cannot hold: the key is at fault
		key := strconv.Quote(se.JSONPointer.LastToken())
		return Violation{Path: path, Message: "the key " + key + " must be " + expectedFor(se, key)}
	}
	got := display(valueAt(tree, slices.Collect(se.JSONPointer.Tokens())))
	return Violation{Path: path, Message: "expected " + expectedFor(se, got) + ", got " + got}
}

// isKey reports whether the token at byte offset of args, canonical JSON, is an object key:
// a string followed by a colon.
func isKey(args []byte, offset int64) bool {
	if offset < 0 || offset >= int64(len(args)) || args[offset] != '"' {
		return false
	}
	d := jsontext.NewDecoder(bytes.NewReader(args[offset:]))
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	end := offset + d.InputOffset()
	return end < int64(len(args)) && args[end] == ':'
}

// expectedFor says what a value of se's Go type must be, in the schema's words.
func expectedFor(se *jsonv2.SemanticError, got string) string {
	t := se.GoType
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[time.Time]():
		return formatHint("date-time")
	case reflect.TypeFor[time.Duration]():
		return "an integer number of nanoseconds"
	}
	one := big.NewInt(1)
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		hi := new(big.Int).Sub(new(big.Int).Lsh(one, uint(t.Bits())-1), one)
		return expectedInteger(got, new(big.Int).Neg(new(big.Int).Add(hi, one)), hi)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return expectedInteger(got, new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(t.Bits())), one))
	case reflect.Float32:
		return "a number a float32 can hold (at most ±3.4e38, and not so small that it rounds to 0)"
	case reflect.Float64:
		return "a number a float64 can hold (at most ±1.8e308, and not so small that it rounds to 0)"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	if se.Err != nil {
		return "a valid value (" + se.Err.Error() + ")"
	}
	return "another value"
}

// expectedInteger says what an integer field of range lo..hi takes, for the literal got.
func expectedInteger(got string, lo, hi *big.Int) string {
	if r, ok := new(big.Rat).SetString(got); ok && r.IsInt() && r.Num().Cmp(lo) >= 0 && r.Num().Cmp(hi) <= 0 {
		return fmt.Sprintf("an integer written without a fraction or exponent (like %s)", r.Num())
	}
	return fmt.Sprintf("an integer from %s to %s", lo, hi)
}
