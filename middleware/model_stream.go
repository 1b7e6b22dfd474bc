package middleware

import (
	"context"
	"errors"
	"io"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// StreamFunc opens a stream, as agentkit.StreamingModel.CreateChatCompletionStream does.
type StreamFunc func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error)

// withStream returns plain as a Model that also streams through stream when next can stream,
// so that a model middleware does not turn streaming off (agentkit falls back to plain calls
// when the outermost Model is not an agentkit.StreamingModel).
func withStream(next agentkit.Model, plain agentkit.ModelFunc, stream func(s agentkit.StreamingModel) StreamFunc) agentkit.Model {
	s, ok := next.(agentkit.StreamingModel)
	if !ok {
		return plain
	}
	return streamingModel{ModelFunc: plain, open: stream(s)}
}

type streamingModel struct {
	agentkit.ModelFunc
	open StreamFunc
}

func (m streamingModel) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	return m.open(ctx, req)
}

// endStream wraps a Stream to call end once, with the stream's error (nil at its normal
// end or when closed early), when the stream ends or is closed.
type endStream struct {
	agentkit.Stream
	once   sync.Once
	end    func(err error, chunks int)
	chunks int
}

func (s *endStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	c, err := s.Stream.Recv()
	switch {
	case err == nil:
		s.chunks++
	case errors.Is(err, io.EOF):
		s.once.Do(func() { s.end(nil, s.chunks) })
	default:
		s.once.Do(func() { s.end(err, s.chunks) })
	}
	return c, err
}

func (s *endStream) Close() error {
	err := s.Stream.Close()
	s.once.Do(func() { s.end(nil, s.chunks) })
	return err
}
