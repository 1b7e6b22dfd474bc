package agentkittest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Reply is one scripted model reply. Build one with [Text], [ToolCalls], [Error] or [Func].
type Reply struct {
	// Message is the assistant message returned.
	Message openai.ChatCompletionMessage
	// FinishReason is returned with the message; empty means "stop", or "tool_calls" when
	// the message has tool calls.
	FinishReason openai.FinishReason
	// Usage is returned with the message.
	Usage openai.Usage
	// Err, when set, is returned instead of a response.
	Err error
	// Response, when set, is returned verbatim (Message, FinishReason and Usage are ignored):
	// for responses no well-behaved model sends, such as one without choices.
	Response *openai.ChatCompletionResponse
	// Func, when set, computes the reply from the request (and the others fields are
	// ignored): a model that answers from the tool results it was sent.
	Func func(req openai.ChatCompletionRequest) Reply
}

// Text returns a reply that answers with s.
func Text(s string) Reply {
	return Reply{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s}}
}

// ToolCalls returns a reply that calls tools, in the given order. Calls without an ID get
// "call_N", numbered across the whole script from 1.
func ToolCalls(calls ...openai.ToolCall) Reply {
	return Reply{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: calls}}
}

// Call returns a tool call of name with raw argument text args (sent verbatim: it may be
// malformed on purpose). Its ID is assigned by the Model.
func Call(name, args string) openai.ToolCall {
	return openai.ToolCall{Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// CallID is [Call] with an explicit id.
func CallID(id, name, args string) openai.ToolCall {
	c := Call(name, args)
	c.ID = id
	return c
}

// Error returns a reply that fails with err.
func Error(err error) Reply { return Reply{Err: err} }

// Func returns a reply computed from the request when it arrives.
func Func(f func(req openai.ChatCompletionRequest) Reply) Reply { return Reply{Func: f} }

// Model is a scripted agentkit.Model. It is safe for concurrent use; replies are consumed in
// the order requests arrive.
type Model struct {
	t        testing.TB
	mu       sync.Mutex
	replies  []Reply
	requests []openai.ChatCompletionRequest
	nextID   int
}

var _ agentkit.Model = (*Model)(nil)

// ErrScriptExhausted is returned by a Model asked for more replies than it was given.
var ErrScriptExhausted = errors.New("agentkittest: no scripted reply left")

// New returns a Model that plays replies in order. When t is non-nil, a request that fails
// agentkit.ValidateHistory, or one that comes after the script is exhausted, is reported with
// t.Errorf (safe from any goroutine). With a nil t (a scripted model outside tests, such as an
// offline demo) those are returned as errors only.
func New(t testing.TB, replies ...Reply) *Model {
	return &Model{t: t, replies: append([]Reply(nil), replies...)}
}

// CreateChatCompletion records req and returns the next scripted reply.
func (m *Model) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	if err := ctx.Err(); err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	req.Messages = append([]openai.ChatCompletionMessage(nil), req.Messages...) // the caller keeps appending
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	if len(m.replies) == 0 {
		m.mu.Unlock()
		m.errorf("agentkittest: request #%d arrived but the script has no reply left; last message: %s", n, lastMessage(req.Messages))
		return openai.ChatCompletionResponse{}, ErrScriptExhausted
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	m.mu.Unlock()

	if err := agentkit.ValidateHistory(req.Messages); err != nil {
		m.errorf("agentkittest: request #%d breaks the wire rules: %v", n, err)
		return openai.ChatCompletionResponse{}, fmt.Errorf("agentkittest: request #%d: %w", n, err)
	}
	for r.Func != nil {
		r = r.Func(req)
	}
	if r.Err != nil {
		return openai.ChatCompletionResponse{}, r.Err
	}
	if r.Response != nil {
		return *r.Response, nil
	}
	msg := r.Message
	if msg.Role == "" {
		msg.Role = openai.ChatMessageRoleAssistant
	}
	if len(msg.ToolCalls) > 0 {
		calls := append([]openai.ToolCall(nil), msg.ToolCalls...)
		m.mu.Lock()
		for i := range calls {
			if calls[i].ID == "" {
				m.nextID++
				calls[i].ID = "call_" + strconv.Itoa(m.nextID)
			}
		}
		m.mu.Unlock()
		msg.ToolCalls = calls
	}
	fr := r.FinishReason
	if fr == "" {
		fr = openai.FinishReasonStop
		if len(msg.ToolCalls) > 0 {
			fr = openai.FinishReasonToolCalls
		}
	}
	return openai.ChatCompletionResponse{
		ID:      "scripted-" + strconv.Itoa(n),
		Object:  "chat.completion",
		Model:   req.Model,
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: fr}},
		Usage:   r.Usage,
	}, nil
}

func (m *Model) errorf(format string, args ...any) {
	if m.t != nil {
		m.t.Helper()
		m.t.Errorf(format, args...)
	}
}

// Requests returns copies of the requests received so far, in order.
func (m *Model) Requests() []openai.ChatCompletionRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), m.requests...)
}

// Remaining returns the number of scripted replies not yet played.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.replies)
}

// ToolMessages returns the role=tool messages of req, in order: what the model was sent
// back for its calls.
func ToolMessages(req openai.ChatCompletionRequest) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, msg := range req.Messages {
		if msg.Role == openai.ChatMessageRoleTool {
			out = append(out, msg)
		}
	}
	return out
}

func lastMessage(msgs []openai.ChatCompletionMessage) string {
	if len(msgs) == 0 {
		return "(none)"
	}
	m := msgs[len(msgs)-1]
	s := m.Content
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return m.Role + ": " + strconv.Quote(s)
}
