package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
)

// swappable is an HTTP server whose handler a test replaces, as a restart of the server
// behind a URL does: the new handler knows none of the old sessions.
type swappable struct {
	h   atomic.Pointer[http.Handler]
	srv *httptest.Server
}

func newSwappable(t *testing.T, h http.Handler) *swappable {
	s := &swappable{}
	s.h.Store(&h)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*s.h.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *swappable) swap(h http.Handler) { s.h.Store(&h) }

func streamable(s *sdkmcp.Server, opts *sdkmcp.StreamableHTTPOptions) http.Handler {
	return sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, opts)
}

// TestHTTPSessionLost: a go-sdk server behind a URL restarts between two turns and answers
// the old session's next POST with 404 "session not found"; the call, which never reached
// a tool, reconnects, re-initializes and is sent once more, to the new server.
func TestHTTPSessionLost(t *testing.T) {
	first, second := newServer(), newServer()
	addEcho(first, "echo")
	var ran atomic.Int32
	sdkmcp.AddTool(second, &sdkmcp.Tool{Name: "echo", Description: "Echoes, restarted."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
			ran.Add(1)
			return text("restarted: " + in.Message), nil, nil
		})
	hs := newSwappable(t, streamable(first, nil))
	t.Cleanup(func() { closeSessions(first) }) // the old server's session outlives the swap, as a dead process's would
	c := connect(t, nil, mcp.ServerConfig{Name: "web", URL: hs.srv.URL})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"1"}`)),
		agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
			hs.swap(streamable(second, nil))
			return agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"2"}`))
		}),
		agentkittest.Text("done"))
	if diff := cmp.Diff([]string{"echo: echo: 1", "echo: restarted: 2"}, calls(res)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if ran.Load() != 1 {
		t.Errorf("the restarted tool ran %d times, want 1", ran.Load())
	}
}

func closeSessions(s *sdkmcp.Server) {
	for ss := range s.Sessions() {
		_ = ss.Close()
	}
}

// TestHTTPServerDown: the server behind the URL is gone between two turns (connections
// refused): the call, which never left, tries one reconnection and fails clearly; the run
// goes on.
func TestHTTPServerDown(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	hs := newSwappable(t, streamable(s, nil))
	t.Cleanup(func() { closeSessions(s) })
	// Without keep-alive, so that the second call dials (and is refused) rather than being
	// written on a connection the server closed, which would leave it unknown whether the
	// server read it (it then fails as "may have run", never sent twice).
	noKeepAlive := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c := connect(t, nil, mcp.ServerConfig{Name: "web", URL: hs.srv.URL, HTTPClient: noKeepAlive})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"1"}`)),
		agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
			hs.srv.CloseClientConnections()
			hs.srv.Listener.Close()
			return agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"2"}`))
		}),
		agentkittest.Text("done"))
	got := calls(res)
	if got[0] != "echo: echo: 1" {
		t.Errorf("first call: %q", got[0])
	}
	wantContains(t, "second call", got[1], `mcp: server "web": connecting`, "connection refused", "the session was lost; one reconnection was tried")
}

// TestHTTPConnectionCutMidCall: the connection carrying a call is cut while the tool runs;
// the call, which reached the server, is never sent again.
func TestHTTPConnectionCutMidCall(t *testing.T) {
	s := newServer()
	var ran atomic.Int32
	var hs *swappable
	release := make(chan struct{})
	addRaw(s, &sdkmcp.Tool{Name: "cut", Description: "Cuts its own connection."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			ran.Add(1)
			hs.srv.CloseClientConnections()
			select { // the server does not cancel a call whose connection is cut
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("cut")
		})
	hs = newSwappable(t, streamable(s, nil))
	t.Cleanup(func() { closeSessions(s) })
	c := connect(t, nil, mcp.ServerConfig{Name: "web", URL: hs.srv.URL, CallTimeout: 2 * time.Second})
	t.Cleanup(func() { close(release) }) // first: the server's handler returns, then the DELETE of Close is answered
	res, _ := run(t, c, agentkittest.ToolCalls(agentkittest.Call("cut", `{}`)), agentkittest.Text("done"))
	wantContains(t, "the cut call", calls(res)[0], `mcp: server "web": the call of cut failed, and may have run`)
	if !results(res)[0].Failed() || ran.Load() != 1 {
		t.Errorf("the cut call: %s %q, ran %d times; want a failure, once", results(res)[0].Kind, results(res)[0].Content, ran.Load())
	}
}

// TestHTTPSessionLostTwice: a server that forgets every session at its first call (404 to
// each tools/call) gets one reconnection, then the call fails clearly; the tool never ran.
func TestHTTPSessionLostTwice(t *testing.T) {
	s := newServer()
	var ran atomic.Int32
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: "echo", Description: "Echoes."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
			ran.Add(1)
			return text(in.Message), nil, nil
		})
	inner := streamable(s, nil)
	forgetful := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
		}
		inner.ServeHTTP(w, r)
	})
	hs := newSwappable(t, forgetful)
	t.Cleanup(func() { closeSessions(s) })
	c := connect(t, nil, mcp.ServerConfig{Name: "web", URL: hs.srv.URL})
	res := callDirect(t, c, "echo", `{"message":"x"}`)
	wantContains(t, "the call", res.Content, `mcp: server "web": the call of echo did not reach the server, before and after a reconnection`)
	if ran.Load() != 0 {
		t.Errorf("the tool ran %d times", ran.Load())
	}
}

// TestHTTPCloseReleasesConnections: with no ServerConfig.HTTPClient, Close leaves no
// keep-alive connection behind (none in http.DefaultTransport's pool, whose goroutines
// would outlive the Client until the server or an idle timeout closed them).
func TestHTTPCloseReleasesConnections(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	hs := httptest.NewServer(streamable(s, nil))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { closeSessions(s) })
	before := goleak.IgnoreCurrent()
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "web", URL: hs.URL}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := callDirect(t, c, "echo", `{"message":"x"}`); res.Content != "echo: x" {
		t.Errorf("call: %s %q", res.Kind, res.Content)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := goleak.Find(before); err != nil {
		t.Errorf("after Close: %v", err)
	}
}

// TestSSE: the older HTTP+SSE transport, given as ServerConfig.Transport, carries calls
// after the session's initialization (its event stream outlives the dial); a call whose
// stream is cut while the tool runs reached the server and is never sent again.
func TestSSE(t *testing.T) {
	s := newServer()
	addEcho(s, "echo")
	var ran atomic.Int32
	var hs *httptest.Server
	release := make(chan struct{})
	addRaw(s, &sdkmcp.Tool{Name: "cut", Description: "Cuts its own connection."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			ran.Add(1)
			hs.CloseClientConnections()
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("cut")
		})
	hs = httptest.NewServer(sdkmcp.NewSSEHandler(func(*http.Request) *sdkmcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { closeSessions(s) })
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	c := connect(t, nil, mcp.ServerConfig{Name: "sse", Transport: &sdkmcp.SSEClientTransport{Endpoint: hs.URL, HTTPClient: hc}, CallTimeout: 2 * time.Second})
	t.Cleanup(func() { close(release) })
	if res := callDirect(t, c, "echo", `{"message":"over SSE"}`); res.Content != "echo: over SSE" {
		t.Errorf("echo: %s %q", res.Kind, res.Content)
	}
	res := callDirect(t, c, "cut", `{}`)
	wantContains(t, "the cut call", res.Content, `mcp: server "sse": the call of cut failed, and may have run`)
	if !res.Failed() || ran.Load() != 1 {
		t.Errorf("the cut call: %s %q, ran %d times; want a failure, once", res.Kind, res.Content, ran.Load())
	}
}
