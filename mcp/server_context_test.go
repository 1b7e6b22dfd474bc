package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

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

// What a served tool reports with agentkit.ReportProgress reaches the client as
// notifications/progress under the request's token, in order; without a token nothing is
// sent.
func TestServerForwardsReportProgress(t *testing.T) {
	steps := tool.New("steps", "Works in two steps.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportProgress(ctx, agentkit.Progress{Done: 1, Total: 2, Message: "first"})
		agentkit.ReportProgress(ctx, agentkit.Progress{Done: 2, Total: 2, Message: "second"})
		return "done", nil
	})
	for _, tr := range srvTransports {
		t.Run(tr.name, func(t *testing.T) {
			s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "t", Version: "v0"}, []*tool.Tool{steps}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan string, 4)
			c := srvClient(&sdkmcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *sdkmcp.ProgressNotificationClientRequest) {
				got <- fmt.Sprintf("%v %v/%v %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message)
			}})
			cs := tr.connect(t, s, c)
			if res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("CallTool without a token: %v, %+v", err, res)
			}
			params := &sdkmcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}
			params.SetProgressToken("tok-2")
			if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
				t.Fatalf("CallTool: %v, %+v", err, res)
			}
			var recv []string
			for len(recv) < 2 {
				select {
				case m := <-got:
					recv = append(recv, m)
				case <-time.After(10 * time.Second):
					t.Fatalf("got %q, want two notifications", recv)
				}
			}
			want := []string{"tok-2 1/2 first", "tok-2 2/2 second"}
			if diff := cmp.Diff(want, recv); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}
