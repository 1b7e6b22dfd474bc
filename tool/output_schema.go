package tool

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The output schema: what a tool's Out encodes to, for clients that read structured results
// (MCP's outputSchema and structuredContent). The model reads text ([Encode]); the schema is
// for the application on the other side.

// outputLocation names a compiled output schema.
const outputLocation = "urn:toolcall:output"

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// reflectOutputSchema returns the JSON Schema of what encoding/json writes for a value of t,
// or nil when t is not a struct (or a pointer to one) or cannot be described with
// certainty. It reflects as [New] reflects In (reflectSchema), then lets every value that
// encodes as null when nil (a pointer, a slice, a map) be null. It never panics: in doubt,
// no schema.
func reflectOutputSchema(t reflect.Type) (schema json.RawMessage) {
	defer func() {
		if recover() != nil {
			schema = nil
		}
	}()
	root, ok := derefType(t)
	if !ok || root.Kind() != reflect.Struct || encodesItself(root, map[reflect.Type]bool{}) {
		return nil
	}
	s, err := reflectSchema(root)
	if err != nil {
		return nil
	}
	tree, err := parseTree(s)
	if err != nil {
		return nil
	}
	o, ok := tree.(*object)
	if !ok {
		return nil
	}
	nullableOutput(o, root)
	return encodeSchema(o)
}

// encodesItself reports whether t, or a type it holds, writes its own JSON (MarshalJSON,
// MarshalText) in a form its reflected shape may not describe. time.Time, json.Number, types
// with a JSONSchema method and types decoded from text (described as strings) are known.
func encodesItself(t reflect.Type, seen map[reflect.Type]bool) bool {
	t, _ = derefType(t)
	if seen[t] {
		return false
	}
	seen[t] = true
	marshals := func(iface reflect.Type) bool { return t.Implements(iface) || reflect.PointerTo(t).Implements(iface) }
	switch {
	case t == timeType, t == numberType, t.Implements(customSchemaType):
		return false
	case decodesFromText(t):
		// described as a string: true unless it surely encodes as one (a value method)
		return !t.Implements(textMarshalerType) || marshals(jsonMarshalerType)
	case marshals(jsonMarshalerType), marshals(textMarshalerType):
		return true
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return encodesItself(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if encodesItself(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// nullableOutput walks schema o of type t in step with the type and makes the schema of
// every pointer, slice and map accept null, as encoding/json writes a nil one. Where the
// schema's shape is not the type's (a custom schema), it leaves the schema alone.
func nullableOutput(o *object, t reflect.Type) {
	t, _ = derefType(t)
	if t == timeType || t.Implements(customSchemaType) || mapType(t) != nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if items := o.getObject("items"); items != nil {
			o.set("items", nullableValue(items, t.Elem()))
		}
	case reflect.Map:
		if ap := o.getObject("additionalProperties"); ap != nil {
			o.set("additionalProperties", nullableValue(ap, t.Elem()))
		}
	case reflect.Struct:
		props := o.getObject("properties")
		fields, err := jsonFields(t, "", nil)
		if props == nil || err != nil {
			return
		}
		for _, f := range fields {
			for i, m := range props.members {
				if po, ok := m.value.(*object); ok && m.key == f.name {
					props.members[i].value = nullableValue(po, f.typ)
				}
			}
		}
	}
}

// nullableValue is the schema o of a value of type t, null allowed when t has a nil value.
func nullableValue(o *object, t reflect.Type) *object {
	nullableOutput(o, t)
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && o.getString("type") == "string" {
			return nullable(o) // []byte: a base64 string, or null
		}
		return nullable(o)
	}
	return o
}

// outputValidator is a compiled output schema.
type outputValidator struct{ schema *jsonschema.Schema }

// compileOutput compiles an output schema given as JSON (reflected, or Options.OutputSchema).
// Any JSON Schema is accepted, not only objects: MCP lets structured content be any JSON
// value.
func compileOutput(schema json.RawMessage) (json.RawMessage, *outputValidator, error) {
	if len(schema) > maxSchemaSize {
		return nil, nil, fmt.Errorf("the output schema is %d bytes, over the %d-byte limit", len(schema), maxSchemaSize)
	}
	tree, err := parseTree(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	if _, ok := tree.(*object); !ok {
		return nil, nil, fmt.Errorf("output schema is not a JSON object")
	}
	compact := encodeSchema(tree)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(compact))
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource(outputLocation, doc); err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	s, err := c.Compile(outputLocation)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid output schema: %w", err)
	}
	return compact, &outputValidator{schema: s}, nil
}

// OutputSchema returns the JSON Schema of the tool's structured output (MCP's outputSchema),
// or nil when it has none. For a [New] tool it is Options.OutputSchema when given, otherwise
// reflected from Out as the parameters are from In, every pointer, slice and map also
// allowed to be null (as encoding/json writes a nil one): Out must be a struct or a pointer
// to one, and a type whose JSON form its shape may not describe (one with its own
// MarshalJSON or MarshalText, or one [New] could not describe as a parameter) gives no
// schema rather than a wrong one. A [Raw] tool has one only when Options.OutputSchema gives
// it. The caller must not modify the returned slice.
func (t *Tool) OutputSchema() json.RawMessage { return t.output }

// StructuredOutput returns value — the Value of a successful [Result] of this tool — as the
// JSON of its structured output, validated against [Tool.OutputSchema]: what an MCP server
// sends as structuredContent. A nil pointer is written as the zero value it points to. It
// returns nil and no error when the tool has no output schema, and an error naming the tool
// when value does not encode or does not match the schema.
func (t *Tool) StructuredOutput(value any) (json.RawMessage, error) {
	if t.outputValidator == nil {
		return nil, nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Pointer && rv.IsNil() {
		value = reflect.New(rv.Type().Elem()).Interface()
	}
	b, err := jsonText(value)
	if err != nil {
		return nil, fmt.Errorf("tool %s: the output could not be encoded as JSON: %w", t.name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("tool %s: the output could not be read back: %w", t.name, err)
	}
	if err := t.outputValidator.schema.Validate(inst); err != nil {
		return nil, fmt.Errorf("tool %s: the output does not match its output schema: %v", t.name, err)
	}
	return b, nil
}
