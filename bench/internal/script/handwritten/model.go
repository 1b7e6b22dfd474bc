package handwritten

import (
	"context"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// Model is go-openai's chat completions call: the model of the floor, and of toolcall (an
// agentkit.Model has this one method).
type Model interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// NewModel returns a model answering from s: go-openai's client pointed at url, the base URL
// of a [script.Handler] serving s (ending in /v1), or, when url is "", the scripted model in
// process.
func NewModel(s *script.Script, url string) Model {
	if url == "" {
		return newScripted(s)
	}
	cfg := openai.DefaultConfig("bench")
	cfg.BaseURL = url
	return openai.NewClientWithConfig(cfg)
}

// scripted is the scripted model behind go-openai's types, in process. Its responses are built
// once: agentkit copies what it keeps, and the hand-written loop only reads them.
type scripted struct {
	s    *script.Script
	resp []openai.ChatCompletionResponse
}

func newScripted(s *script.Script) *scripted {
	m := &scripted{s: s, resp: make([]openai.ChatCompletionResponse, len(s.Replies))}
	for i, r := range s.Replies {
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: r.Text}
		finish := openai.FinishReasonStop
		for _, c := range r.Calls {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Args}})
			finish = openai.FinishReasonToolCalls
		}
		m.resp[i] = openai.ChatCompletionResponse{Model: "scripted", Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}},
			Usage: openai.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}
	}
	return m
}

func (m *scripted) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	msgs := req.Messages
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == openai.ChatMessageRoleTool {
		i--
	}
	v := &script.View{}
	if n := len(msgs) - i; n > 0 {
		v.Results = make([]script.Result, 0, n)
		for _, t := range msgs[i:] {
			v.Results = append(v.Results, script.Result{ID: t.ToolCallID, Content: t.Content})
		}
	}
	for j := i - 1; j >= 0; j-- {
		if msgs[j].Role == openai.ChatMessageRoleUser {
			v.LastUser = msgs[j].Content
			break
		}
	}
	return m.resp[m.s.Next(v).N], nil
}
