package agentkit

import (
	"context"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// EventKind says what an Event reports.
type EventKind string

// The kinds of events a run emits, in the order they happen within an iteration.
const (
	// EventModelRequest: a request is about to be sent (Request is set).
	EventModelRequest EventKind = "model_request"
	// EventModelResponse: the model answered or failed (Message or Err, Duration, Usage).
	EventModelResponse EventKind = "model_response"
	// EventToolStart: a tool call is starting (Call).
	EventToolStart EventKind = "tool_start"
	// EventToolEnd: a tool call finished (Call, Result, Duration).
	EventToolEnd EventKind = "tool_end"
	// EventStepEnd: the results of a turn's calls were appended to the transcript.
	EventStepEnd EventKind = "step_end"
	// EventAnswer: the model answered (Text is the final answer).
	EventAnswer EventKind = "answer"
	// EventRunEnd: the run ended (Stop, Err).
	EventRunEnd EventKind = "run_end"

	// Streamed runs only (RunStream, RunMessagesStream, RunSessionStream), between
	// EventModelRequest and EventModelResponse:

	// EventTextDelta: a fragment of the model's content (Text); concatenated, the fragments
	// are the content. From OpenAIStreaming a fragment holds whole characters (a JSON string
	// cannot split one); a Stream of another kind may split a multi-byte character between
	// two fragments.
	EventTextDelta EventKind = "text_delta"
	// EventReasoningDelta: a fragment of the model's reasoning (Text), kept apart from content.
	EventReasoningDelta EventKind = "reasoning_delta"
	// EventToolCallStart: the model began a tool call; Call has its name and, when the
	// provider sent one already, its id (arguments still streaming). The id may be empty or
	// replaced later: the id the call is recorded under is the one of EventToolCallReady,
	// which the loop makes unique (providers omit ids, or repeat "call_0").
	EventToolCallStart EventKind = "tool_call_start"
	// EventToolCallReady: the arguments of a call are complete (Call). With early start the
	// tool starts now, while the model is still streaming.
	EventToolCallReady EventKind = "tool_call_ready"
)

// Event reports one thing that happened in a run. Only the fields of its Kind are set.
type Event struct {
	Kind EventKind
	// Iteration is the model call the event belongs to, from 1.
	Iteration int
	// Request is the request about to be sent (EventModelRequest). Do not modify it.
	Request *openai.ChatCompletionRequest
	// Message is the model's reply (EventModelResponse): the event's own copy, its ToolCalls
	// and MultiContent included.
	Message *openai.ChatCompletionMessage
	// Usage is the model call's token usage (EventModelResponse).
	Usage Usage
	// Call is the tool call (EventToolStart, EventToolEnd).
	Call *tool.Call
	// Result is the tool call's result (EventToolEnd). Call and Result are the event's own
	// copies: an OnEvent that edits them changes neither the call that runs nor the run's
	// record (Result.Steps, Result.Messages).
	Result *tool.Result
	// Duration is the model call's or tool call's latency.
	Duration time.Duration
	// Stop is why the run ended (EventRunEnd).
	Stop StopReason
	// Err is the model call's error (EventModelResponse) or the run's (EventRunEnd).
	Err error
	// Text is a streamed fragment (EventTextDelta, EventReasoningDelta) or the final answer
	// (EventAnswer).
	Text string
}

// OnEvent receives the events of a run. It is called synchronously, from the goroutine that
// runs the tool for tool events: tool events of one turn arrive concurrently, so an OnEvent
// must be safe for concurrent use, and a slow one slows the run. A panic in an OnEvent is
// raised from Run, on the caller's goroutine, also when it happened on a call's. EventRunEnd
// is the last event of a run.
type OnEvent func(ctx context.Context, e Event)
