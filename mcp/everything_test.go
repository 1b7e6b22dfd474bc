package mcp_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/mcp/internal/npmtest"
)

// everythingBin is the script of @modelcontextprotocol/server-everything.
func everythingBin(t *testing.T) (node, bin string) {
	t.Helper()
	return npmtest.Node(t), npmtest.Bin(t, "@modelcontextprotocol/server-everything", npmtest.EverythingVersion, "mcp-server-everything")
}

// everything returns a ServerConfig for server-everything over "stdio" or "http" (its
// streamableHttp mode, started for the test), and the HTTP server (nil over stdio).
func everything(t *testing.T, transport string) (mcp.ServerConfig, *npmtest.HTTPServer) {
	t.Helper()
	node, bin := everythingBin(t)
	if transport == "stdio" {
		return mcp.ServerConfig{Name: "everything", Command: node, Args: []string{bin, "stdio"}}, nil
	}
	hs := npmtest.StartHTTP(t, node, bin, "streamableHttp")
	return mcp.ServerConfig{Name: "everything", URL: hs.URL}, hs
}

var transports = []string{"stdio", "http"}

// TestEverything: server-everything's tools through a full agent run, over stdio and
// streamable HTTP: text verbatim, an image as a placeholder and whole in the Result,
// structured content typed, its annotations on the tools.
func TestEverything(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv, _ := everything(t, transport)
			c := connect(t, nil, srv)
			res, model := run(t, c,
				agentkittest.ToolCalls(
					agentkittest.Call("echo", `{"message":"你好 <MCP>"}`),
					agentkittest.Call("get-sum", `{"a":2,"b":3.5}`),
					agentkittest.Call("get-tiny-image", `{}`),
					agentkittest.Call("get-structured-content", `{"location":"Chicago"}`),
					agentkittest.Call("get-sum", `{"a":"two","b":3}`)),
				agentkittest.Text("done"))
			var read []string
			for _, m := range agentkittest.ToolMessages(model.Requests()[1]) {
				read = append(read, m.Content)
			}
			rs := results(res)
			img := rs[2].Value.(*mcp.Result).CallToolResult.Content[1].(*sdkmcp.ImageContent)
			want := []string{
				"Echo: 你好 <MCP>",
				"The sum of 2 and 3.5 is 5.5.",
				"Here's the image you requested:\n[image: image/png, " + strconv.Itoa(len(img.Data)) + " bytes; images cannot be shown in this conversation, the application has it]\nThe image above is the MCP logo.",
				`{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`,
			}
			if diff := cmp.Diff(want, read[:4]); diff != "" {
				t.Errorf("the model read (-want +got):\n%s", diff)
			}
			// The schema is the server's: a string for a number is refused before any call.
			wantContains(t, "the invalid call", read[4], "invalid arguments for tool get-sum", "/a")
			if !bytes.HasPrefix(img.Data, []byte("\x89PNG")) || img.MIMEType != "image/png" {
				t.Errorf("the image kept: %s, %d bytes", img.MIMEType, len(img.Data))
			}
			type forecast struct {
				Temperature float64 `json:"temperature"`
				Conditions  string  `json:"conditions"`
				Humidity    float64 `json:"humidity"`
			}
			f, err := mcp.Structured[forecast](rs[3])
			if err != nil || f != (forecast{36, "Light rain / drizzle", 82}) {
				t.Errorf("Structured = %+v, %v", f, err)
			}
			if out := rs[3].Value.(*mcp.Result).OutputSchema; !strings.Contains(string(out), `"humidity"`) {
				t.Errorf("OutputSchema = %s", out)
			}
			echo := toolNamed(t, c, "echo")
			if a := echo.Annotations(); !a.ReadOnly || a.IsDestructive() || !a.Idempotent || a.IsOpenWorld() || a.Title != "Echo Tool" || echo.Sequential() {
				t.Errorf("echo's annotations %+v, sequential %v", a, echo.Sequential())
			}
		})
	}
}

// TestEverythingProgress: server-everything's long-running operation reports progress,
// which reaches the run's events, over stdio and HTTP.
func TestEverythingProgress(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv, _ := everything(t, transport)
			c := connect(t, nil, srv)
			res, _, events := runEvents(t, c,
				agentkittest.ToolCalls(agentkittest.Call("trigger-long-running-operation", `{"duration":0.6,"steps":3}`)),
				agentkittest.Text("done"))
			wantContains(t, "the call", calls(res)[0], "Long running operation completed")
			var got []agentkit.Progress
			for _, e := range events {
				if e.Kind == agentkit.EventToolProgress {
					got = append(got, e.Progress)
				}
			}
			// The server sends its last notification right before its answer: the go-sdk
			// client handles notifications apart from answers, so that one may come after
			// the call ended, and is then dropped. The first two come well before.
			if len(got) < 2 {
				t.Fatalf("progress %v, want at least 2 reports", got)
			}
			if diff := cmp.Diff([]agentkit.Progress{{Done: 1, Total: 3}, {Done: 2, Total: 3}}, got[:2]); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEverythingCallbacks: server-everything's elicitation is declined by default and
// answered by Options.Elicit; its sampling tool is not even offered without Options.Sample
// (the client does not advertise sampling), and is answered by it when set.
func TestEverythingCallbacks(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv, _ := everything(t, transport)
			c := connect(t, nil, srv)
			res, _ := run(t, c,
				agentkittest.ToolCalls(agentkittest.Call("trigger-elicitation-request", `{}`), agentkittest.Call("trigger-sampling-request", `{"prompt":"hi"}`)),
				agentkittest.Text("done"))
			got := calls(res)
			wantContains(t, "elicitation", got[0], "User declined")
			wantContains(t, "sampling", got[1], `there is no tool named "trigger-sampling-request"`)

			var asked []string
			srv2, _ := everything(t, transport)
			c2 := connect(t, &mcp.Options{
				Elicit: func(ctx context.Context, server string, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error) {
					asked = append(asked, server+" elicits: "+req.Params.Message)
					return &sdkmcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace"}}, nil
				},
				Sample: func(ctx context.Context, server string, req *sdkmcp.CreateMessageRequest) (*sdkmcp.CreateMessageResult, error) {
					asked = append(asked, server+" samples: "+req.Params.Messages[0].Content.(*sdkmcp.TextContent).Text)
					return &sdkmcp.CreateMessageResult{Model: "scripted", Role: "assistant", Content: &sdkmcp.TextContent{Text: "a haiku"}}, nil
				},
			}, srv2)
			res, _ = run(t, c2,
				agentkittest.ToolCalls(agentkittest.Call("trigger-elicitation-request", `{}`)),
				agentkittest.ToolCalls(agentkittest.Call("trigger-sampling-request", `{"prompt":"hi"}`)),
				agentkittest.Text("done"))
			got = calls(res)
			wantContains(t, "elicitation", got[0], "User provided the requested information", "Ada Lovelace")
			wantContains(t, "sampling", got[1], "LLM sampling result", "a haiku")
			want := []string{"everything elicits: Please provide inputs for the following fields:", "everything samples: Resource trigger-sampling-request context: hi"}
			if diff := cmp.Diff(want, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEverythingRestartBetweenTurns: server-everything restarts between two turns; over
// stdio its process is killed and a new one started at the next call, over HTTP the new
// process answers the old session with 400 "No valid session ID": either way the call
// reconnects, re-initializes and runs once on the new server.
func TestEverythingRestartBetweenTurns(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv, hs := everything(t, transport)
			pidFile := filepath.Join(t.TempDir(), "pid")
			if hs == nil { // a shell that writes its pid, then becomes the server
				srv.Args = []string{"-c", `echo $$ > "$0"; exec "$1" "$2" stdio`, pidFile, srv.Command, srv.Args[0]}
				srv.Command = "sh"
			}
			c := connect(t, nil, srv)
			restart := func() {
				if hs != nil {
					hs.Restart(t)
					return
				}
				b, err := os.ReadFile(pidFile)
				pid, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil || err2 != nil {
					t.Fatalf("the server's pid: %v %v", err, err2)
				}
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				waitGone(t, pid)
			}
			res, _ := run(t, c,
				agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"1"}`)),
				agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
					restart()
					return agentkittest.ToolCalls(agentkittest.Call("echo", `{"message":"2"}`))
				}),
				agentkittest.Text("done"))
			if diff := cmp.Diff([]string{"echo: Echo: 1", "echo: Echo: 2"}, calls(res)); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
