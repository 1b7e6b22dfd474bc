package agentkit_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// liveTools is a Toolset whose list the test changes, as an MCP server's changes.
type liveTools struct {
	mu    sync.Mutex
	tools []*tool.Tool
	err   error
}

func (l *liveTools) Tools(ctx context.Context) ([]*tool.Tool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tools, l.err
}

func (l *liveTools) set(tools ...*tool.Tool) {
	l.mu.Lock()
	l.tools = tools
	l.mu.Unlock()
}

// TestToolsetChangesBetweenTurns: each request offers the Toolset's tools of the moment; a
// list that changes while a turn's calls run takes effect at the next request, and the
// turn's calls resolve against the tools of the request that made them.
func TestToolsetChangesBetweenTurns(t *testing.T) {
	live := &liveTools{}
	b := tool.New("b", "Tool b.", func(ctx context.Context, in struct{}) (string, error) { return "b ran", nil })
	a := tool.New("a", "Tool a.", func(ctx context.Context, in struct{}) (string, error) {
		live.set(b) // the server's list changes in the middle of the turn
		return "a ran", nil
	})
	static := tool.New("static", "Always there.", func(ctx context.Context, in struct{}) (string, error) { return "static ran", nil })
	live.set(a)
	var offered [][]string
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("a", `{}`), agentkittest.Call("b", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("b", `{}`)),
		agentkittest.Text("done"))
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{static}, Toolsets: []agentkit.Toolset{live},
		OnEvent: func(_ context.Context, e agentkit.Event) {
			if e.Kind == agentkit.EventModelRequest {
				var names []string
				for _, d := range e.Request.Tools {
					names = append(names, d.Function.Name)
				}
				offered = append(offered, names)
			}
		}})
	res, err := agent.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"static", "a"}, {"static", "b"}, {"static", "b"}}, offered); diff != "" {
		t.Errorf("tools offered per request (-want +got):\n%s", diff)
	}
	var got []string
	for _, s := range res.Steps {
		for _, c := range s.Calls {
			got = append(got, c.Call.Name+": "+c.Result.Content)
		}
	}
	want := []string{
		"a: a ran",
		`b: error: there is no tool named "b". Available tools: a, static. Did you mean "a"? Call one of the available tools, or answer without one.`,
		"b: b ran",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestToolsetErrors(t *testing.T) {
	x := tool.New("x", "Tool x.", func(ctx context.Context, in struct{}) (string, error) { return "", nil })
	down := errors.New("server gone")
	tests := []struct {
		name     string
		static   []*tool.Tool
		toolsets []agentkit.Toolset
		want     error
		wantText string
	}{
		{"a toolset fails", nil, []agentkit.Toolset{&liveTools{err: down}}, down, "the tools of Toolsets[0]: server gone"},
		{"a name shared with Tools", []*tool.Tool{x}, []agentkit.Toolset{&liveTools{tools: []*tool.Tool{x}}}, agentkit.ErrDuplicateTool, `"x" (Toolsets[0])`},
		{"a name shared by two toolsets", nil, []agentkit.Toolset{&liveTools{tools: []*tool.Tool{x}}, &liveTools{tools: []*tool.Tool{x}}}, agentkit.ErrDuplicateTool, `"x" (Toolsets[1])`},
		{"a nil tool", nil, []agentkit.Toolset{&liveTools{tools: []*tool.Tool{nil}}}, nil, "Toolsets[0][0] is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
				t.Fatal("the model was called")
				return openai.ChatCompletionResponse{}, nil
			})
			res, err := agentkit.New(model, &agentkit.Options{Tools: tt.static, Toolsets: tt.toolsets}).Run(context.Background(), "go")
			if res.Stop != agentkit.StopToolsError || err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Stop %s, error %v; want %s, an error matching %v and saying %q", res.Stop, err, agentkit.StopToolsError, tt.want, tt.wantText)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Error(err)
			}
		})
	}
}
