package middleware

import (
	"errors"
	"io"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// modelMiddleware is an agentkit.ModelMiddleware made of its two functions.
type modelMiddleware struct {
	call   func(next agentkit.CallFunc) agentkit.CallFunc
	stream func(next agentkit.StreamFunc) agentkit.StreamFunc
}

func (m modelMiddleware) WrapCall(next agentkit.CallFunc) agentkit.CallFunc { return m.call(next) }
func (m modelMiddleware) WrapStream(next agentkit.StreamFunc) agentkit.StreamFunc {
	return m.stream(next)
}

// endStream wraps a Stream to call end once, with the stream's error (nil at its normal
// end or when closed early), when the stream ends or is closed. wrap, when set, then
// rewrites the error Recv returns, other than io.EOF.
type endStream struct {
	agentkit.Stream
	once   sync.Once
	end    func(err error, chunks int)
	wrap   func(err error) error
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
		if s.wrap != nil {
			err = s.wrap(err)
		}
	}
	return c, err
}

func (s *endStream) Close() error {
	err := s.Stream.Close()
	s.once.Do(func() { s.end(nil, s.chunks) })
	return err
}
