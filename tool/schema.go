package tool

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// reflectSchema returns the JSON Schema of the parameters object for Go type t: the draft
// 2020-12 subset OpenAI accepts, flat (no $ref, $defs, $schema or $id), keywords in a fixed
// readable order (type first). t must be a struct, or a pointer to one; struct{} describes a
// tool without parameters ({"type":"object","properties":{},"additionalProperties":false}).
//
// Properties follow encoding/json: the json tag names them, `json:"-"` and unexported fields
// are skipped, embedded structs are flattened. Every object gets additionalProperties false.
// Keywords come from invopop/jsonschema struct tags: `jsonschema:"description=...,enum=a,
// enum=b,minimum=1,maximum=7,default=3,pattern=^[a-z]+$,format=email,minLength=2"`, and
// `jsonschema_description:"..."` for a description containing commas (or escape them as \,).
//
// The required rule: a field is required unless its json tag has omitempty or omitzero, or its
// type is a pointer. `jsonschema:"required"` makes any field required.
//
// Types that need no description of their own: time.Time is a date-time string; json.Number
// is a number; a type decoded from text (encoding.TextUnmarshaler) is a string; a type with a
// `JSONSchema() *jsonschema.Schema` method describes itself; unsigned integers get minimum 0.
//
// Refused, with an error naming the field path (for example `field "Meta.Callback": func
// types cannot be described`): channels, funcs, complex numbers, uintptr and unsafe
// pointers; interfaces and json.RawMessage (a model cannot be told what to send; an interface
// field with a `jsonschema:"type=..."` or `anyof_type=...` tag is allowed); maps whose keys
// encoding/json cannot decode; url.URL (it does not decode from a JSON string); types with
// their own UnmarshalJSON and no JSONSchema method (their JSON form is unknown); recursive
// types; two fields with the same JSON name. The caller prefixes the tool's name.
func reflectSchema(t reflect.Type) (json.RawMessage, error) {
	if t == nil {
		return nil, fmt.Errorf("parameters type is nil: a tool's arguments are a JSON object")
	}
	root, ok := derefType(t)
	if !ok {
		return nil, fmt.Errorf("parameters type %s is a recursive pointer type", t)
	}
	if root.Kind() != reflect.Struct && !root.Implements(customSchemaType) {
		return nil, fmt.Errorf("parameters type %s is not a struct: a tool's arguments are a JSON object", t)
	}
	c := typeChecker{onPath: map[reflect.Type]bool{}, done: map[reflect.Type]bool{}}
	if err := c.check(root, ""); err != nil {
		return nil, err
	}
	s, err := invopopReflect(root)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("parameters type %s is described as %q, not an object: a tool's arguments are a JSON object", t, s.Type)
	}
	s.Version, s.ID, s.Definitions = "", "", nil
	adjustSchema(s, root)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("parameters type %s: %w", t, err)
	}
	tree, err := parseTree(b)
	if err != nil {
		return nil, fmt.Errorf("parameters type %s: %w", t, err)
	}
	return encodeSchema(tree), nil
}

// invopopReflect runs invopop's reflector, turning its panics (it panics on types it does
// not know) into errors; typeChecker should have refused those types already.
func invopopReflect(t reflect.Type) (s *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parameters type %s cannot be described: %v", t, p)
		}
	}()
	r := jsonschema.Reflector{
		DoNotReference: true,
		ExpandedStruct: true,
		Anonymous:      true,
		Mapper:         mapType,
	}
	return r.ReflectFromType(t), nil
}

// The interfaces through which a type describes itself to invopop.
type (
	customSchema interface{ JSONSchema() *jsonschema.Schema }
	aliasSchema  interface{ JSONSchemaAlias() any }
)

var (
	customSchemaType    = reflect.TypeFor[customSchema]()
	aliasSchemaType     = reflect.TypeFor[aliasSchema]()
	timeType            = reflect.TypeFor[time.Time]()
	urlType             = reflect.TypeFor[url.URL]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesFromText reports whether encoding/json decodes t from a JSON string through
// UnmarshalText (and not through UnmarshalJSON).
func decodesFromText(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(textUnmarshalerType) && !p.Implements(jsonUnmarshalerType)
}

// mapType is the reflector's Mapper: the schemas of types whose JSON form is not their Go
// shape. It returns nil for every other type.
func mapType(t reflect.Type) *jsonschema.Schema {
	switch {
	case t.Implements(customSchemaType), t.Implements(aliasSchemaType), t == timeType:
		return nil
	case t == numberType:
		return &jsonschema.Schema{Type: "number"}
	case decodesFromText(t):
		return &jsonschema.Schema{Type: "string"}
	}
	return nil
}

// typeChecker walks a type graph the way the reflector will, and refuses what cannot be
// described before the reflector sees it (invopop panics on some kinds and overflows the
// stack on recursive types).
type typeChecker struct {
	onPath map[reflect.Type]bool // types on the path from the root: seeing one again is recursion
	done   map[reflect.Type]bool // types already checked and accepted
}

func (c *typeChecker) check(t reflect.Type, path string) error {
	t, ok := derefType(t)
	if !ok {
		return fieldError(path, "recursive pointer type %s cannot be described", t)
	}
	if c.done[t] {
		return nil
	}
	if c.onPath[t] {
		return fieldError(path, "recursive type %s cannot be described: break the cycle, or give %s a JSONSchema method", t, t)
	}
	switch {
	case t.Implements(customSchemaType), t == timeType, t == numberType:
		c.done[t] = true
		return nil
	case t.Implements(aliasSchemaType):
		c.onPath[t] = true
		alias := reflect.New(t).Interface().(aliasSchema).JSONSchemaAlias()
		err := c.check(reflect.TypeOf(alias), path)
		delete(c.onPath, t)
		if err == nil {
			c.done[t] = true
		}
		return err
	case t == urlType:
		return fieldError(path, "url.URL does not decode from a JSON string: use a string with a `jsonschema:\"format=uri\"` tag")
	case t == rawMessageType:
		return fieldError(path, "json.RawMessage cannot be described: a model cannot be told what to send; use a concrete type")
	case decodesFromText(t):
		c.done[t] = true
		return nil
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		return fieldError(path, "type %s decodes itself (UnmarshalJSON), so its JSON form is unknown: give it a JSONSchema() *jsonschema.Schema method", t)
	}

	c.onPath[t] = true
	defer delete(c.onPath, t)
	var err error
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	case reflect.Slice, reflect.Array:
		err = c.check(t.Elem(), path+"[]")
	case reflect.Map:
		if !validMapKey(t.Key()) {
			return fieldError(path, "map key type %s cannot be decoded from a JSON object key", t.Key())
		}
		err = c.check(t.Elem(), path+"[]")
	case reflect.Struct:
		err = c.checkStruct(t, path)
	case reflect.Interface:
		return fieldError(path, "interface types cannot be described (%s): a model cannot be told what to send; use a concrete type", t)
	default: // chan, func, complex, uintptr, unsafe.Pointer
		return fieldError(path, "%s types cannot be described", kindName(t.Kind()))
	}
	if err == nil {
		c.done[t] = true
	}
	return err
}

func (c *typeChecker) checkStruct(t reflect.Type, path string) error {
	fields, err := jsonFields(t, path, nil)
	if err != nil {
		return err
	}
	names := make(map[string]string, len(fields))
	for _, f := range fields {
		if prev, dup := names[f.name]; dup {
			return fieldError(f.path, "JSON name %q is already used by field %q", f.name, prev)
		}
		names[f.name] = f.path
		if f.typ.Kind() == reflect.Interface && f.typed {
			continue // the tag says what the interface holds
		}
		if err := c.check(f.typ, f.path); err != nil {
			return err
		}
	}
	return nil
}

// structField is a property of a struct's object, as encoding/json and invopop see it.
type structField struct {
	name     string       // JSON property name
	path     string       // Go path from the root, for errors: "Meta.Callback"
	typ      reflect.Type // the field's type
	pointer  bool         // the field's type is a pointer
	required bool         // tagged `jsonschema:"required"`
	typed    bool         // its jsonschema tag sets a type (type=, oneof_type=, anyof_type=)
}

// jsonFields lists the properties of struct t the way encoding/json decodes them, flattening
// embedded structs. embedding holds the embedded structs being flattened.
func jsonFields(t reflect.Type, path string, embedding []reflect.Type) ([]structField, error) {
	var out []structField
	for i := range t.NumField() {
		f := t.Field(i)
		jsonTags := strings.Split(f.Tag.Get("json"), ",")
		schemaTags := strings.Split(f.Tag.Get("jsonschema"), ",")
		if jsonTags[0] == "-" || schemaTags[0] == "-" {
			continue
		}
		fpath := joinPath(path, f.Name)
		if slices.Contains(jsonTags[1:], "inline") {
			return nil, fieldError(fpath, "encoding/json does not flatten the json option inline: embed the struct instead")
		}
		et := f.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		switch {
		case f.Anonymous && !f.IsExported() && et.Kind() != reflect.Struct:
			continue // encoding/json ignores it
		case f.Anonymous && jsonTags[0] == "" && et.Kind() == reflect.Struct:
			if f.Type.Kind() == reflect.Pointer && !f.IsExported() {
				return nil, fieldError(fpath, "encoding/json cannot set an embedded pointer to unexported struct %s: embed it by value", et)
			}
			if slices.Contains(embedding, et) || et == t {
				return nil, fieldError(fpath, "recursive embedding of %s cannot be described", et)
			}
			sub, err := jsonFields(et, fpath, append(embedding, t))
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		case !f.Anonymous && !f.IsExported():
			continue
		}
		name := f.Name
		if jsonTags[0] != "" {
			name = jsonTags[0]
		}
		sf := structField{name: name, path: fpath, typ: f.Type, pointer: f.Type.Kind() == reflect.Pointer}
		for _, tag := range schemaTags {
			switch {
			case tag == "required":
				sf.required = true
			case strings.HasPrefix(tag, "type="), strings.HasPrefix(tag, "oneof_type="), strings.HasPrefix(tag, "anyof_type="):
				sf.typed = true
			}
		}
		out = append(out, sf)
	}
	return out, nil
}

// adjustSchema walks the reflected schema s of type t in step with the type, and applies
// what invopop does not: pointer fields are optional unless tagged required, and unsigned
// integers have minimum 0. Where the schema's shape is not the type's (a custom schema, a
// tag that overrides the type), it leaves the schema alone.
func adjustSchema(s *jsonschema.Schema, t reflect.Type) {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return
	}
	t, _ = derefType(t)
	switch {
	case t.Implements(customSchemaType), t == timeType, mapType(t) != nil:
		return
	case t.Implements(aliasSchemaType):
		adjustSchema(s, reflect.TypeOf(reflect.New(t).Interface().(aliasSchema).JSONSchemaAlias()))
		return
	}
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if s.Type == "integer" && s.Minimum == "" && s.ExclusiveMinimum == "" {
			s.Minimum = "0"
		}
	case reflect.Slice, reflect.Array:
		if s.Type == "array" {
			adjustSchema(s.Items, t.Elem())
		}
	case reflect.Map:
		adjustSchema(s.AdditionalProperties, t.Elem())
		for _, p := range s.PatternProperties {
			adjustSchema(p, t.Elem())
		}
	case reflect.Struct:
		if s.Properties == nil {
			return
		}
		fields, err := jsonFields(t, "", nil)
		if err != nil {
			return
		}
		// Drop what invopop describes and encoding/json ignores (an embedded unexported
		// non-struct type).
		for name := range s.Properties.KeysFromOldest() {
			if !slices.ContainsFunc(fields, func(f structField) bool { return f.name == name }) {
				s.Properties.Delete(name)
				s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == name })
			}
		}
		for _, f := range fields {
			p, ok := s.Properties.Get(f.name)
			if !ok {
				continue
			}
			if p.Type == "" && len(p.OneOf) == 2 && p.OneOf[1].Type == "null" {
				p = p.OneOf[0] // `jsonschema:"nullable"`
			}
			adjustSchema(p, f.typ)
			if f.pointer && !f.required {
				s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
			}
		}
	}
}

// derefType strips pointers from t; false for a pointer type that points to itself.
func derefType(t reflect.Type) (reflect.Type, bool) {
	for i := 0; t.Kind() == reflect.Pointer; i++ {
		if i == 16 {
			return t, false
		}
		t = t.Elem()
	}
	return t, true
}

func validMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return reflect.PointerTo(k).Implements(textUnmarshalerType)
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Chan:
		return "channel"
	case reflect.Complex64, reflect.Complex128:
		return "complex number"
	case reflect.UnsafePointer:
		return "unsafe.Pointer"
	}
	return k.String()
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func fieldError(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path == "" {
		return fmt.Errorf("parameters type: %s", msg)
	}
	return fmt.Errorf("field %q: %s", path, msg)
}

// object is a JSON object that keeps the order of its keys: property order in a schema is
// the order a model writes them in, and golden files must be stable.
type object struct{ members []member }

type member struct {
	key   string
	value any
}

func (o *object) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces the value of key, or appends key.
func (o *object) set(key string, v any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = v
			return
		}
	}
	o.members = append(o.members, member{key, v})
}

func (o *object) del(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// getObject returns the value of key if it is an object.
func (o *object) getObject(key string) *object {
	v, _ := o.get(key)
	obj, _ := v.(*object)
	return obj
}

// getString returns the value of key if it is a string.
func (o *object) getString(key string) string {
	v, _ := o.get(key)
	s, _ := v.(string)
	return s
}

// parseTree decodes JSON text into nil, bool, json.Number, string, []any and *object.
func parseTree(data []byte) (any, error) {
	if !json.Valid(data) {
		var v json.RawMessage
		return nil, fmt.Errorf("invalid JSON: %w", json.Unmarshal(data, &v))
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := parseValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return v, nil
}

func parseValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch tok {
	case json.Delim('{'):
		o := &object{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			v, err := parseValue(d)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err = d.Token()
		return o, err
	case json.Delim('['):
		arr := []any{}
		for d.More() {
			v, err := parseValue(d)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err = d.Token()
		return arr, err
	}
	return tok, nil
}

// schemaKeyOrder is the order encodeSchema writes the keywords of a schema in; other keywords
// follow in their original order.
var schemaKeyOrder = []string{
	"$schema", "$id", "$ref", "type", "title", "description",
	"enum", "const", "format", "pattern", "minLength", "maxLength",
	"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
	"items", "minItems", "maxItems", "uniqueItems",
	"properties", "required", "additionalProperties",
	"anyOf", "oneOf", "allOf", "default", "examples",
}

// Keywords whose value is a schema, an array of schemas, or an object of schemas.
var (
	schemaKeywords = map[string]bool{
		"items": true, "additionalProperties": true, "not": true, "if": true, "then": true,
		"else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "additionalItems": true, "contentSchema": true,
	}
	schemaArrayKeywords = map[string]bool{"anyOf": true, "allOf": true, "oneOf": true, "prefixItems": true}
	schemaMapKeywords   = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true,
	}
)

// encodeSchema renders a schema tree as compact JSON, without HTML escaping, the keywords of
// every schema in schemaKeyOrder. Values that are data (enum, const, default...) keep their
// key order.
func encodeSchema(v any) json.RawMessage {
	var b []byte
	b = appendSchema(b, v)
	return b
}

func appendSchema(b []byte, v any) []byte {
	o, ok := v.(*object)
	if !ok {
		return appendJSON(b, v)
	}
	written := make([]bool, len(o.members))
	b = append(b, '{')
	first := true
	emit := func(i int) {
		if !first {
			b = append(b, ',')
		}
		first = false
		written[i] = true
		m := o.members[i]
		b = appendString(b, m.key)
		b = append(b, ':')
		switch {
		case schemaKeywords[m.key]:
			b = appendSchema(b, m.value)
		case schemaArrayKeywords[m.key], m.key == "items":
			b = appendSchemaArray(b, m.value)
		case schemaMapKeywords[m.key]:
			b = appendSchemaMap(b, m.value)
		default:
			b = appendJSON(b, m.value)
		}
	}
	for _, k := range schemaKeyOrder {
		for i, m := range o.members {
			if m.key == k {
				emit(i)
			}
		}
	}
	for i := range o.members {
		if !written[i] {
			emit(i)
		}
	}
	return append(b, '}')
}

func appendSchemaArray(b []byte, v any) []byte {
	arr, ok := v.([]any)
	if !ok {
		return appendSchema(b, v)
	}
	b = append(b, '[')
	for i, e := range arr {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSchema(b, e)
	}
	return append(b, ']')
}

func appendSchemaMap(b []byte, v any) []byte {
	o, ok := v.(*object)
	if !ok {
		return appendJSON(b, v)
	}
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		b = appendSchema(b, m.value)
	}
	return append(b, '}')
}

// appendJSON renders a tree value as compact JSON, keeping object key order.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.key)
			b = append(b, ':')
			b = appendJSON(b, m.value)
		}
		return append(b, '}')
	}
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// appendString appends s as a JSON string the way encoding/json does, minus HTML escaping:
// the schema is read by a model, and \u003c in a pattern or a description helps no one.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// exampleShape renders a short example of the arguments object schema describes, for error
// messages: {"city": "<string>", "days": <integer 1..7>, "unit": "c"|"f"}. Alternatives are
// joined with |; nesting deeper than three objects is written {...}. It returns "" when
// schema is not a JSON object.
func exampleShape(schema json.RawMessage) string {
	tree, err := parseTree(schema)
	if err != nil {
		return ""
	}
	root, ok := tree.(*object)
	if !ok {
		return ""
	}
	var b strings.Builder
	writeShape(&b, root, root, 0)
	return b.String()
}

const (
	shapeMaxDepth      = 3  // objects nested deeper are {...}
	shapeMaxProperties = 12 // properties shown per object
	shapeMaxValues     = 6  // enum values shown
)

func writeShape(b *strings.Builder, root, o *object, depth int) {
	if ref := o.getString("$ref"); ref != "" {
		target := resolveRef(root, ref)
		if target == nil || depth >= shapeMaxDepth {
			b.WriteString("{...}")
			return
		}
		writeShape(b, root, target, depth+1)
		return
	}
	if v, ok := o.get("const"); ok {
		b.Write(appendJSON(nil, v))
		return
	}
	if v, ok := o.get("enum"); ok {
		values, _ := v.([]any)
		for i, e := range values {
			if i > 0 {
				b.WriteByte('|')
			}
			if i == shapeMaxValues {
				b.WriteString("…")
				break
			}
			b.Write(appendJSON(nil, e))
		}
		return
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if v, ok := o.get(k); ok {
			branches, _ := v.([]any)
			var seen []string
			for _, br := range branches {
				bo, ok := br.(*object)
				if !ok {
					continue
				}
				var sb strings.Builder
				writeShape(&sb, root, bo, depth)
				if s := sb.String(); !slices.Contains(seen, s) {
					seen = append(seen, s)
				}
			}
			b.WriteString(strings.Join(seen, "|"))
			return
		}
	}
	types := schemaTypes(o)
	if len(types) == 0 {
		if _, ok := o.get("properties"); ok {
			types = []string{"object"}
		}
	}
	if len(types) == 0 {
		b.WriteString("<any>")
		return
	}
	for i, t := range types {
		if i > 0 {
			b.WriteByte('|')
		}
		writeTypeShape(b, root, o, t, depth)
	}
}

func writeTypeShape(b *strings.Builder, root, o *object, t string, depth int) {
	switch t {
	case "string":
		if f := o.getString("format"); f != "" {
			b.WriteString(`"<` + f + `>"`)
		} else {
			b.WriteString(`"<string>"`)
		}
	case "integer", "number":
		b.WriteString("<" + t + numberRange(o) + ">")
	case "boolean":
		b.WriteString("true|false")
	case "null":
		b.WriteString("null")
	case "array":
		b.WriteByte('[')
		if items := o.getObject("items"); items != nil {
			writeShape(b, root, items, depth)
			b.WriteString(", ...")
		}
		b.WriteByte(']')
	case "object":
		props := o.getObject("properties")
		additional := o.getObject("additionalProperties")
		switch {
		case (props == nil || len(props.members) == 0) && additional == nil:
			b.WriteString("{}")
		case depth >= shapeMaxDepth:
			b.WriteString("{...}")
		case props == nil || len(props.members) == 0:
			b.WriteString(`{"<key>": `)
			writeShape(b, root, additional, depth+1)
			b.WriteByte('}')
		default:
			b.WriteByte('{')
			for i, m := range props.members {
				if i > 0 {
					b.WriteString(", ")
				}
				if i == shapeMaxProperties {
					b.WriteString("...")
					break
				}
				b.Write(appendString(nil, m.key))
				b.WriteString(": ")
				if po, ok := m.value.(*object); ok {
					writeShape(b, root, po, depth+1)
				} else {
					b.WriteString("<any>")
				}
			}
			b.WriteByte('}')
		}
	default:
		b.WriteString("<" + t + ">")
	}
}

// numberRange renders the bounds of a number schema: " 1..7", " >= 1", " < 10", "".
func numberRange(o *object) string {
	num := func(k string) string {
		v, _ := o.get(k)
		if n, ok := v.(json.Number); ok {
			return string(n)
		}
		return ""
	}
	lower, lowerOp := num("minimum"), ">="
	if x := num("exclusiveMinimum"); x != "" {
		lower, lowerOp = x, ">"
	}
	upper, upperOp := num("maximum"), "<="
	if x := num("exclusiveMaximum"); x != "" {
		upper, upperOp = x, "<"
	}
	switch {
	case lower != "" && upper != "" && lowerOp == ">=" && upperOp == "<=":
		return " " + lower + ".." + upper
	case lower != "" && upper != "":
		return " " + lowerOp + " " + lower + ", " + upperOp + " " + upper
	case lower != "":
		return " " + lowerOp + " " + lower
	case upper != "":
		return " " + upperOp + " " + upper
	}
	return ""
}

// resolveRef resolves a local reference ("#", "#/$defs/Name") in root.
func resolveRef(root *object, ref string) *object {
	if ref == "#" {
		return root
	}
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(rest, "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return nil
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		o, ok := cur.(*object)
		if !ok {
			return nil
		}
		if cur, ok = o.get(tok); !ok {
			return nil
		}
	}
	o, _ := cur.(*object)
	return o
}
