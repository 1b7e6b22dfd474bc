package tool

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validator checks arguments against one compiled schema: the validate stage, one
// validator, github.com/santhosh-tekuri/jsonschema/v6, on the tree the parse stage built. It
// is immutable after compileValidator and safe for concurrent use.
type validator struct {
	schema *jsonschema.Schema
	byLoc  map[string]*jsonschema.Schema // every compiled schema by its location, for messages
}

// schemaLocation names the compiled schema; references inside it resolve against it.
const schemaLocation = "urn:toolcall:arguments"

// compileValidator compiles schema once, with format assertions on (an "email" string must
// be an email). References must be local: nothing is loaded from files or the network. It
// fails if the schema is not a valid JSON Schema or its root is not {"type":"object"}. A
// property that is not required may also be null, as strict mode sends it (see build).
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
		required := requiredSet(v)
		for i, m := range props.members {
			if po, ok := m.value.(*object); ok && !required[m.key] {
				props.members[i].value = nullable(po)
			}
		}
	}
}

// validate checks one arguments object, a tree from parseArguments. nil means valid.
// Violations are sorted by path; each says what was expected and what was sent.
func (v *validator) validate(inst map[string]any) []Violation {
	var out []Violation
	if outOfRange(inst, nil, &out); out != nil {
		return sortViolations(out) // before the validator: it would compute them exactly
	}
	err := v.schema.Validate(inst)
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
		if c := comparePointers(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(vs)
}

// comparePointers orders JSON pointers token by token, array indexes by number: /x/2 before
// /x/10, so that the first violations shown are those of the first elements.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(ta), len(tb)) {
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		if c := strings.Compare(ta[i], tb[i]); errA == nil && errB == nil && na != nb {
			return cmp.Compare(na, nb)
		} else if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

// maxExponent bounds the exponent of a number in the arguments. The validator computes
// numbers exactly (math/big), and 1e999999 costs milliseconds; no Go number type holds it.
const maxExponent = 1000

// hugeExponent reports whether number literal lit has an exponent beyond maxExponent.
func hugeExponent(lit string) bool {
	i := strings.IndexAny(lit, "eE")
	exp := strings.TrimLeft(lit[i+1:], "+-0") // a JSON number's exponent: [+-]?[0-9]+
	n, _ := strconv.Atoi(exp)
	return i >= 0 && (len(exp) > 4 || n > maxExponent)
}

// outOfRange reports the numbers in inst whose exponent is beyond maxExponent.
func outOfRange(inst any, loc []string, out *[]Violation) {
	switch x := inst.(type) {
	case json.Number:
		if hugeExponent(string(x)) {
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
