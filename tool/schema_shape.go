package tool

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// The expected shape of a tool's arguments, written from its schema for the model to read in
// an argument error ({"city": string, "days": integer 1..7}).

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
	if len(types) == 0 && o.has("properties") {
		types = []string{"object"}
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
		b.WriteString(`"<` + cmp.Or(o.getString("format"), "string") + `>"`)
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
		n, _ := v.(json.Number)
		return string(n)
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
