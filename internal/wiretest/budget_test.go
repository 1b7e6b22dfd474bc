package wiretest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// A real server's usage (aimock's fixture: 1200 prompt and 30 completion tokens a call,
// from the dated snapshot gpt-4o-mini-2024-07-18) drives the cost and the budget: each call
// is priced under the requested model, as the table has no price for the snapshot; a token
// or cost limit stops the run before the first call that would begin past it — at most
// one model call past the limit, the one that crossed it — and with FinalAnswerOnLimit the
// one call after it is the final tool-free request, whose answer ends the run. Plain and
// streamed.
func TestBudgetOnTheWire(t *testing.T) {
	t.Parallel()
	eachClient(t, "budget.json", clientOptions{}, testBudgetOnTheWire)
}

func testBudgetOnTheWire(t *testing.T, e *env) {
	const perCall = 1230 // tokens
	price := agentkit.Price{Input: 0.15, CachedInput: 0.075, Output: 0.6}
	callCost := (1200*0.15 + 30*0.6) / 1e6
	tests := []struct {
		name      string
		budget    agentkit.Budget
		final     bool
		wantCalls int // tool-calling replies; the final request is one more
		wantLimit agentkit.BudgetLimit
	}{
		{"tokens", agentkit.Budget{Tokens: 3000}, false, 3, agentkit.LimitTokens},
		{"cost", agentkit.Budget{Cost: 2.5 * callCost}, false, 3, agentkit.LimitCost},
		{"tokens, final answer", agentkit.Budget{Tokens: 3000}, true, 3, agentkit.LimitTokens},
		{"model calls, final answer", agentkit.Budget{ModelCalls: 2}, true, 1, agentkit.LimitModelCalls},
	}
	for _, streamed := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/streamed=%v", tt.name, streamed), func(t *testing.T) {
				before := len(e.capture.Exchanges())
				w := &weather{}
				a := agentkit.New(e.streaming, &agentkit.Options{
					Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()},
					Prices: agentkit.Prices{"gpt-4o-mini": price}, Budget: tt.budget, FinalAnswerOnLimit: tt.final,
					MaxIterations: 20, LoopLimit: 20,
				})
				q := "一直查天气：北京"
				var res *agentkit.Result
				var err error
				if streamed {
					res, err = a.RunStream(testContext(t), q).Result()
				} else {
					res, err = a.Run(testContext(t), q)
				}
				if res.Stop != agentkit.StopBudget || res.Limit != tt.wantLimit {
					t.Fatalf("Run = %q %q, %v; want StopBudget %q", res.Stop, res.Limit, err, tt.wantLimit)
				}
				exs := e.capture.Exchanges()[before:]
				wantRequests := tt.wantCalls
				if tt.final {
					wantRequests++
				}
				if len(exs) != wantRequests {
					t.Fatalf("%d requests, want %d", len(exs), wantRequests)
				}
				// Tokens used before each request: at most one begins at or past the limit
				// (the final one), none without FinalAnswerOnLimit.
				if tt.budget.Tokens > 0 {
					past := 0
					for i := range exs {
						if i*perCall >= tt.budget.Tokens {
							past++
						}
					}
					if want := map[bool]int{false: 0, true: 1}[tt.final]; past != want {
						t.Errorf("%d requests began past the token limit, want %d", past, want)
					}
				}
				wantUsage := agentkit.Usage{PromptTokens: 1200 * tt.wantCalls, CompletionTokens: 30 * tt.wantCalls, TotalTokens: perCall * tt.wantCalls}
				wantCost := agentkit.Cost{Amount: float64(tt.wantCalls) * callCost}
				if tt.final {
					wantUsage.PromptTokens += 1300
					wantUsage.CompletionTokens += 20
					wantUsage.TotalTokens += 1320
					wantCost.Amount += (1300*0.15 + 20*0.6) / 1e6
				}
				if diff := cmp.Diff(wantUsage, res.Usage); diff != "" {
					t.Errorf("Result.Usage (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantCost, res.Cost, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
					t.Errorf("Result.Cost (-want +got):\n%s", diff)
				}
				if !tt.final {
					var be *agentkit.BudgetError
					if !errors.As(err, &be) || be.Limit != tt.wantLimit {
						t.Errorf("error %v, want a *BudgetError for %q", err, tt.wantLimit)
					}
					return
				}
				if err != nil || res.Output != "目前查到的信息有限：北京晴。" {
					t.Errorf("final answer: %q, %v", res.Output, err)
				}
				var last struct {
					ToolChoice any `json:"tool_choice"`
				}
				if err := json.Unmarshal(exs[len(exs)-1].Body, &last); err != nil || last.ToolChoice != "none" {
					t.Errorf("the final request's tool_choice = %v (%v), want none", last.ToolChoice, err)
				}
			})
		}
	}
}

// A table that prices the dated snapshot a real server names (response.model, and every
// chunk's model when it streams) prices its calls under it, streamed as plain.
func TestCostUnderServedModel(t *testing.T) {
	t.Parallel()
	eachClient(t, "budget.json", clientOptions{}, func(t *testing.T, e *env) {
		price := agentkit.Price{Input: 0.15, Output: 0.6}
		callCost := (1200*0.15 + 30*0.6) / 1e6
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
				w := &weather{}
				a := agentkit.New(e.streaming, &agentkit.Options{
					Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()},
					Prices: agentkit.Prices{"gpt-4o-mini-2024-07-18": price}, Budget: agentkit.Budget{ModelCalls: 2}, LoopLimit: 20,
				})
				q := "一直查天气：北京"
				var res *agentkit.Result
				if streamed {
					res, _ = a.RunStream(testContext(t), q).Result()
				} else {
					res, _ = a.Run(testContext(t), q)
				}
				if diff := cmp.Diff(agentkit.Cost{Amount: 2 * callCost}, res.Cost, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
					t.Errorf("Result.Cost (-want +got):\n%s", diff)
				}
			})
		}
	})
}
