package trace

import (
	"io"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// longRun is the Result of a run of n turns, each calling a tool whose result is 1,000
// characters long.
func longRun(n int) *agentkit.Result {
	res := &agentkit.Result{Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "go"}}}
	big := strings.Repeat("x", 1000)
	for i := range n {
		id := "call_" + strconv.Itoa(i)
		c := openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "echo", Arguments: `{"i":` + strconv.Itoa(i) + `}`}}
		reply := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{c}}
		res.Messages = append(res.Messages, reply, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: big})
		res.Steps = append(res.Steps, agentkit.Step{Iteration: i + 1, Message: reply, Duration: 1000,
			Calls: []agentkit.CallRecord{{Call: tool.Call{ID: id, Name: "echo", Arguments: c.Function.Arguments}, Result: tool.Result{Content: big}, Duration: 500}}})
	}
	return res
}

// TestLongRunCostsLinearly: the page of a run four times as long costs about four times as
// much to write, not sixteen (each request's messages were compared with the request
// before's by their JSON: a 1,000-turn run's page took seconds). Counted in allocations,
// which do not depend on the machine.
func TestLongRunCostsLinearly(t *testing.T) {
	allocs := func(n int) float64 {
		res := longRun(n)
		return testing.AllocsPerRun(2, func() {
			if err := Write(io.Discard, res, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	short, long := allocs(100), allocs(400)
	if long > 6*short {
		t.Errorf("the page of 400 turns takes %.0f allocations, of 100 turns %.0f: %.1f times as many, want about 4", long, short, long/short)
	}
}

func BenchmarkWriteLongRun(b *testing.B) {
	res := longRun(1000)
	for b.Loop() {
		if err := Write(io.Discard, res, nil); err != nil {
			b.Fatal(err)
		}
	}
}
