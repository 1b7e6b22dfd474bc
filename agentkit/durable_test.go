package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

type durableIn struct {
	To     string `json:"to"`
	Amount int    `json:"amount"`
}

func durablePay(runs *int) *tool.Tool {
	return tool.New("pay", "pays", func(ctx context.Context, in durableIn) (string, error) {
		*runs++
		return "paid " + in.To, nil
	}, tool.Options{RequireApproval: true})
}

// ModelTurn keeps the reply as Run does: an id the transcript already uses is renamed, fenced
// arguments are repaired, and the calls carry what the model sent and the tool they name.
func TestModelTurnNormalizes(t *testing.T) {
	var runs int
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("call_0", "pay", "```json\n{\"to\":\"bob\",\"amount\":1}\n```")))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{durablePay(&runs)}})
	transcript := []openai.ChatCompletionMessage{
		{Role: "user", Content: "pay"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_0", Type: "function", Function: openai.FunctionCall{Name: "pay", Arguments: `{}`}}}},
		{Role: "tool", ToolCallID: "call_0", Content: "paid"},
	}
	before := append([]openai.ChatCompletionMessage(nil), transcript...)
	mt, stop, err := a.ModelTurn(context.Background(), transcript, 2, false)
	if err != nil || stop != "" {
		t.Fatalf("ModelTurn = %q, %v", stop, err)
	}
	if diff := cmp.Diff(before, transcript); diff != "" {
		t.Errorf("transcript modified (-before +after):\n%s", diff)
	}
	got := mt.Message.ToolCalls[0]
	if got.ID == "call_0" || got.Function.Arguments != `{"to":"bob","amount":1}` {
		t.Errorf("kept call = %s %s; want a new id and repaired arguments", got.ID, got.Function.Arguments)
	}
	if c := mt.Calls[0]; c.ID != got.ID || !strings.HasPrefix(c.Arguments, "```") || c.Tool == nil || c.Tool.Name() != "pay" {
		t.Errorf("call = %+v; want the kept id, the raw arguments, the tool", c)
	}
	if err := agentkit.ValidateHistory(append(transcript, mt.Message, openai.ChatCompletionMessage{Role: "tool", ToolCallID: got.ID, Content: "x"})); err != nil {
		t.Error(err)
	}
	if mt.Step.Iteration != 2 || runs != 0 {
		t.Errorf("Step.Iteration %d, runs %d; want 2, 0", mt.Step.Iteration, runs)
	}
}

func TestModelTurnFailure(t *testing.T) {
	for _, tc := range []struct {
		reply agentkittest.Reply
		stop  agentkit.StopReason
		is    error
	}{
		{agentkittest.Error(&openai.APIError{HTTPStatusCode: 500}), agentkit.StopModelError, nil},
		{agentkittest.Text(""), agentkit.StopModelError, agentkit.ErrEmptyMessage},
	} {
		a := agentkit.New(agentkittest.New(nil, tc.reply), nil)
		_, stop, err := a.ModelTurn(context.Background(), []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}, 1, false)
		if stop != tc.stop || err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("ModelTurn = %q, %v; want %q, %v", stop, err, tc.stop, tc.is)
		}
	}
}

// PlanTurn judges turns as Run does: a repeated set of calls is refused past LoopLimit and
// stops the run at LoopStop; past MaxToolCalls calls are refused; a cut reply runs nothing.
func TestPlanTurn(t *testing.T) {
	a := agentkit.New(agentkittest.New(nil), &agentkit.Options{MaxToolCalls: 1})
	same := []tool.Call{{Name: "f", Arguments: `{"a":1,"b":2}`}}
	reordered := []tool.Call{{Name: "f", Arguments: `{"b":2, "a":1}`}}
	var g agentkit.GuardState
	type plan struct {
		Run  []bool
		Kind tool.Kind
		Stop agentkit.StopReason
	}
	for i, tc := range []struct {
		calls  []tool.Call
		final  bool
		finish openai.FinishReason
		want   plan
	}{
		{same, false, "", plan{[]bool{true}, tool.KindNotExecuted, ""}},
		{reordered, false, "", plan{[]bool{true}, tool.KindNotExecuted, ""}},
		{same, false, "", plan{[]bool{false}, tool.KindLoop, ""}},
		{same, false, "", plan{[]bool{false}, tool.KindLoop, agentkit.StopLoopDetected}},
		{append(same, tool.Call{Name: "g"}), false, "", plan{[]bool{true, false}, tool.KindNotExecuted, ""}},
		{same, false, openai.FinishReasonLength, plan{[]bool{false}, tool.KindNotExecuted, ""}},
		{[]tool.Call{{Name: "h"}}, true, "", plan{[]bool{false}, tool.KindNotExecuted, agentkit.StopIterationLimit}},
	} {
		p := a.PlanTurn(&g, tc.final, tc.finish, tc.calls)
		if diff := cmp.Diff(tc.want, plan{p.Run, p.Refusal.Kind, p.Stop}); diff != "" {
			t.Errorf("turn %d (-want +got):\n%s", i, diff)
		}
	}
}

// A call that needs approval is pending from CallTool; CheckDecisions and Decided answer as
// Resume does, and CallApproved runs it once, with edited arguments the model is told of.
func TestCallApproved(t *testing.T) {
	var runs int
	a := agentkit.New(agentkittest.New(nil), &agentkit.Options{Tools: []*tool.Tool{durablePay(&runs)}})
	ctx := context.Background()
	rec := a.CallTool(ctx, 1, tool.Call{ID: "c1", Name: "pay", Arguments: `{"amount":5,"to":"bob"}`})
	if rec.Result.Kind != tool.KindPending || runs != 0 {
		t.Fatalf("CallTool = %q (runs %d), want pending", rec.Result.Kind, runs)
	}
	pc := agentkit.PendingOf(rec)
	if want := (agentkit.PendingCall{ID: "c1", Name: "pay", Arguments: json.RawMessage(`{"amount":5,"to":"bob"}`), Kind: agentkit.PendingApproval}); !cmp.Equal(pc, want) {
		t.Errorf("PendingOf = %+v, want %+v", pc, want)
	}
	pending := []agentkit.PendingCall{pc}
	if err := agentkit.CheckDecisions(pending, []agentkit.Decision{{CallID: "c1", Result: "x"}}); !errors.Is(err, agentkit.ErrDecision) {
		t.Errorf("CheckDecisions of a rejection with a result = %v, want ErrDecision", err)
	}
	if err := agentkit.CheckDecisions(pending, []agentkit.Decision{{CallID: "c1", Approve: true}}); err != nil {
		t.Error(err)
	}
	if res, ok := agentkit.Decided(pc, agentkit.Decision{CallID: "c1", Message: "no"}); !ok || res.Kind != tool.KindDenied || !strings.Contains(res.Content, "no") {
		t.Errorf("Decided(reject) = %+v, %v", res, ok)
	}
	if _, ok := agentkit.Decided(pc, agentkit.Decision{CallID: "c1", Approve: true}); ok {
		t.Error("Decided(approve) decided a call that must run")
	}
	got := a.CallApproved(ctx, 1, pc, agentkit.Decision{CallID: "c1", Approve: true, Arguments: json.RawMessage(`{"to":"eve","amount":5}`)})
	if runs != 1 || !strings.HasSuffix(got.Result.Content, "paid eve") || !strings.Contains(got.Result.Content, "edited") {
		t.Errorf("CallApproved = %q (runs %d)", got.Result.Content, runs)
	}
}

func TestBegin(t *testing.T) {
	a := agentkit.New(agentkittest.New(nil), &agentkit.Options{Instructions: "sys"})
	msgs, n := a.Begin([]openai.ChatCompletionMessage{{Role: "user", Content: "hi"}})
	if len(msgs) != 2 || msgs[0].Content != "sys" || n != 2 {
		t.Errorf("Begin = %v, %d", msgs, n)
	}
	own := []openai.ChatCompletionMessage{{Role: "system", Content: "mine"}, {Role: "user", Content: "hi"}}
	if msgs, _ := a.Begin(own); len(msgs) != 2 || msgs[0].Content != "mine" {
		t.Errorf("Begin with a system prompt = %v", msgs)
	}
}

// RunOnly names the options an outside loop would leave out, so that an engine can refuse
// an agent that sets them.
func TestRunOnly(t *testing.T) {
	out := agentkit.Output[durableIn](nil)
	pass := func(next agentkit.RunFunc) agentkit.RunFunc { return next }
	for _, tc := range []struct {
		name string
		opts agentkit.Options
		want []string
	}{
		{"none", agentkit.Options{MaxIterations: 3, FinalAnswerOnLimit: true}, nil},
		{"output", agentkit.Options{Output: out}, []string{"Output"}},
		{"budget", agentkit.Options{Budget: agentkit.Budget{Tokens: 10}}, nil},
		{"all", agentkit.Options{Output: out, Budget: agentkit.Budget{WallTime: 1}, RunMiddleware: []agentkit.RunMiddleware{pass}}, []string{"Output", "RunMiddleware"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := agentkit.New(agentkittest.New(t), &tc.opts).RunOnly()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RunOnly (-want +got):\n%s", diff)
			}
		})
	}
}

// BudgetOver judges a model call as Run does: the first limit exhausted (StopBudget, its
// name, a *BudgetError), else Options.MaxIterations, else nothing.
func TestBudgetOver(t *testing.T) {
	for _, tc := range []struct {
		name      string
		b         agentkit.Budget
		final     bool
		iter      int
		u         agentkit.BudgetUse
		cost      agentkit.Cost
		elapsed   time.Duration
		wantStop  agentkit.StopReason
		wantLimit agentkit.BudgetLimit
		wantErr   string
	}{
		{"no budget", agentkit.Budget{}, false, 3, agentkit.BudgetUse{Tokens: 1e6}, agentkit.Cost{Amount: 9}, time.Hour, "", "", ""},
		{"max iterations", agentkit.Budget{}, false, 5, agentkit.BudgetUse{}, agentkit.Cost{}, 0, agentkit.StopIterationLimit, "", "iteration limit"},
		{"model calls", agentkit.Budget{ModelCalls: 2}, false, 3, agentkit.BudgetUse{}, agentkit.Cost{}, 0, agentkit.StopBudget, agentkit.LimitModelCalls, "model calls 2 of 2"},
		{"model calls, the final call the last", agentkit.Budget{ModelCalls: 2}, true, 2, agentkit.BudgetUse{}, agentkit.Cost{}, 0, agentkit.StopBudget, agentkit.LimitModelCalls, "model calls 2 of 2"},
		{"model calls left", agentkit.Budget{ModelCalls: 3}, false, 3, agentkit.BudgetUse{}, agentkit.Cost{}, 0, "", "", ""},
		{"tool calls out", agentkit.Budget{ToolCalls: 2}, false, 2, agentkit.BudgetUse{ToolCalls: 2, ToolsOut: true}, agentkit.Cost{}, 0, agentkit.StopBudget, agentkit.LimitToolCalls, "tool calls 2 of 2"},
		{"tool calls all used, none refused", agentkit.Budget{ToolCalls: 2}, false, 2, agentkit.BudgetUse{ToolCalls: 2}, agentkit.Cost{}, 0, "", "", ""},
		{"tokens", agentkit.Budget{Tokens: 10}, false, 2, agentkit.BudgetUse{Tokens: 10}, agentkit.Cost{}, 0, agentkit.StopBudget, agentkit.LimitTokens, "tokens 10 of 10"},
		{"cost", agentkit.Budget{Cost: 1}, false, 2, agentkit.BudgetUse{}, agentkit.Cost{Amount: 1}, 0, agentkit.StopBudget, agentkit.LimitCost, "cost 1 of 1"},
		{"cost unknown", agentkit.Budget{Cost: 1}, false, 2, agentkit.BudgetUse{}, agentkit.Cost{Unknown: 1}, 0, agentkit.StopBudget, agentkit.LimitCost, "1 unpriced"},
		{"wall time", agentkit.Budget{WallTime: time.Minute}, false, 2, agentkit.BudgetUse{}, agentkit.Cost{}, time.Minute, agentkit.StopBudget, agentkit.LimitWallTime, "wall time 1m0s of 1m0s"},
		{"wall time left", agentkit.Budget{WallTime: time.Minute}, false, 2, agentkit.BudgetUse{}, agentkit.Cost{}, time.Second, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := agentkit.New(agentkittest.New(t), &agentkit.Options{MaxIterations: 4, FinalAnswerOnLimit: tc.final})
			stop, limit, err := a.BudgetOver(tc.b, tc.iter, tc.u, tc.cost, tc.elapsed)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if stop != tc.wantStop || limit != tc.wantLimit || (tc.wantErr == "") != (err == nil) || !strings.Contains(gotErr, tc.wantErr) {
				t.Errorf("BudgetOver = %q, %q, %v; want %q, %q, an error with %q", stop, limit, err, tc.wantStop, tc.wantLimit, tc.wantErr)
			}
			var be *agentkit.BudgetError
			if (limit != "") != errors.As(err, &be) {
				t.Errorf("error %v: a *BudgetError exactly when a limit is named (%q)", err, limit)
			}
		})
	}
}

// BudgetTurn refuses, past the tool calls left, the calls the plan runs, in emission order.
func TestBudgetTurn(t *testing.T) {
	calls := []tool.Call{{ID: "a", Name: "x"}, {ID: "b", Name: "x"}, {ID: "c", Name: "x"}, {ID: "d", Name: "x"}}
	for _, tc := range []struct {
		name     string
		b        agentkit.Budget
		used     int
		run      []bool
		wantRun  []bool
		wantOver []bool
	}{
		{"no limit", agentkit.Budget{}, 5, []bool{true, true, true, true}, []bool{true, true, true, true}, nil},
		{"room for all", agentkit.Budget{ToolCalls: 6}, 2, []bool{true, true, true, true}, []bool{true, true, true, true}, nil},
		{"one left", agentkit.Budget{ToolCalls: 3}, 2, []bool{true, true, true, true}, []bool{true, false, false, false}, []bool{false, true, true, true}},
		{"refused calls take nothing", agentkit.Budget{ToolCalls: 3}, 1, []bool{false, true, true, true}, []bool{false, true, true, false}, []bool{false, false, false, true}},
		{"none left", agentkit.Budget{ToolCalls: 2}, 2, []bool{true, true, false, false}, []bool{false, false, false, false}, []bool{true, true, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := agentkit.New(agentkittest.New(t), nil)
			plan := agentkit.TurnPlan{Run: append([]bool(nil), tc.run...)}
			u := agentkit.BudgetUse{ToolCalls: tc.used}
			a.BudgetTurn(tc.b, &u, calls, &plan)
			if diff := cmp.Diff(tc.wantRun, plan.Run); diff != "" {
				t.Errorf("Run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantOver, plan.Over); diff != "" {
				t.Errorf("Over (-want +got):\n%s", diff)
			}
			if u.ToolsOut != (tc.wantOver != nil) || u.ToolCalls != tc.used {
				t.Errorf("use = %+v, want ToolsOut %v, ToolCalls %d", u, tc.wantOver != nil, tc.used)
			}
			if tc.wantOver != nil && (plan.OverRefusal.Kind != tool.KindNotExecuted || !strings.Contains(plan.OverRefusal.Content, "at most "+fmt.Sprint(tc.b.ToolCalls)+" tool calls")) {
				t.Errorf("OverRefusal = %+v", plan.OverRefusal)
			}
		})
	}
}
