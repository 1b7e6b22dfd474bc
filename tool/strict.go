package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// strictSchema rewrites a parameters schema for OpenAI strict mode (`strict: true`), where
// the model's arguments are constrained to the schema token by token. It works on reflected
// schemas and on schemas users wrote; errors name the property path that cannot be strict,
// for example `property "meta.labels": a map (additionalProperties) cannot be strict`.
//
// What changes:
//   - every object lists all its properties in required, and gets additionalProperties false;
//   - a property that was optional becomes nullable: type ["string","null"] (with null added
//     to its enum), or anyOf [..., {"type":"null"}] for objects, arrays, $ref and const; the
//     model sends null where it would have left the property out (encoding/json decodes null
//     as the zero value);
//   - oneOf [X, {"type":"null"}] (invopop's `nullable` tag) becomes anyOf;
//   - keywords strict mode does not take are removed: default, a format not in
//     strictFormats, uniqueItems, minProperties and maxProperties move into the description
//     as a note (the model still reads them);
//     annotations (examples, $comment, readOnly, deprecated, contentEncoding...) and unknown
//     keywords are dropped. `default` is accepted by api.openai.com today but refused by
//     Azure, and means nothing when every property is required.
//
// Kept as is: the keywords in strictKept, local $ref with $defs/definitions among them
// (strict mode supports recursive schemas through $ref).
//
// Refused: a root that is not {"type":"object"} (an anyOf root included); open objects (maps:
// additionalProperties true or a schema, patternProperties, propertyNames, objects without
// properties below the root); arrays without items and tuples; schemas without a type;
// allOf, oneOf (other than the nullable pair), not, if/then/else, dependent*, contains,
// prefixItems, unevaluated*, dynamic and remote references.
//
// strictSchema is idempotent: the strict schema of a strict schema is itself.
func strictSchema(schema json.RawMessage) (json.RawMessage, error) {
	tree, err := parseTree(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	root, ok := tree.(*object)
	if !ok {
		return nil, errors.New("schema root: not an object schema")
	}
	if root.has("anyOf") {
		return nil, errors.New("schema root: anyOf cannot be strict: the root must be a plain object schema")
	}
	if t, _ := root.get("type"); t != "object" {
		return nil, fmt.Errorf("schema root: type %s cannot be strict: the root must be an object", compactJSON(t))
	}
	if err := strictNode(root, "", true); err != nil {
		return nil, err
	}
	return encodeSchema(root), nil
}

// strictFormats are the formats strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// strictKept are the keywords strict mode accepts as they are.
var strictKept = map[string]bool{
	"type": true, "title": true, "description": true, "enum": true, "const": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true,
	"anyOf": true, "$ref": true, "$defs": true, "definitions": true, "pattern": true,
	"format": true, "minLength": true, "maxLength": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minItems": true, "maxItems": true,
}

// strictRefused are keywords that change what a schema accepts in a way strict mode cannot
// express, with the reason given to the user.
var strictRefused = map[string]string{
	"allOf":             "allOf cannot be strict: merge the schemas",
	"oneOf":             "oneOf cannot be strict: use anyOf",
	"not":               "not cannot be strict",
	"if":                "if/then/else cannot be strict",
	"then":              "if/then/else cannot be strict",
	"else":              "if/then/else cannot be strict",
	"patternProperties": "a map (patternProperties) cannot be strict: use fixed properties",
	"propertyNames":     "a map (propertyNames) cannot be strict: use fixed properties",
	"dependentRequired": "dependentRequired cannot be strict",
	"dependentSchemas":  "dependentSchemas cannot be strict",
	"dependencies":      "dependencies cannot be strict",
	"prefixItems":       "a tuple (prefixItems) cannot be strict: use an object",
	"additionalItems":   "a tuple (additionalItems) cannot be strict: use an object",
	"contains":          "contains cannot be strict",
	"minContains":       "minContains cannot be strict",
	"maxContains":       "maxContains cannot be strict",
	"unevaluatedItems":  "unevaluatedItems cannot be strict",
	"$dynamicRef":       "$dynamicRef cannot be strict",
	"$recursiveRef":     "$recursiveRef cannot be strict",
}

// strictNode rewrites schema o in place; path names it in errors.
func strictNode(o *object, path string, root bool) error {
	if err := strictKeywords(o, path); err != nil {
		return err
	}
	types := schemaTypes(o)
	if slices.Contains(types, "object") || o.has("properties") {
		if len(types) == 0 {
			o.set("type", "object")
		}
		if err := strictObject(o, path, root); err != nil {
			return err
		}
	}
	if slices.Contains(types, "array") {
		if err := strictItems(o, path); err != nil {
			return err
		}
	}
	if err := strictBranches(o, path); err != nil {
		return err
	}
	if err := strictDefs(o, path); err != nil {
		return err
	}
	if len(types) == 0 && !slices.ContainsFunc([]string{"properties", "anyOf", "$ref", "enum", "const"}, o.has) {
		return strictError(path, "a schema without a type cannot be strict: a model cannot be told what to send")
	}
	return nil
}

// strictKeywords keeps, drops or refuses each keyword of schema o, and moves what strict mode
// cannot say, but the model should read, into its description.
func strictKeywords(o *object, path string) error {
	var notes []string
	for _, m := range slices.Clone(o.members) {
		note, err := strictKeyword(o, m, path)
		if err != nil {
			return err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if len(notes) > 0 {
		note := "(" + strings.Join(notes, "; ") + ")"
		if d := o.getString("description"); d != "" {
			note = d + " " + note
		}
		o.set("description", note)
	}
	return nil
}

// strictKeyword rewrites keyword m of schema o; note is what the description must say instead.
func strictKeyword(o *object, m member, path string) (note string, err error) {
	k := m.key
	switch {
	case k == "format":
		if f, _ := m.value.(string); !strictFormats[f] {
			o.del(k)
			return "format: " + f, nil
		}
	case k == "oneOf":
		if !nullablePair(m.value) || o.has("anyOf") {
			return "", strictError(path, "%s", strictRefused[k])
		}
		for i := range o.members {
			if o.members[i].key == "oneOf" {
				o.members[i].key = "anyOf"
			}
		}
	case k == "unevaluatedProperties":
		if m.value != false {
			return "", strictError(path, "an open object (unevaluatedProperties) cannot be strict: use fixed properties")
		}
		o.del(k)
	case k == "$ref":
		if ref, _ := m.value.(string); !strings.HasPrefix(ref, "#") {
			return "", strictError(path, "a remote $ref (%s) cannot be strict: inline it or put it in $defs", ref)
		}
	case strictKept[k]:
	case strictRefused[k] != "":
		return "", strictError(path, "%s", strictRefused[k])
	case k == "default", k == "minProperties", k == "maxProperties":
		o.del(k)
		return k + ": " + compactJSON(m.value), nil
	case k == "uniqueItems":
		o.del(k)
		if m.value == true {
			return "items must be unique", nil
		}
	default: // annotations and keywords strict mode does not know
		o.del(k)
	}
	return "", nil
}

// strictItems makes the items of array schema o strict.
func strictItems(o *object, path string) error {
	items, ok := o.get("items")
	if !ok {
		return strictError(path, "an array without items cannot be strict: give it an element type")
	}
	itemSchema, ok := items.(*object)
	if !ok {
		return strictError(path, "a tuple (items is not a schema) cannot be strict: use an object")
	}
	return strictNode(itemSchema, path+"[]", false)
}

// strictBranches makes the branches of o's anyOf strict.
func strictBranches(o *object, path string) error {
	v, ok := o.get("anyOf")
	if !ok {
		return nil
	}
	branches, _ := v.([]any)
	if len(branches) == 0 {
		return strictError(path, "an empty anyOf cannot be strict")
	}
	for _, b := range branches {
		bo, ok := b.(*object)
		if !ok {
			return strictError(path, "an anyOf branch that is not a schema cannot be strict")
		}
		if err := strictNode(bo, path, false); err != nil {
			return err
		}
	}
	return nil
}

// strictDefs makes the definitions of o strict.
func strictDefs(o *object, path string) error {
	for _, defsKey := range []string{"$defs", "definitions"} {
		defs, ok := o.get(defsKey)
		if !ok {
			continue
		}
		d, ok := defs.(*object)
		if !ok {
			return strictError(path, "%s is not an object", defsKey)
		}
		for _, m := range d.members {
			mo, ok := m.value.(*object)
			if !ok {
				return strictError(joinPath(defsKey, m.key), "a definition that is not a schema cannot be strict")
			}
			if err := strictNode(mo, joinPath(defsKey, m.key), false); err != nil {
				return err
			}
		}
	}
	return nil
}

// strictObject makes object schema o closed, with every property required and the
// optional ones nullable.
func strictObject(o *object, path string, root bool) error {
	ap, hasAP := o.get("additionalProperties")
	if hasAP && ap != false {
		return strictError(path, "a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects")
	}
	props := o.getObject("properties")
	if props == nil {
		if o.has("properties") {
			return strictError(path, "properties is not an object")
		}
		if !root && !hasAP {
			return strictError(path, "an open object (no properties) cannot be strict: give it fixed properties")
		}
		props = &object{}
		o.set("properties", props)
	}
	wasRequired := requiredSet(o)
	required := make([]any, 0, len(props.members))
	for i, m := range props.members {
		p := joinPath(path, m.key)
		po, ok := m.value.(*object)
		if !ok {
			return strictError(p, "a property schema of %s cannot be strict: give it a type", compactJSON(m.value))
		}
		if err := strictNode(po, p, false); err != nil {
			return err
		}
		if !wasRequired[m.key] {
			props.members[i].value = nullable(po)
		}
		required = append(required, m.key)
	}
	o.set("required", required)
	o.set("additionalProperties", false)
	return nil
}

// nullable returns schema o accepting null as well.
func nullable(o *object) *object {
	if acceptsNull(o) {
		return o
	}
	if v, ok := o.get("anyOf"); ok {
		branches, _ := v.([]any)
		o.set("anyOf", append(branches, nullSchema()))
		return o
	}
	switch types := schemaTypes(o); {
	case o.has("const") || o.has("$ref") || slices.Contains(types, "object") || slices.Contains(types, "array"):
		// wrap, below
	case len(types) > 0 || o.has("enum"):
		if t, _ := o.get("type"); len(types) > 1 {
			o.set("type", append(t.([]any), "null"))
		} else if len(types) == 1 {
			o.set("type", []any{types[0], "null"})
		}
		addNullToEnum(o)
		return o
	}
	w := &object{}
	for _, k := range []string{"title", "description"} {
		if v, ok := o.get(k); ok {
			w.set(k, v)
			o.del(k)
		}
	}
	w.set("anyOf", []any{o, nullSchema()})
	return w
}

func nullSchema() *object {
	return &object{members: []member{{"type", "null"}}}
}

// acceptsNull reports whether schema o already accepts null (as strictSchema writes it).
func acceptsNull(o *object) bool {
	if slices.Contains(schemaTypes(o), "null") {
		return true
	}
	if v, ok := o.get("anyOf"); ok {
		branches, _ := v.([]any)
		for _, b := range branches {
			if bo, ok := b.(*object); ok && acceptsNull(bo) {
				return true
			}
		}
	}
	return false
}

func addNullToEnum(o *object) {
	v, ok := o.get("enum")
	if !ok {
		return
	}
	values, _ := v.([]any)
	if !slices.Contains(values, nil) {
		o.set("enum", append(values, nil))
	}
}

// nullablePair reports whether v, the value of oneOf, is [X, {"type":"null"}] in some order:
// exclusive or not, it accepts the same values as anyOf.
func nullablePair(v any) bool {
	branches, _ := v.([]any)
	if len(branches) != 2 {
		return false
	}
	nulls := 0
	for _, b := range branches {
		if bo, ok := b.(*object); ok && len(bo.members) == 1 && bo.getString("type") == "null" {
			nulls++
		}
	}
	return nulls == 1
}

// requiredSet returns the names schema o's required keyword lists.
func requiredSet(o *object) map[string]bool {
	set := map[string]bool{}
	req, _ := o.get("required")
	list, _ := req.([]any)
	for _, r := range list {
		if s, ok := r.(string); ok {
			set[s] = true
		}
	}
	return set
}

// schemaTypes returns the types named by schema o's type keyword.
func schemaTypes(o *object) []string {
	switch t, _ := o.get("type"); t := t.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func compactJSON(v any) string {
	return string(appendJSON(nil, v))
}

func strictError(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path == "" {
		return fmt.Errorf("schema root: %s", msg)
	}
	return fmt.Errorf("property %q: %s", path, msg)
}
