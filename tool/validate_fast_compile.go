package tool

import (
	"encoding/json"
	"math/big"
	"regexp"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The compiler of the validator's fast path: a compiled jsonschema.Schema becomes a tree of
// fastNodes (validate_fast.go) covering the keywords reflected and strict schemas use.

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
