package agentkit

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// RepairHistory returns a copy of msgs that passes [ValidateHistory], and one line per
// change it made, for logs. Message indexes in those lines are positions in msgs.
//
// It drops what cannot be mended and completes what is missing:
//
//   - Messages with an unknown or legacy "function" role, and system, developer, user or
//     assistant messages without content (an assistant message keeps its valid tool
//     calls), are dropped.
//   - The legacy FunctionCall field is removed (an assistant message keeps its
//     [ProviderExtras], and the extras of the tool calls it keeps); ToolCalls outside assistant messages and
//     ToolCallID outside tool messages are cleared; empty MultiContent parts are removed; a
//     Content set alongside MultiContent is moved into MultiContent as its first text part.
//   - A tool call without a function name is dropped, with its answer. A call whose type is
//     not "function" gets that type; arguments that are empty or not a JSON object become
//     "{}" (the original is lost, the log line says so). A call without an id, with one that
//     is not valid UTF-8, or with an id an earlier call already uses, gets a new id
//     "call_repaired_<message>_<call>".
//   - A tool block is the run of tool messages directly after an assistant message with
//     tool calls. Each of its messages answers the first not yet answered call whose
//     original id equals its ToolCallID (so an answer follows its call when the call's id
//     is replaced, and answers without an id pair up with calls without an id, in order);
//     a second answer to a call, and a tool message matching no call, are dropped. Answers
//     outside the block are orphans and are dropped too: the call they meant gets the
//     placeholder below. Tool messages that follow no assistant message with tool calls
//     are dropped.
//   - The block is rewritten in the calls' emission order, with a tool message of
//     content [NotExecutedContent] for each call without an answer; an answer without
//     content gets [tool.EmptyContent].
//
// RepairHistory is deterministic and idempotent: repairing its result changes nothing and
// reports no change. A valid history comes back equal, except that tool blocks are put in
// emission order. msgs is never modified; the result may share with it the slices
// (ToolCalls, MultiContent) of messages it did not change, so copy before modifying those.
func RepairHistory(msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, []string) {
	r := repairer{
		out:   make([]openai.ChatCompletionMessage, 0, len(msgs)),
		seen:  make(map[string]bool),
		taken: make(map[string]bool),
	}
	for i := range msgs {
		if msgs[i].Role == openai.ChatMessageRoleAssistant {
			for _, c := range msgs[i].ToolCalls {
				r.taken[c.ID] = true
			}
		}
	}
	for i := 0; i < len(msgs); {
		m := msgs[i]
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleDeveloper, openai.ChatMessageRoleUser:
			r.common(i, &m)
			if hasContent(&m, false) {
				r.out = append(r.out, m)
			} else {
				r.fix(i, "", "dropped the %s message: it has no content", m.Role)
			}
		case openai.ChatMessageRoleAssistant:
			r.common(i, &m)
			end := i + 1
			for end < len(msgs) && msgs[end].Role == openai.ChatMessageRoleTool {
				end++
			}
			if len(m.ToolCalls) > 0 {
				r.turn(i, m, msgs[i+1:end])
				i = end
				continue
			}
			if assistantHasContent(&m) {
				r.out = append(r.out, m)
			} else {
				r.fix(i, "", "dropped the assistant message: it has neither content nor tool calls")
			}
		case openai.ChatMessageRoleTool:
			r.fix(i, m.ToolCallID, "dropped the tool message: it does not follow an assistant message with tool calls")
		default:
			r.fix(i, "", "dropped the message: role %q is not supported", m.Role)
		}
		i++
	}
	return r.out, r.fixes
}

type repairer struct {
	out   []openai.ChatCompletionMessage
	fixes []string
	seen  map[string]bool // ids of the calls kept so far
	taken map[string]bool // every call id of the input, and every id given
}

func (r *repairer) fix(i int, id, format string, args ...any) {
	p := HistoryProblem{Index: i, CallID: id, Reason: fmt.Sprintf(format, args...)}
	r.fixes = append(r.fixes, p.String())
}

// common mends, in the copy m of message i, what every role shares (rules 1 and 8).
func (r *repairer) common(i int, m *openai.ChatCompletionMessage) {
	if slices.ContainsFunc(m.MultiContent, partEmpty) {
		r.fix(i, "", "removed the empty parts of MultiContent")
		m.MultiContent = nonEmptyParts(m.MultiContent)
	}
	if m.Content != "" && m.MultiContent != nil {
		if len(m.MultiContent) == 0 {
			r.fix(i, "", "removed an empty MultiContent set alongside Content")
			m.MultiContent = nil
		} else {
			r.fix(i, "", "moved Content into MultiContent: go-openai refuses to send both")
			m.MultiContent = append([]openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}, m.MultiContent...)
			m.Content = ""
		}
	}
	switch {
	case isExtras(m.FunctionCall) && m.Role != openai.ChatMessageRoleAssistant:
		r.fix(i, "", "removed the provider extras of a %s message", m.Role)
		m.FunctionCall = nil
	case m.FunctionCall != nil && !isExtras(m.FunctionCall):
		r.fix(i, "", "removed the legacy function_call")
		m.FunctionCall = nil
	}
	if m.Role != openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
		r.fix(i, "", "removed the tool calls of a %s message", m.Role)
		m.ToolCalls = nil
	}
	if m.Role != openai.ChatMessageRoleTool && m.ToolCallID != "" {
		r.fix(i, m.ToolCallID, "removed the tool_call_id of a %s message", m.Role)
		m.ToolCallID = ""
	}
}

// turnCall is a call of the assistant message being repaired.
type turnCall struct {
	orig    string // the id in the input, which its answers carry
	keep    bool   // false: dropped with its answer
	answer  int    // index in the block of its answer, or -1
	newCall int    // index in the repaired ToolCalls
}

// turn repairs the assistant message a = msgs[i], which has tool calls, and its block.
func (r *repairer) turn(i int, a openai.ChatCompletionMessage, block []openai.ChatCompletionMessage) {
	calls, tcs, changed := r.mendCalls(i, a.ToolCalls)
	r.matchAnswers(i, tcs, block)
	if changed {
		a = keptCallExtras(a, tcs, len(calls))
		a.ToolCalls = calls
	}
	if len(calls) == 0 {
		a.ToolCalls = nil
		if !assistantHasContent(&a) {
			r.fix(i, "", "dropped the assistant message: it has neither content nor valid tool calls")
			return
		}
	}
	r.out = append(r.out, a)
	r.writeBlock(i, calls, tcs, block)
}

// keptCallExtras returns a with the extras of its tool calls those of the n calls kept, in
// the order tcs gives them.
func keptCallExtras(a openai.ChatCompletionMessage, tcs []turnCall, n int) openai.ChatCompletionMessage {
	e, ok := Extras(a)
	if !ok || len(e.ToolCalls) != len(tcs) {
		return a
	}
	kept := make([]map[string]json.RawMessage, n)
	for c, tc := range tcs {
		if tc.keep {
			kept[tc.newCall] = e.ToolCalls[c]
		}
	}
	e.ToolCalls = kept
	if !slices.ContainsFunc(kept, func(x map[string]json.RawMessage) bool { return x != nil }) {
		e.ToolCalls = nil
	}
	return SetExtras(a, e)
}

// mendCalls repairs the tool calls of message i: it drops those without a name, and gives the
// others the type, arguments and unique id providers want. It returns the calls kept, what
// became of each call, and whether anything changed.
func (r *repairer) mendCalls(i int, in []openai.ToolCall) (calls []openai.ToolCall, tcs []turnCall, changed bool) {
	calls = make([]openai.ToolCall, 0, len(in))
	tcs = make([]turnCall, len(in))
	for c, call := range in {
		tcs[c] = turnCall{orig: call.ID, answer: -1, newCall: -1}
		if call.Function.Name == "" {
			r.fix(i, call.ID, "dropped tool call %d: it has no function name", c)
			changed = true
			continue
		}
		if call.Type != openai.ToolTypeFunction {
			r.fix(i, call.ID, `set the type %q of tool call %d to "function"`, call.Type, c)
			call.Type = openai.ToolTypeFunction
			changed = true
		}
		if call.Function.Arguments == "" {
			r.fix(i, call.ID, `set the empty arguments of tool call %d to "{}"`, c)
			call.Function.Arguments = "{}"
			changed = true
		} else if !isJSONObject(call.Function.Arguments) {
			r.fix(i, call.ID, `replaced the arguments of tool call %d, which were not a JSON object (%d bytes), with "{}"`, c, len(call.Function.Arguments))
			call.Function.Arguments = "{}"
			changed = true
		}
		if call.ID == "" || !utf8.ValidString(call.ID) || r.seen[call.ID] {
			id := r.newID(i, c)
			switch {
			case call.ID == "":
				r.fix(i, "", "gave tool call %d, which had no id, the id %q", c, id)
			case !utf8.ValidString(call.ID):
				r.fix(i, call.ID, "gave tool call %d, whose id is not valid UTF-8, the id %q", c, id)
			default:
				r.fix(i, call.ID, "gave tool call %d, whose id an earlier call uses, the id %q", c, id)
			}
			call.ID = id
			changed = true
		}
		r.seen[call.ID] = true
		tcs[c].keep, tcs[c].newCall = true, len(calls)
		calls = append(calls, call)
	}
	return calls, tcs, changed
}

// matchAnswers pairs each tool message of the block of message i with the first call not yet
// answered whose original id it carries, and reports the messages it drops.
func (r *repairer) matchAnswers(i int, tcs []turnCall, block []openai.ChatCompletionMessage) {
	for k := range block {
		t := &block[k]
		found, matched := -1, false
		for c := range tcs {
			if tcs[c].orig == t.ToolCallID {
				matched = true
				if tcs[c].answer < 0 {
					found = c
					break
				}
			}
		}
		switch {
		case found >= 0:
			tcs[found].answer = k
			if !tcs[found].keep {
				r.fix(i+1+k, t.ToolCallID, "dropped the tool message: its call was dropped")
			}
		case matched:
			r.fix(i+1+k, t.ToolCallID, "dropped the tool message: it answers a call already answered")
		default:
			r.fix(i+1+k, t.ToolCallID, "dropped the tool message: it answers no call of message %d", i)
		}
	}
}

// writeBlock writes the tool block of message i in the order of its calls: each call's answer,
// mended, or a NotExecutedContent placeholder for a call without one.
func (r *repairer) writeBlock(i int, calls []openai.ToolCall, tcs []turnCall, block []openai.ChatCompletionMessage) {
	last, reordered := -1, false
	for c := range tcs {
		tc := &tcs[c]
		if !tc.keep {
			continue
		}
		id := calls[tc.newCall].ID
		if tc.answer < 0 {
			r.fix(i, id, "added a tool message %q: the call had no answer", NotExecutedContent)
			r.out = append(r.out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: NotExecutedContent, ToolCallID: id})
			continue
		}
		if tc.answer < last {
			reordered = true
		}
		last = tc.answer
		k := i + 1 + tc.answer
		t := block[tc.answer]
		r.common(k, &t)
		if t.ToolCallID != id {
			r.fix(k, t.ToolCallID, "set the tool_call_id to %q, the new id of its call", id)
			t.ToolCallID = id
		}
		if !hasContent(&t, true) {
			r.fix(k, id, "set the empty content of the tool message to %q", tool.EmptyContent)
			t.Content, t.MultiContent = tool.EmptyContent, nil
		}
		r.out = append(r.out, t)
	}
	if reordered {
		r.fix(i, "", "put the tool messages after the message in the order of its calls")
	}
}

// newID returns an id for call c of message i that no call of the history uses.
func (r *repairer) newID(i, c int) string {
	base := fmt.Sprintf("call_repaired_%d_%d", i, c)
	id := base
	for n := 2; r.taken[id]; n++ {
		id = fmt.Sprintf("%s_%d", base, n)
	}
	r.taken[id] = true
	return id
}
