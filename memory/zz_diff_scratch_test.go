package memory_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

type scrRun struct {
	reqs   [][]openai.ChatCompletionMessage
	stop   agentkit.StopReason
	errs   string
}

func scrPlay(t *testing.T, seed uint64, sessionTurns int) ([]scrRun, []openai.ChatCompletionMessage, string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	echo := tool.New("echo", "echo", func(ctx context.Context, in struct {
		X string `json:"x"`
	}) (string, error) {
		return "echo " + in.X, nil
	})
	store := memory.NewInMemory()
	ctx := context.Background()
	desc := ""
	switch rng.IntN(4) {
	case 1:
		store.Append(ctx, "s", []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "stored system"}})
		desc += "storedsys "
	case 2:
		store.Append(ctx, "s", []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleAssistant, Content: "hello"}})
		desc += "greet "
	case 3:
		store.Append(ctx, "s", []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_0", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: `{"x":"h"}`}}}}, {Role: openai.ChatMessageRoleTool, ToolCallID: "call_0", Content: "h"}})
		desc += "headcall "
	}
	W := 1 + rng.IntN(3)
	budget := 0
	if rng.IntN(2) == 0 {
		budget = 2000 + rng.IntN(3000)
	}
	instr := ""
	if rng.IntN(2) == 0 {
		instr = "You are helpful."
	}
	final := rng.IntN(2) == 0
	desc += fmt.Sprintf("W=%d budget=%d instr=%q final=%v", W, budget, instr, final)
	ids := []string{"call_0", "call_1", "", "call_1_0", "call_2_0"}
	var runs []scrRun
	for k := range 10 {
		var replies []agentkittest.Reply
		for range 4 {
			switch rng.IntN(5) {
			case 0:
				replies = append(replies, agentkittest.Text(fmt.Sprintf("answer %d", k)))
			case 1:
				replies = append(replies, agentkittest.Error(errors.New("boom")))
			default:
				n := 1 + rng.IntN(2)
				var calls []openai.ToolCall
				for i := range n {
					calls = append(calls, agentkittest.CallID(ids[rng.IntN(len(ids))], "echo", fmt.Sprintf(`{"x":"%d-%d"}`, k, i)))
				}
				replies = append(replies, agentkittest.ToolCalls(calls...))
			}
		}
		m := agentkittest.New(nil, replies...)
		var wo memory.WindowOptions
		wo.MaxTurns = W
		wo.Budget = budget
		a := agentkit.New(m, &agentkit.Options{
			Instructions: instr, Tools: []*tool.Tool{echo}, Memory: store,
			Context: memory.Window(wo), SessionTurns: sessionTurns,
			MaxIterations: 2, FinalAnswerOnLimit: final,
		})
		res, err := a.RunSession(ctx, "s", fmt.Sprintf("question %d", k))
		r := scrRun{stop: res.Stop, errs: fmt.Sprint(err)}
		for _, q := range m.Requests() {
			r.reqs = append(r.reqs, q.Messages)
		}
		runs = append(runs, r)
	}
	h, _ := store.Load(ctx, "s", agentkit.LoadOptions{})
	return runs, h.Messages, desc
}

func TestScratchDiff(t *testing.T) {
	for seed := range uint64(3000) {
		for _, S := range []int{3, 4} {
			want, ws, desc := scrPlay(t, seed, 0)
			got, gs, _ := scrPlay(t, seed, S)
			if d := cmp.Diff(ws, gs, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("seed %d S=%d %s stored differ:\n%s", seed, S, desc, d)
			}
			for k := range want {
				if d := cmp.Diff(want[k], got[k], cmp.AllowUnexported(scrRun{}), cmpopts.EquateEmpty()); d != "" {
					t.Fatalf("seed %d S=%d %s run %d differ:\n%s", seed, S, desc, k, d)
				}
			}
		}
	}
}
