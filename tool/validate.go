package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// validator checks arguments objects against one compiled schema. It is immutable after
// compileValidator and safe for concurrent use.
//
// Validation runs on every tool call, so it has two paths. The fast path checks the raw
// bytes against a compiled form of the common keywords without decoding them, and without
// allocating for plain values; it can only say "valid". When it cannot (the arguments break
// the schema, or use a keyword it does not know), the full validator decodes the arguments
// and reports every violation. The fast path is conservative: it accepts only what the full
// validator accepts.
type validator struct {
	schema *jsonschema.Schema
	fast   *fastNode                     // the fast path
	byLoc  map[string]*jsonschema.Schema // every compiled schema by its location, for messages
}

// schemaLocation names the compiled schema; references inside it resolve against it.
const schemaLocation = "urn:toolcall:arguments"

// compileValidator compiles schema once, with format assertions on (an "email" string must
// be an email). References must be local: nothing is loaded from files or the network. It
// fails if the schema is not a valid JSON Schema or its root is not {"type":"object"}.
//
// A property that is not required may also be null: encoding/json decodes null as it
// decodes an absent property, and strict mode sends null for the properties that were
// optional. So one validator compiled from the schema a tool was declared with accepts the
// arguments of both modes (compiled from the strict schema, it requires every property).
func compileValidator(schema json.RawMessage) (*validator, error) {
	tree, err := parseTree(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	relaxOptional(tree)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(encodeSchema(tree)))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s, err := c.Compile(schemaLocation)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	if s.Types == nil || !slices.Equal(s.Types.ToStrings(), []string{"object"}) {
		return nil, fmt.Errorf("schema root is not an object schema: a tool's arguments are a JSON object")
	}
	v := &validator{schema: s, byLoc: map[string]*jsonschema.Schema{}}
	indexSchemas(s, v.byLoc)
	v.fast = (&fastCompiler{nodes: map[*jsonschema.Schema]*fastNode{}}).node(s)
	return v, nil
}

// relaxOptional makes every property that is not required accept null, in every schema of
// the tree v.
func relaxOptional(v any) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			relaxOptional(e)
		}
	case *object:
		for _, m := range v.members {
			switch {
			case schemaKeywords[m.key], schemaArrayKeywords[m.key]:
				relaxOptional(m.value)
			case schemaMapKeywords[m.key]:
				if o, ok := m.value.(*object); ok {
					for _, mm := range o.members {
						relaxOptional(mm.value)
					}
				}
			}
		}
		props := v.getObject("properties")
		if props == nil {
			return
		}
		required := map[string]bool{}
		if req, ok := v.get("required"); ok {
			list, _ := req.([]any)
			for _, r := range list {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		for i, m := range props.members {
			if po, ok := m.value.(*object); ok && !required[m.key] {
				props.members[i].value = nullable(po)
			}
		}
	}
}

// validate checks one arguments object (the bytes of a JSON object). nil means valid.
// Violations are sorted by path; each says what was expected and what was sent.
func (v *validator) validate(args []byte) []Violation {
	if v.accepts(args) {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []Violation{{Path: "", Message: "the arguments are not valid JSON: " + err.Error()}}
	}
	var out []Violation
	if outOfRange(inst, nil, &out); out != nil {
		return sortViolations(out) // before the validator: it would compute them exactly
	}
	err = v.schema.Validate(inst)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Path: "", Message: err.Error()}}
	}
	v.collect(inst, verr, &out)
	if len(out) == 0 { // an error tree of a shape collect does not know: never report valid
		out = append(out, Violation{Path: "", Message: verr.Error()})
	}
	return sortViolations(out)
}

// accepts reports whether the fast path finds args, whole, valid JSON that the schema
// accepts. False means the full validator must decide.
func (v *validator) accepts(args []byte) bool {
	s := scanner{data: args}
	if v.fast.check(&s) != fastOK {
		return false
	}
	s.ws()
	return s.pos == len(s.data)
}

// sortViolations sorts by path, then message, and drops duplicates.
func sortViolations(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(vs)
}

// maxExponent bounds the exponent of a number in the arguments. The validator computes
// numbers exactly (math/big), and 1e999999 costs milliseconds; no Go number type holds it.
const maxExponent = 1000

// hugeExponent reports whether number literal lit has an exponent beyond maxExponent.
func hugeExponent(lit []byte) bool {
	i := bytes.IndexAny(lit, "eE")
	if i < 0 {
		return false
	}
	exp := bytes.TrimLeft(lit[i+1:], "+-")
	exp = bytes.TrimLeft(exp, "0")
	if len(exp) > 4 {
		return true
	}
	n, _ := strconv.Atoi(string(exp))
	return n > maxExponent
}

// outOfRange reports the numbers in inst whose exponent is beyond maxExponent.
func outOfRange(inst any, loc []string, out *[]Violation) {
	switch x := inst.(type) {
	case json.Number:
		if hugeExponent([]byte(x)) {
			*out = append(*out, Violation{pointer(loc), "number out of range, got " + display(x)})
		}
	case []any:
		for i, e := range x {
			outOfRange(e, append(loc, strconv.Itoa(i)), out)
		}
	case map[string]any:
		for k, e := range x {
			outOfRange(e, append(loc, k), out)
		}
	}
}

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
		parent := v.byLoc[e.SchemaURL]
		if parent != nil && len(parent.PatternProperties) > 0 {
			var patterns []string
			for re := range parent.PatternProperties {
				patterns = append(patterns, re.String())
			}
			slices.Sort(patterns)
			msg = "unknown property; property names must match " + strings.Join(patterns, " or ")
		}
		if parent != nil && len(parent.Properties) > 0 {
			known := make([]string, 0, len(parent.Properties))
			for name := range parent.Properties {
				known = append(known, name)
			}
			slices.Sort(known)
			msg = "unknown property; known properties: " + strings.Join(known, ", ")
		}
		for _, name := range k.Properties {
			*out = append(*out, Violation{path + "/" + escapeToken(name), msg})
		}
	default:
		*out = append(*out, Violation{path, violationMessage(e, valueAt(inst, e.InstanceLocation))})
	}
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

// formatHint describes a format the way a model can act on.
func formatHint(f string) string {
	switch f {
	case "date-time":
		return "an RFC 3339 date-time (like 2025-01-31T09:30:00Z)"
	case "date":
		return "a date (like 2025-01-31)"
	case "time":
		return "a time with offset (like 09:30:00Z)"
	case "duration":
		return "an ISO 8601 duration (like P3DT4H)"
	case "email":
		return "an email address (like name@example.com)"
	case "uri", "iri":
		return "an absolute URI (like https://example.com/path)"
	case "uuid":
		return "a UUID (like 123e4567-e89b-12d3-a456-426614174000)"
	case "ipv4":
		return "an IPv4 address (like 192.0.2.1)"
	case "ipv6":
		return "an IPv6 address (like 2001:db8::1)"
	case "hostname":
		return "a hostname (like example.com)"
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
	desc = shorten(desc, 100)
	switch {
	case t != "" && desc != "":
		return " (" + t + ": " + desc + ")"
	case t != "":
		return " (" + t + ")"
	case desc != "":
		return " (" + desc + ")"
	}
	return ""
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
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, p := range s.Properties {
		subs = append(subs, p)
	}
	for _, p := range s.PatternProperties {
		subs = append(subs, p)
	}
	for _, p := range s.DependentSchemas {
		subs = append(subs, p)
	}
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return shorten(strings.TrimSuffix(b.String(), "\n"), 60)
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
