package agentkit_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// TestUsage: each step records its call's usage — what go-openai's Usage holds (cached and
// reasoning tokens included), or, when the model reported it with ReportUsage, the report
// (a retried call's last) — and the Result sums them.
func TestUsage(t *testing.T) {
	echo := tool.New("echo", "Echoes.", func(ctx context.Context, in struct{}) (string, error) { return "ok", nil })
	call := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: "{}"}}}}
	answer := openai.ChatCompletionMessage{Role: "assistant", Content: "done"}
	n := 0
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		n++
		if n == 1 { // go-openai's usage, details included
			return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: call}}, Usage: openai.Usage{
				PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120,
				PromptTokensDetails:     &openai.PromptTokensDetails{CachedTokens: 64},
				CompletionTokensDetails: &openai.CompletionTokensDetails{ReasoningTokens: 12},
			}}, nil
		}
		// A report overrides the response's usage; the last report wins.
		agentkit.ReportUsage(ctx, agentkit.Usage{PromptTokens: 1})
		agentkit.ReportUsage(ctx, agentkit.Usage{PromptTokens: 130, CompletionTokens: 5, TotalTokens: 135, CachedTokens: 100, CacheWriteTokens: 30})
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: answer}}, Usage: openai.Usage{TotalTokens: 999}}, nil
	})
	res, err := agentkit.New(model, &agentkit.Options{Model: "m", Tools: []*tool.Tool{echo}}).Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	steps := []agentkit.Usage{
		{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, CachedTokens: 64, ReasoningTokens: 12},
		{PromptTokens: 130, CompletionTokens: 5, TotalTokens: 135, CachedTokens: 100, CacheWriteTokens: 30},
	}
	var got []agentkit.Usage
	for _, s := range res.Steps {
		got = append(got, s.Usage)
	}
	if diff := cmp.Diff(steps, got); diff != "" {
		t.Errorf("Steps' usage (-want +got):\n%s", diff)
	}
	want := agentkit.Usage{PromptTokens: 230, CompletionTokens: 25, TotalTokens: 255, CachedTokens: 164, CacheWriteTokens: 30, ReasoningTokens: 12}
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("Result.Usage (-want +got):\n%s", diff)
	}
	agentkit.ReportUsage(context.Background(), agentkit.Usage{TotalTokens: 1}) // outside a call: nothing, no panic
}
