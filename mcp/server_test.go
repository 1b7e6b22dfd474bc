package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

func TestServerListsTools(t *testing.T) {
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			f := newSrvFixture(t)
			cs := tr.connect(t, f.server(t), srvClient(nil))
			if got := cs.InitializeResult().Instructions; got != "Use the tools." {
				t.Errorf("Instructions = %q", got)
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != len(f.tools) {
				t.Fatalf("%d tools listed, want %d", len(res.Tools), len(f.tools))
			}
			byName := map[string]*tool.Tool{}
			for _, t := range f.tools {
				byName[t.Name()] = t
			}
			for i, got := range res.Tools {
				want := byName[got.Name]
				if want == nil {
					t.Fatalf("tool %d: %q is not ours", i, got.Name)
				}
				srvCheckListed(t, want, got)
			}
			wantAnn := map[string]*sdkmcp.ToolAnnotations{
				"get_weather": {Title: "Weather", ReadOnlyHint: true, OpenWorldHint: srvPtr(false)},
				"forecast":    {DestructiveHint: srvPtr(false), IdempotentHint: true},
				"geographer":  {ReadOnlyHint: true},
			}
			for _, got := range res.Tools {
				if diff := cmp.Diff(wantAnn[got.Name], got.Annotations); diff != "" {
					t.Errorf("%s: annotations (-want +got):\n%s", got.Name, diff)
				}
			}
		})
	}
}

// srvCheckListed compares the listed tool got with ours, want.
func srvCheckListed(t *testing.T, want *tool.Tool, got *sdkmcp.Tool) {
	t.Helper()
	if got.Description != want.Description() {
		t.Errorf("%s: description %q, want %q", got.Name, got.Description, want.Description())
	}
	if diff := cmp.Diff(srvJSON(t, json.RawMessage(want.Parameters())), srvJSON(t, got.InputSchema)); diff != "" {
		t.Errorf("%s: inputSchema (-want +got):\n%s", got.Name, diff)
	}
	var wantOut any
	if want.OutputSchema() != nil {
		wantOut = srvJSON(t, json.RawMessage(want.OutputSchema()))
	}
	if diff := cmp.Diff(wantOut, srvJSON(t, got.OutputSchema)); diff != "" {
		t.Errorf("%s: outputSchema (-want +got):\n%s", got.Name, diff)
	}
}

// srvCallCase is a call and the result it must get.
type srvCallCase struct {
	name       string
	tool       string
	args       any
	wantError  bool
	wantText   string // the whole text, or with wantPrefix its start
	wantPrefix bool
	wantStruct any
}

// check compares res, one text block, with what tt wants.
func (tt srvCallCase) check(t *testing.T, res *sdkmcp.CallToolResult) {
	t.Helper()
	if res.IsError != tt.wantError {
		t.Errorf("IsError = %v, want %v", res.IsError, tt.wantError)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks, want 1: %v", len(res.Content), srvJSON(t, res.Content))
	}
	text, ok := res.Content[0].(*sdkmcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	if got := text.Text; tt.wantPrefix && !strings.HasPrefix(got, tt.wantText) || !tt.wantPrefix && got != tt.wantText {
		t.Errorf("text = %q, want %q (prefix: %v)", got, tt.wantText, tt.wantPrefix)
	}
	if diff := cmp.Diff(tt.wantStruct, res.StructuredContent); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
}

func TestServerCalls(t *testing.T) {
	tests := []srvCallCase{
		{name: "good arguments", tool: "get_weather", args: map[string]any{"city": "北京", "days": 2}, wantText: "北京: 晴, ☀☀"},
		{name: "schema default applied", tool: "get_weather", args: map[string]any{"city": "北京"}, wantText: "北京: 晴, ☀"},
		{name: "repaired: arguments encoded twice", tool: "get_weather", args: `{"city":"上海"}`, wantText: "上海: 晴, ☀"},
		{name: "repaired: encoded twice, trailing comma", tool: "get_weather", args: `{"city":"广州",}`, wantText: "广州: 晴, ☀"},
		{name: "invalid: wrong type", tool: "get_weather", args: map[string]any{"city": 5}, wantError: true,
			wantText: "invalid arguments for tool get_weather:\n- /city: ", wantPrefix: true},
		{name: "invalid: out of range", tool: "get_weather", args: map[string]any{"city": "北京", "days": 9}, wantError: true,
			wantText: "invalid arguments for tool get_weather:\n- /days: ", wantPrefix: true},
		{name: "invalid: missing property", tool: "get_weather", args: map[string]any{}, wantError: true,
			wantText: "invalid arguments for tool get_weather:\n- /city: required property is missing (string: 城市中文名)\nFix these arguments and call the tool again."},
		{name: "tool error", tool: "fail", args: map[string]any{}, wantError: true, wantText: "error: tool fail failed: the database is down"},
		{name: "no arguments at all", tool: "fail", wantError: true, wantText: "error: tool fail failed: the database is down"},
		{name: "panic", tool: "crash", args: map[string]any{}, wantError: true,
			wantText: "error: tool crash crashed (nil map write). This is a bug in the tool", wantPrefix: true},
		{name: "structured content", tool: "forecast", args: map[string]any{"city": "北京"},
			wantText: `{"city":"北京","temps":[21.5,23]}`, wantStruct: map[string]any{"city": "北京", "temps": []any{21.5, 23.0}}},
		{name: "denied by middleware", tool: "get_weather", args: map[string]any{"city": "deny me"}, wantError: true, wantText: "error: refused by policy"},
		{name: "agent as a tool", tool: "geographer", args: map[string]any{"input": "capital of France?"}, wantText: "Paris is the capital of France."},
		{name: "agent as a tool: invalid", tool: "geographer", args: map[string]any{"question": "?"}, wantError: true,
			wantText: "invalid arguments for tool geographer:", wantPrefix: true},
	}
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					f := newSrvFixture(t)
					cs := tr.connect(t, f.server(t), srvClient(nil))
					res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
					if err != nil {
						t.Fatalf("CallTool: %v", err)
					}
					tt.check(t, res)
					calls := f.seen()
					if len(calls) != 1 || calls[0].Name != tt.tool || calls[0].Tool == nil || calls[0].Tool.Name() != tt.tool ||
						!strings.HasPrefix(calls[0].ID, "mcp_") {
						t.Errorf("the middleware saw %+v, want one call of %s with its tool and an id", calls, tt.tool)
					}
				})
			}
		})
	}
}

// The middleware gets the raw arguments text, as the client sent it, and a fresh id per call.
func TestServerMiddlewareSeesRawCall(t *testing.T) {
	f := newSrvFixture(t)
	cs := srvConnectInMemory(t, f.server(t), srvClient(nil))
	for _, args := range []any{json.RawMessage(`{"city": "北京"}`), `{"city":"北京"}`} {
		if _, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "get_weather", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	calls := f.seen()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	got := []string{calls[0].Arguments, calls[1].Arguments}
	if diff := cmp.Diff([]string{`{"city":"北京"}`, `"{\"city\":\"北京\"}"`}, got); diff != "" {
		t.Errorf("Arguments (-want +got):\n%s", diff)
	}
	if calls[0].ID == calls[1].ID {
		t.Errorf("two calls share the id %q", calls[0].ID)
	}
}

func TestServerMultiContent(t *testing.T) {
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newSrvFixture(t).server(t), srvClient(nil))
			res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "chart", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			want := []any{
				map[string]any{"type": "text", "text": "the chart"},
				map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORw=="},
			}
			if diff := cmp.Diff(want, srvJSON(t, res.Content)); diff != "" || res.IsError {
				t.Errorf("content (-want +got):\n%s (isError %v)", diff, res.IsError)
			}
		})
	}
}

// An unknown tool is the go-sdk's protocol error: it never reaches the middleware.
func TestServerUnknownTool(t *testing.T) {
	f := newSrvFixture(t)
	cs := srvConnectInMemory(t, f.server(t), srvClient(nil))
	_, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("CallTool = %v, want an unknown tool error", err)
	}
	if n := len(f.seen()); n != 0 {
		t.Errorf("the middleware saw %d calls", n)
	}
}

// A panic in the middleware itself is a failed result, not a dead server.
func TestServerMiddlewarePanic(t *testing.T) {
	f := newSrvFixture(t)
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "t", Version: "v0"}, f.tools, &mcp.ServerOptions{
		Middleware: func(next tool.Handler) tool.Handler {
			return func(ctx context.Context, call tool.Call) tool.Result { panic("middleware bug") }
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := srvConnectInMemory(t, s, srvClient(nil))
	res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*sdkmcp.TextContent).Text, "crashed (middleware bug)") {
		t.Errorf("result = %v", srvJSON(t, res))
	}
}

func TestNewServerRefuses(t *testing.T) {
	a := tool.New("a", "a tool", func(ctx context.Context, in struct{}) (string, error) { return "", nil })
	// A schema tool.Raw accepts, with an x-mcp-header annotation the go-sdk refuses (a space).
	header, err := tool.Raw("header", "a tool whose schema the go-sdk refuses",
		json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"bad header"}}}`),
		func(context.Context, json.RawMessage) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	impl := &sdkmcp.Implementation{Name: "t", Version: "v0"}
	tests := []struct {
		name  string
		impl  *sdkmcp.Implementation
		tools []*tool.Tool
		opts  *mcp.ServerOptions
		want  string
	}{
		{"nil implementation", nil, []*tool.Tool{a}, nil, "mcp: NewServer: nil Implementation"},
		{"nil tool", impl, []*tool.Tool{a, nil}, nil, "mcp: NewServer: tools[1] is nil"},
		{"duplicate names", impl, []*tool.Tool{a, a}, nil, `mcp: NewServer: two tools are named "a"`},
		{"options the go-sdk refuses", impl, []*tool.Tool{a}, &mcp.ServerOptions{SDK: &sdkmcp.ServerOptions{PageSize: -1}}, "mcp: NewServer: invalid page size -1"},
		{"a tool the go-sdk refuses", impl, []*tool.Tool{a, header}, nil, `mcp: NewServer: tool "header": AddTool "header": invalid parameter header annotations: property "a": x-mcp-header value "bad header" contains invalid character ' '`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := mcp.NewServer(tt.impl, tt.tools, tt.opts)
			if err == nil || err.Error() != tt.want || s != nil {
				t.Errorf("NewServer = %v, %v; want nil, %q", s, err, tt.want)
			}
		})
	}
}
