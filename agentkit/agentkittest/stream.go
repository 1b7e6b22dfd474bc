package agentkittest

import (
	"context"
	"io"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

var _ agentkit.StreamingModel = (*Model)(nil)

// CreateChatCompletionStream plays the next scripted reply as a stream, the way providers
// send one: the role first, the content in fragments of a few characters, each tool call's
// id and name on its first delta and its arguments in fragments, then a finish chunk and a
// usage chunk. Errors are returned before any chunk. The request is recorded and checked as
// by CreateChatCompletion.
func (m *Model) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	resp, err := m.CreateChatCompletion(ctx, req)
	if err != nil {
		return nil, err
	}
	return &replayStream{ctx: ctx, chunks: chunksOf(resp)}, nil
}

// fragment is the size, in characters, of the content and argument fragments.
const fragment = 4

func chunksOf(resp openai.ChatCompletionResponse) []openai.ChatCompletionStreamResponse {
	var out []openai.ChatCompletionStreamResponse
	add := func(d openai.ChatCompletionStreamChoiceDelta, fr openai.FinishReason) {
		out = append(out, openai.ChatCompletionStreamResponse{ID: resp.ID, Object: "chat.completion.chunk", Model: resp.Model,
			Choices: []openai.ChatCompletionStreamChoice{{Delta: d, FinishReason: fr}}})
	}
	if len(resp.Choices) == 0 {
		return nil
	}
	c := resp.Choices[0]
	add(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "")
	for _, s := range split(c.Message.Content) {
		add(openai.ChatCompletionStreamChoiceDelta{Content: s}, "")
	}
	for i, tc := range c.Message.ToolCalls {
		index := i
		add(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &index, ID: tc.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: tc.Function.Name}}}}, "")
		for _, s := range split(tc.Function.Arguments) {
			add(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &index, Function: openai.FunctionCall{Arguments: s}}}}, "")
		}
	}
	add(openai.ChatCompletionStreamChoiceDelta{}, c.FinishReason)
	u := resp.Usage
	out = append(out, openai.ChatCompletionStreamResponse{ID: resp.ID, Object: "chat.completion.chunk", Model: resp.Model, Usage: &u})
	return out
}

// split cuts s into fragments of a few characters, never inside one.
func split(s string) []string {
	var out []string
	for len(s) > 0 {
		n, i := 0, 0
		for i < len(s) && n < fragment {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

type replayStream struct {
	ctx    context.Context
	chunks []openai.ChatCompletionStreamResponse
}

func (s *replayStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	if err := s.ctx.Err(); err != nil {
		return openai.ChatCompletionStreamResponse{}, err
	}
	if len(s.chunks) == 0 {
		return openai.ChatCompletionStreamResponse{}, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *replayStream) Close() error { return nil }
