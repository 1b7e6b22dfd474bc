package agentkit_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// FuzzRepairHistory turns the fuzz bytes into a history full of the faults of real agent
// runs (unanswered, duplicate, late and orphan answers, reused and missing ids, bad
// arguments, empty contents, legacy and unknown roles) and checks that RepairHistory
// returns a valid history, is idempotent, leaves its input alone, and changes a valid
// history only by putting its tool blocks in emission order.
func FuzzRepairHistory(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 3, 2, 0, 0, 2, 2, 2, 5, 0, 0, 5, 1, 1, 2})               // a call answered
	f.Add([]byte{1, 3, 3, 6, 2, 2, 7, 2, 2, 7, 2, 2, 0, 7, 1, 2, 2})         // parallel calls, answered reversed
	f.Add([]byte{8, 1, 4, 1, 1, 0, 0, 3, 0, 5, 0, 5, 0, 9, 1, 10, 3, 11, 2}) // orphans, duplicates
	f.Add([]byte{3, 2, 0, 0, 2, 2, 0, 0, 3, 1, 5, 2, 7, 0, 3, 3, 4, 1, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzHistory(data)
		before := cloneHistory(in)
		inErr := agentkit.ValidateHistory(in)
		if inErr != nil {
			_ = inErr.Error()
		}

		out, fixes := agentkit.RepairHistory(in)
		if diff := cmp.Diff(before, in); diff != "" {
			t.Fatalf("RepairHistory modified its input (-before +after):\n%s", diff)
		}
		if err := agentkit.ValidateHistory(out); err != nil {
			t.Fatalf("ValidateHistory(RepairHistory(in)) = %v\nin: %#v\nout: %#v\nfixes: %q", err, in, out, fixes)
		}
		outCopy := cloneHistory(out)
		again, fixes2 := agentkit.RepairHistory(out)
		if diff := cmp.Diff(out, again); diff != "" || fixes2 != nil {
			t.Fatalf("RepairHistory is not idempotent: second fixes %q, diff (-first +second):\n%s\nin: %#v", fixes2, diff, in)
		}
		if diff := cmp.Diff(outCopy, out); diff != "" {
			t.Fatalf("the second RepairHistory modified its input (-before +after):\n%s", diff)
		}

		if inErr == nil {
			if diff := cmp.Diff(inEmissionOrder(in), out, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("RepairHistory changed a valid history beyond the order of its tool blocks (-want +got):\n%s", diff)
			}
			for _, fix := range fixes {
				if !strings.HasSuffix(fix, ": put the tool messages after the message in the order of its calls") {
					t.Fatalf("RepairHistory of a valid history reported %q", fix)
				}
			}
		} else if len(fixes) == 0 {
			t.Fatalf("RepairHistory reported no change to an invalid history: %v", inErr)
		}
	})
}

// inEmissionOrder returns a copy of the valid history msgs whose tool blocks are in the
// order of their calls.
func inEmissionOrder(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	out := slices.Clone(msgs)
	for i, m := range out {
		if len(m.ToolCalls) == 0 {
			continue
		}
		block := out[i+1 : i+1+len(m.ToolCalls)]
		slices.SortStableFunc(block, func(a, b openai.ChatCompletionMessage) int {
			return slices.IndexFunc(m.ToolCalls, func(c openai.ToolCall) bool { return c.ID == a.ToolCallID }) -
				slices.IndexFunc(m.ToolCalls, func(c openai.ToolCall) bool { return c.ID == b.ToolCallID })
		})
	}
	return out
}

// fuzzHistory interprets data as a program writing a history: each byte chooses an
// operation, and the bytes after it its variants. Ids come from a small pool so that reuse,
// crossed answers and collisions with repaired ids are frequent.
func fuzzHistory(data []byte) []openai.ChatCompletionMessage {
	r := fuzzReader{data: data}
	pool := []string{"", "a", "b", "call_repaired_1_0", "call_repaired_1_0_2"}
	var h []openai.ChatCompletionMessage
	var pending []string // the call ids of the last assistant message with calls
	fresh := 0
	for !r.done() && len(h) < 48 {
		switch r.next() % 12 {
		case 0:
			h = append(h, r.content(openai.ChatMessageRoleSystem))
		case 1:
			h = append(h, r.content(openai.ChatMessageRoleUser))
		case 2:
			m := r.content(openai.ChatMessageRoleAssistant)
			switch r.next() % 4 {
			case 0:
				m.Refusal = "no"
			case 1:
				m.ReasoningContent = "hmm"
			}
			h = append(h, m)
		case 3, 4:
			m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{}}
			if r.next()%3 == 0 {
				m.Content = "let me check"
			}
			pending = pending[:0]
			for n := r.next() % 4; n > 0; n-- {
				c := openai.ToolCall{Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}
				if k := int(r.next() % 8); k < len(pool) {
					c.ID = pool[k]
				} else {
					fresh++
					c.ID = "id" + strconv.Itoa(fresh)
				}
				switch r.next() % 6 {
				case 0:
					c.Type = ""
				case 1:
					c.Type = openai.ToolTypeCustom
				}
				if r.next()%6 == 0 {
					c.Function.Name = ""
				}
				args := []string{"{}", `{"a":1}`, "", "not json", "[1]", ` {"a":"b"} `, `{"a":`, "null", `"s"`, "\t{}\n", `{"a":1}x`}
				c.Function.Arguments = args[int(r.next())%len(args)]
				m.ToolCalls = append(m.ToolCalls, c)
				pending = append(pending, c.ID)
			}
			h = append(h, m)
		case 5, 6:
			if len(pending) > 0 {
				h = append(h, r.answer(pending[int(r.next())%len(pending)]))
			}
		case 7:
			reversed := r.next()%2 == 0
			for k := range pending {
				if reversed {
					k = len(pending) - 1 - k
				}
				h = append(h, r.answer(pending[k]))
			}
		case 8:
			h = append(h, r.answer(pool[int(r.next())%len(pool)]))
		case 9:
			roles := []string{"model", openai.ChatMessageRoleFunction, ""}
			h = append(h, openai.ChatCompletionMessage{Role: roles[int(r.next())%len(roles)], Content: "?"})
		case 10:
			switch r.next() % 3 {
			case 0:
				h = append(h, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"}})
			case 1:
				h = append(h, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "x", ToolCallID: "a"})
			case 2:
				h = append(h, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "x", ToolCalls: []openai.ToolCall{{ID: "b", Type: openai.ToolTypeFunction}}})
			}
		case 11:
			if len(h) > 0 { // repeat a message: duplicates of calls and answers
				h = append(h, h[int(r.next())%len(h)])
			}
		}
	}
	return h
}

type fuzzReader struct {
	data []byte
	pos  int
}

func (r *fuzzReader) done() bool { return r.pos >= len(r.data) }

// next returns the next byte, or 0 past the end.
func (r *fuzzReader) next() byte {
	if r.done() {
		return 0
	}
	r.pos++
	return r.data[r.pos-1]
}

// content returns a message of role with one of the contents of real histories, or none.
func (r *fuzzReader) content(role string) openai.ChatCompletionMessage {
	m := openai.ChatCompletionMessage{Role: role}
	text := func(s string) []openai.ChatMessagePart {
		return []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: s}}
	}
	switch r.next() % 9 {
	case 0, 1, 2:
		m.Content = "text"
	case 3:
		m.MultiContent = text("part")
	case 4:
		m.MultiContent = text("")
	case 5:
		m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "u"}}}
	case 6:
		m.Content, m.MultiContent = "both", text("part")
	case 7:
		m.Content, m.MultiContent = "both", []openai.ChatMessagePart{}
	case 8:
		m.MultiContent = append(text(""), openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL}, text("part")[0])
	}
	return m
}

func (r *fuzzReader) answer(id string) openai.ChatCompletionMessage {
	m := r.content(openai.ChatMessageRoleTool)
	m.ToolCallID = id
	return m
}
