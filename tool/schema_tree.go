package tool

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Schemas as ordered JSON trees: parsed keeping the order of members, and written back
// compactly in that order (reflected schemas are adjusted as trees).

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

func (o *object) has(key string) bool {
	_, ok := o.get(key)
	return ok
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

// maxSchemaDepth bounds the nesting of a schema: schemas come from outside too (an MCP
// server's tools), and every walk of the tree recurses.
const maxSchemaDepth = 256

// parseTree decodes JSON text into nil, bool, json.Number, string, []any and *object. It
// refuses text nesting deeper than maxSchemaDepth. Of two members of one name, the last wins,
// as in encoding/json.
func parseTree(data []byte) (any, error) {
	if !json.Valid(data) {
		var v json.RawMessage
		return nil, fmt.Errorf("invalid JSON: %w", json.Unmarshal(data, &v))
	}
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return readValue(d, maxSchemaDepth, orderedObject)
}

// orderedObject builds an *object, the last of two members of one name winning.
func orderedObject(ms []member) any {
	o, index := &object{}, make(map[string]int, len(ms))
	for _, m := range ms {
		if i, dup := index[m.key]; dup {
			o.members[i].value = m.value
			continue
		}
		index[m.key] = len(o.members)
		o.members = append(o.members, m)
	}
	return o
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
	return appendSchema(nil, v)
}

func appendSchema(b []byte, v any) []byte {
	o, ok := v.(*object)
	if !ok {
		return appendJSON(b, v)
	}
	rank := func(m member) int {
		if i := slices.Index(schemaKeyOrder, m.key); i >= 0 {
			return i
		}
		return len(schemaKeyOrder)
	}
	ordered := slices.SortedStableFunc(slices.Values(o.members), func(a, b member) int { return cmp.Compare(rank(a), rank(b)) })
	b = append(b, '{')
	for i, m := range ordered {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		arr, isArray := m.value.([]any)
		obj, isObject := m.value.(*object)
		switch {
		case schemaKeywords[m.key], schemaArrayKeywords[m.key] && !isArray:
			b = appendSchema(b, m.value)
		case schemaArrayKeywords[m.key]:
			b = appendArray(b, arr, appendSchema)
		case schemaMapKeywords[m.key] && isObject:
			b = appendObject(b, obj, appendSchema)
		default:
			b = appendJSON(b, m.value)
		}
	}
	return append(b, '}')
}

// appendArray renders arr as a JSON array, each element with elem.
func appendArray(b []byte, arr []any, elem func([]byte, any) []byte) []byte {
	b = append(b, '[')
	for i, e := range arr {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, e)
	}
	return append(b, ']')
}

// appendObject renders o as a JSON object in its key order, each value with elem.
func appendObject(b []byte, o *object, elem func([]byte, any) []byte) []byte {
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		b = elem(b, m.value)
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
		return appendArray(b, v, appendJSON)
	case *object:
		return appendObject(b, v, appendJSON)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// appendString appends s as a JSON string in its shortest form (RFC 8785), without HTML
// escaping: the schema is read by a model, and \u003c in a pattern or a description helps no
// one. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}
