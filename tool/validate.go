package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
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
	s := scanner{data: args}
	if v.fast.check(&s) == fastOK {
		if s.ws(); s.pos == len(s.data) {
			return nil
		}
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

// The fast path.

type fastResult uint8

const (
	fastOK      fastResult = iota // valid, and the scanner is past the value
	fastFail                      // definitely invalid
	fastUnknown                   // the fast path cannot tell
)

// JSON types as a bit set.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// fastNode is a compiled schema for the fast path. It covers the keywords reflected and
// strict schemas use; a schema with any other keyword compiles to an unsupported node, and
// a value reaching it goes to the full validator.
type fastNode struct {
	unsupported bool
	never       bool  // the false schema
	types       uint8 // 0: any type
	enum        []fastValue
	hasEnum     bool
	format      func(any) error
	ref         *fastNode
	allOf       []*fastNode
	anyOf       []*fastNode
	oneOf       []*fastNode
	not         *fastNode

	props        map[string]fastProp
	requiredMask uint64
	additional   *fastNode // schema of other properties; nil with noAdditional false: anything
	noAdditional bool

	items              *fastNode
	minItems, maxItems int // -1: none

	minLength, maxLength int // -1: none
	pattern              *regexp.Regexp

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *fastNumber
}

type fastProp struct {
	node     *fastNode // nil: the name is only required, its value goes to additional
	required uint64    // bit in requiredMask, 0 when optional
}

// fastValue is one enum or const value: a scalar.
type fastValue struct {
	typ uint8
	str string
	b   bool
	num *fastNumber
}

// fastNumber is a number from the schema.
type fastNumber struct {
	rat   *big.Rat // exact
	i     int64
	isInt bool    // rat is an integer that fits i
	f     float64 // rat, rounded
	tol   float64 // a float64 difference beyond tol from f decides a comparison
}

func newFastNumber(r *big.Rat) *fastNumber {
	n := &fastNumber{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		n.i, n.isInt = r.Num().Int64(), true
	}
	n.f, _ = r.Float64()
	n.tol = 1e-9 * max(1, math.Abs(n.f))
	return n
}

type fastCompiler struct {
	nodes map[*jsonschema.Schema]*fastNode
}

func (c *fastCompiler) node(s *jsonschema.Schema) *fastNode {
	if s == nil {
		return nil
	}
	if n, ok := c.nodes[s]; ok {
		return n
	}
	n := &fastNode{minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[s] = n
	if s.Bool != nil {
		n.never = !*s.Bool
		return n
	}
	if s.RecursiveRef != nil || s.DynamicRef != nil || s.If != nil || s.Then != nil || s.Else != nil ||
		s.PropertyNames != nil || len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 ||
		len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 ||
		s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil || s.Contains != nil ||
		len(s.PrefixItems) > 0 || s.Items != nil || s.AdditionalItems != nil || s.UniqueItems ||
		s.MinProperties != nil || s.MaxProperties != nil || s.ContentEncoding != nil ||
		s.ContentMediaType != nil || s.ContentSchema != nil || len(s.Extensions) > 0 ||
		(s.DraftVersion < 2019 && s.Ref != nil) || len(s.Required) > 64 {
		n.unsupported = true
		return n
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			n.types |= typeBit(t)
		}
	}
	if s.Enum != nil {
		n.hasEnum = true
		for _, e := range s.Enum.Values {
			fv, ok := newFastValue(e)
			if !ok {
				n.unsupported = true
				return n
			}
			n.enum = append(n.enum, fv)
		}
	}
	if s.Const != nil {
		fv, ok := newFastValue(*s.Const)
		if !ok {
			n.unsupported = true
			return n
		}
		if n.hasEnum { // both apply: keep the enum values equal to the const
			n.enum = slices.DeleteFunc(n.enum, func(e fastValue) bool { return !e.equal(fv) })
		} else {
			n.enum = []fastValue{fv}
		}
		n.hasEnum = true
	}
	if s.Format != nil {
		n.format = s.Format.Validate
	}
	if s.Pattern != nil {
		re, ok := s.Pattern.(*regexp.Regexp)
		if !ok {
			n.unsupported = true
			return n
		}
		n.pattern = re
	}
	n.ref = c.node(s.Ref)
	n.not = c.node(s.Not)
	for _, sub := range s.AllOf {
		n.allOf = append(n.allOf, c.node(sub))
	}
	for _, sub := range s.AnyOf {
		n.anyOf = append(n.anyOf, c.node(sub))
	}
	for _, sub := range s.OneOf {
		n.oneOf = append(n.oneOf, c.node(sub))
	}
	if len(s.Properties) > 0 || len(s.Required) > 0 {
		n.props = make(map[string]fastProp, len(s.Properties)+len(s.Required))
		for name, sub := range s.Properties {
			n.props[name] = fastProp{node: c.node(sub)}
		}
		for i, name := range s.Required {
			p := n.props[name]
			p.required = uint64(1) << i
			n.props[name] = p
			n.requiredMask |= p.required
		}
	}
	switch a := s.AdditionalProperties.(type) {
	case bool:
		n.noAdditional = !a
	case *jsonschema.Schema:
		n.additional = c.node(a)
	}
	n.items = c.node(s.Items2020)
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	if s.MinLength != nil {
		n.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLength = *s.MaxLength
	}
	for _, b := range []struct {
		dst **fastNumber
		src *big.Rat
	}{
		{&n.minimum, s.Minimum}, {&n.maximum, s.Maximum}, {&n.exclusiveMinimum, s.ExclusiveMinimum},
		{&n.exclusiveMaximum, s.ExclusiveMaximum}, {&n.multipleOf, s.MultipleOf},
	} {
		if b.src != nil {
			*b.dst = newFastNumber(b.src)
		}
	}
	return n
}

func typeBit(t string) uint8 {
	switch t {
	case "null":
		return typeNull
	case "boolean":
		return typeBoolean
	case "number":
		return typeNumber
	case "integer":
		return typeInteger
	case "string":
		return typeString
	case "array":
		return typeArray
	case "object":
		return typeObject
	}
	return 0
}

func newFastValue(v any) (fastValue, bool) {
	switch v := v.(type) {
	case nil:
		return fastValue{typ: typeNull}, true
	case bool:
		return fastValue{typ: typeBoolean, b: v}, true
	case string:
		return fastValue{typ: typeString, str: v}, true
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			return fastValue{}, false
		}
		return fastValue{typ: typeNumber, num: newFastNumber(r)}, true
	}
	return fastValue{}, false
}

func (a fastValue) equal(b fastValue) bool {
	if a.typ != b.typ {
		return false
	}
	switch a.typ {
	case typeBoolean:
		return a.b == b.b
	case typeString:
		return a.str == b.str
	case typeNumber:
		return a.num.rat.Cmp(b.num.rat) == 0
	}
	return true
}

// scanner reads one JSON value at a time from data.
type scanner struct {
	data   []byte
	pos    int
	rawEnd int // end of the content of the last string scanned
	depth  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// check validates the value at the scanner's position against n.
func (n *fastNode) check(s *scanner) fastResult {
	if n.unsupported {
		return fastUnknown
	}
	if n.never {
		return fastFail
	}
	s.ws()
	if s.pos >= len(s.data) || s.depth > 200 {
		return fastUnknown
	}
	s.depth++
	r := n.checkValue(s)
	s.depth--
	return r
}

func (n *fastNode) checkValue(s *scanner) fastResult {
	start := s.pos
	if r := n.own(s); r != fastOK {
		return r
	}
	end := s.pos
	if n.ref == nil && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil {
		return fastOK
	}
	// Applicators see the same value: each rescans it from start. Their results combine
	// with AND: a failure decides, then an unknown.
	res := fastOK
	and := func(r fastResult) {
		if r == fastFail || (r == fastUnknown && res == fastOK) {
			res = r
		}
	}
	sub := func(n *fastNode) fastResult {
		s.pos = start
		return n.check(s)
	}
	if n.ref != nil {
		and(sub(n.ref))
	}
	for _, x := range n.allOf {
		and(sub(x))
	}
	if n.anyOf != nil {
		r := fastFail
		for _, x := range n.anyOf {
			if rr := sub(x); rr == fastOK {
				r = fastOK
				break
			} else if rr == fastUnknown {
				r = fastUnknown
			}
		}
		and(r)
	}
	if n.oneOf != nil {
		matched, unknown := 0, false
		for _, x := range n.oneOf {
			switch sub(x) {
			case fastOK:
				matched++
			case fastUnknown:
				unknown = true
			}
		}
		switch {
		case matched > 1:
			and(fastFail)
		case unknown:
			and(fastUnknown)
		case matched == 0:
			and(fastFail)
		}
	}
	if n.not != nil {
		switch sub(n.not) {
		case fastOK:
			and(fastFail)
		case fastUnknown:
			and(fastUnknown)
		}
	}
	s.pos = end
	return res
}

// anyValue accepts every value; skipping a value is checking it against anyValue.
var anyValue = &fastNode{minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}

// own checks the value against n's own keywords (not its applicators) and moves past it.
func (n *fastNode) own(s *scanner) fastResult {
	switch c := s.data[s.pos]; {
	case c == '{':
		if !n.allows(typeObject) || n.hasEnum {
			return fastFail
		}
		return n.object(s)
	case c == '[':
		if !n.allows(typeArray) || n.hasEnum {
			return fastFail
		}
		return n.array(s)
	case c == '"':
		return n.string(s)
	case c == 't' || c == 'f' || c == 'n':
		return n.literal(s)
	case c == '-' || (c >= '0' && c <= '9'):
		return n.number(s)
	}
	return fastUnknown
}

func (n *fastNode) allows(t uint8) bool {
	return n.types == 0 || n.types&t != 0
}

func (n *fastNode) object(s *scanner) fastResult {
	s.pos++
	var seen uint64
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return n.required(seen)
	}
	for {
		s.ws()
		keyStart := s.pos
		raw, escaped, ok := s.string()
		if !ok {
			return fastUnknown
		}
		var p fastProp
		if n.props != nil {
			if escaped {
				var key string
				if json.Unmarshal(s.data[keyStart:s.pos], &key) != nil {
					return fastUnknown
				}
				p = n.props[key]
			} else {
				p = n.props[string(s.data[raw:s.rawEnd])]
			}
		}
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return fastUnknown
		}
		s.pos++
		seen |= p.required
		sub := p.node
		if sub == nil {
			if n.noAdditional {
				return fastFail
			}
			sub = n.additional
		}
		if sub != nil {
			if r := sub.check(s); r != fastOK {
				return r
			}
		} else if !s.skip() {
			return fastUnknown
		}
		s.ws()
		if s.pos >= len(s.data) {
			return fastUnknown
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return n.required(seen)
		default:
			return fastUnknown
		}
	}
}

func (n *fastNode) required(seen uint64) fastResult {
	if seen&n.requiredMask != n.requiredMask {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) array(s *scanner) fastResult {
	s.pos++
	count := 0
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return n.arrayLength(count)
	}
	for {
		if n.items != nil {
			if r := n.items.check(s); r != fastOK {
				return r
			}
		} else if !s.skip() {
			return fastUnknown
		}
		count++
		s.ws()
		if s.pos >= len(s.data) {
			return fastUnknown
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return n.arrayLength(count)
		default:
			return fastUnknown
		}
	}
}

func (n *fastNode) arrayLength(count int) fastResult {
	if (n.minItems >= 0 && count < n.minItems) || (n.maxItems >= 0 && count > n.maxItems) {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) string(s *scanner) fastResult {
	start := s.pos
	raw, escaped, ok := s.string()
	if !ok {
		return fastUnknown
	}
	if !n.allows(typeString) {
		return fastFail
	}
	if !n.hasEnum && n.minLength < 0 && n.maxLength < 0 && n.pattern == nil && n.format == nil {
		return fastOK
	}
	b := s.data[raw:s.rawEnd]
	if escaped {
		var str string
		if json.Unmarshal(s.data[start:s.pos], &str) != nil {
			return fastUnknown
		}
		b = []byte(str)
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e fastValue) bool { return e.typ == typeString && e.str == string(b) }) {
		return fastFail
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCount(b)
		if (n.minLength >= 0 && l < n.minLength) || (n.maxLength >= 0 && l > n.maxLength) {
			return fastFail
		}
	}
	if n.pattern != nil && !n.pattern.Match(b) {
		return fastFail
	}
	if n.format != nil && n.format(string(b)) != nil {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) literal(s *scanner) fastResult {
	var v fastValue
	switch {
	case bytes.HasPrefix(s.data[s.pos:], []byte("true")):
		v, s.pos = fastValue{typ: typeBoolean, b: true}, s.pos+4
	case bytes.HasPrefix(s.data[s.pos:], []byte("false")):
		v, s.pos = fastValue{typ: typeBoolean}, s.pos+5
	case bytes.HasPrefix(s.data[s.pos:], []byte("null")):
		v, s.pos = fastValue{typ: typeNull}, s.pos+4
	default:
		return fastUnknown
	}
	if !n.allows(v.typ) {
		return fastFail
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, v.equal) {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) number(s *scanner) fastResult {
	start := s.pos
	plain, ok := s.number()
	if !ok {
		return fastUnknown
	}
	v := fastLiteral{lit: s.data[start:s.pos]}
	if !plain && hugeExponent(v.lit) {
		return fastFail
	}
	if plain {
		v.i, v.isInt = parseInt(v.lit)
	}
	r := n.numberValue(&v)
	if v.bad {
		return fastUnknown
	}
	return r
}

func (n *fastNode) numberValue(v *fastLiteral) fastResult {
	if n.types != 0 && n.types&typeNumber == 0 {
		if n.types&typeInteger == 0 || (!v.isInt && !v.exact().IsInt()) {
			return fastFail
		}
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e fastValue) bool { return e.typ == typeNumber && v.cmp(e.num) == 0 }) {
		return fastFail
	}
	if (n.minimum != nil && v.cmp(n.minimum) < 0) ||
		(n.maximum != nil && v.cmp(n.maximum) > 0) ||
		(n.exclusiveMinimum != nil && v.cmp(n.exclusiveMinimum) <= 0) ||
		(n.exclusiveMaximum != nil && v.cmp(n.exclusiveMaximum) >= 0) {
		return fastFail
	}
	if m := n.multipleOf; m != nil {
		switch {
		case m.rat.Sign() == 0:
			return fastUnknown
		case v.isInt && m.isInt:
			if v.i%m.i != 0 {
				return fastFail
			}
		case !new(big.Rat).Quo(v.exact(), m.rat).IsInt():
			return fastFail
		}
	}
	return fastOK
}

// fastLiteral is a number from the arguments. Integers that fit int64 are compared as
// such; others as float64 when the difference is far beyond rounding errors (both sides
// are within 2^-53 relative of the exact values, the tolerance is 1e-9); and exactly with
// math/big, as the full validator does, in the remaining cases.
type fastLiteral struct {
	lit    []byte
	i      int64
	isInt  bool // a plain integer literal that fits i
	f      float64
	fState int8 // 0: f not parsed yet, 1: f holds lit, -1: lit does not fit float64
	rat    *big.Rat
	bad    bool // math/big could not parse lit: the result means nothing
}

func (v *fastLiteral) exact() *big.Rat {
	if v.rat == nil {
		r, ok := new(big.Rat).SetString(string(v.lit))
		if !ok {
			v.bad, r = true, new(big.Rat)
		}
		v.rat = r
	}
	return v.rat
}

// cmp compares the literal with schema number b.
func (v *fastLiteral) cmp(b *fastNumber) int {
	if v.isInt && b.isInt {
		switch {
		case v.i < b.i:
			return -1
		case v.i > b.i:
			return 1
		}
		return 0
	}
	if v.fState == 0 {
		var err error
		v.f, err = strconv.ParseFloat(string(v.lit), 64)
		v.fState = 1
		if err != nil {
			v.fState = -1
		}
	}
	if v.fState == 1 {
		switch d := v.f - b.f; {
		case d > b.tol:
			return 1
		case d < -b.tol:
			return -1
		}
	}
	return v.exact().Cmp(b.rat)
}

// parseInt parses a plain integer literal that fits int64 without overflow checks: at most
// 18 digits.
func parseInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range lit {
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// string scans a JSON string. raw is the offset of its first byte after the quote; the
// content ends at s.rawEnd. escaped reports backslash escapes.
func (s *scanner) string() (raw int, escaped, ok bool) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return 0, false, false
	}
	s.pos++
	raw = s.pos
	ascii := true
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.rawEnd = s.pos
			s.pos++
			if !ascii && !utf8.Valid(s.data[raw:s.rawEnd]) {
				return 0, false, false
			}
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if s.pos+1 >= len(s.data) {
				return 0, false, false
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					return 0, false, false
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if !jsonHexDigit(h) {
						return 0, false, false
					}
				}
				s.pos += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			s.pos++
		}
	}
	return 0, false, false
}

func jsonHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number scans a JSON number; plain reports an integer literal (no fraction, no exponent).
func (s *scanner) number() (plain, ok bool) {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	plain = true
	if i < len(d) && d[i] == '.' {
		plain = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		plain = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return plain, true
}

// skip moves past one value of any kind, checking its syntax.
func (s *scanner) skip() bool {
	return anyValue.check(s) == fastOK
}
