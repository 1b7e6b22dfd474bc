package agentkit

import (
	"context"
	"errors"
	"fmt"
	"io"

	openai "github.com/sashabaranov/go-openai"
)

// Stream is a server-sent stream of chat-completion chunks, as go-openai decodes them.
//
// Recv returns the next chunk. It returns io.EOF at the normal end of the stream (the
// provider's "data: [DONE]", after the model finished its message) and only then; a stream
// that ends early returns another error, such as [ErrStreamTruncated]. After Recv returned
// an error the stream is over. Close releases the connection; it may be called at any time,
// also before the end (to stop reading), and must be called once the caller is done.
//
// A Stream is used by one goroutine at a time.
type Stream interface {
	Recv() (openai.ChatCompletionStreamResponse, error)
	Close() error
}

// StreamingModel is a [Model] that can also stream its reply. The loop streams when the model
// implements this interface and the caller asks for streaming; a plain Model always works.
//
// CreateChatCompletionStream follows the rules of CreateChatCompletion (concurrent use,
// requests not modified). It returns the provider's error (an *openai.APIError for an HTTP
// error status) before any chunk when the request is refused. An [Assembler] rebuilds the
// message from the chunks.
type StreamingModel interface {
	Model
	CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (Stream, error)
}

// ErrStreamTruncated reports a stream that ended before the model finished its message: the
// connection was cut (or the body ended) before a chunk carried a finish_reason. It also
// matches io.ErrUnexpectedEOF. The text received so far is in [Assembler.Partial].
var ErrStreamTruncated = fmt.Errorf("agentkit: stream ended before the model finished its message: %w", io.ErrUnexpectedEOF)

// OpenAIStreaming adapts a *openai.Client to [StreamingModel]. (Its own
// CreateChatCompletionStream returns the concrete *openai.ChatCompletionStream, so the client
// does not satisfy the interface as it is.) It panics when c is nil.
//
// go-openai reports io.EOF both for "data: [DONE]" and for a body that simply ends, and
// io.ErrUnexpectedEOF for a connection cut (as net/http reports a chunked body that stops),
// so a cut mid-message can look like a normal end. The adapter tells them apart the only way
// the decoded chunks allow: a normal end comes after a chunk whose choice carried a
// finish_reason (every provider in our recordings sends one, possibly followed by a usage
// chunk). Either error before any finish_reason becomes [ErrStreamTruncated]; after one, io.EOF.
//
// SSE comment lines (": keep-alive") and other non-data lines are skipped by go-openai, up to
// its Config.EmptyMessagesLimit consecutive lines. An error event in the stream
// (data: {"error": ...}) comes back from Recv as an error wrapping *openai.APIError; an SSE
// "event: error" is lost by go-openai (a JSON syntax error comes back), and a stream that ends
// with [DONE] but no finish_reason reads as truncated. openaichat.Client, the SDK's own HTTP
// Model, has none of these limits.
func OpenAIStreaming(c *openai.Client) StreamingModel {
	if c == nil {
		panic("agentkit.OpenAIStreaming: nil client")
	}
	return openAIStreaming{c}
}

type openAIStreaming struct{ c *openai.Client }

func (m openAIStreaming) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return m.c.CreateChatCompletion(ctx, req)
}

func (m openAIStreaming) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (Stream, error) {
	s, err := m.c.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return nil, err
	}
	return &openAIStream{s: s}, nil
}

// openAIStream turns go-openai's io.EOF on a cut connection into ErrStreamTruncated.
type openAIStream struct {
	s        *openai.ChatCompletionStream
	finished bool // a choice carried a finish_reason
}

func (s *openAIStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	r, err := s.s.Recv()
	if err != nil {
		switch ended := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF); {
		case ended && !s.finished:
			return r, ErrStreamTruncated
		case ended: // cut after the finish_reason: the message is whole
			return r, io.EOF
		}
		return r, err
	}
	for i := range r.Choices {
		if r.Choices[i].FinishReason != "" {
			s.finished = true
		}
	}
	return r, nil
}

func (s *openAIStream) Close() error { return s.s.Close() }
