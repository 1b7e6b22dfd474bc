package agentkit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// NotExecutedContent is the content RepairHistory gives the tool message it writes for a
// tool call that has none: the run stopped (cancellation, a fatal error, a trimmed history)
// before the call ran.
const NotExecutedContent = "not executed: the run stopped before this call ran"

// HistoryProblem is one way a history breaks the rules of [ValidateHistory].
type HistoryProblem struct {
	// Index is the position in the history of the message at fault.
	Index int
	// CallID is the tool call id concerned, or "" when the problem concerns no call or the
	// id itself is missing.
	CallID string
	// Reason says what is wrong, as a sentence.
	Reason string
}

// String renders p as "message 3, call "call_1": reason".
func (p HistoryProblem) String() string {
	if p.CallID != "" {
		return fmt.Sprintf("message %d, call %q: %s", p.Index, p.CallID, p.Reason)
	}
	return fmt.Sprintf("message %d: %s", p.Index, p.Reason)
}

// HistoryError lists the problems [ValidateHistory] found, in the order of the messages;
// one returned by ValidateHistory holds at least one.
type HistoryError struct {
	Problems []HistoryProblem
}

// maxRenderedProblems bounds HistoryError.Error: a broken history of thousands of messages
// must not produce a log line of megabytes.
const maxRenderedProblems = 20

// Error renders every problem, one per line, at most 20 followed by "and N more".
func (e *HistoryError) Error() string {
	if len(e.Problems) == 1 {
		return "agentkit: history has 1 problem: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "agentkit: history has %d problems:", len(e.Problems))
	for i, p := range e.Problems {
		if i == maxRenderedProblems {
			fmt.Fprintf(&b, "\nand %d more", len(e.Problems)-i)
			break
		}
		b.WriteString("\n")
		b.WriteString(p.String())
	}
	return b.String()
}

// ValidateHistory reports whether msgs is a history that OpenAI-compatible providers accept
// for tool calling. It returns nil for a valid history, otherwise a *HistoryError listing
// every problem found, in the order of the messages. The rules are the strictest of the
// providers' (OpenAI itself accepts arguments that are not JSON; Qwen does not), so that a
// history stays valid when BaseURL changes:
//
//  1. Roles are system, developer, user, assistant and tool. Any other role is a problem,
//     including the legacy "function" role; so is the legacy FunctionCall field, unless it
//     carries an assistant message's [ProviderExtras]. (Some
//     compatible servers want system instead of developer: that is the caller's choice.)
//  2. A system, developer or user message has content: a non-empty Content, or a
//     MultiContent part with text or an image URL (go-openai omits an empty content field,
//     which providers reject).
//  3. An assistant message has content (Content, MultiContent or Refusal) or tool calls, or
//     both. Reasoning content alone does not count.
//  4. Every tool call of an assistant message has a non-empty ID in valid UTF-8 that no
//     other call in the history uses (a reused id makes its results ambiguous), Type
//     "function", a function name, and Arguments that are a JSON object in valid UTF-8 (""
//     is not: some providers reject it, and Qwen rejects any replayed arguments that are not
//     JSON).
//  5. An assistant message with tool calls is followed immediately by a contiguous block of
//     tool messages, before any other message, that answers each of its call ids exactly
//     once, in any order. A call answered nowhere, or only after another message, is a
//     problem; so is a second answer to the same call.
//  6. A tool message belongs to the block of the assistant message just before it: one
//     whose ToolCallID is empty, not valid UTF-8, or names no call of that assistant message
//     is a problem.
//  7. A tool message has content: a non-empty Content or a non-empty text part.
//  8. Only assistant messages carry ToolCalls, only tool messages carry ToolCallID, no
//     message sets both Content and MultiContent (go-openai refuses to send it), and no
//     MultiContent part is empty: a text part has text, an image_url part a URL (go-openai
//     omits them when empty, and providers reject the part).
func ValidateHistory(msgs []openai.ChatCompletionMessage) error {
	v := validator{ids: make(map[string]int, countCalls(msgs))}
	owner := -1 // the assistant message whose tool block we are in, or -1
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleDeveloper, openai.ChatMessageRoleUser:
			owner = -1
			v.common(i, m)
			if !hasContent(m, false) {
				v.add(i, "", m.Role+" message has no content")
			}
		case openai.ChatMessageRoleAssistant:
			owner = -1
			v.common(i, m)
			if len(m.ToolCalls) == 0 {
				if !assistantHasContent(m) {
					v.add(i, "", "assistant message has neither content nor tool calls")
				}
				continue
			}
			owner = i
			v.calls(msgs, i)
		case openai.ChatMessageRoleTool:
			v.common(i, m)
			v.answer(msgs, owner, i)
		case openai.ChatMessageRoleFunction:
			owner = -1
			v.add(i, "", `role "function" is legacy function calling, which is not supported: use tool calls and tool messages`)
		default:
			owner = -1
			v.add(i, "", fmt.Sprintf("role %q is not one of system, developer, user, assistant, tool", m.Role))
		}
	}
	if len(v.problems) == 0 {
		return nil
	}
	return &HistoryError{Problems: v.problems}
}

type validator struct {
	problems []HistoryProblem
	ids      map[string]int // the tool call ids seen, and the message of each
}

func (v *validator) add(i int, id, reason string) {
	v.problems = append(v.problems, HistoryProblem{Index: i, CallID: id, Reason: reason})
}

// common checks the rules every message obeys, whatever its role (rules 1 and 8).
func (v *validator) common(i int, m *openai.ChatCompletionMessage) {
	if m.Content != "" && m.MultiContent != nil {
		v.add(i, "", "message sets both Content and MultiContent, which go-openai refuses to send")
	}
	if slices.ContainsFunc(m.MultiContent, partEmpty) {
		v.add(i, "", "message has an empty MultiContent part, which go-openai sends without its text or URL")
	}
	switch {
	case isExtras(m.FunctionCall) && m.Role != openai.ChatMessageRoleAssistant:
		v.add(i, "", m.Role+" message carries provider extras; only assistant messages may")
	case m.FunctionCall != nil && !isExtras(m.FunctionCall):
		v.add(i, "", "message uses the legacy function_call field, which is not supported: use tool calls")
	}
	if m.Role != openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
		v.add(i, "", m.Role+" message carries tool calls; only assistant messages may")
	}
	if m.Role != openai.ChatMessageRoleTool && m.ToolCallID != "" {
		v.add(i, m.ToolCallID, m.Role+" message carries a tool_call_id; only tool messages may")
	}
}

// calls checks the tool calls of the assistant message msgs[i] and that its tool block
// answers every one of them (rules 4 and 5).
func (v *validator) calls(msgs []openai.ChatCompletionMessage, i int) {
	calls := msgs[i].ToolCalls
	for c := range calls {
		call := &calls[c]
		if call.ID == "" {
			v.add(i, "", fmt.Sprintf("tool call %d (%s) has no id", c, call.Function.Name))
		} else if !utf8.ValidString(call.ID) {
			v.add(i, call.ID, "tool call id is not valid UTF-8: it would reach the provider altered, and two such ids as one")
		} else if first, ok := v.ids[call.ID]; ok {
			if first == i {
				v.add(i, call.ID, "tool call id is used twice in this message")
			} else {
				v.add(i, call.ID, fmt.Sprintf("tool call id is already used by a call in message %d", first))
			}
		} else {
			v.ids[call.ID] = i
		}
		if call.Type != openai.ToolTypeFunction {
			v.add(i, call.ID, fmt.Sprintf(`tool call has type %q; want "function"`, call.Type))
		}
		if call.Function.Name == "" {
			v.add(i, call.ID, "tool call has no function name")
		}
		if call.Function.Arguments == "" {
			v.add(i, call.ID, `tool call arguments are empty; some providers reject them (want a JSON object such as "{}")`)
		} else if !utf8.ValidString(call.Function.Arguments) {
			v.add(i, call.ID, "tool call arguments are not valid UTF-8: they would reach the provider altered")
		} else if !isJSONObject(call.Function.Arguments) {
			v.add(i, call.ID, "tool call arguments are not a JSON object; providers such as Qwen reject replaying them")
		}
	}
	end := i + 1
	for end < len(msgs) && msgs[end].Role == openai.ChatMessageRoleTool {
		end++
	}
	for c := range calls {
		id := calls[c].ID
		if id == "" || callIndex(calls[:c], id) >= 0 {
			continue // reported above
		}
		answered := false
		for k := i + 1; k < end && !answered; k++ {
			answered = msgs[k].ToolCallID == id
		}
		if !answered {
			v.add(i, id, "tool call is not answered by a tool message directly after its assistant message")
		}
	}
}

// answer checks the tool message msgs[i] of the block of the assistant message
// msgs[owner], or an orphan when owner is -1 (rules 5, 6 and 7).
func (v *validator) answer(msgs []openai.ChatCompletionMessage, owner, i int) {
	id := msgs[i].ToolCallID
	switch {
	case owner < 0:
		v.add(i, id, "tool message does not follow an assistant message with tool calls")
		return
	case id == "":
		v.add(i, "", "tool message has no tool_call_id")
		return
	case !utf8.ValidString(id):
		v.add(i, id, "tool message's tool_call_id is not valid UTF-8")
		return
	case callIndex(msgs[owner].ToolCalls, id) < 0:
		v.add(i, id, fmt.Sprintf("tool message answers no call of the assistant message %d before it", owner))
		return
	}
	for k := owner + 1; k < i; k++ {
		if msgs[k].ToolCallID == id {
			v.add(i, id, fmt.Sprintf("tool message answers a call already answered by message %d", k))
			return
		}
	}
	if !hasContent(&msgs[i], true) {
		v.add(i, id, "tool message has empty content")
	}
}

// isJSONObject reports whether s is one JSON object in valid UTF-8, with optional whitespace
// around it: the form the arguments of a tool call must have (encoding/json accepts invalid
// UTF-8 in strings, and go-openai would send it altered).
func isJSONObject(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && t[0] == '{' && utf8.ValidString(s) && json.Valid([]byte(s))
}

func callIndex(calls []openai.ToolCall, id string) int {
	for c := range calls {
		if calls[c].ID == id {
			return c
		}
	}
	return -1
}

// partEmpty reports whether p lacks its text or image URL.
func partEmpty(p openai.ChatMessagePart) bool {
	switch p.Type {
	case openai.ChatMessagePartTypeText:
		return p.Text == ""
	case openai.ChatMessagePartTypeImageURL:
		return p.ImageURL == nil || p.ImageURL.URL == ""
	}
	return false
}

// nonEmptyParts returns a copy of parts without the empty ones, nil when none is left.
func nonEmptyParts(parts []openai.ChatMessagePart) []openai.ChatMessagePart {
	if kept := slices.DeleteFunc(slices.Clone(parts), partEmpty); len(kept) > 0 {
		return kept
	}
	return nil
}

// hasContent reports whether m has content a provider accepts: a non-empty Content, or a
// part with text or, unless textOnly (tool messages take text only), an image URL.
func hasContent(m *openai.ChatCompletionMessage, textOnly bool) bool {
	if m.Content != "" {
		return true
	}
	for _, p := range m.MultiContent {
		if !partEmpty(p) && (p.Type == openai.ChatMessagePartTypeText || !textOnly && p.Type == openai.ChatMessagePartTypeImageURL) {
			return true
		}
	}
	return false
}

func assistantHasContent(m *openai.ChatCompletionMessage) bool {
	return m.Refusal != "" || hasContent(m, false)
}

func countCalls(msgs []openai.ChatCompletionMessage) int {
	calls := 0
	for i := range msgs {
		calls += len(msgs[i].ToolCalls)
	}
	return calls
}
