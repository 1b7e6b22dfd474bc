package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// newServer returns an in-process go-sdk server.
func newServer() *sdkmcp.Server {
	return sdkmcp.NewServer(&sdkmcp.Implementation{Name: "test", Version: "v1"}, nil)
}

// echoIn is the input of the test servers' echo tool.
type echoIn struct {
	Message string `json:"message"`
}

func addEcho(s *sdkmcp.Server, name string) {
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: name, Description: "Echoes the message."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
			return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: name + ": " + in.Message}}}, nil, nil
		})
}

// addRaw adds a tool with a schema of its own whose handler is h.
func addRaw(s *sdkmcp.Server, t *sdkmcp.Tool, h sdkmcp.ToolHandler) {
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	s.AddTool(t, h)
}

func text(s string) *sdkmcp.CallToolResult {
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: s}}}
}

// inProcess is a Transport to an in-process server that can connect any number of times,
// each time to a new session of the server it holds then: kill cuts every connection (a
// crash), restart swaps the server, fail makes the next connections fail.
type inProcess struct {
	mu       sync.Mutex
	server   *sdkmcp.Server
	pipes    []net.Conn // the server's ends
	sessions []*sdkmcp.ServerSession
	connects int
	fail     error
}

func newInProcess(t *testing.T, s *sdkmcp.Server) *inProcess {
	p := &inProcess{server: s}
	t.Cleanup(p.closeAll)
	return p
}

func (p *inProcess) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return nil, p.fail
	}
	c1, c2 := net.Pipe()
	ss, err := p.server.Connect(ctx, &sdkmcp.IOTransport{Reader: c2, Writer: c2}, nil)
	if err != nil {
		return nil, err
	}
	p.pipes = append(p.pipes, c2)
	p.sessions = append(p.sessions, ss)
	p.connects++
	return (&sdkmcp.IOTransport{Reader: c1, Writer: c1}).Connect(ctx)
}

// kill cuts every connection, as a crash of the server does.
func (p *inProcess) kill() {
	p.mu.Lock()
	pipes, sessions := p.pipes, p.sessions
	p.pipes, p.sessions = nil, nil
	p.mu.Unlock()
	for _, c := range pipes {
		_ = c.Close()
	}
	for _, ss := range sessions {
		_ = ss.Wait()
	}
}

// restart kills the server and replaces it by s.
func (p *inProcess) restart(s *sdkmcp.Server) {
	p.kill()
	p.mu.Lock()
	p.server = s
	p.mu.Unlock()
}

func (p *inProcess) setFail(err error) {
	p.mu.Lock()
	p.fail = err
	p.mu.Unlock()
}

func (p *inProcess) closeAll() { p.kill() }

func (p *inProcess) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connects
}

// connect connects to servers and closes the client at the end of the test.
func connect(t *testing.T, opts *mcp.Options, servers ...mcp.ServerConfig) *mcp.Client {
	t.Helper()
	c, err := mcp.Connect(context.Background(), servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
	})
	return c
}

// run runs an agent on the scripted model with the client's tools.
func run(t *testing.T, c *mcp.Client, replies ...agentkittest.Reply) (*agentkit.Result, *agentkittest.Model) {
	t.Helper()
	res, model, _ := runEvents(t, c, replies...)
	return res, model
}

// runEvents is run, returning also the run's events.
func runEvents(t *testing.T, c *mcp.Client, replies ...agentkittest.Reply) (*agentkit.Result, *agentkittest.Model, []agentkit.Event) {
	t.Helper()
	model := agentkittest.New(t, replies...)
	var mu sync.Mutex
	var events []agentkit.Event
	agent := agentkit.New(model, &agentkit.Options{Toolsets: []agentkit.Toolset{c},
		OnEvent: func(_ context.Context, e agentkit.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}})
	res, err := agent.Run(context.Background(), "go")
	if err != nil {
		t.Fatalf("Run: %v (stop %s)", err, res.Stop)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Error(err)
	}
	return res, model, events
}

// calls returns "name: content" for each call of a run, in order.
func calls(res *agentkit.Result) []string {
	var out []string
	for _, s := range res.Steps {
		for _, c := range s.Calls {
			out = append(out, c.Call.Name+": "+c.Result.Content)
		}
	}
	return out
}

// results returns the tool.Result of each call of a run, in order.
func results(res *agentkit.Result) []tool.Result {
	var out []tool.Result
	for _, s := range res.Steps {
		for _, c := range s.Calls {
			out = append(out, c.Result)
		}
	}
	return out
}

// offered returns the names of the tools of each request the model got.
func offered(model *agentkittest.Model) [][]string {
	var out [][]string
	for _, req := range model.Requests() {
		var names []string
		for _, d := range req.Tools {
			names = append(names, d.Function.Name)
		}
		out = append(out, names)
	}
	return out
}

// toolNamed returns the client's tool of that name.
func toolNamed(t *testing.T, c *mcp.Client, name string) *tool.Tool {
	t.Helper()
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		if tl.Name() == name {
			return tl
		}
		names = append(names, tl.Name())
	}
	t.Fatalf("no tool %q among %s", name, strings.Join(names, ", "))
	return nil
}

// callDirect calls a client's tool outside of any run.
func callDirect(t *testing.T, c *mcp.Client, name, args string) tool.Result {
	t.Helper()
	return toolNamed(t, c, name).Handle(context.Background(), tool.Call{ID: "direct", Name: name, Arguments: args})
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

func netPipe() (net.Conn, net.Conn) { return net.Pipe() }

func itoa(n int) string { return fmt.Sprint(n) }

// listChanges returns a logger for Options.Logger and the channel on which it sends the
// server's name for each notifications/tools/list_changed the Client records (its Debug
// record), so that a test can wait for one. A change nobody waits for is dropped.
func listChanges() (*slog.Logger, <-chan string) {
	ch := make(chan string, 16)
	return slog.New(&listChangeHandler{ch: ch}), ch
}

type listChangeHandler struct {
	ch     chan string
	server string
}

func (h *listChangeHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *listChangeHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "mcp: the server's tools changed") && r.Level == slog.LevelDebug {
		select {
		case h.ch <- h.server:
		default:
		}
	}
	return nil
}

func (h *listChangeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	cp := *h
	for _, a := range attrs {
		if a.Key == "mcp_server" {
			cp.server = a.Value.String()
		}
	}
	return &cp
}

func (h *listChangeHandler) WithGroup(string) slog.Handler { return h }

// rawServer is a Transport to a fake server that speaks JSON-RPC by hand, one line a
// message, to send what no SDK would: it answers initialize (and declines server/discover),
// and each other request with the result JSON answer returns for its method ("" sends
// nothing).
type rawServer struct {
	answer func(method string, params json.RawMessage) string
}

func (s rawServer) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	c1, c2 := net.Pipe()
	go func() {
		defer c2.Close()
		lines := bufio.NewScanner(c2)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.ID == nil {
				continue
			}
			var reply string
			switch msg.Method {
			case "server/discover":
				reply = `"error":{"code":-32601,"message":"method not found"}`
			case "initialize":
				reply = `"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}`
			default:
				res := s.answer(msg.Method, msg.Params)
				if res == "" {
					continue
				}
				reply = `"result":` + res
			}
			if _, err := fmt.Fprintf(c2, `{"jsonrpc":"2.0","id":%s,%s}`+"\n", msg.ID, reply); err != nil {
				return
			}
		}
	}()
	return (&sdkmcp.IOTransport{Reader: c1, Writer: c1}).Connect(ctx)
}
