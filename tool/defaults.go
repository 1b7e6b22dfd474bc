package tool

import (
	"fmt"
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Defaults of a typed tool's schema (`jsonschema:"default=3"`) are values, not only words for
// the model: before validation, a property the model left out, or sent as null while it is
// optional, gets its default, so the function runs with the value the schema promised (not
// Go's zero value) and Tool.Arguments shows it.

// applyDefaults sets the defaults schema s gives the properties of v and of the objects and
// arrays below. It reports whether it set any.
func applyDefaults(s *jsonschema.Schema, v any, depth int) bool {
	s = defaultsSchema(s)
	if s == nil || depth > maxDepth {
		return false
	}
	set := false
	switch v := v.(type) {
	case map[string]any:
		for name, p := range s.Properties {
			x, present := v[name]
			if present && (x != nil || slices.Contains(s.Required, name)) {
				set = applyDefaults(p, x, depth+1) || set
			} else if d := defaultOf(p); d != nil {
				v[name] = cloneValue(*d)
				set = true
			}
		}
	case []any:
		for _, e := range v {
			set = applyDefaults(s.Items2020, e, depth+1) || set
		}
	}
	return set
}

// defaultsSchema returns the schema whose keywords describe a value of s: s, or what it
// wraps (inner).
func defaultsSchema(s *jsonschema.Schema) *jsonschema.Schema {
	for range maxDepth {
		if s == nil || len(s.Properties) > 0 || s.Items2020 != nil || inner(s) == nil {
			return s
		}
		s = inner(s)
	}
	return nil
}

// defaultOf returns the default of s, or of what it wraps (inner).
func defaultOf(s *jsonschema.Schema) *any {
	for i := 0; s != nil; i++ {
		if s.Default != nil || i == maxDepth {
			return s.Default
		}
		s = inner(s)
	}
	return nil
}

// inner returns what s wraps: the target of its reference, or the branch of anyOf [X,
// {"type":"null"}] that is not null, as relaxOptional and strict mode write an optional
// property; nil when s wraps nothing.
func inner(s *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case s.Ref != nil:
		return s.Ref
	case len(s.AnyOf) == 2 && isNullSchema(s.AnyOf[1]):
		return s.AnyOf[0]
	}
	return nil
}

func isNullSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Types != nil && slices.Equal(s.Types.ToStrings(), []string{"null"})
}

// cloneValue copies a default, which the tree it goes into does not share.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = cloneValue(e)
		}
		return a
	}
	return v
}

// checkDefaults refuses a default that breaks its own property's schema: applied to every
// call that leaves the property out, it would be refused on the model's account.
func checkDefaults(s *jsonschema.Schema, path string, seen map[*jsonschema.Schema]bool) error {
	s = defaultsSchema(s)
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p, ppath := s.Properties[name], joinPath(path, name)
		if d := defaultOf(p); d != nil {
			if err := p.Validate(cloneValue(*d)); err != nil {
				return fmt.Errorf("property %q: default %s does not match the property's own schema", ppath, display(*d))
			}
		}
		if err := checkDefaults(p, ppath, seen); err != nil {
			return err
		}
	}
	return checkDefaults(s.Items2020, path+"[]", seen)
}
