package mcp_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildSrvTestServer builds internal/testserver, our tools served over stdio, into a temporary
// directory.
func buildSrvTestServer(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not in PATH: cannot build the stdio test server")
	}
	bin := filepath.Join(t.TempDir(), "testserver")
	out, err := exec.Command(goBin, "build", "-o", bin, "./internal/testserver").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./internal/testserver: %v\n%s", err, out)
	}
	return bin
}

// Our server as a separate process, on its stdin and stdout, reached with the go-sdk's
// CommandTransport.
func TestServerOverStdio(t *testing.T) {
	bin := buildSrvTestServer(t)
	ctx := context.Background()
	cs, err := srvClient(nil).Connect(ctx, &sdkmcp.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"crash", "fail", "forecast", "get_weather"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	tests := []struct {
		name       string
		args       any
		wantError  bool
		wantText   string
		wantStruct any
	}{
		{"get_weather", map[string]any{"city": "北京"}, false, "北京: 晴", nil},
		{"get_weather", `{"city":"北京"}`, false, "北京: 晴", nil},
		{"get_weather", map[string]any{"city": 1}, true, "invalid arguments for tool get_weather:\n- /city: ", nil},
		{"forecast", map[string]any{"city": "北京"}, false, `{"city":"北京","temps":[21.5]}`, map[string]any{"city": "北京", "temps": []any{21.5}}},
		{"fail", nil, true, "error: tool fail failed: the database is down", nil},
		{"crash", nil, true, "error: tool crash crashed (nil map write)", nil},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: tt.name, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tt.name, tt.args, err)
		}
		text := res.Content[0].(*sdkmcp.TextContent).Text
		if res.IsError != tt.wantError || !strings.HasPrefix(text, tt.wantText) {
			t.Errorf("%s %v: isError %v, text %q; want %v, %q...", tt.name, tt.args, res.IsError, text, tt.wantError, tt.wantText)
		}
		if diff := cmp.Diff(tt.wantStruct, res.StructuredContent); diff != "" {
			t.Errorf("%s: structuredContent (-want +got):\n%s", tt.name, diff)
		}
	}
	// The process survived the panic.
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping after the panicking call: %v", err)
	}
}
