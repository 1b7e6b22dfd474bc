package agentkit

import (
	"cmp"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// DeltaKind says what a [Delta] reports.
type DeltaKind string

// The kinds of Delta an [Assembler] returns.
const (
	// DeltaText: a fragment of the answer's content (Text).
	DeltaText DeltaKind = "text"
	// DeltaReasoning: a fragment of the model's reasoning (Text), from reasoning_content
	// (DeepSeek, llama.cpp, vLLM). It is kept apart from the content.
	DeltaReasoning DeltaKind = "reasoning"
	// DeltaRefusal: a fragment of a refusal (Text).
	DeltaRefusal DeltaKind = "refusal"
	// DeltaToolCallStart: the model began tool call Call; its name (and id, when the
	// provider sends one) is known: see [Assembler.Call].
	DeltaToolCallStart DeltaKind = "tool_call_start"
	// DeltaToolCallDone: the arguments of tool call Call are complete and final; the call may
	// be executed while the rest of the message streams in.
	DeltaToolCallDone DeltaKind = "tool_call_done"
)

// Delta is one thing a chunk revealed.
type Delta struct {
	Kind DeltaKind
	// Text is the fragment of a DeltaText, DeltaReasoning or DeltaRefusal. A fragment may end
	// or begin inside a multi-byte UTF-8 character when the provider split one.
	Text string
	// Call is the position of the tool call in the assembled message's ToolCalls (the order
	// in which the calls began), for DeltaToolCallStart and DeltaToolCallDone.
	Call int
}

// Assembler rebuilds one assistant message from the chunks of a stream. The zero value is
// ready to use; use a new one for each message. It is not safe for concurrent use.
//
// The rules below follow what providers were recorded doing (../shared/recordings).
//
// Chunks and choices:
//   - Only the choice with index 0 is read (the loop never asks for n > 1). Chunks without
//     choices are normal: Azure's prompt-filter chunk comes first, with an empty id; the
//     usage chunk of stream_options.include_usage comes last. A usage is taken from any
//     chunk that has one (DeepSeek and Groq put it on the finish chunk, Groq repeats it in
//     a usage chunk); the last one wins.
//   - The role comes on the first chunk only, or never (assistant is assumed).
//   - finish_reason is null until the end, may arrive on a chunk that still carries a
//     fragment, and may be sent twice: the last non-empty value wins. It does not close any
//     call by itself: a duplicate or early finish chunk cannot cut a call short.
//   - Content, reasoning_content and refusal are accumulated as bytes: fragments may split
//     a UTF-8 character and are never decoded as runes. (go-openai names the reasoning
//     field ReasoningContent; providers that call it "reasoning" are not decoded by
//     go-openai and their reasoning is lost.)
//
// Tool calls: which call a tool_calls entry extends. The "latest call" of an entry is the
// latest call with the same index or, for an entry without index (go-openai's
// ToolCall.Index is nil), the latest call of all. The index is a key, not a position: the
// first may be 3, and indexes may interleave (0, 1, 0, 1).
//   - The id and name come on the first entry of a call only; later entries carry argument
//     fragments and the index. Type is assumed "function". Arguments are concatenated
//     byte for byte, split anywhere.
//   - An entry whose id is already known extends the call with that id, whatever its
//     index says — unless it names a function at an explicit index other than that call's:
//     then it begins a new call, for providers that reuse an id within one message (the
//     loop gives the calls unique ids).
//   - An entry with a new id begins a new call, even at an index already used (providers
//     that reuse index 0 for every call) — unless it has no name: then it extends its
//     latest call (an id that arrives late, or a proxy that mints an id per chunk).
//   - An entry without id extends its latest call, or begins a call when there is none, or
//     when it names a function and its latest call already has a name: a different one
//     with an index (a call does not change its name, so a repeated name is ignored), any
//     one without an index (nothing else tells two calls apart) — or the same one, when the
//     latest call's arguments are a complete object and the entry begins another ({).
//   - A call keeps the first non-empty name and id it received. A call with no id keeps
//     none: the loop assigns one. The legacy function_call delta is ignored.
//
// When a call is done: its arguments are final and it may start running.
//   - When a later call has begun and the call's arguments are a complete JSON object.
//     No byte can legally extend a complete object, so this is safe even when a provider
//     interleaves calls; arguments that are not (yet) a complete object — a fragment cut
//     short by an interleaved call, empty arguments, a markdown fence — keep the call
//     open until they complete or the message ends.
//   - Otherwise at [Assembler.Finish], in the order the calls began, whatever their
//     arguments: a call whose arguments are not valid JSON is still returned, and the loop
//     repairs or refuses them.
//   - A fragment for a call already done is dropped (it could only make a complete object
//     invalid, and the call may already be running with the arguments it had).
//
// Every call gets exactly one DeltaToolCallStart and, later, one DeltaToolCallDone. Start
// is returned as soon as the name is known (the call's first entry, normally), at the
// latest just before its Done.
type Assembler struct {
	role      string
	content   []byte
	reasoning []byte
	refusal   []byte
	calls     []asmCall
	finish    openai.FinishReason
	usage     openai.Usage
	hasUsage  bool
	dropped   int
	extras    *openai.FunctionCall // the provider extras a chunk carried (see ProviderExtras)
}

// asmCall is a tool call being assembled.
type asmCall struct {
	index   int // the provider's index; -1 when it sent none
	id      string
	name    string
	args    []byte
	started bool // DeltaToolCallStart returned
	done    bool // DeltaToolCallDone returned
}

// Add consumes one chunk and appends to dst what it revealed, in order, and returns the
// extended slice. It does not keep chunk or its slices.
func (a *Assembler) Add(dst []Delta, chunk openai.ChatCompletionStreamResponse) []Delta {
	if chunk.Usage != nil {
		a.usage, a.hasUsage = *chunk.Usage, true
	}
	for i := range chunk.Choices {
		c := &chunk.Choices[i]
		if c.Index != 0 {
			continue
		}
		d := &c.Delta
		if a.role == "" && d.Role != "" {
			a.role = d.Role
		}
		if d.ReasoningContent != "" {
			a.reasoning = append(a.reasoning, d.ReasoningContent...)
			dst = append(dst, Delta{Kind: DeltaReasoning, Text: d.ReasoningContent})
		}
		if d.Content != "" {
			a.content = append(a.content, d.Content...)
			dst = append(dst, Delta{Kind: DeltaText, Text: d.Content})
		}
		if d.Refusal != "" {
			a.refusal = append(a.refusal, d.Refusal...)
			dst = append(dst, Delta{Kind: DeltaRefusal, Text: d.Refusal})
		}
		for k := range d.ToolCalls {
			dst = a.addCall(dst, &d.ToolCalls[k])
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
		if isExtras(d.FunctionCall) {
			fc := *d.FunctionCall
			a.extras = &fc
		}
	}
	return dst
}

// addCall routes one tool_calls entry to its call.
func (a *Assembler) addCall(dst []Delta, tc *openai.ToolCall) []Delta {
	k := a.route(tc)
	if k < 0 {
		index := -1
		if tc.Index != nil {
			index = *tc.Index
		}
		// A new call: the calls before it that are complete are done.
		for j := range a.calls {
			if c := &a.calls[j]; !c.done && completeObject(c.args) {
				dst = a.markDone(dst, j)
			}
		}
		k = len(a.calls)
		a.calls = append(a.calls, asmCall{index: index})
	}
	c := &a.calls[k]
	if c.id == "" && tc.ID != "" {
		c.id = tc.ID
	}
	if c.name == "" && tc.Function.Name != "" {
		c.name = tc.Function.Name
	}
	if !c.started && c.name != "" {
		c.started = true
		dst = append(dst, Delta{Kind: DeltaToolCallStart, Call: k})
	}
	switch frag := tc.Function.Arguments; {
	case frag == "":
	case c.done:
		a.dropped++
	default:
		c.args = append(c.args, frag...)
		// An interleaved call whose arguments just completed, with a later call begun.
		if k < len(a.calls)-1 && completeObject(c.args) {
			dst = a.markDone(dst, k)
		}
	}
	return dst
}

// route returns the call tc extends, or -1 when tc begins a new call.
func (a *Assembler) route(tc *openai.ToolCall) int {
	cand := len(a.calls) - 1 // without an index: the latest call
	if tc.Index != nil {
		cand = -1
		for j := len(a.calls) - 1; j >= 0; j-- {
			if a.calls[j].index == *tc.Index {
				cand = j
				break
			}
		}
	}
	if tc.ID != "" {
		for j := len(a.calls) - 1; j >= 0; j-- {
			if a.calls[j].id != tc.ID {
				continue
			}
			if tc.Index != nil && *tc.Index != a.calls[j].index && tc.Function.Name != "" {
				break // the id again, at another index, with a name: a provider reusing ids
			}
			return j
		}
		if cand >= 0 && tc.Function.Name == "" {
			return cand // a late id, or an id minted per chunk
		}
		return -1
	}
	if cand < 0 {
		return -1
	}
	if name, has := tc.Function.Name, a.calls[cand].name; name != "" && has != "" && (tc.Index == nil || name != has) {
		return -1 // no id: a (different) name begins a call
	}
	if tc.Function.Name != "" && completeObject(a.calls[cand].args) && strings.HasPrefix(strings.TrimSpace(tc.Function.Arguments), "{") {
		return -1 // no id, the same name again with a new object: its call was complete
	}
	return cand
}

func (a *Assembler) markDone(dst []Delta, k int) []Delta {
	c := &a.calls[k]
	if !c.started {
		c.started = true
		dst = append(dst, Delta{Kind: DeltaToolCallStart, Call: k})
	}
	c.done = true
	return append(dst, Delta{Kind: DeltaToolCallDone, Call: k})
}

// completeObject reports whether b is a complete JSON object: nothing but whitespace may
// follow it.
func completeObject(b []byte) bool { return isJSONObject(string(b)) }

// Call returns tool call i as assembled so far: its id (empty when the provider sent none),
// name and arguments. The arguments are final once a DeltaToolCallDone for i was returned.
// The result has type "function" and no index. Call panics when i is out of range.
func (a *Assembler) Call(i int) openai.ToolCall {
	c := &a.calls[i]
	return openai.ToolCall{
		ID:       c.id,
		Type:     openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: c.name, Arguments: string(c.args)},
	}
}

// Finish is called after the stream's normal end (io.EOF). It closes the calls not yet done
// — appending their DeltaToolCallStart, when not returned yet, and DeltaToolCallDone, in the
// order the calls began — and returns the message, the finish_reason (empty when no chunk
// carried one) and the usage (nil when no chunk carried one).
//
// The message has role assistant (or the role the stream announced), the content, the
// reasoning in ReasoningContent, the refusal, and the tool calls in the order they began,
// each with type "function", no index, the id as received (possibly empty) and the
// arguments as received, valid JSON or not, and the [ProviderExtras] a chunk carried (the
// last one that did). The message shares no memory with the Assembler.
func (a *Assembler) Finish(dst []Delta) ([]Delta, openai.ChatCompletionMessage, openai.FinishReason, *openai.Usage) {
	for k := range a.calls {
		if !a.calls[k].done {
			dst = a.markDone(dst, k)
		}
	}
	msg := a.text()
	if a.extras != nil {
		fc := *a.extras
		msg.FunctionCall = &fc
	}
	if len(a.calls) > 0 {
		msg.ToolCalls = make([]openai.ToolCall, len(a.calls))
		for k := range a.calls {
			msg.ToolCalls[k] = a.Call(k)
		}
	}
	var usage *openai.Usage
	if a.hasUsage {
		u := a.usage
		usage = &u
	}
	return dst, msg, a.finish, usage
}

// Partial returns what a stream that failed (cut, or ended by an error event) delivered: the
// message with the content, reasoning and refusal received so far and NO tool calls, and the
// number of tool calls that began and are left out.
//
// No call is kept, not even one whose arguments were complete: the provider never finished
// the message, so its calls were never confirmed, and a transcript without them needs no
// tool results to stay valid. A loop that started done calls early must cancel them (or
// discard their results) and must not record them. A half-received call is never executed.
func (a *Assembler) Partial() (msg openai.ChatCompletionMessage, lost int) {
	return a.text(), len(a.calls)
}

func (a *Assembler) text() openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{
		Role:             cmp.Or(a.role, openai.ChatMessageRoleAssistant),
		Content:          string(a.content),
		ReasoningContent: string(a.reasoning),
		Refusal:          string(a.refusal),
	}
}

// Dropped returns how many argument fragments arrived for calls already done and were
// dropped: zero for a well-behaved provider. For logs.
func (a *Assembler) Dropped() int { return a.dropped }
