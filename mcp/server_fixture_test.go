package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

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

// srvImage is an output with more than text: an MCP client gets an image block, a model in an
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

// srvJSON re-encodes v through JSON as generic values, for comparisons that ignore key order.
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
