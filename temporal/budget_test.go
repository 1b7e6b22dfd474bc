package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// budgetScript is a model's script of turns turns of calls tools "w" each (distinct
// arguments: the loop guard sees no repeat), each reporting 10 prompt tokens, then the
// answer "final" — which is also the answer to a final tool-free request.
func budgetScript(turns, calls int) []agentkittest.Reply {
	var out []agentkittest.Reply
	for i := range turns {
		var cs []openai.ToolCall
		for j := range calls {
			cs = append(cs, agentkittest.CallID(fmt.Sprintf("c%d_%d", i, j), "w", fmt.Sprintf(`{"city":"%d-%d"}`, i, j)))
		}
		r := agentkittest.ToolCalls(cs...)
		r.Usage = openai.Usage{PromptTokens: 10, TotalTokens: 10}
		out = append(out, agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			if req.ToolChoice == "none" { // the final tool-free request
				return agentkittest.Text("final")
			}
			return r
		}))
	}
	return append(out, agentkittest.Text("final"))
}

// budgetOpts are the options of the budget tests: tool "w" counted in n, 1 per prompt token.
func budgetOpts(n *atomic.Int32, b agentkit.Budget, finalAnswer bool) *agentkit.Options {
	return &agentkit.Options{
		Model: "m", Tools: []*tool.Tool{counted("w", n)}, Prices: agentkit.Prices{"m": {Input: 1e6}},
		Budget: b, FinalAnswerOnLimit: finalAnswer,
	}
}

// outcome is what a budget test compares of a run: agentkit.Run's and the workflow's.
type outcome struct {
	Stop       agentkit.StopReason
	Limit      agentkit.BudgetLimit
	Error      string
	Output     string
	Iterations int
	Tools      []string // the tool results the model read
	Ran        int32    // the tool calls that ran
}

// TestWorkflowBudget: each limit of the agent's Budget stops the workflow as it stops
// agentkit.Run on the same script — StopBudget, Result.Limit, the same error and transcript
// — and, with FinalAnswerOnLimit, after the same final tool-free request, which answers.
func TestWorkflowBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget agentkit.Budget
		calls  int // per turn
		limit  agentkit.BudgetLimit
	}{
		{"model calls", agentkit.Budget{ModelCalls: 2}, 1, agentkit.LimitModelCalls},
		{"tokens", agentkit.Budget{Tokens: 15}, 1, agentkit.LimitTokens},
		{"cost", agentkit.Budget{Cost: 15}, 1, agentkit.LimitCost},
		{"tool calls", agentkit.Budget{ToolCalls: 3}, 2, agentkit.LimitToolCalls},
		{"exhausted already", agentkit.Budget{Tokens: -1}, 1, agentkit.LimitTokens},
	} {
		for _, finalAnswer := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/final %v", tc.name, finalAnswer), func(t *testing.T) {
				var n atomic.Int32
				res, err := agentkit.New(agentkittest.New(t, budgetScript(4, tc.calls)...), budgetOpts(&n, tc.budget, finalAnswer)).Run(context.Background(), "go")
				want := outcome{Stop: res.Stop, Limit: res.Limit, Output: res.Output, Iterations: res.Iterations, Tools: toolContents(res.Messages), Ran: n.Load()}
				if err != nil {
					want.Error = err.Error()
				}
				n.Store(0)
				a := New(agentkit.New(agentkittest.New(t, budgetScript(4, tc.calls)...), budgetOpts(&n, tc.budget, finalAnswer)), nil)
				wres := complete(t, a, NewInput("go"), nil)
				got := outcome{Stop: wres.Stop, Limit: wres.Limit, Error: wres.Error, Output: wres.Output, Iterations: wres.Iterations, Tools: toolContents(wres.Messages), Ran: n.Load()}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("workflow vs. agentkit.Run (-Run +workflow):\n%s", diff)
				}
				if got.Stop != agentkit.StopBudget || got.Limit != tc.limit {
					t.Errorf("Stop, Limit = %q, %q; want %q, %q", got.Stop, got.Limit, agentkit.StopBudget, tc.limit)
				}
				if answered := got.Output == "final" && got.Error == ""; answered != finalAnswer {
					t.Errorf("Output %q, Error %q: answered %v, want %v", got.Output, got.Error, answered, finalAnswer)
				}
			})
		}
	}
}

// TestWorkflowBudgetToolCalls: the calls of a turn past the tool calls left are answered
// not_executed, not run, and the run stops before its next model call.
func TestWorkflowBudgetToolCalls(t *testing.T) {
	var n atomic.Int32
	a := New(agentkit.New(agentkittest.New(t, budgetScript(2, 3)...), budgetOpts(&n, agentkit.Budget{ToolCalls: 2}, false)), nil)
	res := complete(t, a, NewInput("go"), nil)
	got := toolContents(res.Messages)
	if len(got) != 3 || got[0] != "w:0-0" || got[1] != "w:0-1" || !strings.Contains(got[2], "not executed: this run may make at most 2 tool calls") {
		t.Errorf("tool results = %q, want two run and the third not executed", got)
	}
	if n.Load() != 2 || res.Iterations != 1 || res.Stop != agentkit.StopBudget || res.Limit != agentkit.LimitToolCalls {
		t.Errorf("ran %d, Iterations %d, Stop %q, Limit %q; want 2, 1, budget, tool_calls", n.Load(), res.Iterations, res.Stop, res.Limit)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("transcript: %v", err)
	}
}

// TestWorkflowBudgetWallTime: the wall time is the workflow's clock: a tool call that takes
// two hours of it exhausts a one-hour limit before the next model call, with the final
// request when FinalAnswerOnLimit is set.
func TestWorkflowBudgetWallTime(t *testing.T) {
	for _, finalAnswer := range []bool{false, true} {
		t.Run(fmt.Sprint("final ", finalAnswer), func(t *testing.T) {
			var n atomic.Int32
			a := New(agentkit.New(agentkittest.New(t, budgetScript(3, 1)...), budgetOpts(&n, agentkit.Budget{WallTime: time.Hour}, finalAnswer)), nil)
			res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(toolActivity, mock.Anything, mock.Anything).After(2*time.Hour).Return(callOut{Content: "slow"}, nil)
			})
			wantIter, wantOutput := 1, ""
			if finalAnswer {
				wantIter, wantOutput = 2, "final"
			}
			if res.Stop != agentkit.StopBudget || res.Limit != agentkit.LimitWallTime || res.Iterations != wantIter || res.Output != wantOutput {
				t.Errorf("Stop %q, Limit %q, Iterations %d, Output %q; want budget, wall_time, %d, %q", res.Stop, res.Limit, res.Iterations, res.Output, wantIter, wantOutput)
			}
			if wantErr := "wall time 2h0m0s of 1h0m0s"; !finalAnswer && !strings.Contains(res.Error, wantErr) {
				t.Errorf("Error = %q, want it to say %q", res.Error, wantErr)
			}
		})
	}
}

// TestWorkflowBudgetLeavesOutDecisionWait: the time a run waits for a decision is not its
// wall time, as agentkit leaves out a pause's.
func TestWorkflowBudgetLeavesOutDecisionWait(t *testing.T) {
	var n atomic.Int32
	opts := budgetOpts(&n, agentkit.Budget{WallTime: time.Hour}, false)
	opts.Tools = []*tool.Tool{counted("w", &n, tool.Options{RequireApproval: true})}
	a := New(agentkit.New(agentkittest.New(t, budgetScript(1, 1)...), opts), nil)
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Error(err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c0_0", Approve: true}})
		}, 3*time.Hour)
	})
	if res.Stop != agentkit.StopAnswered || res.Output != "final" || n.Load() != 1 {
		t.Errorf("Stop %q (%s), Output %q, ran %d; want answered, final, 1", res.Stop, res.Error, res.Output, n.Load())
	}
}

// TestWorkflowInputBudget: Input.Budget replaces the agent's whole, as agentkit.WithBudget
// does: its limits apply, and the agent's do not.
func TestWorkflowInputBudget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		budget    *agentkit.Budget
		wantStop  agentkit.StopReason
		wantLimit agentkit.BudgetLimit
		wantIter  int
	}{
		{"the agent's", nil, agentkit.StopBudget, agentkit.LimitModelCalls, 1},
		{"tokens instead", &agentkit.Budget{Tokens: 25}, agentkit.StopBudget, agentkit.LimitTokens, 3},
		{"none", &agentkit.Budget{}, agentkit.StopAnswered, "", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			a := New(agentkit.New(agentkittest.New(t, budgetScript(3, 1)...), budgetOpts(&n, agentkit.Budget{ModelCalls: 1}, false)), nil)
			in := NewInput("go")
			in.Budget = tc.budget
			res := complete(t, a, in, nil)
			if res.Stop != tc.wantStop || res.Limit != tc.wantLimit || res.Iterations != tc.wantIter {
				t.Errorf("Stop %q, Limit %q, Iterations %d; want %q, %q, %d", res.Stop, res.Limit, res.Iterations, tc.wantStop, tc.wantLimit, tc.wantIter)
			}
		})
	}
}

// TestWorkflowBudgetContinuesAsNew: a run continued as new keeps its budget and what it used
// of it, its start included: every hop makes one model call, and the third hop's run stops on
// the tokens of all three; a run without a budget carries none.
func TestWorkflowBudgetContinuesAsNew(t *testing.T) {
	for _, tc := range []struct {
		name    string
		agent   agentkit.Budget
		input   *agentkit.Budget
		want    agentkit.StopReason
		limited bool
	}{
		{"agent's budget", agentkit.Budget{Tokens: 25, WallTime: time.Hour}, nil, agentkit.StopBudget, true},
		{"input budget", agentkit.Budget{ModelCalls: 1}, &agentkit.Budget{Tokens: 25, WallTime: time.Hour}, agentkit.StopBudget, true},
		{"no budget", agentkit.Budget{}, nil, agentkit.StopAnswered, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			a := New(agentkit.New(agentkittest.New(t, budgetScript(3, 1)...), budgetOpts(&n, tc.agent, false)), &Options{ContinueAfter: 1})
			in := NewInput("go")
			in.Budget = tc.input
			var began time.Time
			var res *Result
			for hop := 0; res == nil; hop++ {
				if hop == 5 {
					t.Fatal("the run did not end in 5 hops")
				}
				var env *testsuite.TestWorkflowEnvironment
				res, env = run(t, a, in, nil)
				if res != nil {
					break
				}
				var can *workflow.ContinueAsNewError
				if !errors.As(env.GetWorkflowError(), &can) {
					t.Fatalf("hop %d: %v, want a continue-as-new", hop, env.GetWorkflowError())
				}
				in = Input{}
				if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
					t.Fatal(err)
				}
				if !cmp.Equal(in.Budget, tc.input) {
					t.Errorf("hop %d: carried Budget %v, want %v", hop, in.Budget, tc.input)
				}
				if !tc.limited {
					if in.Used != nil || !in.Began.IsZero() {
						t.Errorf("hop %d: a run without a budget carried Used %v, Began %v", hop, in.Used, in.Began)
					}
					continue
				}
				if want := (agentkit.BudgetUse{ToolCalls: hop + 1, Tokens: 10 * (hop + 1)}); in.Used == nil || *in.Used != want {
					t.Errorf("hop %d: carried Used %v, want %+v", hop, in.Used, want)
				}
				if hop == 0 {
					began = in.Began
				}
				if in.Began.IsZero() || !in.Began.Equal(began) {
					t.Errorf("hop %d: carried Began %v, want the first run's start %v", hop, in.Began, began)
				}
			}
			if res.Stop != tc.want || res.Iterations != 3+boolInt(!tc.limited) {
				t.Errorf("Stop %q (%s), Iterations %d; want %q", res.Stop, res.Error, res.Iterations, tc.want)
			}
			if tc.limited && res.Limit != agentkit.LimitTokens {
				t.Errorf("Limit = %q, want tokens", res.Limit)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
