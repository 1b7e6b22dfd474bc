package tool

import (
	"encoding"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
)

// reflectSchema returns the JSON Schema of the parameters object for Go type t, a struct or
// a pointer to one, from its json and jsonschema tags as [New] says: the draft 2020-12 subset
// OpenAI accepts, flat (no $ref, $defs, $schema or $id), keywords in a fixed readable order
// (type first), every object with additionalProperties false. time.Time is a date-time
// string, json.Number a number, a type decoded from text (encoding.TextUnmarshaler) a string;
// a type with a `JSONSchema() *jsonschema.Schema` method describes itself; unsigned integers
// get minimum 0.
//
// Refused, with an error naming the field path (for example `field "Meta.Callback": func
// types cannot be described`): channels, funcs, complex numbers, uintptr and unsafe
// pointers; interfaces and json.RawMessage (a model cannot be told what to send; an interface
// field with a `jsonschema:"type=..."` or `anyof_type=...` tag is allowed); maps whose keys
// cannot be decoded from a JSON object key; url.URL (it does not decode from a JSON string);
// types with their own UnmarshalJSON or UnmarshalJSONFrom and no JSONSchema method (their
// JSON form is unknown); recursive types; two fields with the same JSON name; tags that would
// fail silently: a jsonschema key invopop ignores, a description cut by a comma, a json
// option the schema cannot describe (format:…, case:…, inline, unknown, string on what is not
// a number) or that the decoder refuses (a malformed tag, a tag on an unexported field); a
// byte array (json/v2 reads it from base64). The caller prefixes the tool's name.
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

// decodesFromText reports whether the decoder (as encoding/json) decodes t from a JSON string through
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
	c.onPath[t] = true
	defer delete(c.onPath, t)
	var err error
	switch k := t.Kind(); {
	case t.Implements(customSchemaType), t == timeType, t == numberType:
	case t.Implements(aliasSchemaType):
		err = c.check(reflect.TypeOf(reflect.New(t).Interface().(aliasSchema).JSONSchemaAlias()), path)
	case t == urlType:
		return fieldError(path, "url.URL does not decode from a JSON string: use a string with a `jsonschema:\"format=uri\"` tag")
	case t == rawMessageType:
		return fieldError(path, "json.RawMessage cannot be described: a model cannot be told what to send; use a concrete type")
	case decodesFromText(t):
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		return fieldError(path, "type %s decodes itself (UnmarshalJSON), so its JSON form is unknown: give it a JSONSchema() *jsonschema.Schema method", t)
	case hasMethod(t, "UnmarshalJSONFrom"):
		return fieldError(path, "type %s decodes itself (UnmarshalJSONFrom), so its JSON form is unknown: give it a JSONSchema() *jsonschema.Schema method", t)
	case k == reflect.Bool, k == reflect.String, isNumberKind(k):
	case k == reflect.Array && t.Elem().Kind() == reflect.Uint8:
		return fieldError(path, "a byte array decodes from a base64 string, which its schema (an array of integers) does not say: use []byte or an array of int")
	case k == reflect.Map && !validMapKey(t.Key()):
		return fieldError(path, "map key type %s cannot be decoded from a JSON object key", t.Key())
	case k == reflect.Array, k == reflect.Slice, k == reflect.Map:
		err = c.check(t.Elem(), path+"[]")
	case k == reflect.Struct:
		err = c.checkStruct(t, path)
	case k == reflect.Interface:
		return fieldError(path, "interface types cannot be described (%s): a model cannot be told what to send; use a concrete type", t)
	default: // chan, func, complex, uintptr, unsafe.Pointer
		return fieldError(path, "%s types cannot be described", kindName(k))
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
	if err := decodeDryRun(t); err != nil {
		return fieldError(path, "%v", err)
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
	required bool         // tagged `jsonschema:"required"`
	typed    bool         // its jsonschema tag sets a type (type=, oneof_type=, anyof_type=)
}

// jsonFields lists the properties of struct t the way the decoder (and encoding/json) reads
// them, flattening embedded structs, and refuses the tags that would fail silently (tags.go).
// embedding holds the embedded structs being flattened.
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
			return nil, fieldError(fpath, "the json option inline is not supported: embed the struct instead")
		}
		if err := checkJSONOptions(f); err != nil {
			return nil, fieldError(fpath, "%v", err)
		}
		if err := checkSchemaTag(f.Tag.Get("jsonschema")); err != nil {
			return nil, fieldError(fpath, "%v", err)
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
				return nil, fieldError(fpath, "the decoder cannot set an embedded pointer to unexported struct %s: embed it by value", et)
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
		sf := structField{name: name, path: fpath, typ: f.Type}
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
		fields, err := jsonFields(t, "", nil)
		if s.Properties == nil || err != nil {
			return
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
			if f.typ.Kind() == reflect.Pointer && !f.required {
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

// hasMethod reports whether t or *t has the method name (json/v2's UnmarshalJSONFrom, which
// no interface of the standard library names).
func hasMethod(t reflect.Type, name string) bool {
	_, ok := reflect.PointerTo(t).MethodByName(name)
	return ok
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
