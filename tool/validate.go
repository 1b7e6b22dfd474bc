package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
