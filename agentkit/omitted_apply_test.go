package agentkit_test

import (
	"context"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// OmittedFromContext is 0 "in every other context (a tool's, a middleware's)" than the one
// Apply gets. A strategy that runs a sub-agent (an LLM compressor, say) hands it Apply's
// context: the sub-agent's own strategy, its tools and its middleware all read the
// sub-agent's own count, not the outer run's. (A review found the tools and middleware
// reading the outer count.)
func TestOmittedNotSeenByToolsOfARunStartedInApply(t *testing.T) {
	outerHist := agentkit.History{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "task"},
			{Role: openai.ChatMessageRoleUser, Content: "latest question"},
			{Role: openai.ChatMessageRoleAssistant, Content: "latest answer"},
		},
		Omitted:    6,
		CallIDUsed: func(context.Context, string) bool { return false },
	}
	toolSaw, mwSaw := -1, -1
	probe := tool.New("probe", "reads OmittedFromContext", func(ctx context.Context, in struct{}) (string, error) {
		toolSaw = agentkit.OmittedFromContext(ctx)
		return "ok", nil
	})
	mw := func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			mwSaw = agentkit.OmittedFromContext(ctx)
			return next(ctx)
		}
	}
	inner := agentkit.New(agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("probe", "{}")), agentkittest.Text("compressed")),
		&agentkit.Options{Tools: []*tool.Tool{probe}, RunMiddleware: []agentkit.RunMiddleware{mw}})
	ran := false
	compress := agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		if !ran {
			ran = true
			if _, err := inner.Run(ctx, "compress this"); err != nil {
				return nil, err
			}
		}
		return msgs, nil
	})
	outer := agentkit.New(agentkittest.New(t, agentkittest.Text("done")),
		&agentkit.Options{Memory: partialMemory{outerHist}, SessionTurns: 2, Context: compress})
	if _, err := outer.RunSession(context.Background(), "s", "go"); err != nil {
		t.Fatal(err)
	}
	if toolSaw != 0 {
		t.Errorf("a tool of the sub-agent read OmittedFromContext = %d, want 0 (it is the outer run's count)", toolSaw)
	}
	if mwSaw != 0 {
		t.Errorf("a RunMiddleware of the sub-agent read OmittedFromContext = %d, want 0", mwSaw)
	}
}
