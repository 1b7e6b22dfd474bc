package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// TestInProcessRun: an in-process server's tool runs through a full agent run: offered
// with its schema, validated, called, its text read by the model, its Result kept.
func TestInProcessRun(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	c := connect(t, nil, mcp.ServerConfig{Name: "local", Transport: newInProcess(t, s)})
	res, model := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"hi"}`), agentkittest.Call("echo", `{"message":7}`)),
		agentkittest.Text("done"))
	got := calls(res)
	if got[0] != "echo: echo: hi" {
		t.Errorf("first call: %q", got[0])
	}
	wantContains(t, "second call", got[1], "invalid arguments for tool echo", "/message")
	if diff := cmp.Diff([][]string{{"echo"}, {"echo"}}, offered(model)); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	r, ok := results(res)[0].Value.(*mcp.Result)
	if !ok || r.Server != "local" || r.Tool != "echo" || len(r.CallToolResult.Content) != 1 {
		t.Errorf("Value = %#v", results(res)[0].Value)
	}
	def := model.Requests()[0].Tools[0].Function
	if def.Description != "Echoes the message." {
		t.Errorf("description %q", def.Description)
	}
	b, _ := json.Marshal(def.Parameters)
	wantContains(t, "parameters", string(b), `"message"`, `"required":["message"]`)
}

// TestAnnotations: MCP's hints map to tool.Annotations exactly, pointers kept nil when the
// server said nothing; the default Sequential makes every tool not read-only sequential;
// an empty description is replaced by one that still says something.
func TestAnnotations(t *testing.T) {
	yes, no := true, false
	s := newServer()
	h := func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) { return text("ok"), nil }
	addRaw(s, &sdkmcp.Tool{Name: "none", Description: "No hints."}, h)
	addRaw(s, &sdkmcp.Tool{Name: "read", Description: "Reads.", Title: "Reader",
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}}, h)
	addRaw(s, &sdkmcp.Tool{Name: "write", Description: "Writes.",
		Annotations: &sdkmcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &yes, Title: "Writer"}}, h)
	addRaw(s, &sdkmcp.Tool{Name: "titled", Title: "A titled tool"}, h)
	addRaw(s, &sdkmcp.Tool{Name: "bare"}, h)
	c := connect(t, nil, mcp.ServerConfig{Name: "hints", Transport: newInProcess(t, s)})
	type got struct {
		Description string
		Annotations tool.Annotations
		Sequential  bool
	}
	want := map[string]got{
		"none":   {"No hints.", tool.Annotations{}, true},
		"read":   {"Reads.", tool.Annotations{Title: "Reader", ReadOnly: true, OpenWorld: &no}, false},
		"write":  {"Writes.", tool.Annotations{Title: "Writer", Destructive: &no, Idempotent: true, OpenWorld: &yes}, true},
		"titled": {"A titled tool", tool.Annotations{Title: "A titled tool"}, true},
		"bare":   {"Tool bare of the MCP server hints.", tool.Annotations{}, true},
	}
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gotAll := map[string]got{}
	for _, tl := range tools {
		gotAll[tl.Name()] = got{tl.Description(), tl.Annotations(), tl.Sequential()}
	}
	if diff := cmp.Diff(want, gotAll); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestSequentialOption: Options.Sequential decides, from the server's name and the
// annotations.
func TestSequentialOption(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	var asked []string
	c := connect(t, &mcp.Options{Sequential: func(server string, a tool.Annotations) bool {
		asked = append(asked, server)
		return true
	}}, mcp.ServerConfig{Name: "seq", Transport: newInProcess(t, s)})
	if !toolNamed(t, c, "echo").Sequential() || strings.Join(asked, ",") != "seq" {
		t.Errorf("Sequential %v, asked for %v", toolNamed(t, c, "echo").Sequential(), asked)
	}
}

// TestPrefixAndCollisions: two servers with a tool of the same name fail Connect naming
// both servers and the tool; with a Prefix they coexist and each call reaches its server.
func TestPrefixAndCollisions(t *testing.T) {
	a, b := newServer(), newServer()
	addEcho(a, "echo")
	addEcho(b, "echo")
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{
		{Name: "alpha", Transport: newInProcess(t, a)},
		{Name: "beta", Transport: newInProcess(t, b)},
	}, nil)
	if err == nil {
		t.Fatal("Connect: no error for two tools named echo")
	}
	wantContains(t, "error", err.Error(), `"alpha"`, `"beta"`, `"echo"`, "Prefix")

	c := connect(t, nil,
		mcp.ServerConfig{Name: "alpha", Transport: newInProcess(t, a)},
		mcp.ServerConfig{Name: "beta", Transport: newInProcess(t, b), Prefix: "b_"})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"1"}`), agentkittest.Call("b_echo", `{"message":"2"}`)),
		agentkittest.Text("done"))
	if diff := cmp.Diff([]string{"echo: echo: 1", "b_echo: echo: 2"}, calls(res)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if r := results(res)[1].Value.(*mcp.Result); r.Server != "beta" || r.Tool != "echo" {
		t.Errorf("second call's Result: server %q, tool %q", r.Server, r.Tool)
	}
}

// TestToolNames: MCP names that providers refuse (a dot, which MCP allows; a space; other
// scripts; more than 64 bytes, alone or with the Prefix) are offered to the model under a
// name providers accept — each other character an underscore, a name too long cut with a
// hash of the whole — and called on the server by their own names.
func TestToolNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	hashed := regexp.MustCompile(`^[a-zA-Z0-9_-]{55}_[0-9a-f]{8}$`)
	tests := []struct {
		name, prefix, server string
		want                 string // the name the model calls; with hashed, its first 56 bytes
	}{
		{"dot", "", "files.read", "files_read"},
		{"space and slash", "", "get weather/now", "get_weather_now"},
		{"other scripts", "", "天气", "__"},
		{"valid", "", "read_file-2", "read_file-2"},
		{"64 bytes", "", strings.Repeat("y", 64), strings.Repeat("y", 64)},
		{"too long", "", long, strings.Repeat("x", 55) + "_"},
		{"too long with the prefix", "fs_", strings.Repeat("z", 62), "fs_" + strings.Repeat("z", 52) + "_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer()
			var called string
			addRaw(s, &sdkmcp.Tool{Name: tt.server, Description: "Says its name."},
				func(_ context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
					called = req.Params.Name
					return text("ok"), nil
				})
			c := connect(t, nil, mcp.ServerConfig{Name: "s", Prefix: tt.prefix, Transport: newInProcess(t, s)})
			tools, err := c.Tools(context.Background())
			if err != nil || len(tools) != 1 {
				t.Fatalf("Tools: %v, %v", tools, err)
			}
			got := tools[0].Name()
			if len(tt.want) == 56 {
				if !strings.HasPrefix(got, tt.want) || !hashed.MatchString(got) {
					t.Errorf("name %q, want %q and 8 hex digits", got, tt.want)
				}
			} else if got != tt.want {
				t.Errorf("name %q, want %q", got, tt.want)
			}
			res := tools[0].Handle(context.Background(), tool.Call{Name: got, Arguments: `{}`})
			if res.Content != "ok" || called != tt.server {
				t.Errorf("call: %s %q; the server was called as %q, want %q", res.Kind, res.Content, called, tt.server)
			}
			if r, ok := res.Value.(*mcp.Result); !ok || r.Tool != tt.server {
				t.Errorf("Result.Tool = %v, want the server's name %q", res.Value, tt.server)
			}
		})
	}

	// Two names mapped to one are refused, naming both; hashes keep long names apart.
	s := newServer()
	h := func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) { return text("ok"), nil }
	addRaw(s, &sdkmcp.Tool{Name: "a.b", Description: "One."}, h)
	addRaw(s, &sdkmcp.Tool{Name: "a_b", Description: "Two."}, h)
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "s", Transport: newInProcess(t, s)}}, nil)
	if err == nil {
		t.Fatal("Connect: no error for a.b and a_b")
	}
	wantContains(t, "error", err.Error(), `server "s"`, `"a.b"`, `"a_b"`, `"a_b"`)
	s = newServer()
	addRaw(s, &sdkmcp.Tool{Name: long + "1", Description: "One."}, h)
	addRaw(s, &sdkmcp.Tool{Name: long + "2", Description: "Two."}, h)
	c := connect(t, nil, mcp.ServerConfig{Name: "s", Transport: newInProcess(t, s)})
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 2 || tools[0].Name() == tools[1].Name() {
		t.Errorf("two long names: %v, %v", tools, err)
	}
}

// TestConnectRefusesBadServers: what Connect can check before connecting.
func TestConnectRefusesBadServers(t *testing.T) {
	ok := func() mcp.ServerConfig { return mcp.ServerConfig{Name: "s", Transport: newInProcess(t, newServer())} }
	tests := []struct {
		name    string
		servers []mcp.ServerConfig
		want    string
	}{
		{"no name", []mcp.ServerConfig{{Command: "x"}}, `servers[0]: name ""`},
		{"bad name", []mcp.ServerConfig{{Name: "a b", Command: "x"}}, `name "a b" must match`},
		{"two names", []mcp.ServerConfig{ok(), ok()}, `two servers are named "s"`},
		{"no way to reach", []mcp.ServerConfig{{Name: "s"}}, "exactly one of Command, URL and Transport"},
		{"two ways", []mcp.ServerConfig{{Name: "s", Command: "x", URL: "http://x"}}, "exactly one of"},
		{"negative", []mcp.ServerConfig{{Name: "s", Command: "x", CallTimeout: -1}}, "negative"},
		{"bad prefix", []mcp.ServerConfig{{Name: "s", Command: "x", Prefix: "a b"}}, `server "s": Prefix "a b" must match ^[a-zA-Z0-9_-]{0,32}$`},
		{"long prefix", []mcp.ServerConfig{{Name: "s", Command: "x", Prefix: strings.Repeat("p", 33)}}, "must match"},
		{"command not found", []mcp.ServerConfig{{Name: "s", Command: "/nonexistent/mcp-server"}}, `server "s": connecting`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.Connect(context.Background(), tt.servers, nil)
			if err == nil {
				t.Fatal("no error")
			}
			wantContains(t, "error", err.Error(), tt.want)
		})
	}
}

// TestCloseIdempotent: Close twice is fine; Tools and calls after it fail clearly.
func TestCloseIdempotent(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "s", Transport: newInProcess(t, s)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	echo := toolNamed(t, c, "echo")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tools(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Tools after Close: %v", err)
	}
	res := echo.Handle(context.Background(), tool.Call{Name: "echo", Arguments: `{"message":"x"}`})
	if res.Kind != tool.KindToolError || !strings.Contains(res.Content, "closed") {
		t.Errorf("call after Close: %s %q", res.Kind, res.Content)
	}
}

// TestConcurrentRuns: one Client serves concurrent runs (run with -race); each run's
// calls get their own answers.
func TestConcurrentRuns(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	c := connect(t, nil, mcp.ServerConfig{Name: "shared", Transport: newInProcess(t, s)})
	const runs = 8
	got := make([]string, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			model := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.Call("echo", fmt.Sprintf(`{"message":"%d"}`, i))),
				agentkittest.Text("done"))
			res, err := agentkit.New(model, &agentkit.Options{Toolsets: []agentkit.Toolset{c}}).Run(context.Background(), "go")
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = res.Steps[0].Calls[0].Result.Content
		})
	}
	wg.Wait()
	for i, g := range got {
		if want := fmt.Sprintf("echo: %d", i); g != want {
			t.Errorf("run %d read %q, want %q", i, g, want)
		}
	}
}

// TestZeroClient: the zero Client is a Toolset without tools, and Close does nothing.
func TestZeroClient(t *testing.T) {
	var c mcp.Client
	tools, err := c.Tools(context.Background())
	if len(tools) != 0 || err != nil {
		t.Errorf("Tools = %v, %v; want none, nil", tools, err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
