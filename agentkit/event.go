package agentkit

import (
	"context"
	"sync"
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
	// EventModelResponse: the model answered or failed (Message or Err, Duration, Usage,
	// Cost).
	EventModelResponse EventKind = "model_response"
	// EventToolStart: a tool call is starting (Call).
	EventToolStart EventKind = "tool_start"
	// EventToolProgress: a running tool call reported progress (Call, Progress), with
	// [ReportProgress]; between the call's EventToolStart and EventToolEnd.
	EventToolProgress EventKind = "tool_progress"
	// EventToolEnd: a tool call finished (Call, Result, Duration, Cost).
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
	// Cost is the model call's cost (EventModelResponse) or what the tool call reported
	// (EventToolEnd).
	Cost Cost
	// Call is the tool call (EventToolStart, EventToolProgress, EventToolEnd).
	Call *tool.Call
	// Progress is what a running call reported (EventToolProgress).
	Progress Progress
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

// Progress is how far a running tool call has come, as it reports it with [ReportProgress]
// (an MCP server's notifications/progress, say).
type Progress struct {
	// Done is the progress so far; it increases from one report to the next.
	Done float64
	// Total is what Done reaches at the end; zero when unknown.
	Total float64
	// Message says, for people, what is being done.
	Message string
}

type progressKey struct{}

// ReportProgress reports the progress of the tool call whose context ctx is (or derives from):
// the run emits an EventToolProgress for it. Outside a call run by an Agent, or after the call
// ended, it does nothing. It may be called from any goroutine; the reports of one call are
// emitted one at a time, in order. A panic of the run's OnEvent is raised from
// ReportProgress.
func ReportProgress(ctx context.Context, p Progress) {
	if f, ok := ctx.Value(progressKey{}).(*progressReporter); ok {
		f.report(p)
	}
}

// WithProgress returns a context in which [ReportProgress] calls f: how code that runs tools
// outside an Agent receives their progress (package mcp's server sends it to the client as
// notifications/progress). Inside an Agent's call the run's own reporting takes over again.
// f may be called from several goroutines, one report at a time.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, &progressReporter{emit: f})
}

// progressReporter emits a call's progress events until the call ends.
type progressReporter struct {
	mu   sync.Mutex
	done bool
	emit func(Progress)
}

func (r *progressReporter) report(p Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		r.emit(p)
	}
}

// end stops the reports: none is emitted after the call's EventToolEnd.
func (r *progressReporter) end() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}
