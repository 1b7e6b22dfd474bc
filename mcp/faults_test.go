package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// TestBoundedLists: a server advertising too many tools, or a schema tool.Raw refuses,
// fails Connect with an error naming the server (and the tool). (A name too long is
// mapped, not refused: TestToolNames.)
func TestBoundedLists(t *testing.T) {
	ok := func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) { return text("ok"), nil }
	deep := strings.Repeat(`{"type":"array","items":`, 300) + `{"type":"string"}` + strings.Repeat(`}`, 300)
	tests := []struct {
		name  string
		setup func(s *sdkmcp.Server)
		max   int
		want  []string
	}{
		{"1,000 tools", func(s *sdkmcp.Server) {
			for i := range 1000 {
				addRaw(s, &sdkmcp.Tool{Name: fmt.Sprintf("t%04d", i), Description: "A tool."}, ok)
			}
		}, 0, []string{`server "many" advertises `, `1000 tools, over its MaxTools of 128`}},
		{"over a MaxTools of 3", func(s *sdkmcp.Server) {
			for i := range 4 {
				addRaw(s, &sdkmcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "A tool."}, ok)
			}
		}, 3, []string{`server "many" advertises 4 tools, over its MaxTools of 3`}},
		{"a 10 MB schema", func(s *sdkmcp.Server) {
			desc, _ := json.Marshal(strings.Repeat("x", 10<<20))
			addRaw(s, &sdkmcp.Tool{Name: "huge", Description: "Huge.", InputSchema: json.RawMessage(`{"type":"object","description":` + string(desc) + `}`)}, ok)
		}, 0, []string{`server "many"`, `tool "many_huge"`, "over the 1048576-byte limit"}},
		{"a schema 300 levels deep", func(s *sdkmcp.Server) {
			addRaw(s, &sdkmcp.Tool{Name: "deep", Description: "Deep.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":` + deep + `}}`)}, ok)
		}, 0, []string{`server "many"`, `tool "many_deep"`}},
		{"a schema that does not compile", func(s *sdkmcp.Server) {
			addRaw(s, &sdkmcp.Tool{Name: "bad", Description: "Bad.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)}, ok)
		}, 0, []string{`server "many"`, `tool "many_bad"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer()
			tt.setup(s)
			start := time.Now()
			_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "many", Prefix: "many_", Transport: newInProcess(t, s), MaxTools: tt.max}}, nil)
			if err == nil {
				t.Fatal("Connect: no error")
			}
			wantContains(t, "error", err.Error(), tt.want...)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Connect took %s", d)
			}
		})
	}
}

// TestRefreshOverMaxTools: a server that grows past MaxTools after Connect fails the next
// Tools, naming it.
func TestRefreshOverMaxTools(t *testing.T) {
	logger, changed := listChanges()
	s := newServer()
	addEcho(s, "a")
	c := connect(t, &mcp.Options{Logger: logger}, mcp.ServerConfig{Name: "grows", Transport: newInProcess(t, s), MaxTools: 1})
	addEcho(s, "b")
	if got := <-changed; got != "grows" {
		t.Errorf("list_changed logged for server %q, want %q", got, "grows")
	}
	_, err := c.Tools(context.Background())
	if err == nil {
		t.Fatal("Tools: no error")
	}
	wantContains(t, "error", err.Error(), `server "grows" advertises 2 tools, over its MaxTools of 1`)
}

// TestGarbage: a subprocess printing something other than JSON-RPC on stdout fails Connect
// at once, with an error naming it; no hang, no panic, no process left.
func TestGarbage(t *testing.T) {
	start := time.Now()
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{subprocess("noisy", "garbage")}, nil)
	if err == nil {
		t.Fatal("Connect: no error")
	}
	wantContains(t, "error", err.Error(), `mcp: server "noisy": connecting`, "invalid character")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Connect took %s", d)
	}
}

// TestGarbageMidSession: a server that prints a stray line on stdout in the middle of a
// call breaks its session: that call fails at once (no hang until its timeout), the run
// goes on, and the next call starts a new process.
func TestGarbageMidSession(t *testing.T) {
	c := connect(t, nil, subprocess("noisy", "stdio"))
	pid := pidOf(t, c, "pid")
	start := time.Now()
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("spew", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("pid", `{}`)),
		agentkittest.Text("done"))
	rs := results(res)
	wantContains(t, "the spew call", rs[0].Content, `mcp: server "noisy": the call of spew failed, and may have run`, "invalid character")
	if rs[1].Failed() || rs[1].Content == strconv.Itoa(pid) {
		t.Errorf("the next call ran on %q (%s), want a new process", rs[1].Content, rs[1].Kind)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %s", d)
	}
}

// TestSubprocessKilledMidCall: the server process is killed (SIGKILL) while a call waits on
// it; the call gets an error result, and the next call starts a new process.
func TestSubprocessKilledMidCall(t *testing.T) {
	c := connect(t, nil, subprocess("proc", "stdio"))
	pid := pidOf(t, c, "pid")
	res, _ := run(t, c,
		agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
			go func() {
				time.Sleep(200 * time.Millisecond) // the call of hang is on its way
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}()
			return agentkittest.ToolCalls(agentkittest.Call("hang", `{}`))
		}),
		agentkittest.ToolCalls(agentkittest.Call("pid", `{}`)),
		agentkittest.Text("done"))
	rs := results(res)
	if rs[0].Kind != tool.KindToolError {
		t.Errorf("Kind %s", rs[0].Kind)
	}
	wantContains(t, "the killed call", rs[0].Content, `mcp: server "proc": the call of hang failed, and may have run`)
	if rs[1].Failed() || rs[1].Content == strconv.Itoa(pid) {
		t.Errorf("the next call ran on %q (%s), want a new process", rs[1].Content, rs[1].Kind)
	}
}

// TestConnectCloseCycles: 100 Connect/Close cycles with a subprocess server leave no
// goroutine (TestMain's goleak) and no process behind; a server's own child is killed with it.
func TestConnectCloseCycles(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 10
	}
	for i := range n {
		c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{subprocess("cycle", "stdio")}, nil)
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		pid := pidOf(t, c, "pid")
		if err := c.Close(); err != nil {
			t.Fatalf("cycle %d: Close: %v", i, err)
		}
		waitGone(t, pid)
	}
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{subprocess("spawn", "spawn")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, child := pidOf(t, c, "pid"), pidOf(t, c, "grandchild")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	waitGone(t, child)
}

// pidOf calls a tool of c that answers a process id.
func pidOf(t *testing.T, c *mcp.Client, name string) int {
	t.Helper()
	res := callDirect(t, c, name, `{}`)
	pid, err := strconv.Atoi(res.Content)
	if err != nil {
		t.Fatalf("%s: %s %q", name, res.Kind, res.Content)
	}
	return pid
}

// waitGone waits until the process pid no longer runs: gone, or a zombie whose threads have
// all exited (the leader of a multi-threaded process shows as a zombie while its other
// threads still hold its files, the pipes to its parent included).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after Close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) || s[i+2] != 'Z' {
		return false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return err != nil || len(tasks) <= 1
}

// TestLongDescription: a server's 10 MB tool description does not reach the model whole at
// every request: it is cut at 16 KiB, saying so, and the tool still works.
func TestLongDescription(t *testing.T) {
	s := newServer()
	long := "Echoes. " + strings.Repeat("这是一个很长的描述。", 10<<20/30)
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: "echo", Description: long},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
			return text(in.Message), nil, nil
		})
	c := connect(t, nil, mcp.ServerConfig{Name: "verbose", Transport: newInProcess(t, s)})
	res, model := run(t, c, agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"hi"}`)), agentkittest.Text("done"))
	d := model.Requests()[0].Tools[0].Function.Description
	if len(d) > 17<<10 || !utf8.ValidString(d) {
		t.Errorf("the model's description is %d bytes (valid UTF-8: %v), want at most about 16 KiB", len(d), utf8.ValidString(d))
	}
	// 16,384 bytes fall inside a character: the cut is before it.
	if want := "\n[This description was cut at 16382 of its " + itoa(len(long)) + " bytes.]"; !strings.HasPrefix(d, "Echoes. 这是") || !strings.HasSuffix(d, want) {
		t.Errorf("description %.40q…%q, want it to start as the server's and end with %q", d, d[max(0, len(d)-60):], want)
	}
	if got := calls(res); len(got) != 1 || got[0] != "echo: hi" {
		t.Errorf("calls %q", got)
	}
}

// TestStderr: a subprocess that cannot start fails Connect with an error that says what
// it wrote on stderr, not only that the connection closed; the stderr of a server that
// runs reaches the Logger, a record a line, naming the server.
func TestStderr(t *testing.T) {
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{subprocess("github", "complain")}, nil)
	if err == nil {
		t.Fatal("Connect: no error")
	}
	wantContains(t, "error", err.Error(), `mcp: server "github": connecting`, "Error: GITHUB_TOKEN is not set")

	var buf strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(srvLockedWriter{&mu, &buf}, nil))
	c := connect(t, &mcp.Options{Logger: logger}, subprocess("chatty", "stdio"))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	wantContains(t, "log", buf.String(), `level=INFO msg="mcp: the server wrote on stderr" mcp_server=chatty line="test server running on stdio"`)
}

// TestListRepeatsCursor: a server whose tool list gives the same cursor again (an endless
// list of empty pages) fails Connect at once, naming it, rather than at its ConnectTimeout.
func TestListRepeatsCursor(t *testing.T) {
	srv := rawServer{answer: func(method string, _ json.RawMessage) string {
		if method == "tools/list" {
			return `{"tools":[],"nextCursor":"again"}`
		}
		return `{}`
	}}
	start := time.Now()
	_, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "loop", Transport: srv, ConnectTimeout: 10 * time.Second}}, nil)
	if err == nil {
		t.Fatal("Connect: no error")
	}
	wantContains(t, "error", err.Error(), `mcp: server "loop"`, `cursor "again"`)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Connect took %s", d)
	}
}
