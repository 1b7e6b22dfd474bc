package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

type srvWeatherIn struct {
	City string `json:"city" jsonschema:"description=城市中文名"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
}

type srvForecastOut struct {
	City  string    `json:"city"`
	Temps []float64 `json:"temps"`
	Note  *string   `json:"note,omitempty"`
}

// image is an output with more than text: an MCP client gets an image block, a model in an
// agent the ToolContent.
type srvImage struct{ png []byte }

func (i srvImage) ToolContent() string { return "[an image/png of the chart]" }
func (i srvImage) MCPContent() []sdkmcp.Content {
	return []sdkmcp.Content{&sdkmcp.TextContent{Text: "the chart"}, &sdkmcp.ImageContent{Data: i.png, MIMEType: "image/png"}}
}

func srvPtr[T any](v T) *T { return &v }

// srvFixture is a server of test tools, and what its middleware saw.
type srvFixture struct {
	tools   []*tool.Tool
	started chan struct{} // the slow tool started
	stopped chan error    // the slow tool's context ended, with this error
	mu      sync.Mutex
	calls   []tool.Call // every call the middleware saw
}

func newSrvFixture(t *testing.T) *srvFixture {
	t.Helper()
	f := &srvFixture{started: make(chan struct{}, 1), stopped: make(chan error, 1)}
	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in srvWeatherIn) (string, error) {
			return in.City + ": 晴, " + strings.Repeat("☀", in.Days), nil
		}, tool.Options{Annotations: tool.Annotations{Title: "Weather", ReadOnly: true, OpenWorld: srvPtr(false)}})
	forecast := tool.New("forecast", "A forecast with structured output.",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (srvForecastOut, error) {
			return srvForecastOut{City: in.City, Temps: []float64{21.5, 23}}, nil
		}, tool.Options{Annotations: tool.Annotations{Destructive: srvPtr(false), Idempotent: true}})
	fail := tool.New("fail", "Always fails.", func(ctx context.Context, in struct{}) (string, error) {
		return "", errors.New("the database is down")
	})
	crash := tool.New("crash", "Always panics.", func(ctx context.Context, in struct{}) (string, error) {
		panic("nil map write")
	})
	slow := tool.New("slow", "Waits for its context.", func(ctx context.Context, in struct{}) (string, error) {
		f.started <- struct{}{}
		<-ctx.Done()
		f.stopped <- ctx.Err()
		return "", ctx.Err()
	})
	chart := tool.New("chart", "Draws a chart.", func(ctx context.Context, in struct{}) (srvImage, error) {
		return srvImage{png: []byte("\x89PNG")}, nil
	})
	progress := tool.New("progress", "Reports progress through the MCP request.", func(ctx context.Context, in struct{}) (string, error) {
		req, ok := mcp.RequestFromContext(ctx)
		if !ok {
			return "", errors.New("no MCP request in the context")
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			err := req.Session.NotifyProgress(ctx, &sdkmcp.ProgressNotificationParams{ProgressToken: tok, Progress: 50, Total: 100, Message: "half"})
			if err != nil {
				return "", err
			}
		}
		return "done", nil
	})
	sub := agentkit.New(agentkittest.New(t, agentkittest.Text("Paris is the capital of France.")), nil)
	f.tools = []*tool.Tool{weather, forecast, fail, crash, slow, chart, progress,
		sub.Tool("geographer", "Answers geography questions.", tool.Options{Annotations: tool.Annotations{ReadOnly: true}})}
	return f
}

// middleware records every call, and denies those whose arguments ask for it.
func (f *srvFixture) middleware(next tool.Handler) tool.Handler {
	return func(ctx context.Context, call tool.Call) tool.Result {
		f.mu.Lock()
		f.calls = append(f.calls, call)
		f.mu.Unlock()
		if strings.Contains(call.Arguments, "deny me") {
			return tool.Failure(tool.KindDenied, errors.New("refused by policy"))
		}
		return next(ctx, call)
	}
}

func (f *srvFixture) seen() []tool.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tool.Call(nil), f.calls...)
}

func (f *srvFixture) server(t *testing.T) *sdkmcp.Server {
	t.Helper()
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "toolcall-test", Version: "v0.0.1"}, f.tools,
		&mcp.ServerOptions{Middleware: f.middleware, Instructions: "Use the tools."})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// srvTransports are the ways the go-sdk's client reaches our server in these tests.
var srvTransports = []struct {
	name    string
	connect func(t *testing.T, s *sdkmcp.Server, c *sdkmcp.Client) *sdkmcp.ClientSession
}{
	{"in-memory", srvConnectInMemory},
	{"streamable-http", srvConnectHTTP},
}

func srvConnectInMemory(t *testing.T, s *sdkmcp.Server, c *sdkmcp.Client) *sdkmcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdkmcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func srvConnectHTTP(t *testing.T, s *sdkmcp.Server, c *sdkmcp.Client) *sdkmcp.ClientSession {
	t.Helper()
	ts := httptest.NewServer(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, nil))
	hc := &http.Client{Transport: &http.Transport{}}
	cs, err := c.Connect(context.Background(), &sdkmcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}, nil)
	if err != nil {
		ts.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		hc.CloseIdleConnections()
		ts.Close()
	})
	return cs
}

func srvClient(opts *sdkmcp.ClientOptions) *sdkmcp.Client {
	return sdkmcp.NewClient(&sdkmcp.Implementation{Name: "go-sdk-client", Version: "v1.8.0"}, opts)
}

// jsonOf re-encodes v through JSON as generic values, for comparisons that ignore key order.
func srvJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

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

// A canceled request cancels the call's context; the server goes on serving.
func TestServerCancel(t *testing.T) {
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			f := newSrvFixture(t)
			cs := tr.connect(t, f.server(t), srvClient(nil))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
				done <- err
			}()
			<-f.started
			cancel()
			select {
			case err := <-f.stopped:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the tool's context ended with %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the tool's context was not canceled")
			}
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool = %v, want context.Canceled", err)
			}
			res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "北京"}})
			if err != nil || res.IsError {
				t.Errorf("the next call: %v, %+v", err, res)
			}
		})
	}
}

// A tool reaches its MCP request (and through it the session) from its context.
func TestServerRequestFromContext(t *testing.T) {
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			got := make(chan string, 1)
			c := srvClient(&sdkmcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *sdkmcp.ProgressNotificationClientRequest) {
				got <- req.Params.Message
			}})
			cs := tr.connect(t, newSrvFixture(t).server(t), c)
			params := &sdkmcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Fatalf("CallTool: %v, %+v", err, res)
			}
			select { // notifications are handled apart from the call's response
			case msg := <-got:
				if msg != "half" {
					t.Errorf("progress message %q, want %q", msg, "half")
				}
			case <-time.After(10 * time.Second):
				t.Error("no progress notification")
			}
		})
	}
	if _, ok := mcp.RequestFromContext(context.Background()); ok {
		t.Error("RequestFromContext found a request in a plain context")
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

func TestNewServerRefuses(t *testing.T) {
	a := tool.New("a", "a tool", func(ctx context.Context, in struct{}) (string, error) { return "", nil })
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

// structuredTypes are outputs whose structured content must validate against the output
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

// Panics and outputs that break their schema reach ServerOptions.Logger.
func TestServerLogs(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(srvLockedWriter{&mu, &buf}, nil))
	f := newSrvFixture(t)
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "t", Version: "v0"}, f.tools, &mcp.ServerOptions{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	cs := srvConnectInMemory(t, s, srvClient(nil))
	if _, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "crash", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{`msg="mcp: a tool call panicked" tool=crash call=mcp_`, `err="tool crash panicked: nil map write"`, "stack=\"goroutine "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, buf.String())
		}
	}
}

type srvLockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w srvLockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
