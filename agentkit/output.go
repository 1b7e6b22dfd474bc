package agentkit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// OutputMode says how a run asks the model for its typed final answer ([Output]).
type OutputMode string

// The ways to ask for a typed answer. Which providers take which is in the README
// ("Typed answers").
const (
	// OutputTool offers an output tool (OutputOptions.Name, "final_answer" by default) beside
	// the agent's tools, whose arguments are the answer: calling it with valid arguments ends
	// the run. It needs nothing but tool calling, which every server an agent runs on has, so
	// it is the default. The tool is never forced (tool_choice stays as Options.ToolChoice
	// says: several servers reject "required"). A reply that answers in text instead is read
	// as the answer too, and when it is not a valid one the model is told to call the tool.
	OutputTool OutputMode = "tool"
	// OutputNative sends the provider's response_format {"type": "json_schema"} with T's
	// schema (strict when OutputOptions.Strict): the model's text answer is the JSON.
	OutputNative OutputMode = "native"
	// OutputPrompt asks for the JSON in the system prompt, the schema included: for servers
	// that take neither response_format nor tools well. The Context strategy sees that
	// system prompt, so a token budget (memory.Window's) counts the schema; in the other
	// modes the schema is a tool definition or the response_format, which a budget of
	// messages does not count (leave room for it as for the tools).
	OutputPrompt OutputMode = "prompt"
)

// DefaultOutputName is the name of the output tool, and of the response_format schema,
// when OutputOptions.Name is empty.
const DefaultOutputName = "final_answer"

// OutputOptions configures a typed answer. A nil *OutputOptions, or the zero value, is
// valid: every field documents its default.
type OutputOptions struct {
	// Mode is how the model is asked for the answer. Empty means OutputTool.
	Mode OutputMode
	// Name names the output tool (OutputTool) and the schema of response_format
	// (OutputNative): ^[a-zA-Z0-9_-]{1,64}$, and no tool of the agent's may have it. Empty
	// means DefaultOutputName.
	Name string
	// Description is the output tool's description (OutputTool), or the schema's
	// (OutputNative). Empty means one that tells the model to give its final answer with the
	// tool, or "The final answer.".
	Description string
	// Strict makes T's schema an OpenAI strict-mode schema (as tool.Options.Strict does) and
	// sends strict: true with it, in the output tool's definition or in response_format.
	// Strict mode requires every property and allows no other: T's optional fields (pointers,
	// omitempty, omitzero) become required and nullable, the model sends null for the ones it
	// leaves empty, and they decode to their zero value. A T that cannot be strict (a map)
	// makes Output panic. Default false: optional fields stay optional. Prompt mode sends no
	// strict flag (there is none to send); the answer is validated the same in every mode.
	Strict bool
	// MaxBytes caps the size in bytes of the answer's text. Zero means
	// tool.DefaultArgumentLimit (64 KiB).
	MaxBytes int
}

// OutputSpec is a typed final answer, built by [Output] and set in Options.Output. It is
// immutable and may be shared by Agents.
type OutputSpec struct {
	mode   OutputMode
	t      *tool.Tool // T's schema, and the stages an answer goes through
	format *openai.ChatCompletionResponseFormat
	prompt string // the instructions of prompt mode
}

// Output returns the spec of a typed final answer of type T: set it in Options.Output, run
// as usual, and read the answer with [ValueOf]. T's JSON Schema is reflected once, here, as
// tool.New reflects a tool's input (T must be a struct, or a pointer to one; its struct
// tags describe it). Output panics, as tool.New does, when T cannot be described or
// OutputOptions.Name is not a valid name.
//
// The run calls tools as usual. Its answer — the output tool's arguments, or the text of
// the final reply — goes through the stages a tool's arguments go through (repair, parse,
// validate, decode: see package tool), so that the T the Result holds is exactly the value
// that was validated. An answer that fails is sent back to the model with what is wrong — a
// tool result in tool mode, a user message otherwise — and the run goes on within
// Options.MaxIterations; a run whose model answered but never validly ends with an error
// wrapping ErrOutputInvalid and why the last answer was refused (see ErrOutputInvalid); one
// that only called tools until a limit, with the limit's error alone. In tool mode, the
// other calls of the reply that calls the output tool run too, and the run ends after them
// with the answer; a reply that calls the output tool more than once gives the first valid
// answer, in the order of its calls. In native and prompt mode, likewise, a reply that
// calls tools and holds a valid answer in its text ends the run after its calls (Cerebras's
// GLM answers so); text beside calls that is no valid answer is neither taken nor sent
// back.
//
// With Options.FinalAnswerOnLimit, the final tool-free request still asks for T: in native
// and prompt mode as every request does; in tool mode, where tool_choice "none" forbids the
// output tool, that request asks for the JSON as prompt mode does, in its last message. A
// server that calls the output tool anyway gets that call run (it changes nothing) and its
// answer validated like a text one: a valid answer ends the run; the reply's other calls
// are not run.
//
// An answer in a reply cut short (finish_reason length or content_filter) is refused and
// sent back: it may be incomplete even when it parses.
//
// Streamed runs emit EventOutputPartial events with the answer so far, as parseable JSON.
func Output[T any](opts *OutputOptions) *OutputSpec {
	var o OutputOptions
	if opts != nil {
		o = *opts
	}
	if o.Mode == "" {
		o.Mode = OutputTool
	}
	switch o.Mode {
	case OutputTool, OutputNative, OutputPrompt:
	default:
		panic(fmt.Sprintf("agentkit.Output: unknown OutputMode %q", o.Mode))
	}
	if o.Name == "" {
		o.Name = DefaultOutputName
	}
	switch {
	case o.Description != "":
	case o.Mode == OutputTool:
		o.Description = "Give your final answer with this tool, once you have everything you need: its arguments are the answer. Call it instead of answering in text."
	default:
		o.Description = "The final answer."
	}
	t := tool.New(o.Name, o.Description, func(ctx context.Context, in T) (accepted, error) {
		call, _ := tool.CallFromContext(ctx)
		return accepted{in, call.Arguments}, nil
	}, tool.Options{Strict: o.Strict, Sequential: true, ArgumentLimit: o.MaxBytes,
		// It changes nothing: middleware that asks approval for destructive tools, or for
		// an open world, lets it pass.
		Annotations: tool.Annotations{Title: "Final answer", ReadOnly: true, OpenWorld: new(false)}})
	s := &OutputSpec{mode: o.Mode, t: t}
	s.prompt = "Give your final answer as one JSON object that matches the JSON Schema below, and nothing else: no prose and no markdown fence around it.\nJSON Schema: " + string(t.Parameters())
	if o.Mode == OutputNative {
		s.format = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: o.Name, Description: o.Description, Schema: t.Parameters(), Strict: o.Strict,
			},
		}
	}
	return s
}

// Mode returns how the answer is asked for.
func (s *OutputSpec) Mode() OutputMode { return s.mode }

// Schema returns T's JSON Schema as it is sent (the strict form when OutputOptions.Strict).
// The caller must not modify it.
func (s *OutputSpec) Schema() []byte { return s.t.Parameters() }

// ValueOf returns the typed final answer of a run whose Options.Output was Output[T]: the
// validated value, and true; or T's zero value and false when the run ended without one
// (res.Value is nil: see the run's error) or res is nil. It panics when res.Value holds
// another type than T: the spec and the call disagree, a programming error.
func ValueOf[T any](res *Result) (T, bool) {
	var zero T
	if res == nil || res.Value == nil {
		return zero, false
	}
	v, ok := res.Value.(T)
	if !ok {
		panic(fmt.Sprintf("agentkit.ValueOf: the run's answer is a %T, not a %T", res.Value, zero))
	}
	return v, true
}

// ErrOutputInvalid: the run ended without a valid typed answer although the model answered
// (Options.Output). Either its last answer did not match T's schema, within the iteration
// limit or the run's budget: the error also wraps ErrIterationLimit (or ErrBudgetExhausted,
// or ErrLoopDetected when the model sent the same refused output tool call until the loop
// guard stopped the run) and why the last answer was refused: its *tool.ArgumentError
// (errors.As) when it broke the schema or was cut off, or a middleware's refusal of the
// output tool call. Or the model refused to answer (a reply with a refusal and no content, as
// OpenAI's structured outputs send one): the run stops at once with StopModelError, the
// refusal in the error's text and in the transcript.
var ErrOutputInvalid = errors.New("agentkit: the model's answer does not match the output schema")

// EventOutputPartial: a streamed run's typed answer so far (Options.Output), as it arrives
// — the text of the reply, or the output tool's arguments — repaired into parseable JSON
// (an unfinished string or object closed): Text. It is not validated and may lack fields
// the final answer has; the final one is validated and in Result.Value. Emitted each time
// the answer grew by a quarter (by 32 bytes at first), and when the model's message ends;
// past 8 KiB of answer only then, and only when the answer is JSON as it came (repairing
// more could take seconds).
const EventOutputPartial EventKind = "output_partial"

// outputAccepted is what the model reads when the output tool took its answer.
const outputAccepted = "Final answer received."

// accepted is the output tool's result: the decoded answer, and what the model reads.
type accepted struct {
	v    any
	args string // the arguments the tool ran with, which middleware may have changed
}

func (accepted) ToolContent() string { return outputAccepted }

// parse runs an answer's text through the stages, returning the decoded value and the
// canonical JSON of it.
func (s *OutputSpec) parse(ctx context.Context, text string) (any, string, error) {
	args, _, err := s.t.Arguments(text)
	if err != nil {
		return nil, "", err
	}
	// Not canceled with the run: the output tool's function only returns its input, and an
	// answer received before a cancellation is still the answer.
	res := s.t.Handle(context.WithoutCancel(ctx), tool.Call{Name: s.t.Name(), Arguments: text})
	a, ok := res.Value.(accepted)
	if res.Err != nil || !ok { // Handle of an answer Arguments accepted: a bug
		return nil, "", fmt.Errorf("agentkit: the output's stages disagree: %v", res.Err)
	}
	return a.v, string(args), nil
}

// outputPrompt returns the messages of a request with, in prompt mode, the instructions
// and schema at the end of the system prompt; msgs is not modified. They are added before
// the Context strategy sees the messages, so that a token budget counts them.
func (r *run) outputPrompt(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if s := r.a.opts.Output; s != nil && s.mode == OutputPrompt {
		return withSystemText(msgs, s.prompt)
	}
	return msgs
}

// outputRequest sets what req needs to ask for the typed answer, besides outputPrompt.
func (r *run) outputRequest(req *openai.ChatCompletionRequest, final bool) {
	s := r.a.opts.Output
	switch {
	case s == nil:
	case s.mode == OutputNative:
		req.ResponseFormat = s.format
	case s.mode == OutputPrompt:
	case final: // tool mode, in a request that may not call tools
		n := len(req.Messages) - 1
		req.Messages = append(req.Messages[:n:n], req.Messages[n])
		req.Messages[n].Content += "\n\n" + s.prompt
	}
}

// withSystemText returns msgs with text at the end of their system prompt, or in one of
// its own first; msgs is not modified.
func withSystemText(msgs []openai.ChatCompletionMessage, text string) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs)+1)
	if !hasSystemPrompt(msgs) {
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: text})
		return append(out, msgs...)
	}
	out = append(out, msgs...)
	m := &out[0]
	if len(m.MultiContent) > 0 {
		m.MultiContent = append(m.MultiContent[:len(m.MultiContent):len(m.MultiContent)], openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: text})
	} else {
		m.Content += "\n\n" + text
	}
	return out
}

// outputAnswered takes a reply without tool calls as the typed answer. It returns ok false
// when the agent has no Output; otherwise why the run stops, or "" for another iteration,
// after a user message that tells the model what was wrong.
//
// limit is why this request is the run's final, tool-free one (the iteration limit or the
// budget, see run.over), with limitErr its error; "" otherwise.
func (r *run) outputAnswered(ctx context.Context, iter int, msg openai.ChatCompletionMessage, limit StopReason, limitErr error) (ok bool, stop StopReason, err error) {
	s := r.a.opts.Output
	if s == nil {
		return false, "", nil
	}
	if msg.Refusal != "" && answer(msg) == msg.Refusal { // OpenAI's refusal: asking again gets another
		return true, StopModelError, fmt.Errorf("%w: the model refused to answer: %s", ErrOutputInvalid, msg.Refusal)
	}
	v, canon, perr := r.textAnswer(ctx, answer(msg))
	if perr == nil {
		return true, r.outputDone(ctx, iter, v, canon, limit), nil
	}
	r.outErr = perr
	if limit != "" {
		return true, limit, limitErr // finish wraps it with outErr
	}
	if !r.a.opts.FinalAnswerOnLimit {
		// No request follows when the next is past a limit: the run stops now rather than
		// with the correction last in its transcript, where the next turn of its session
		// would put two user messages in a row (chat templates that require user and
		// assistant turns to alternate refuse that).
		if next, nextErr := r.over(iter + 1); next != "" {
			return true, next, nextErr
		}
	}
	r.res.Messages = append(r.res.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s.correction(perr)})
	r.emit(ctx, Event{Kind: EventStepEnd, Iteration: iter})
	return true, "", nil
}

// textAnswer runs the text of the reply last received through the stages, as the typed
// answer.
func (r *run) textAnswer(ctx context.Context, text string) (any, string, error) {
	s := r.a.opts.Output
	if cut := r.cutAnswer(); cut != nil {
		// Repaired (closing brackets added), a cut answer could pass with fields missing.
		return nil, "", cut
	}
	if strings.TrimSpace(text) == "null" {
		// null is no arguments to a tool ({}), but no answer in a text: not T's zero value.
		return nil, "", &tool.ArgumentError{Tool: s.t.Name(), Kind: tool.KindInvalidJSON, Detail: "expected one JSON object, got null"}
	}
	return s.parse(ctx, text)
}

// cutAnswer is the error of an answer in the text of a reply cut short (finish_reason
// length or content_filter), which may be incomplete; nil for a reply that finished.
func (r *run) cutAnswer() error {
	var finish openai.FinishReason
	if n := len(r.res.Steps); n > 0 {
		finish = r.res.Steps[n-1].FinishReason
	}
	var why string
	switch finish {
	case openai.FinishReasonLength:
		why = "your reply was cut off at its length limit (finish_reason length), so the answer may be incomplete: give a shorter one"
	case openai.FinishReasonContentFilter:
		why = "your reply was stopped by the provider's content filter (finish_reason content_filter), so the answer may be incomplete"
	default:
		return nil
	}
	return &tool.ArgumentError{Tool: r.a.opts.Output.t.Name(), Kind: tool.KindInvalidJSON, Detail: why}
}

// answersOnLimit says whether call i of the final tool-free turn (final) runs although the
// turn's calls do not: the first call of the output tool, from a server that ignored
// tool_choice "none". It changes nothing, and its answer is validated as a text answer of
// that turn would be, so a valid one is taken (see outputOnLimit).
func (r *run) answersOnLimit(final bool, calls []tool.Call, i int) bool {
	return final && r.isAnswer(calls[i].Name) && slices.IndexFunc(calls, func(c tool.Call) bool { return r.isAnswer(c.Name) }) == i
}

// outputOnLimit is the stop of a turn that stopped the run (stop, err), unless it is the
// final tool-free turn and its output tool call (answersOnLimit) was accepted: the run then
// ends with the answer, as after a text one.
func (r *run) outputOnLimit(ctx context.Context, iter int, recs []CallRecord, stop StopReason, err error) (StopReason, error) {
	if stop == StopIterationLimit || stop == StopBudget { // the final turn (judge), not a loop's stop
		if s := r.outputCalled(ctx, iter, recs, stop); s != "" {
			return s, nil
		}
	}
	return stop, err
}

// outputCalled ends the run when a turn's output tool call was accepted, and remembers why
// one was refused. Calls of the same turn ran too; their results are in the transcript.
// limit, when the turn is the final tool-free one of Options.FinalAnswerOnLimit, is why (as
// for outputAnswered); "" otherwise.
func (r *run) outputCalled(ctx context.Context, iter int, recs []CallRecord, limit StopReason) StopReason {
	s := r.a.opts.Output
	switch {
	case s == nil:
		return ""
	case s.mode != OutputTool:
		return r.outputBeside(ctx, iter, len(recs), limit)
	}
	for _, c := range recs {
		if !r.isAnswer(c.Call.Name) {
			continue
		}
		if c.Result.Err != nil || c.Result.Failed() {
			r.refused(c.Result)
			continue
		}
		// The arguments the tool ran with, which middleware may have rewritten, parsed again
		// rather than taken from the result's Value: a resumed turn's result (see Pause)
		// keeps neither.
		args := c.Call.Arguments
		if a, ok := c.Result.Value.(accepted); ok {
			args = a.args
		}
		if v, canon, err := s.parse(ctx, args); err == nil {
			return r.outputDone(ctx, iter, v, canon, limit)
		}
	}
	return ""
}

// outputBeside ends the run, in native and prompt mode, when the reply whose n calls ran
// also held a valid answer in its text — as Cerebras's GLM answers, calling again the tool
// it called before — as in tool mode the output tool's call ends the run after the reply's
// other calls. Text that is no valid answer ("Let me look that up.") is not one, and is not
// sent back: the model was not done.
func (r *run) outputBeside(ctx context.Context, iter, n int, limit StopReason) StopReason {
	msg := r.res.Messages[len(r.res.Messages)-n-1] // the reply, before its calls' results
	text := answer(msg)
	if strings.TrimSpace(text) == "" {
		return ""
	}
	v, canon, err := r.textAnswer(ctx, text)
	if err != nil {
		return ""
	}
	return r.outputDone(ctx, iter, v, canon, limit)
}

// refused remembers why an output tool call was refused. A refusal that did not judge the
// answer (the loop guard's, of a call that repeats one refused before; a call not executed
// or canceled) does not replace the reason an earlier answer was refused for.
func (r *run) refused(res tool.Result) {
	switch {
	case r.outErr != nil && (res.Kind == tool.KindLoop || res.Kind == tool.KindNotExecuted || res.Kind == tool.KindCanceled):
	case res.Err != nil:
		r.outErr = res.Err
	default: // a middleware's failure without an error
		r.outErr = errors.New(res.Content)
	}
}

// outputDone records the accepted answer; limit is as for outputAnswered.
func (r *run) outputDone(ctx context.Context, iter int, v any, canon string, limit StopReason) StopReason {
	r.res.Value, r.res.Output, r.outErr = v, canon, nil
	r.emit(ctx, Event{Kind: EventAnswer, Iteration: iter, Text: canon})
	if limit != "" {
		return limit
	}
	return StopAnswered
}

// outputError is err, for a run that stops on it, wrapped with ErrOutputInvalid and the
// last answer's error when the model's last answer was refused.
func (r *run) outputError(err error) error {
	if r.outErr == nil || !errors.Is(err, ErrIterationLimit) && !errors.Is(err, ErrBudgetExhausted) && !errors.Is(err, ErrLoopDetected) {
		return err
	}
	if ae, ok := r.outErr.(*tool.ArgumentError); ok {
		return fmt.Errorf("%w: %w; the last answer %w", ErrOutputInvalid, err, answerError{ae})
	}
	return fmt.Errorf("%w: %w; the last answer: %w", ErrOutputInvalid, err, r.outErr)
}

// answerError is an answer's *tool.ArgumentError said for the caller of the run, in one
// line: its own message is written for the model ("call the tool again").
type answerError struct{ ae *tool.ArgumentError }

func (e answerError) Error() string {
	if e.ae.Kind == tool.KindInvalidJSON {
		return "is not a valid JSON object: " + e.ae.Detail
	}
	return "does not match the schema: " + strings.Join(violations(e.ae), "; ")
}

// violations says what an answer's violations are, one line each: the first 20, then how
// many more.
func violations(ae *tool.ArgumentError) []string {
	var lines []string
	for i, v := range ae.Violations {
		if i == 20 {
			return append(lines, fmt.Sprintf("and %d more", len(ae.Violations)-i))
		}
		lines = append(lines, cmp.Or(v.Path, "(answer)")+": "+v.Message)
	}
	return lines
}

func (e answerError) Unwrap() error { return e.ae }

// correction is the user message that sends a refused text answer back to the model.
func (s *OutputSpec) correction(err error) string {
	var b strings.Builder
	var ae *tool.ArgumentError
	switch {
	case !errors.As(err, &ae):
		b.WriteString("Your answer was refused: " + err.Error() + ".")
	case ae.Kind == tool.KindInvalidJSON:
		b.WriteString("Your answer is not a valid JSON object")
		if ae.Detail != "" {
			b.WriteString(": " + ae.Detail)
		}
		b.WriteString(".")
	default:
		b.WriteString("Your answer does not match the schema:")
		for _, line := range violations(ae) {
			b.WriteString("\n- " + line)
		}
	}
	if s.mode == OutputTool {
		b.WriteString("\nGive your final answer by calling the tool " + s.t.Name() + ", with the answer as its arguments.")
	} else {
		b.WriteString("\nAnswer again with only the corrected JSON object.")
	}
	return b.String()
}
