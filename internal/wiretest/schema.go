package wiretest

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ChatCompletionRequest is the name, under components/schemas of OpenAI's OpenAPI document,
// of the body of POST /chat/completions.
const ChatCompletionRequest = "CreateChatCompletionRequest"

// Schema validates JSON documents against one schema of an OpenAPI document.
type Schema struct {
	name string
	sch  *jsonschema.Schema
}

// LoadSchema reads the OpenAPI document at path and compiles its schema
// components/schemas/<name>, with what it references.
//
// OpenAI's document declares OpenAPI 3.1 (whose schemas are JSON Schema 2020-12) but still
// writes optional values the OpenAPI 3.0 way, with "nullable": true, which JSON Schema does
// not know: a validator would ignore it and reject every null the API accepts. Each schema
// carrying it becomes {"anyOf": [<the schema without nullable>, {"type": "null"}]}, which
// also covers a nullable enum or $ref. A boolean exclusiveMinimum/exclusiveMaximum (3.0
// style) becomes the 2020-12 number. OpenAPI's own keywords (discriminator, example, x-*) are
// annotations a JSON Schema validator ignores; discriminator only restates what the oneOf
// branches already require.
func LoadSchema(path, name string) (*Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("wiretest: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("wiretest: %s: %w", path, err)
	}
	doc = fromOpenAPI(doc)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "file:///openapi.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("wiretest: %w", err)
	}
	sch, err := c.Compile(url + "#/components/schemas/" + name)
	if err != nil {
		return nil, fmt.Errorf("wiretest: compiling %s from %s: %w", name, path, err)
	}
	return &Schema{name: name, sch: sch}, nil
}

// Validate returns nil when body is a JSON document the schema accepts, otherwise an error
// listing every violation with its location in body.
func (s *Schema) Validate(body []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("wiretest: not JSON: %w", err)
	}
	if err := s.sch.Validate(v); err != nil {
		return fmt.Errorf("wiretest: not a valid %s: %w", s.name, err)
	}
	return nil
}

// fromOpenAPI rewrites the OpenAPI-only forms of the schemas in v into JSON Schema, in place.
func fromOpenAPI(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			switch {
			case k == "properties" || k == "patternProperties" || k == "$defs" || k == "dependentSchemas":
				// Names to schemas: a property may be called "enum" or "nullable".
				if m, ok := sub.(map[string]any); ok {
					for name, sch := range m {
						m[name] = fromOpenAPI(sch)
					}
				}
			case k == "enum" || k == "const" || k == "default" || k == "example" || k == "examples" || strings.HasPrefix(k, "x-"):
				// Data, not schemas: left as they are.
			default:
				v[k] = fromOpenAPI(sub)
			}
		}
		for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
			if b, ok := v[k].(bool); ok {
				bound := "minimum"
				if k == "exclusiveMaximum" {
					bound = "maximum"
				}
				delete(v, k)
				if n, ok := v[bound]; ok && b {
					v[k] = n
					delete(v, bound)
				}
			}
		}
		if nullable, ok := v["nullable"].(bool); ok {
			delete(v, "nullable")
			if nullable {
				return map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
			}
		}
		return v
	case []any:
		for i := range v {
			v[i] = fromOpenAPI(v[i])
		}
		return v
	}
	return v
}
