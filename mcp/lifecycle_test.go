package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// TestListChangedBetweenRequests: a server adds a tool in the middle of a turn; the turn's
// calls resolve against the list of its request (the new tool is unknown there), the next
// request offers it, and a call of it then runs.
func TestListChangedBetweenRequests(t *testing.T) {
	logger, changed := listChanges()
	s := newServer()
	addRaw(s, &sdkmcp.Tool{Name: "grow", Description: "Adds the tool late."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			addEcho(s, "late")
			select { // the client has recorded the change before the turn ends
			case <-changed:
			case <-time.After(10 * time.Second):
				return nil, errors.New("no list_changed reached the client")
			}
			return text("grown"), nil
		})
	c := connect(t, &mcp.Options{Logger: logger}, mcp.ServerConfig{Name: "live", Transport: newInProcess(t, s)})
	res, model := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("grow", `{}`), agentkittest.Call("late", `{"message":"too early"}`)),
		agentkittest.ToolCalls(agentkittest.Call("late", `{"message":"now"}`)),
		agentkittest.Text("done"))
	if diff := cmp.Diff([][]string{{"grow"}, {"grow", "late"}, {"grow", "late"}}, offered(model)); diff != "" {
		t.Errorf("tools offered per request (-want +got):\n%s", diff)
	}
	got := calls(res)
	want := []string{
		"grow: grown",
		`late: error: there is no tool named "late". Available tools: grow. Call one of the available tools, or answer without one.`,
		"late: late: now",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestRestartBetweenTurns: the server restarts between two turns (every connection cut, a
// new server behind the transport); the next call reconnects, re-initializes and runs on
// the new server, once.
func TestRestartBetweenTurns(t *testing.T) {
	var ran atomic.Int32
	first, second := newServer(), newServer()
	addEcho(first, "echo")
	sdkmcp.AddTool(second, &sdkmcp.Tool{Name: "echo", Description: "Echoes, restarted."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
			ran.Add(1)
			return text("restarted: " + in.Message), nil, nil
		})
	p := newInProcess(t, first)
	c := connect(t, nil, mcp.ServerConfig{Name: "flaky", Transport: p})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"1"}`)),
		agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
			p.restart(second) // between the turns
			return agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"2"}`))
		}),
		agentkittest.Text("done"))
	if diff := cmp.Diff([]string{"echo: echo: 1", "echo: restarted: 2"}, calls(res)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if p.count() != 2 || ran.Load() != 1 {
		t.Errorf("%d connections, the restarted tool ran %d times; want 2 and 1", p.count(), ran.Load())
	}
	// The next request's list is the restarted server's.
	if d := toolNamed(t, c, "echo").Description(); d != "Echoes, restarted." {
		t.Errorf("description after the restart: %q", d)
	}
}

// TestReconnectFails: a lost session whose one reconnection fails gives the call a clear
// error naming the server; Tools keeps the server's last tools, so that the run goes on;
// when the server is back, the next call reconnects.
func TestReconnectFails(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	p := newInProcess(t, s)
	c := connect(t, nil, mcp.ServerConfig{Name: "gone", Transport: p})
	echo := toolNamed(t, c, "echo")
	p.setFail(errors.New("connection refused"))
	p.kill()
	res := echo.Handle(context.Background(), tool.Call{Name: "echo", Arguments: `{"message":"x"}`})
	if res.Kind != tool.KindToolError {
		t.Errorf("Kind %s", res.Kind)
	}
	if want := `error: tool echo failed: mcp: server "gone": connecting: connection refused (the session was lost; one reconnection was tried)`; res.Content != want {
		t.Errorf("content %q, want %q", res.Content, want)
	}
	// The run goes on: Tools keeps offering the server's last tools.
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Name() != "echo" {
		t.Errorf("Tools with the server down: %v, %v", tools, err)
	}

	p.setFail(nil)
	if res := echo.Handle(context.Background(), tool.Call{Name: "echo", Arguments: `{"message":"back"}`}); res.Content != "echo: back" {
		t.Errorf("after the server came back: %s %q", res.Kind, res.Content)
	}
}

// TestKilledMidCall: the server dies while a call runs; that call gets an error result
// (never sent again: it may have run), the other server's call of the same turn is fine,
// and the run goes on — the next turn reconnects.
func TestKilledMidCall(t *testing.T) {
	var ran atomic.Int32
	s := newServer()
	addEcho(s, "echo")
	var p *inProcess
	addRaw(s, &sdkmcp.Tool{Name: "crash", Description: "Crashes the server.", Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			ran.Add(1)
			go p.kill()
			<-ctx.Done()
			return nil, ctx.Err()
		})
	p = newInProcess(t, s)
	other := newServer()
	addEcho(other, "other")
	c := connect(t, nil, mcp.ServerConfig{Name: "dying", Transport: p}, mcp.ServerConfig{Name: "fine", Transport: newInProcess(t, other)})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("crash", `{}`), agentkittest.Call("other", `{"message":"a"}`)),
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"b"}`)),
		agentkittest.Text("done"))
	got := calls(res)
	wantContains(t, "crash", got[0], `mcp: server "dying": the call of crash failed, and may have run`)
	if got[1] != "other: other: a" || got[2] != "echo: echo: b" {
		t.Errorf("calls %q", got)
	}
	if ran.Load() != 1 {
		t.Errorf("crash ran %d times, want 1", ran.Load())
	}
	if res.Stop != agentkit.StopAnswered {
		t.Errorf("Stop %s", res.Stop)
	}
}

// TestCallTimeout: a server that never answers costs the call its CallTimeout, as a
// tool.KindTimeout result the model reads; another server's call of the same turn, slower
// than that but within its own CallTimeout, succeeds; the run goes on and the session stays
// usable.
func TestCallTimeout(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	addRaw(s, &sdkmcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			<-ctx.Done() // canceled by the client's notifications/cancelled
			return nil, ctx.Err()
		})
	patient := newServer()
	addRaw(patient, &sdkmcp.Tool{Name: "nap", Description: "Answers after 300ms."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			time.Sleep(300 * time.Millisecond)
			return text("rested"), nil
		})
	c := connect(t, nil,
		mcp.ServerConfig{Name: "slow", Transport: newInProcess(t, s), CallTimeout: 100 * time.Millisecond},
		mcp.ServerConfig{Name: "patient", Transport: newInProcess(t, patient)})
	start := time.Now()
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("hang", `{}`), agentkittest.Call("nap", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"still here"}`)),
		agentkittest.Text("done"))
	rs := results(res)
	if rs[0].Kind != tool.KindTimeout {
		t.Errorf("Kind %s, want %s", rs[0].Kind, tool.KindTimeout)
	}
	wantContains(t, "content", rs[0].Content, `server "slow" did not answer the call of hang within 100ms`)
	if rs[1].Content != "rested" {
		t.Errorf("the other server's call, bounded by its own CallTimeout: %s %q", rs[1].Kind, rs[1].Content)
	}
	if rs[2].Content != "echo: still here" {
		t.Errorf("the next call: %q", rs[2].Content)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %s", d)
	}
}

// TestConnectTimeout: a server that never answers initialize fails Connect after its
// ConnectTimeout, naming it.
func TestConnectTimeout(t *testing.T) {
	start := time.Now()
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "mute", Transport: muteTransport{}, ConnectTimeout: 100 * time.Millisecond}}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	wantContains(t, "error", err.Error(), `server "mute"`, "ConnectTimeout (100ms)")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Connect took %s", d)
	}
}

// muteTransport connects to a peer that reads everything and never answers.
type muteTransport struct{}

func (muteTransport) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	c1, c2 := netPipe()
	go func() { // read and drop until the client closes its end
		buf := make([]byte, 4096)
		for {
			if _, err := c2.Read(buf); err != nil {
				c2.Close()
				return
			}
		}
	}()
	return (&sdkmcp.IOTransport{Reader: c1, Writer: c1}).Connect(ctx)
}

// TestCloseDuringCall: Close cancels a call in flight rather than waiting for its
// CallTimeout; the call says the client closed.
func TestCloseDuringCall(t *testing.T) {
	s := newServer()
	started := make(chan struct{})
	addRaw(s, &sdkmcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "s", Transport: newInProcess(t, s)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hang := toolNamed(t, c, "hang")
	done := make(chan tool.Result)
	go func() { done <- hang.Handle(context.Background(), tool.Call{Name: "hang", Arguments: `{}`}) }()
	<-started
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	wantContains(t, "the call", res.Content, `mcp: server "s": the client was closed during the call of hang`)
}

// TestListChangedLogged: each notifications/tools/list_changed is a Debug record of the
// Client's own Logger naming the server, so that two Clients in one process are told apart
// (no package-level hook).
func TestListChangedLogged(t *testing.T) {
	s1, s2 := newServer(), newServer()
	addEcho(s1, "a")
	addEcho(s2, "b")
	log1, changed1 := listChanges()
	log2, changed2 := listChanges()
	connect(t, &mcp.Options{Logger: log1}, mcp.ServerConfig{Name: "one", Transport: newInProcess(t, s1)})
	connect(t, &mcp.Options{Logger: log2}, mcp.ServerConfig{Name: "two", Transport: newInProcess(t, s2)})
	addEcho(s2, "c")
	select {
	case got := <-changed2:
		if got != "two" {
			t.Errorf("the second Client logged a change of server %q, want %q", got, "two")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed record in the second Client's Logger")
	}
	select {
	case got := <-changed1:
		t.Errorf("the first Client logged a change of server %q, which is not its own", got)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestCloseDuringRefresh: Close while Tools lists a server again after its
// notifications/tools/list_changed, and the server never answers that list, returns at
// once: the list is canceled, not waited for until its ConnectTimeout.
func TestCloseDuringRefresh(t *testing.T) {
	s := newServer()
	addEcho(s, "a")
	var lists atomic.Int32
	listing := make(chan struct{})
	s.AddReceivingMiddleware(func(next sdkmcp.MethodHandler) sdkmcp.MethodHandler {
		return func(ctx context.Context, method string, req sdkmcp.Request) (sdkmcp.Result, error) {
			if method == "tools/list" && lists.Add(1) > 1 { // the lists after the first never end
				close(listing)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	logger, changed := listChanges()
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "mute", Transport: newInProcess(t, s), ConnectTimeout: time.Minute}}, &mcp.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	addEcho(s, "b")
	<-changed
	refreshed := make(chan error, 1)
	go func() {
		_, err := c.Tools(context.Background())
		refreshed <- err
	}()
	<-listing
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	err = <-refreshed
	if err == nil {
		t.Fatal("Tools, closed while it listed: no error")
	}
	if err.Error() != "mcp: the client is closed" {
		t.Errorf("Tools, closed while it listed: %v", err)
	}
}

// TestReconnectOutlastsCallTimeout: a call whose session was lost, and whose reconnection
// takes longer than its CallTimeout, was never sent: its timeout result says so, rather
// than that the tool may still be running.
func TestReconnectOutlastsCallTimeout(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	p := newInProcess(t, s)
	tr := &thenMute{first: p}
	c := connect(t, nil, mcp.ServerConfig{Name: "slowstart", Transport: tr, CallTimeout: 200 * time.Millisecond})
	echo := toolNamed(t, c, "echo")
	p.kill()
	res := echo.Handle(context.Background(), tool.Call{Name: "echo", Arguments: `{"message":"x"}`})
	if res.Kind != tool.KindTimeout {
		t.Errorf("Kind %s, want %s", res.Kind, tool.KindTimeout)
	}
	wantContains(t, "content", res.Content, `mcp: server "slowstart": the call of echo was not sent`, "200ms")
	if strings.Contains(res.Content, "may") {
		t.Errorf("content %q says the tool may have run", res.Content)
	}
}

// thenMute connects to first once, then to a peer that never answers initialize.
type thenMute struct {
	first     sdkmcp.Transport
	connected atomic.Bool
}

func (m *thenMute) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	if m.connected.CompareAndSwap(false, true) {
		return m.first.Connect(ctx)
	}
	return muteTransport{}.Connect(ctx)
}

// TestRefreshInParallel: servers whose sessions ended are reconnected at the same time, so
// that several servers that do not answer cost a model request one ConnectTimeout, not one
// each; their tools stay offered.
func TestRefreshInParallel(t *testing.T) {
	var servers []mcp.ServerConfig
	var procs []*inProcess
	for i := range 4 {
		s := newServer()
		addEcho(s, "echo"+itoa(i))
		p := newInProcess(t, s)
		procs = append(procs, p)
		servers = append(servers, mcp.ServerConfig{Name: "s" + itoa(i), Transport: &thenMute{first: p}, ConnectTimeout: time.Second})
	}
	c := connect(t, nil, servers...)
	for _, p := range procs {
		p.kill()
	}
	start := time.Now()
	tools, err := c.Tools(context.Background())
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("Tools took %s with 4 servers of ConnectTimeout 1s not answering", d)
	}
	if err != nil || len(tools) != 4 {
		t.Errorf("Tools: %d tools, %v; want the 4 last listed", len(tools), err)
	}
}

// TestRefreshListFails: a server whose list fails after its notifications/tools/list_changed
// (an error answer, a timeout, a session cut as it restarts) keeps its last tools, logged,
// so that the run goes on; it is listed again at the next request.
func TestRefreshListFails(t *testing.T) {
	s := newServer()
	addEcho(s, "a")
	var lists atomic.Int32
	s.AddReceivingMiddleware(func(next sdkmcp.MethodHandler) sdkmcp.MethodHandler {
		return func(ctx context.Context, method string, req sdkmcp.Request) (sdkmcp.Result, error) {
			if method == "tools/list" && lists.Add(1) == 2 { // the first list after the change
				return nil, errors.New("the database is restarting")
			}
			return next(ctx, method, req)
		}
	})
	logger, changed := listChanges()
	c := connect(t, &mcp.Options{Logger: logger}, mcp.ServerConfig{Name: "flaky", Transport: newInProcess(t, s)})
	addEcho(s, "b")
	<-changed
	names := func() []string {
		tools, err := c.Tools(context.Background())
		if err != nil {
			t.Fatalf("Tools: %v", err)
		}
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name())
		}
		return out
	}
	if diff := cmp.Diff([]string{"a"}, names()); diff != "" {
		t.Errorf("tools while the list fails (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, names()); diff != "" {
		t.Errorf("tools at the next request (-want +got):\n%s", diff)
	}
}

// TestCallRefused: a call the server answers with a JSON-RPC error that refuses it (an
// unknown tool, invalid params) is a result the model reads, saying the server refused
// it — not that the tool may have run.
func TestCallRefused(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	addEcho(s, "gone")
	c := connect(t, nil, mcp.ServerConfig{Name: "s", Transport: newInProcess(t, s)})
	gone := toolNamed(t, c, "gone")
	s.RemoveTools("gone") // the turn's list still has it
	res := gone.Handle(context.Background(), tool.Call{Name: "gone", Arguments: `{"message":"x"}`})
	if res.Kind != tool.KindToolError {
		t.Errorf("Kind %s", res.Kind)
	}
	wantContains(t, "content", res.Content, `mcp: server "s" refused the call of gone`, `unknown tool "gone"`)
	if strings.Contains(res.Content, "may have run") {
		t.Errorf("content %q says the tool may have run", res.Content)
	}
}
