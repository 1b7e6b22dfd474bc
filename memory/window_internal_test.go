package memory

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// byLayout is what Window with MaxTurns alone sent before lastTurns: the layout of the
// whole transcript, then keepFrom.
func byLayout(msgs []openai.ChatCompletionMessage, turns int) []openai.ChatCompletionMessage {
	l := newLayout(msgs)
	if l.first < 0 || len(l.units) == 0 {
		return msgs
	}
	from := l.keepFrom(turns)
	if l.start(from) == l.first+1 {
		return msgs
	}
	return append(append([]openai.ChatCompletionMessage(nil), msgs[:l.first+1]...), msgs[l.start(from):]...)
}

// randomTranscript returns a transcript of n messages in the shapes the loop makes: an
// optional system prompt or greeting, user messages, assistant messages with or without
// tool calls and their results.
func randomTranscript(r *rand.Rand, n int) []openai.ChatCompletionMessage {
	var msgs []openai.ChatCompletionMessage
	if r.IntN(2) == 0 {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "sys"})
	}
	if r.IntN(4) == 0 {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "hello"})
	}
	for len(msgs) < n {
		switch r.IntN(4) {
		case 0, 1:
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "q" + strconv.Itoa(len(msgs))})
		case 2:
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "a" + strconv.Itoa(len(msgs))})
		default:
			id := "call_" + strconv.Itoa(len(msgs))
			msgs = append(msgs,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: "r"})
		}
	}
	return msgs
}

// lastTurns, which looks only at the ends of the transcript, keeps what the layout of the
// whole transcript keeps.
func TestLastTurnsIsTheLayoutsWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		msgs := randomTranscript(r, r.IntN(30))
		turns := 1 + r.IntN(6)
		want, got := byLayout(msgs, turns), lastTurns(msgs, turns)
		if cap(got) != len(got) {
			t.Fatalf("MaxTurns %d: the view has spare capacity %d: appending to it could write into the transcript", turns, cap(got)-len(got))
		}
		if reflect.DeepEqual(want, got) {
			continue
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("MaxTurns %d over %s (-layout +lastTurns):\n%s", turns, agentkit.FormatTranscript(msgs), diff)
		}
	}
}
