package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// askingServer has a tool that asks the user (elicitation) and one that asks for an LLM
// completion (sampling), each saying what it got. On the go-sdk's protocol (2026-07-28)
// a tool asks by returning input requests, which the client fulfils and sends back with a
// second call (multi round-trip requests); server-everything, on 2025-11-25, sends
// requests of its own instead (see everything_test.go).
func askingServer() *sdkmcp.Server {
	s := newServer()
	addRaw(s, &sdkmcp.Tool{Name: "confirm", Description: "Deletes after asking."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 {
				return &sdkmcp.CallToolResult{InputRequests: sdkmcp.InputRequestMap{"sure": &sdkmcp.ElicitParams{Message: "Delete everything?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"sure": map[string]any{"type": "boolean"}}}}}}, nil
			}
			res := req.Params.InputResponses["sure"].(*sdkmcp.ElicitResult)
			return text(fmt.Sprintf("action %s, content %v", res.Action, res.Content)), nil
		})
	addRaw(s, &sdkmcp.Tool{Name: "summarize", Description: "Asks the client's model."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 {
				return &sdkmcp.CallToolResult{InputRequests: sdkmcp.InputRequestMap{"llm": &sdkmcp.CreateMessageParams{MaxTokens: 10,
					Messages: []*sdkmcp.SamplingMessage{{Role: "user", Content: &sdkmcp.TextContent{Text: "Summarize."}}}}}}, nil
			}
			var said string
			switch r := req.Params.InputResponses["llm"].(type) {
			case *sdkmcp.CreateMessageResult:
				said = r.Content.(*sdkmcp.TextContent).Text
			case *sdkmcp.CreateMessageWithToolsResult:
				said = r.Content[0].(*sdkmcp.TextContent).Text
			default:
				said = fmt.Sprintf("%T", r)
			}
			return text("the model said: " + said), nil
		})
	return s
}

// TestCallbacksDeniedByDefault: without Options.Elicit an elicitation is declined; without
// Options.Sample a sampling request is refused and the model reads the server's failure.
func TestCallbacksDeniedByDefault(t *testing.T) {
	c := connect(t, nil, mcp.ServerConfig{Name: "asker", Transport: newInProcess(t, askingServer())})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("confirm", `{}`), agentkittest.Call("summarize", `{}`)),
		agentkittest.Text("done"))
	got := calls(res)
	if got[0] != "confirm: action decline, content map[]" {
		t.Errorf("elicitation: %q", got[0])
	}
	wantContains(t, "sampling", got[1], `summarize: error: tool summarize failed: mcp: server "asker"`, "does not support CreateMessage")
}

// TestCallbacks: Options.Elicit and Options.Sample answer, told which server asks.
func TestCallbacks(t *testing.T) {
	var asked []string
	opts := &mcp.Options{
		Elicit: func(ctx context.Context, server string, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error) {
			call, _ := tool.CallFromContext(ctx) // multi round-trip: the call's own context
			asked = append(asked, server+" for "+call.Name+": "+req.Params.Message)
			return &sdkmcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
		},
		Sample: func(ctx context.Context, server string, req *sdkmcp.CreateMessageRequest) (*sdkmcp.CreateMessageResult, error) {
			asked = append(asked, server+": "+req.Params.Messages[0].Content.(*sdkmcp.TextContent).Text)
			return &sdkmcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &sdkmcp.TextContent{Text: "short"}}, nil
		},
	}
	c := connect(t, opts, mcp.ServerConfig{Name: "asker", Transport: newInProcess(t, askingServer())})
	res, _ := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("confirm", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("summarize", `{}`)),
		agentkittest.Text("done"))
	if diff := cmp.Diff([]string{"confirm: action accept, content map[sure:true]", "summarize: the model said: short"}, calls(res)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"asker for confirm: Delete everything?", "asker: Summarize."}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
}

// TestProgress: the server's notifications/progress for a call's token reach the run's
// events as EventToolProgress, between the call's start and end.
func TestProgress(t *testing.T) {
	s := newServer()
	addRaw(s, &sdkmcp.Tool{Name: "work", Description: "Works in steps."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return text("no progress token"), nil
			}
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdkmcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: fmt.Sprint("step ", i)}); err != nil {
					return nil, err
				}
				time.Sleep(50 * time.Millisecond) // a long operation: each step takes time
			}
			return text("worked"), nil
		})
	mcpClient := connect(t, nil, mcp.ServerConfig{Name: "worker", Transport: newInProcess(t, s)})
	res, _, events := runEvents(t, mcpClient, agentkittest.ToolCalls(agentkittest.Call("work", `{}`)), agentkittest.Text("done"))
	if got := calls(res); got[0] != "work: worked" {
		t.Fatalf("call: %q", got[0])
	}
	var got []agentkit.Progress
	var kinds []agentkit.EventKind
	for _, e := range events {
		switch e.Kind {
		case agentkit.EventToolStart, agentkit.EventToolEnd:
			kinds = append(kinds, e.Kind)
		case agentkit.EventToolProgress:
			kinds = append(kinds, e.Kind)
			got = append(got, e.Progress)
		}
	}
	want := []agentkit.Progress{{Done: 1, Total: 3, Message: "step 1"}, {Done: 2, Total: 3, Message: "step 2"}, {Done: 3, Total: 3, Message: "step 3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if kinds[0] != agentkit.EventToolStart || kinds[len(kinds)-1] != agentkit.EventToolEnd {
		t.Errorf("events %v", kinds)
	}
}
