package tool

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The full validator's errors, turned into violations the model can act on: each with its
// JSON pointer, what was expected and what was sent.

// collect flattens the error tree e into violations.
func (v *validator) collect(inst any, e *jsonschema.ValidationError, out *[]Violation) {
	path := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			v.collect(inst, c, out)
		}
	case *kind.AnyOf:
		v.collectAlternatives(inst, e, out)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			v.collectAlternatives(inst, e, out)
			return
		}
		*out = append(*out, Violation{path, fmt.Sprintf("matches more than one of the allowed shapes (alternatives %d and %d); got %s",
			k.Subschemas[0]+1, k.Subschemas[1]+1, display(valueAt(inst, e.InstanceLocation)))})
	case *kind.Required:
		parent := v.byLoc[e.SchemaURL]
		for _, name := range k.Missing {
			msg := "required property is missing"
			if parent != nil {
				msg += propertyHint(parent.Properties[name])
			}
			*out = append(*out, Violation{path + "/" + escapeToken(name), msg})
		}
	case *kind.AdditionalProperties:
		msg := "unknown property; this object takes no properties"
		var known []string
		if parent := v.byLoc[e.SchemaURL]; parent != nil {
			if len(parent.PatternProperties) > 0 {
				var patterns []string
				for re := range parent.PatternProperties {
					patterns = append(patterns, re.String())
				}
				slices.Sort(patterns)
				msg = "unknown property; property names must match " + strings.Join(patterns, " or ")
			}
			if known = slices.Sorted(maps.Keys(parent.Properties)); len(known) > 0 {
				msg = "unknown property; known properties: " + strings.Join(known, ", ")
			}
		}
		for _, name := range k.Properties {
			*out = append(*out, Violation{path + "/" + escapeToken(name), didYouMean(known, name, msg)})
		}
	default:
		*out = append(*out, Violation{path, violationMessage(e, valueAt(inst, e.InstanceLocation))})
	}
}

// didYouMean returns msg, or, when name differs from one of the known properties only by
// case, a hint naming that property: names match exactly.
func didYouMean(known []string, name, msg string) string {
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf("unknown property; did you mean %q?", k)
		}
	}
	return msg
}

// collectAlternatives reports the failure of anyOf or oneOf. Alternatives the value failed
// only by its type (the null of a nullable property, the wrong branch of a union) say
// nothing useful when another alternative came closer, so: when one alternative got past
// the type check, its violations are reported; when none did, one violation lists the types.
func (v *validator) collectAlternatives(inst any, e *jsonschema.ValidationError, out *[]Violation) {
	var closer []*jsonschema.ValidationError
	var want []string
	for _, c := range e.Causes {
		if t, ok := c.ErrorKind.(*kind.Type); ok && slices.Equal(c.InstanceLocation, e.InstanceLocation) {
			for _, w := range nullLast(t.Want) {
				if !slices.Contains(want, w) {
					want = append(want, w)
				}
			}
			continue
		}
		closer = append(closer, c)
	}
	if len(closer) == 0 {
		got := valueAt(inst, e.InstanceLocation)
		*out = append(*out, Violation{pointer(e.InstanceLocation),
			fmt.Sprintf("expected %s, got %s", strings.Join(nullLast(want), " or "), typedDisplay(got))})
		return
	}
	for _, c := range closer {
		v.collect(inst, c, out)
	}
}

// violationMessage says what was expected and what was sent, for one leaf error.
func violationMessage(e *jsonschema.ValidationError, got any) string {
	shown := display(got)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", strings.Join(nullLast(k.Want), " or "), typedDisplay(got))
	case *kind.Enum:
		values := make([]string, len(k.Want))
		for i, w := range k.Want {
			values[i] = display(w)
		}
		if len(values) == 1 {
			return fmt.Sprintf("expected %s, got %s", values[0], shown)
		}
		return fmt.Sprintf("expected one of %s; got %s", strings.Join(values, ", "), shown)
	case *kind.Const:
		return fmt.Sprintf("expected %s, got %s", display(k.Want), shown)
	case *kind.Minimum:
		return fmt.Sprintf("expected a number >= %s, got %s", ratString(k.Want), shown)
	case *kind.Maximum:
		return fmt.Sprintf("expected a number <= %s, got %s", ratString(k.Want), shown)
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("expected a number > %s, got %s", ratString(k.Want), shown)
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("expected a number < %s, got %s", ratString(k.Want), shown)
	case *kind.MultipleOf:
		return fmt.Sprintf("expected a multiple of %s, got %s", ratString(k.Want), shown)
	case *kind.MinLength:
		return fmt.Sprintf("expected at least %d characters, got %d: %s", k.Want, k.Got, shown)
	case *kind.MaxLength:
		return fmt.Sprintf("expected at most %d characters, got %d: %s", k.Want, k.Got, shown)
	case *kind.Pattern:
		return fmt.Sprintf("expected a string matching the pattern %s, got %s", k.Want, shown)
	case *kind.Format:
		return fmt.Sprintf("expected %s, got %s", formatHint(k.Want), shown)
	case *kind.MinItems:
		return fmt.Sprintf("expected at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("expected at most %d items, got %d", k.Want, k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("expected unique items, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.FalseSchema:
		return "no value is allowed here, got " + shown
	}
	return e.ErrorKind.LocalizedString(message.NewPrinter(language.English)) + "; got " + shown
}

// formatHints describe formats the way a model can act on.
var formatHints = map[string]string{
	"date-time": "an RFC 3339 date-time (like 2025-01-31T09:30:00Z)",
	"date":      "a date (like 2025-01-31)",
	"time":      "a time with offset (like 09:30:00Z)",
	"duration":  "an ISO 8601 duration (like P3DT4H)",
	"email":     "an email address (like name@example.com)",
	"uri":       "an absolute URI (like https://example.com/path)",
	"iri":       "an absolute URI (like https://example.com/path)",
	"uuid":      "a UUID (like 123e4567-e89b-12d3-a456-426614174000)",
	"ipv4":      "an IPv4 address (like 192.0.2.1)",
	"ipv6":      "an IPv6 address (like 2001:db8::1)",
	"hostname":  "a hostname (like example.com)",
}

// formatHint describes format f for the model: formatHints, or "a valid f".
func formatHint(f string) string {
	if h, ok := formatHints[f]; ok {
		return h
	}
	return "a valid " + f
}

// propertyHint renders " (type: description)" for the message of a missing property.
func propertyHint(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	t, desc := schemaTypeName(s, 0), s.Description
	if desc == "" && s.Ref != nil {
		desc = s.Ref.Description
	}
	switch desc = shorten(desc, 100); {
	case t != "" && desc != "":
		t += ": " + desc
	case desc != "":
		t = desc
	case t == "":
		return ""
	}
	return " (" + t + ")"
}

// schemaTypeName names the types schema s accepts: "string", "integer or null".
func schemaTypeName(s *jsonschema.Schema, depth int) string {
	if s == nil || depth > 4 {
		return ""
	}
	if s.Types != nil {
		return strings.Join(nullLast(s.Types.ToStrings()), " or ")
	}
	if s.Ref != nil {
		return schemaTypeName(s.Ref, depth+1)
	}
	var names []string
	for _, b := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		if n := schemaTypeName(b, depth+1); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " or ")
}

// nullLast moves "null" to the end of a list of types: "string or null" reads better.
func nullLast(types []string) []string {
	i := slices.Index(types, "null")
	if i < 0 || i == len(types)-1 {
		return types
	}
	out := slices.Delete(slices.Clone(types), i, i+1)
	return append(out, "null")
}

// indexSchemas records s and every schema under it by location.
func indexSchemas(s *jsonschema.Schema, m map[string]*jsonschema.Schema) {
	if s == nil || m[s.Location] != nil {
		return
	}
	m[s.Location] = s
	subs := []*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
		s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	subs = slices.Concat(subs, s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems)
	subs = slices.AppendSeq(subs, maps.Values(s.Properties))
	subs = slices.AppendSeq(subs, maps.Values(s.PatternProperties))
	subs = slices.AppendSeq(subs, maps.Values(s.DependentSchemas))
	for _, x := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			subs = append(subs, x)
		case []*jsonschema.Schema:
			subs = append(subs, x...)
		}
	}
	for _, sub := range subs {
		indexSchemas(sub, m)
	}
}

// pointer renders an instance location as a JSON pointer.
func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(escapeToken(tok))
	}
	return b.String()
}

func escapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// valueAt returns the value at loc in the decoded instance.
func valueAt(v any, loc []string) any {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// display renders a sent value as short JSON.
func display(v any) string {
	b, err := jsonText(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b), 60)
}

// typedDisplay renders a sent value with its JSON type: `string "3"`, `null`.
func typedDisplay(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + display(v)
	case bool:
		return "boolean " + display(v)
	case json.Number:
		return "number " + display(v)
	case []any:
		return "array " + display(v)
	case map[string]any:
		return "object " + display(v)
	}
	return display(v)
}

// shorten cuts s to at most n runes, marking the cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
