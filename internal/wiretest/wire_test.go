package wiretest

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/internal/aimock"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// TestMain checks that no test leaves a goroutine behind: not the SDK's, not an HTTP
// connection's, not the ones reading the server's output.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// instructions is the system prompt of the agents under test.
const instructions = "你是一个乐于助人的智能助手，可以通过工具获取实时信息。"

// client names a client of the chat-completions wire the tests drive: every test that
// drives a model runs once per client, as a subtest named by it.
type client string

const (
	// goOpenAI is go-openai's *openai.Client, streaming through agentkit.OpenAIStreaming.
	goOpenAI client = "go-openai"
	// openAIChat is the repository's own *openaichat.Client.
	openAIChat client = "openaichat"
)

var clients = []client{goOpenAI, openAIChat}

// server is one test's aimock server, shared by the subtests of every client: each client
// sends its own X-Test-Id, under which aimock counts fixture matches (sequenceIndex) and
// keeps its journal apart.
type server struct {
	srv    *aimock.Server
	schema *Schema
}

// newServer starts aimock with testdata/aimock/<fixtures> for the test and its subtests.
func newServer(t *testing.T, fixtures string) *server {
	t.Helper()
	schema := loadRequestSchema(t)
	return &server{srv: aimock.Start(t, filepath.Join("..", "..", "testdata", "aimock", fixtures)), schema: schema}
}

// clientOptions configures the client of a test beyond what the env sets.
type clientOptions struct {
	// transport, when not nil, wraps go-openai's recording transport (to put
	// middleware.Transport around it): what go-openai cannot see without it, openaichat
	// must see on its own, so openaichat never gets it.
	transport func(http.RoundTripper) http.RoundTripper
	// openaichat is openaichat's options; the env sets APIKey and HTTPClient.
	openaichat openaichat.Options
}

// env is one client under test, pointed at the test's aimock server, whose every request is
// recorded.
type env struct {
	client client
	// model is the client itself (*openai.Client or *openaichat.Client); streaming is
	// agentkit.OpenAIStreaming of go-openai's, openaichat's own.
	model     agentkit.Model
	streaming agentkit.StreamingModel
	capture   *Capture
	// testID is the X-Test-Id the client sends: aimock's journal of this client's requests
	// is under it.
	testID string
	srv    *aimock.Server
}

// newEnv returns the client c for the test t (a subtest of the one that started srv). When
// t ends, every recorded request must have been a POST to /v1/chat/completions whose body
// the OpenAPI schema accepts.
func (s *server) newEnv(t *testing.T, c client, o clientOptions) *env {
	t.Helper()
	tr := &http.Transport{} // a pool of our own, closed below: no connection outlives the test
	t.Cleanup(tr.CloseIdleConnections)
	e := &env{client: c, testID: t.Name(), srv: s.srv}
	e.capture = &Capture{Base: testIDTransport{id: e.testID, base: tr}}
	switch c {
	case goOpenAI:
		var rt http.RoundTripper = e.capture
		if o.transport != nil {
			rt = o.transport(e.capture)
		}
		cfg := openai.DefaultConfig("test-key")
		cfg.BaseURL = s.srv.URL
		cfg.HTTPClient = &http.Client{Transport: rt}
		oc := openai.NewClientWithConfig(cfg)
		e.model, e.streaming = oc, agentkit.OpenAIStreaming(oc)
	case openAIChat:
		opts := o.openaichat
		opts.APIKey = "test-key"
		opts.HTTPClient = &http.Client{Transport: e.capture}
		oc := openaichat.New(s.srv.URL, &opts)
		e.model, e.streaming = oc, oc
	default:
		t.Fatalf("unknown client %q", c)
	}
	t.Cleanup(func() { checkRequests(t, s.schema, e.capture.Exchanges()) })
	return e
}

// eachClient runs f as a parallel subtest per client, named by the client, against one aimock
// server started with testdata/aimock/<fixtures>.
func eachClient(t *testing.T, fixtures string, o clientOptions, f func(t *testing.T, e *env)) {
	t.Helper()
	s := newServer(t, fixtures)
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			f(t, s.newEnv(t, c, o))
		})
	}
}

// testIDTransport sends each request with the header X-Test-Id: id.
type testIDTransport struct {
	id   string
	base http.RoundTripper
}

func (tt testIDTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not modify the request
	req.Header.Set("X-Test-Id", tt.id)
	return tt.base.RoundTrip(req)
}

func checkRequests(t *testing.T, schema *Schema, exs []Exchange) {
	t.Helper()
	if len(exs) == 0 {
		t.Error("the client sent no request")
	}
	for i, ex := range exs {
		if ex.Method != http.MethodPost || ex.Path != "/v1/chat/completions" {
			t.Errorf("request %d: %s %s, want POST /v1/chat/completions", i, ex.Method, ex.Path)
		}
		if schema == nil {
			continue
		}
		if err := schema.Validate(ex.Body); err != nil {
			t.Errorf("request %d does not match the OpenAPI schema: %v\nbody: %s", i, err, ex.Body)
		}
	}
}

// testContext bounds a test's calls: a server that hangs fails the test instead of the suite.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wireRequest is a request body as sent, decoded independently of go-openai's types.
type wireRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools"`
	Temperature *float64      `json:"temperature"`
	Stream      bool          `json:"stream"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func call(id, name, args string) wireToolCall {
	c := wireToolCall{ID: id, Type: "function"}
	c.Function.Name, c.Function.Arguments = name, args
	return c
}

// requests decodes the bodies the client sent.
func requests(t *testing.T, exs []Exchange) []wireRequest {
	t.Helper()
	out := make([]wireRequest, len(exs))
	for i, ex := range exs {
		if err := json.Unmarshal(ex.Body, &out[i]); err != nil {
			t.Fatalf("request %d: %v\n%s", i, err, ex.Body)
		}
	}
	return out
}

func statuses(exs []Exchange) []int {
	out := make([]int, len(exs))
	for i, ex := range exs {
		out[i] = ex.Status
	}
	return out
}

// weather is the seed article's get_weather tool, recording the cities it was called for in
// the order the calls finished.
type weather struct {
	// before and after, when set, run before and after a call is recorded: tests use them to
	// order the calls.
	before func(ctx context.Context, city string) error
	after  func(city string)

	mu     sync.Mutex
	cities []string
}

var forecasts = map[string]string{
	"北京": "北京：晴，气温26℃，东南风2级",
	"上海": "上海：多云，气温28℃，湿度65%",
	"广州": "广州：阵雨，气温30℃，体感较热",
}

func (w *weather) tool(opts ...tool.Options) *tool.Tool {
	return tool.New("get_weather", "查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
		}) (string, error) {
			if w.before != nil {
				if err := w.before(ctx, in.City); err != nil {
					return "", err
				}
			}
			w.mu.Lock()
			w.cities = append(w.cities, in.City)
			w.mu.Unlock()
			if w.after != nil {
				w.after(in.City)
			}
			if f, ok := forecasts[in.City]; ok {
				return f, nil
			}
			return in.City + "：暂无数据", nil
		}, opts...)
}

// calls returns the cities of the finished calls, in the order they finished.
func (w *weather) calls() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.cities...)
}
