package agentkit

import (
	"errors"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	// StopAnswered: the model answered without calling tools. The usual successful stop (the
	// other is StopIterationLimit with a nil error, see Run).
	StopAnswered StopReason = "answered"
	// StopIterationLimit: the run used Options.MaxIterations model turns without an answer.
	// With Options.FinalAnswerOnLimit, the final tool-free request may still have answered:
	// the run's error is then nil and Result.Output holds the answer.
	StopIterationLimit StopReason = "iteration_limit"
	// StopLoopDetected: the model kept repeating the same calls.
	StopLoopDetected StopReason = "loop_detected"
	// StopFatalTool: a tool returned an error marked with tool.Fatal.
	StopFatalTool StopReason = "fatal_tool_error"
	// StopModelError: the model call failed, or its reply was unusable (no choices, empty).
	StopModelError StopReason = "model_error"
	// StopCanceled: the run's context was canceled or its deadline passed.
	StopCanceled StopReason = "canceled"
	// StopInvalidHistory: the history was not provider-valid (a caller's input, or a bug).
	StopInvalidHistory StopReason = "invalid_history"
	// StopMemoryError: Options.Memory failed to load or save the session.
	StopMemoryError StopReason = "memory_error"
	// StopContextError: Options.Context failed (for example, a token budget smaller than what
	// must be kept).
	StopContextError StopReason = "context_error"
	// StopToolsError: a Toolset of Options.Toolsets failed to list its tools, or two tools
	// of a request shared a name (ErrDuplicateTool).
	StopToolsError StopReason = "tools_error"
	// StopPaused: calls of a turn wait for a decision from outside the run (an approval, a
	// deferred tool's result): the run's error is ErrPaused and Result.Pause holds the state
	// that Agent.Resume continues.
	StopPaused StopReason = "paused"
	// StopResumeRefused: Resume refused the paused state or the decisions before anything
	// ran (ErrPauseTampered, ErrAlreadyResumed, ErrDecision…).
	StopResumeRefused StopReason = "resume_refused"
)

// Sentinel errors of the loop, for errors.Is.
var (
	// ErrIterationLimit: the run hit Options.MaxIterations.
	ErrIterationLimit = errors.New("agentkit: iteration limit reached without an answer")
	// ErrLoopDetected: the model repeated the same calls past Options.LoopStop.
	ErrLoopDetected = errors.New("agentkit: the model keeps repeating the same tool calls")
	// ErrNoChoices: the model's response had no choices. (A gateway's 200 that carries an
	// error object decodes so in go-openai: middleware.Transport makes it the error it is.)
	ErrNoChoices = errors.New("agentkit: model response has no choices")
	// ErrReplyTooLarge: the model's reply was larger than Options.MaxReplyBytes.
	ErrReplyTooLarge = errors.New("agentkit: model reply too large")
	// ErrEmptyMessage: the model's message had neither content nor tool calls.
	ErrEmptyMessage = errors.New("agentkit: model returned an empty message")
	// ErrInvalidHistory: a history failed ValidateHistory; the error also wraps the
	// *HistoryError with the details.
	ErrInvalidHistory = errors.New("agentkit: invalid history")
)

// Result is the record of one run. Run never returns a nil Result: on every exit path it
// holds the transcript so far.
type Result struct {
	// Output is the final answer: the content of the model's last message when it answered.
	// Empty unless Stop is StopAnswered (or the final tool-free turn of
	// Options.FinalAnswerOnLimit produced text).
	Output string
	// Value is the typed final answer of a run with Options.Output: the validated value of
	// the type Output was built for (read it with ValueOf), and Output then holds its
	// canonical JSON. Nil when the run ended without one, and without Options.Output.
	Value any
	// Messages is the whole transcript: the system prompt, the input, every model message and
	// every tool result. It is always provider-valid (see ValidateHistory), so it can be sent
	// again to continue the conversation. It never holds BudgetExhaustedPrompt, which only the
	// final request of Options.FinalAnswerOnLimit carries (EventModelRequest shows
	// it). For a RunSession that loaded only the latest turns (see RunSession), it holds what
	// was loaded and what the run added: see Omitted.
	Messages []openai.ChatCompletionMessage
	// New is the index in Messages of the first message this run added (after the system
	// prompt and the input history).
	New int
	// Omitted is, for a RunSession, the number of the session's messages its Memory left out
	// of Messages (see RecentLoader): they belong right after the first user message. Zero
	// for other runs, and when the whole session was loaded.
	Omitted int
	// Steps has one entry per model call, in order.
	Steps []Step
	// Usage sums the token usage the model reported over all steps. A resumed run's
	// (Agent.Resume) includes the paused run's too, whose steps it does not hold: count a
	// run that paused by its last Result, not by the sum of its Results.
	Usage Usage
	// Cost is the run's cost: every model call's (Options.Prices) and what its tool calls
	// reported (ReportCost). Like Usage, a resumed run's includes the paused run's. When a
	// model call could not be priced, Cost.Known is false and Amount is a lower bound.
	Cost Cost
	// Limit is the limit of the run's Budget that was exhausted, when one was (Stop is then
	// StopBudget, unless the final request of Options.FinalAnswerOnLimit failed); empty
	// otherwise.
	Limit BudgetLimit
	// Iterations is the number of model calls made (by a resumed run, the paused run's
	// included).
	Iterations int
	// Stop says why the run ended.
	Stop StopReason
	// Pause is the state of a paused run (Stop is StopPaused), for Agent.Resume; nil
	// otherwise.
	Pause *Pause
}

// Step is one model call and the tool calls of its reply.
type Step struct {
	// Iteration counts model calls from 1.
	Iteration int
	// Message is the model's message as received (before any normalization).
	Message openai.ChatCompletionMessage
	// FinishReason is the choice's finish_reason.
	FinishReason openai.FinishReason
	// Usage is the token usage of this call.
	Usage Usage
	// Cost is this call's cost under Options.Prices: unknown (Cost.Unknown 1) when the
	// table has no price for its model. The cost its tool calls reported is theirs
	// (CallRecord.Cost).
	Cost Cost
	// Duration is the model call's latency.
	Duration time.Duration
	// Calls are the tool calls of Message, in emission order, with their results.
	Calls []CallRecord
}

// CallRecord is one executed (or refused) tool call.
type CallRecord struct {
	// Call is the call as the model emitted it (the raw arguments included). Call.Tool is nil
	// when the model named an unknown tool.
	Call tool.Call
	// Result is the full result: its Content is what the model read; its Value is the typed
	// output; Kind, Err and Repair say what went wrong or was fixed; Original the untruncated
	// content when a middleware shortened it.
	Result tool.Result
	// Cost is what the call reported with ReportCost (a paid API's price); zero when it
	// reported none.
	Cost Cost
	// Duration is the time the call took through the middleware chain.
	Duration time.Duration
}
