package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
)

func TestElicitDefaults(t *testing.T) {
	tests := []struct {
		name    string
		schema  any
		want    map[string]any
		wantErr bool
	}{
		{"none", nil, map[string]any{}, false},
		{"as decoded", map[string]any{"type": "object", "properties": map[string]any{
			"name":     map[string]any{"type": "string", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "default": 30},
			"verified": map[string]any{"type": "boolean", "default": true},
			"note":     map[string]any{"type": "string"},
		}}, map[string]any{"name": "John Doe", "age": 30.0, "verified": true}, false},
		{"raw", json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["a","b"],"default":"a"},"score":{"type":"number","default":95.5}}}`),
			map[string]any{"status": "a", "score": 95.5}, false},
		{"not an object", json.RawMessage(`[1,2]`), nil, true},
	}
	for _, tc := range tests {
		got, err := mcp.ElicitDefaults(&sdkmcp.ElicitRequest{Params: &sdkmcp.ElicitParams{Message: "m", RequestedSchema: tc.schema}})
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got, err := mcp.ElicitDefaults(nil); err != nil || len(got) != 0 {
		t.Errorf("ElicitDefaults(nil) = %v, %v", got, err)
	}
}
