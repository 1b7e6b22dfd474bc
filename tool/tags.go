package tool

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
)

// Struct tags that would fail silently are refused when a typed tool is built: a jsonschema
// key invopop/jsonschema ignores, a description cut short by a comma, a json option that
// makes the decoder read something the schema does not describe.

// schemaKeys are the keys of `jsonschema` tags that invopop/jsonschema reads (as key=value),
// and schemaFlags the words it reads alone.
var (
	schemaKeys = map[string]bool{
		"title": true, "description": true, "type": true, "anchor": true,
		"oneof_required": true, "anyof_required": true, "oneof_ref": true, "oneof_type": true,
		"anyof_ref": true, "anyof_type": true, "enum": true, "default": true, "example": true,
		"readOnly": true, "writeOnly": true, "format": true, "pattern": true,
		"minLength": true, "maxLength": true, "multipleOf": true, "minimum": true, "maximum": true,
		"exclusiveMinimum": true, "exclusiveMaximum": true,
		"minItems": true, "maxItems": true, "uniqueItems": true,
	}
	schemaFlags = map[string]bool{"required": true, "nullable": true}
)

// checkSchemaTag refuses the keys of a `jsonschema` tag that invopop/jsonschema would ignore.
// A comma ends a value unless escaped (\,), so a description with a comma in it is cut there
// and its rest read as a key: that is refused with the way out.
func checkSchemaTag(tag string) error {
	prev := ""
	for _, part := range splitTag(tag) {
		key, _, hasValue := strings.Cut(part, "=")
		switch {
		case part == "" || hasValue && schemaKeys[key] || !hasValue && schemaFlags[key]:
		case strings.HasPrefix(prev, "description="):
			return fmt.Errorf("the jsonschema description is cut at a comma (%q is not a tag key): use a jsonschema_description tag, or escape the comma as \\,", key)
		default:
			return fmt.Errorf("unknown jsonschema tag key %q", key)
		}
		prev = part
	}
	return nil
}

// splitTag splits a `jsonschema` tag at the commas that are not escaped, as invopop does.
func splitTag(tag string) []string {
	var out []string
	for part := range strings.SplitSeq(tag, ",") {
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], `\`) {
			out[n-1] = strings.TrimSuffix(out[n-1], `\`) + "," + part
			continue
		}
		out = append(out, part)
	}
	return out
}

// checkJSONOptions refuses the options of a `json` tag with which the decoder (json/v2)
// would read something else than the reflected schema describes.
func checkJSONOptions(f reflect.StructField) error {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if strings.HasPrefix(name, "'") {
		return errors.New("a quoted JSON name is not supported: the schema would show the quotes")
	}
	for opt := range strings.SplitSeq(opts, ",") {
		base, _, _ := strings.Cut(opt, ":")
		switch base {
		case "inline", "unknown", "format", "case", "nocase", "strictcase":
			return fmt.Errorf("the json option %s is not supported: the schema cannot describe what it decodes", opt)
		case "string":
			if t, _ := derefType(f.Type); !isNumberKind(t.Kind()) {
				return fmt.Errorf("the json option string is not supported on a %s: it is for a number field only (json/v2 reads it elsewhere as the schema does not say)", t.Kind())
			}
		}
	}
	return nil
}

// decodeDryRun decodes {} into a new value of struct type t: json/v2 checks t's fields and
// tags then, and the error names the Go field (a malformed tag, an unexported field with a
// tag, an embedded non-struct without a name).
func decodeDryRun(t reflect.Type) error {
	err := decodeInto([]byte("{}"), reflect.New(t).Interface())
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	if err != nil {
		return fmt.Errorf("json/v2 cannot decode %s: %w", t, err)
	}
	return nil
}

func isNumberKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
