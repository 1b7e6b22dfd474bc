package agentkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

func TestAgentToolSchemaAndAnswer(t *testing.T) {
	model := agentkittest.New(t, agentkittest.Text("answer"))
	sub := agentkit.New(model, &agentkit.Options{Instructions: "You research."})
	tl := sub.Tool("researcher", "Researches a question and answers it.",
		tool.Options{Annotations: tool.Annotations{ReadOnly: true}, Schema: []byte(`{"ignored":true}`)})

	if got, want := tl.Name(), "researcher"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	if !tl.Annotations().ReadOnly {
		t.Error("the tool's options were not applied")
	}
	wantSchema := `{"type":"object","properties":{"input":{"type":"string","description":"The request for the agent, in plain language, with everything it needs to know: it does not see your conversation."}},"required":["input"],"additionalProperties":false}`
	if got := string(tl.Parameters()); got != wantSchema {
		t.Errorf("Parameters = %s\nwant %s", got, wantSchema)
	}
	if tl.OutputSchema() != nil {
		t.Errorf("OutputSchema = %s, want none (the output is text)", tl.OutputSchema())
	}

	res := tl.Handle(context.Background(), tool.Call{ID: "c1", Name: "researcher", Arguments: `{"input":"what is 2+2?"}`, Tool: tl})
	if res.Failed() {
		t.Fatalf("Handle failed: %v", res.Err)
	}
	if got, want := res.Content, "answer"; got != want {
		t.Errorf("Content = %q, want %q", got, want)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	got := []string{reqs[0].Messages[0].Content, reqs[0].Messages[1].Content}
	if diff := cmp.Diff([]string{"You research.", "what is 2+2?"}, got); diff != "" {
		t.Errorf("the sub-agent's request (-want +got):\n%s", diff)
	}
}

func TestAgentToolErrors(t *testing.T) {
	fatal := tool.New("boom", "fails fatally", func(ctx context.Context, in struct{}) (string, error) {
		return "", tool.Fatalf("disk on fire")
	})
	tests := []struct {
		name      string
		replies   []agentkittest.Reply
		opts      agentkit.Options
		args      string
		wantKind  tool.Kind
		wantIn    string
		wantFatal bool
	}{
		{"model error", []agentkittest.Reply{agentkittest.Error(errors.New("upstream 503"))}, agentkit.Options{},
			`{"input":"hi"}`, tool.KindToolError, "agent sub stopped (model_error)", false},
		{"iteration limit", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.Call("boom", `{}`))},
			agentkit.Options{MaxIterations: 1, Tools: []*tool.Tool{tool.New("noop", "does nothing",
				func(ctx context.Context, in struct{}) (string, error) { return "ok", nil })}},
			`{"input":"hi"}`, tool.KindToolError, "iteration limit", false},
		{"fatal inside is not fatal outside", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.Call("boom", `{}`))},
			agentkit.Options{Tools: []*tool.Tool{fatal}}, `{"input":"hi"}`, tool.KindToolError, "disk on fire", false},
		{"invalid arguments", nil, agentkit.Options{}, `{"input":3}`, tool.KindInvalidArguments, "/input", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			sub := agentkit.New(agentkittest.New(t, tt.replies...), &opts)
			tl := sub.Tool("sub", "a sub-agent")
			res := tl.Handle(context.Background(), tool.Call{Name: "sub", Arguments: tt.args, Tool: tl})
			if res.Kind != tt.wantKind {
				t.Errorf("Kind = %q, want %q (content %q)", res.Kind, tt.wantKind, res.Content)
			}
			if !strings.Contains(res.Content, tt.wantIn) {
				t.Errorf("Content = %q, want it to contain %q", res.Content, tt.wantIn)
			}
			if got := tool.IsFatal(res.Err); got != tt.wantFatal {
				t.Errorf("IsFatal = %v, want %v", got, tt.wantFatal)
			}
		})
	}
}

// A sub-agent inside an agent: the parent's model calls it, and reads its answer.
func TestAgentToolAsSubAgent(t *testing.T) {
	sub := agentkit.New(agentkittest.New(t, agentkittest.Text("Paris")), nil)
	parentModel := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("geographer", `{"input":"capital of France?"}`)),
		agentkittest.Text("It is Paris."),
	)
	parent := agentkit.New(parentModel, &agentkit.Options{Tools: []*tool.Tool{sub.Tool("geographer", "Answers geography questions.")}})
	res, err := parent.Run(context.Background(), "What is the capital of France?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "It is Paris." {
		t.Errorf("Output = %q", res.Output)
	}
	tm := agentkittest.ToolMessages(parentModel.Requests()[1])
	if len(tm) != 1 || tm[0].Content != "Paris" || tm[0].Role != openai.ChatMessageRoleTool {
		t.Errorf("the parent's model read %+v, want one tool message \"Paris\"", tm)
	}
}

func TestAgentToolCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		close(started)
		<-ctx.Done()
		return openai.ChatCompletionResponse{}, ctx.Err()
	})
	tl := agentkit.New(model, nil).Tool("slow", "a slow agent")
	done := make(chan tool.Result)
	go func() { done <- tl.Handle(ctx, tool.Call{Name: "slow", Arguments: `{"input":"x"}`, Tool: tl}) }()
	<-started
	cancel()
	if res := <-done; res.Kind != tool.KindCanceled {
		t.Errorf("Kind = %q, want %q (content %q)", res.Kind, tool.KindCanceled, res.Content)
	}
}
