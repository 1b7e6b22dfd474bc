package mcp

import (
	"encoding/json"
	"fmt"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitDefaults returns the default value of each property of an elicitation's requested
// schema that has one (SEP-1034): what a form asking the user should be filled with, and what
// an Options.Elicit that accepts without asking anyone answers. It returns an empty map when
// the schema gives no defaults, and an error when the schema is not a JSON object (a
// server's mistake).
func ElicitDefaults(req *sdkmcp.ElicitRequest) (map[string]any, error) {
	out := map[string]any{}
	if req == nil || req.Params == nil || req.Params.RequestedSchema == nil {
		return out, nil
	}
	b, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp: the requested schema: %w", err)
	}
	var schema struct {
		Properties map[string]map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil, fmt.Errorf("mcp: the requested schema is not a JSON Schema object: %w", err)
	}
	for name, prop := range schema.Properties {
		raw, ok := prop["default"]
		if !ok {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("mcp: the default of %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}
