package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// An output that breaks its own output schema is an error result, never invalid
// structuredContent.
func TestServerOutputSchemaMismatch(t *testing.T) {
	bad, err := tool.Raw("bad", "Returns what its output schema refuses.", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) (any, error) { return map[string]any{"n": "one"}, nil },
		tool.Options{OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "t", Version: "v0"}, []*tool.Tool{bad}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := srvConnectInMemory(t, s, srvClient(nil))
	res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "bad", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.StructuredContent != nil ||
		!strings.HasPrefix(res.Content[0].(*sdkmcp.TextContent).Text, "error: tool bad: the output does not match its output schema") {
		t.Errorf("result = %v", srvJSON(t, res))
	}
}

// Outputs whose structured content must validate against the output
// schema the client was sent, checked with github.com/google/jsonschema-go (the go-sdk's
// validator, not ours).
func TestServerStructuredContentValidatesWithTheSDKsValidator(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type out struct {
		Name    string            `json:"name"`
		Tags    []string          `json:"tags"`
		Meta    map[string]string `json:"meta"`
		Inner   *inner            `json:"inner"`
		Items   []inner           `json:"items"`
		Maybe   *string           `json:"maybe,omitempty"`
		When    time.Time         `json:"when"`
		Count   uint8             `json:"count"`
		Enabled bool              `json:"enabled"`
	}
	values := map[string]out{
		"zero": {},
		"full": {Name: "x", Tags: []string{"a"}, Meta: map[string]string{"k": "v"}, Inner: &inner{N: 1},
			Items: []inner{{N: 2}}, Maybe: srvPtr("m"), When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Count: 3, Enabled: true},
	}
	var tools []*tool.Tool
	for name, v := range values {
		tools = append(tools, tool.New(name, "returns a value", func(ctx context.Context, in struct{}) (out, error) { return v, nil }))
	}
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "t", Version: "v0"}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := srvConnectInMemory(t, s, srvClient(nil))
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range list.Tools {
		var schema jsonschema.Schema
		if err := json.Unmarshal(srvMustJSON(t, lt.OutputSchema), &schema); err != nil {
			t.Fatal(err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: the output schema does not resolve: %v", lt.Name, err)
		}
		res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: lt.Name, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", lt.Name, err, srvJSON(t, res))
		}
		if err := resolved.Validate(srvJSON(t, res.StructuredContent)); err != nil {
			t.Errorf("%s: structuredContent %s does not validate: %v", lt.Name, srvMustJSON(t, res.StructuredContent), err)
		}
	}
}

func srvMustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
