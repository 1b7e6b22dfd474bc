package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// looping returns n replies that each call echo once and report tokens tokens.
func looping(n, tokens int) []agentkittest.Reply {
	out := make([]agentkittest.Reply, n)
	for i := range out {
		out[i] = agentkittest.ToolCalls(agentkittest.Call("echo", fmt.Sprintf(`{"n":%d}`, i)))
		out[i].Usage = openai.Usage{PromptTokens: tokens - tokens/4, CompletionTokens: tokens / 4, TotalTokens: tokens}
	}
	return out
}

func echoTool() *tool.Tool {
	return tool.New("echo", "Echoes.", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return fmt.Sprint(in.N), nil
	})
}

// Each limit of a Budget stops the run with StopBudget, the limit named on the Result and
// in a *BudgetError, after the model calls the limit allows.
func TestBudgetLimits(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}} // 1 per million tokens
	tests := []struct {
		name      string
		model     string
		budget    agentkit.Budget
		wantCalls int // model calls made
		wantLimit agentkit.BudgetLimit
		wantErr   string
	}{
		{"model calls", "m", agentkit.Budget{ModelCalls: 3}, 3, agentkit.LimitModelCalls, "model calls 3 of 3"},
		// 100 tokens a call: 250 is crossed by call 3, and no call follows it.
		{"tokens", "m", agentkit.Budget{Tokens: 250}, 3, agentkit.LimitTokens, "tokens 300 of 250"},
		{"tokens exactly reached", "m", agentkit.Budget{Tokens: 200}, 2, agentkit.LimitTokens, "tokens 200 of 200"},
		// 100 tokens cost 0.0001: 0.00025 is crossed by call 3.
		{"cost", "m", agentkit.Budget{Cost: 0.00025}, 3, agentkit.LimitCost, "cost 0.0003 of 0.00025"},
		{"unknown cost stops a cost limit", "unpriced", agentkit.Budget{Cost: 100}, 1, agentkit.LimitCost, "cost unknown, limit 100: 1 unpriced (a model call without a price in Options.Prices"},
		// Two tool calls a turn, five allowed: turn 3 runs one of its two, and the run stops.
		{"tool calls", "m", agentkit.Budget{ToolCalls: 5}, 3, agentkit.LimitToolCalls, "tool calls 5 of 5"},
		{"wall time", "m", agentkit.Budget{WallTime: time.Nanosecond}, 0, agentkit.LimitWallTime, "wall time"},
		{"the first limit reached wins", "m", agentkit.Budget{ModelCalls: 5, Tokens: 150, Cost: 10, WallTime: time.Hour}, 2, agentkit.LimitTokens, "tokens 200 of 150"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := looping(8, 100)
			if tt.wantLimit == agentkit.LimitToolCalls {
				for i := range replies {
					replies[i].Message.ToolCalls = append(replies[i].Message.ToolCalls, agentkittest.Call("echo", fmt.Sprintf(`{"n":%d}`, 100+i)))
				}
			}
			model := agentkittest.New(t, replies...)
			a := agentkit.New(model, &agentkit.Options{Model: tt.model, Prices: prices, Tools: []*tool.Tool{echoTool()}, Budget: tt.budget, MaxIterations: 20})
			res, err := a.Run(context.Background(), "go")
			var be *agentkit.BudgetError
			if !errors.As(err, &be) || !errors.Is(err, agentkit.ErrBudgetExhausted) {
				t.Fatalf("Run error = %v, want a *BudgetError", err)
			}
			if res.Stop != agentkit.StopBudget || res.Limit != tt.wantLimit || be.Limit != tt.wantLimit {
				t.Errorf("Stop %q, Limit %q, BudgetError.Limit %q; want %q, %q", res.Stop, res.Limit, be.Limit, agentkit.StopBudget, tt.wantLimit)
			}
			if got := len(model.Requests()); got != tt.wantCalls || res.Iterations != tt.wantCalls {
				t.Errorf("%d model calls (Iterations %d), want %d", got, res.Iterations, tt.wantCalls)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not say %q", err, tt.wantErr)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("transcript: %v", err)
			}
		})
	}
}

// The calls of a turn past the tool-call budget are answered not executed, with a message
// that says why; the calls within it run — in a streamed run too, where calls start early.
func TestBudgetToolCallsRefused(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			var mu sync.Mutex
			var ran []string
			rec := tool.New("echo", "Echoes.", func(ctx context.Context, in struct {
				N int `json:"n"`
			}) (string, error) {
				mu.Lock()
				ran = append(ran, fmt.Sprint(in.N))
				mu.Unlock()
				return "ok", nil
			})
			model := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.CallID("a", "echo", `{"n":1}`), agentkittest.CallID("b", "echo", `{"n":2}`), agentkittest.CallID("c", "echo", `{"n":3}`)))
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{rec}, Budget: agentkit.Budget{ToolCalls: 2}})
			run := a.Run
			if streamed {
				run = func(ctx context.Context, in string) (*agentkit.Result, error) { return a.RunStream(ctx, in).Result() }
			}
			res, err := run(context.Background(), "go")
			if !errors.Is(err, agentkit.ErrBudgetExhausted) || res.Limit != agentkit.LimitToolCalls {
				t.Fatalf("Run = %q %q, %v; want the tool-call limit", res.Stop, res.Limit, err)
			}
			slices.Sort(ran)
			if diff := cmp.Diff([]string{"1", "2"}, ran); diff != "" {
				t.Errorf("calls run (-want +got):\n%s", diff)
			}
			calls := res.Steps[0].Calls
			if k := calls[2].Result.Kind; k != tool.KindNotExecuted || !strings.Contains(calls[2].Result.Content, "at most 2 tool calls") {
				t.Errorf("the third call's result = %q %q, want not_executed saying the budget", k, calls[2].Result.Content)
			}
		})
	}
}

// "The budget stops within one model call of its limit, never after two": over limits and
// per-call usages, at most one model call begins once the tokens or the cost reached the
// limit — none without FinalAnswerOnLimit, exactly the final one with it.
func TestBudgetStopsWithinOneCall(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 10, Output: 10}} // 100 tokens cost 0.001
	for _, final := range []bool{false, true} {
		for _, perCall := range []int{1, 40, 100, 333} {
			for _, limit := range []int{1, 99, 100, 101, 250} {
				for _, kind := range []agentkit.BudgetLimit{agentkit.LimitTokens, agentkit.LimitCost} {
					name := fmt.Sprintf("final=%v/per=%d/limit=%d/%s", final, perCall, limit, kind)
					t.Run(name, func(t *testing.T) {
						b := agentkit.Budget{Tokens: limit}
						if kind == agentkit.LimitCost {
							b = agentkit.Budget{Cost: float64(limit) * 10 / 1e6}
						}
						// Every reply calls a tool, but the answer to a tool-free request.
						reply := agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
							r := looping(1, perCall)[0]
							if req.ToolChoice == "none" {
								r.Message = openai.ChatCompletionMessage{Content: "final"}
							}
							return r
						})
						replies := make([]agentkittest.Reply, 300)
						for i := range replies {
							replies[i] = reply
						}
						model := agentkittest.New(nil, replies...)
						a := agentkit.New(model, &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{echoTool()}, Budget: b, MaxIterations: 2000, LoopLimit: 5000, FinalAnswerOnLimit: final})
						res, err := a.Run(context.Background(), "go")
						if res.Stop != agentkit.StopBudget || res.Limit != kind {
							t.Fatalf("Run = %q %q, %v; want StopBudget %q", res.Stop, res.Limit, err, kind)
						}
						// Calls begun with the limit already reached: before call i, i-1 calls were made.
						after := 0
						for i := range model.Requests() {
							used := i * perCall
							if used*1 >= limit { // tokens; the cost limit is the same count priced
								after++
							}
						}
						want := 0
						if final {
							want = 1
						}
						if after != want {
							t.Errorf("%d model calls began after the limit was reached, want %d (calls %d)", after, want, len(model.Requests()))
						}
						if final && (err != nil || res.Output != "final") {
							t.Errorf("final request: Output %q, err %v; want its answer and no error", res.Output, err)
						}
					})
				}
			}
		}
	}
}

// With FinalAnswerOnLimit an exhausted budget makes the final tool-free request — the one
// of the iteration limit — and the run ends after it, with StopBudget and no error. For
// ModelCalls that request is the last call allowed.
func TestBudgetFinalAnswer(t *testing.T) {
	tests := []struct {
		name      string
		budget    agentkit.Budget
		wantCalls int
		wantLimit agentkit.BudgetLimit
	}{
		{"model calls: the final request is the last allowed", agentkit.Budget{ModelCalls: 3}, 3, agentkit.LimitModelCalls},
		{"one model call: the first is the final", agentkit.Budget{ModelCalls: 1}, 1, agentkit.LimitModelCalls},
		{"tokens: one call after the limit", agentkit.Budget{Tokens: 200}, 3, agentkit.LimitTokens},
		{"tool calls: one call after the refusal", agentkit.Budget{ToolCalls: 2}, 4, agentkit.LimitToolCalls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := append(looping(tt.wantCalls-1, 100), agentkittest.Text("what I know"))
			model := agentkittest.New(t, replies...)
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, Budget: tt.budget, FinalAnswerOnLimit: true})
			res, err := a.Run(context.Background(), "go")
			if err != nil || res.Stop != agentkit.StopBudget || res.Limit != tt.wantLimit || res.Output != "what I know" {
				t.Fatalf("Run = %q %q %q, %v; want StopBudget %q with the answer", res.Stop, res.Limit, res.Output, err, tt.wantLimit)
			}
			reqs := model.Requests()
			if len(reqs) != tt.wantCalls {
				t.Fatalf("%d model calls, want %d", len(reqs), tt.wantCalls)
			}
			last := reqs[len(reqs)-1]
			if last.ToolChoice != "none" || last.Messages[len(last.Messages)-1].Content != agentkit.BudgetExhaustedPrompt {
				t.Errorf("the last request: tool_choice %v, last message %q; want the final tool-free request", last.ToolChoice, last.Messages[len(last.Messages)-1].Content)
			}
			for _, m := range res.Messages {
				if m.Content == agentkit.BudgetExhaustedPrompt {
					t.Error("the transcript holds BudgetExhaustedPrompt")
				}
			}
		})
	}
	// A final reply that still calls tools: the calls are not run, and the budget's error stands.
	model := agentkittest.New(t, looping(2, 100)...)
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, Budget: agentkit.Budget{ModelCalls: 2}, FinalAnswerOnLimit: true})
	res, err := a.Run(context.Background(), "go")
	if !errors.Is(err, agentkit.ErrBudgetExhausted) || res.Stop != agentkit.StopBudget || res.Steps[1].Calls[0].Result.Kind != tool.KindNotExecuted {
		t.Errorf("final reply with calls: Run = %q, %v, call %q; want StopBudget, ErrBudgetExhausted, not executed", res.Stop, err, res.Steps[1].Calls[0].Result.Kind)
	}
}

// MaxIterations and Budget.ModelCalls: the tighter applies, each with its own stop reason;
// at the same call, the budget's.
func TestBudgetAndMaxIterations(t *testing.T) {
	tests := []struct {
		name      string
		maxIter   int
		calls     int
		wantStop  agentkit.StopReason
		wantCalls int
	}{
		{"iterations tighter", 2, 5, agentkit.StopIterationLimit, 2},
		{"budget tighter", 5, 2, agentkit.StopBudget, 2},
		{"equal: the budget's", 3, 3, agentkit.StopBudget, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := agentkittest.New(t, looping(tt.wantCalls, 10)...)
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, MaxIterations: tt.maxIter, Budget: agentkit.Budget{ModelCalls: tt.calls}})
			res, _ := a.Run(context.Background(), "go")
			if res.Stop != tt.wantStop || len(model.Requests()) != tt.wantCalls {
				t.Errorf("Stop %q after %d calls, want %q after %d", res.Stop, len(model.Requests()), tt.wantStop, tt.wantCalls)
			}
		})
	}
}

// WithBudget replaces the agent's budget for one run, whole; a sub-agent's run keeps its own
// agent's budget.
func TestWithBudget(t *testing.T) {
	model := agentkittest.New(t, looping(1, 10)...)
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, Budget: agentkit.Budget{ModelCalls: 5}})
	res, _ := a.Run(agentkit.WithBudget(context.Background(), agentkit.Budget{ModelCalls: 1}), "go")
	if res.Stop != agentkit.StopBudget || len(model.Requests()) != 1 {
		t.Errorf("WithBudget(1 call): Stop %q after %d calls, want StopBudget after 1", res.Stop, len(model.Requests()))
	}

	// A sub-agent of no budget, called by a run of a one-tool-call budget, makes its three
	// calls: the caller's budget is not its own.
	subModel := agentkittest.New(t, append(looping(2, 10), agentkittest.Text("sub done"))...)
	sub := agentkit.New(subModel, &agentkit.Options{Tools: []*tool.Tool{echoTool()}})
	top := agentkit.New(agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("helper", `{"input":"x"}`)), agentkittest.ToolCalls(agentkittest.Call("helper", `{"input":"y"}`))),
		&agentkit.Options{Tools: []*tool.Tool{sub.Tool("helper", "Helps.")}})
	res, err := top.Run(agentkit.WithBudget(context.Background(), agentkit.Budget{ToolCalls: 1}), "go")
	if res.Steps[0].Calls[0].Result.Content != "sub done" || len(subModel.Requests()) != 3 {
		t.Errorf("sub-agent: result %q after %d calls, want its answer after 3", res.Steps[0].Calls[0].Result.Content, len(subModel.Requests()))
	}
	if !errors.Is(err, agentkit.ErrBudgetExhausted) || res.Stop != agentkit.StopBudget || res.Steps[1].Calls[0].Result.Kind != tool.KindNotExecuted {
		t.Errorf("top run: %q, %v; want its second helper call refused, and StopBudget", res.Stop, err)
	}
}

// A resumed run is the same run: the paused run's model calls, tokens and tool calls count
// against the Resume's budget.
func TestBudgetResume(t *testing.T) {
	pay := tool.New("pay", "Pays.", func(ctx context.Context, in struct{}) (string, error) { return "paid", nil }, tool.Options{RequireApproval: true})
	tests := []struct {
		name      string
		budget    agentkit.Budget
		wantLimit agentkit.BudgetLimit // "" for an answer
	}{
		{"paused call counts", agentkit.Budget{ModelCalls: 1}, agentkit.LimitModelCalls},
		{"paused tokens count", agentkit.Budget{Tokens: 100}, agentkit.LimitTokens},
		{"room left", agentkit.Budget{ModelCalls: 2, Tokens: 101}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := agentkittest.ToolCalls(agentkittest.CallID("c1", "pay", `{}`))
			first.Usage = openai.Usage{PromptTokens: 100}
			model := agentkittest.New(t, first, agentkittest.Text("done"))
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{pay}, Ledger: memory.NewInMemory()})
			res, _ := a.Run(context.Background(), "pay")
			if res.Pause == nil {
				t.Fatalf("Run = %q, want a pause", res.Stop)
			}
			res, err := a.Resume(agentkit.WithBudget(context.Background(), tt.budget), res.Pause, []agentkit.Decision{{CallID: "c1", Approve: true}})
			if res.Limit != tt.wantLimit {
				t.Fatalf("Resume = %q %q, %v; want limit %q", res.Stop, res.Limit, err, tt.wantLimit)
			}
			if got := res.Steps[0].Calls[0].Result.Content; got != "paid" {
				t.Errorf("the approved call's result = %q, want it run", got)
			}
			wantCalls := 1
			if tt.wantLimit == "" {
				wantCalls = 2
			}
			if len(model.Requests()) != wantCalls {
				t.Errorf("%d model calls in all, want %d", len(model.Requests()), wantCalls)
			}
		})
	}

	// A paused run's tool calls count too: one ran before the pause, the approved one after.
	lookup := tool.New("lookup", "Looks up.", func(ctx context.Context, in struct{}) (string, error) { return "found", nil })
	first := agentkittest.ToolCalls(agentkittest.CallID("l1", "lookup", `{}`), agentkittest.CallID("c1", "pay", `{}`))
	model := agentkittest.New(t, first, looping(1, 1)[0])
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{lookup, pay, echoTool()}, Ledger: memory.NewInMemory()})
	res, _ := a.Run(context.Background(), "pay")
	if res.Pause == nil || res.Pause.ToolCalls != 1 {
		t.Fatalf("Run = %q, pause %+v; want a pause that counted 1 tool call", res.Stop, res.Pause)
	}
	res, err := a.Resume(agentkit.WithBudget(context.Background(), agentkit.Budget{ToolCalls: 2}), res.Pause, []agentkit.Decision{{CallID: "c1", Approve: true}})
	if res.Limit != agentkit.LimitToolCalls || res.Steps[1].Calls[0].Result.Kind != tool.KindNotExecuted {
		t.Errorf("Resume = %q %q, %v; want the third tool call refused and the tool-call limit", res.Stop, res.Limit, err)
	}
}

// A negative limit — a remaining budget computed as limit minus spent that went below zero —
// is a limit already exhausted, never no limit: the run makes no model call (with
// FinalAnswerOnLimit, only the final one). A NaN Cost is exhausted too.
func TestBudgetNegative(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	tests := []struct {
		name      string
		budget    agentkit.Budget
		wantLimit agentkit.BudgetLimit
	}{
		{"model calls", agentkit.Budget{ModelCalls: -1}, agentkit.LimitModelCalls},
		{"tool calls", agentkit.Budget{ToolCalls: -2}, agentkit.LimitToolCalls},
		{"tokens", agentkit.Budget{Tokens: -100}, agentkit.LimitTokens},
		{"cost", agentkit.Budget{Cost: -0.5}, agentkit.LimitCost},
		{"cost NaN", agentkit.Budget{Cost: math.NaN()}, agentkit.LimitCost},
		{"wall time", agentkit.Budget{WallTime: -time.Second}, agentkit.LimitWallTime},
	}
	for _, tt := range tests {
		for _, final := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/final=%v", tt.name, final), func(t *testing.T) {
				var ran []string
				rec := tool.New("echo", "Echoes.", func(ctx context.Context, in struct {
					N int `json:"n"`
				}) (string, error) {
					ran = append(ran, fmt.Sprint(in.N))
					return "ok", nil
				}, tool.Options{Sequential: true})
				replies := looping(4, 10)
				switch {
				case final && tt.wantLimit == agentkit.LimitToolCalls: // a turn's call refused, then the final request
					replies = []agentkittest.Reply{replies[0], agentkittest.Text("nothing left")}
				case final:
					replies = append([]agentkittest.Reply{agentkittest.Text("nothing left")}, replies...)
				}
				model := agentkittest.New(nil, replies...)
				a := agentkit.New(model, &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{rec}, Budget: tt.budget, FinalAnswerOnLimit: final})
				res, err := a.Run(context.Background(), "go")
				if res.Stop != agentkit.StopBudget || res.Limit != tt.wantLimit {
					t.Fatalf("Run = %q %q, %v; want StopBudget %q", res.Stop, res.Limit, err, tt.wantLimit)
				}
				wantCalls := 0
				if final {
					wantCalls = 1 // the final request
				}
				if tt.wantLimit == agentkit.LimitToolCalls {
					wantCalls++ // a tool-call limit is found exhausted by the turn that asks for a call
				}
				if got := len(model.Requests()); got != wantCalls {
					t.Errorf("%d model calls, want %d", got, wantCalls)
				}
				if len(ran) != 0 {
					t.Errorf("tools ran %v, want none", ran)
				}
			})
		}
	}
}

// A budget a RunMiddleware gives the run with WithBudget (a per-tenant policy) is the run's:
// the middleware's context is the one the run inherits.
func TestWithBudgetInRunMiddleware(t *testing.T) {
	model := agentkittest.New(t, looping(1, 10)...)
	perTenant := func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			return next(agentkit.WithBudget(ctx, agentkit.Budget{ModelCalls: 1}))
		}
	}
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, RunMiddleware: []agentkit.RunMiddleware{perTenant}})
	res, err := a.Run(context.Background(), "go")
	if res.Stop != agentkit.StopBudget || len(model.Requests()) != 1 {
		t.Errorf("Run = %q after %d calls, %v; want StopBudget after 1", res.Stop, len(model.Requests()), err)
	}
}

// A turn whose calls went past the tool-call budget ends the run before its next model call;
// when the turn also paused, the resumed run ends there too, as the run would have without
// the pause — with FinalAnswerOnLimit, with the final request.
func TestBudgetToolCallsOutAcrossPause(t *testing.T) {
	pay := tool.New("pay", "Pays.", func(ctx context.Context, in struct{}) (string, error) { return "paid", nil }, tool.Options{RequireApproval: true})
	for _, final := range []bool{false, true} {
		t.Run(fmt.Sprintf("final=%v", final), func(t *testing.T) {
			first := agentkittest.ToolCalls(agentkittest.CallID("p", "pay", `{}`), agentkittest.CallID("e1", "echo", `{"n":1}`), agentkittest.CallID("e2", "echo", `{"n":2}`))
			model := agentkittest.New(nil, first, agentkittest.Text("what I know"), looping(1, 10)[0])
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{pay, echoTool()}, Ledger: memory.NewInMemory(),
				Budget: agentkit.Budget{ToolCalls: 2}, FinalAnswerOnLimit: final})
			res, _ := a.Run(context.Background(), "go")
			if res.Pause == nil {
				t.Fatalf("Run = %q, want a pause", res.Stop)
			}
			if k := res.Pause.Results[1].Kind; k != tool.KindNotExecuted {
				t.Fatalf("the third call's result kind = %q, want it refused for the budget", k)
			}
			res, err := a.Resume(context.Background(), res.Pause, []agentkit.Decision{{CallID: "p", Approve: true}})
			if res.Stop != agentkit.StopBudget || res.Limit != agentkit.LimitToolCalls {
				t.Errorf("Resume = %q %q, %v; want StopBudget %q", res.Stop, res.Limit, err, agentkit.LimitToolCalls)
			}
			wantCalls := 1
			if final {
				wantCalls = 2
				if last := model.Requests()[len(model.Requests())-1]; last.ToolChoice != "none" {
					t.Errorf("the resumed run's request has tool_choice %v, want the final tool-free one", last.ToolChoice)
				}
			}
			if got := len(model.Requests()); got != wantCalls {
				t.Errorf("%d model calls in all, want %d", got, wantCalls)
			}
		})
	}
	// A Resume whose budget has room left goes on.
	first := agentkittest.ToolCalls(agentkittest.CallID("p", "pay", `{}`), agentkittest.CallID("e1", "echo", `{"n":1}`), agentkittest.CallID("e2", "echo", `{"n":2}`))
	model := agentkittest.New(t, first, agentkittest.Text("done"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{pay, echoTool()}, Ledger: memory.NewInMemory(), Budget: agentkit.Budget{ToolCalls: 2}})
	res, _ := a.Run(context.Background(), "go")
	res, err := a.Resume(agentkit.WithBudget(context.Background(), agentkit.Budget{ToolCalls: 10}), res.Pause, []agentkit.Decision{{CallID: "p", Approve: true}})
	if err != nil || res.Stop != agentkit.StopAnswered {
		t.Errorf("Resume with room left = %q %q, %v; want the answer", res.Stop, res.Limit, err)
	}
}

// The output tool of a typed run (OutputTool) is the run's answer, not a tool call of the
// budget: a run that used its tool calls still ends with the answer it delivers through it,
// and a turn that answers beside a call is refused only that call.
func TestBudgetToolCallsOutputTool(t *testing.T) {
	answer := agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`)
	tests := []struct {
		name    string
		replies []agentkittest.Reply
	}{
		{"answer after the budget's calls", []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
			agentkittest.ToolCalls(answer)}},
		{"answer first in a turn", []agentkittest.Reply{
			agentkittest.ToolCalls(answer, agentkittest.Call("get_weather", `{"city":"Paris"}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			a := agentkit.New(agentkittest.New(t, tt.replies...), &agentkit.Options{Tools: []*tool.Tool{parisWeather(&ran)},
				Output: agentkit.Output[forecast](nil), Budget: agentkit.Budget{ToolCalls: 1}})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			if err != nil || res.Stop != agentkit.StopAnswered {
				t.Fatalf("Run = %q %q, %v; want the typed answer", res.Stop, res.Limit, err)
			}
			if got, ok := agentkit.ValueOf[forecast](res); !ok || got.City != "Paris" {
				t.Errorf("ValueOf = %+v, %v; want Paris", got, ok)
			}
			if diff := cmp.Diff([]string{"Paris"}, ran); diff != "" {
				t.Errorf("get_weather calls (-want +got):\n%s", diff)
			}
		})
	}
}

// A Cost limit holds for the agents a run calls as tools: their model calls spend from
// what the caller has left, live, and a sub-agent stops once the caller's limit is reached
// — within one model call of it, as the caller itself would — then the caller stops too.
func TestBudgetCostHoldsForSubAgents(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	perCall := func(r agentkittest.Reply, tokens int) agentkittest.Reply {
		r.Usage = openai.Usage{PromptTokens: tokens}
		return r
	}
	sub := make([]agentkittest.Reply, 6)
	for i := range sub {
		sub[i] = perCall(looping(1, 0)[0], 300_000) // 0.3 a call, a tool call each
	}
	subModel := agentkittest.New(nil, sub...)
	helper := agentkit.New(subModel, &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{echoTool()}, MaxIterations: 6, LoopLimit: 10})
	topModel := agentkittest.New(t, perCall(agentkittest.ToolCalls(agentkittest.Call("helper", `{"input":"x"}`)), 1_000_000))
	top := agentkit.New(topModel, &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{helper.Tool("helper", "Helps.")}, Budget: agentkit.Budget{Cost: 1.5}})
	res, err := top.Run(context.Background(), "go")
	if !errors.Is(err, agentkit.ErrBudgetExhausted) || res.Limit != agentkit.LimitCost {
		t.Fatalf("Run = %q %q, %v; want the cost limit", res.Stop, res.Limit, err)
	}
	// 1 (the caller's call) + 0.3 + 0.3: the second sub-agent call crossed 1.5, no call follows.
	if got := len(subModel.Requests()); got != 2 {
		t.Errorf("the sub-agent made %d model calls, want 2", got)
	}
	if want := (agentkit.Cost{Amount: 1.6}); !cmp.Equal(res.Cost, want, approx) {
		t.Errorf("Result.Cost = %v, want %v", res.Cost, want)
	}
	if c := res.Steps[0].Calls[0].Result.Content; !strings.Contains(c, "calling run's cost") {
		t.Errorf("the helper's result %q does not say the caller's budget stopped it", c)
	}

	// Two sub-agents in one turn share what is left: each stops within one call of it.
	models := []*agentkittest.Model{agentkittest.New(nil, sub...), agentkittest.New(nil, sub...)}
	var tools []*tool.Tool
	for i, m := range models {
		h := agentkit.New(m, &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{echoTool()}, MaxIterations: 6, LoopLimit: 10})
		tools = append(tools, h.Tool(fmt.Sprintf("helper%d", i), "Helps."))
	}
	topModel = agentkittest.New(t, perCall(agentkittest.ToolCalls(agentkittest.Call("helper0", `{"input":"x"}`), agentkittest.Call("helper1", `{"input":"y"}`)), 1_000_000))
	top = agentkit.New(topModel, &agentkit.Options{Model: "m", Prices: prices, Tools: tools, Budget: agentkit.Budget{Cost: 1.5}})
	if res, err := top.Run(context.Background(), "go"); res.Limit != agentkit.LimitCost {
		t.Errorf("parallel: Run = %q %q, %v; want the cost limit", res.Stop, res.Limit, err)
	}
	if n := len(models[0].Requests()) + len(models[1].Requests()); n < 2 || n > 3 {
		t.Errorf("parallel: the sub-agents made %d model calls, want 2 or 3 (one each, and one more at most if one ran ahead)", n)
	}
}

// A typed answer the run refuses and asks again for is a model call of the budget: the
// correction turns of every mode stop at Budget.ModelCalls, and at a token limit.
func TestBudgetCountsOutputCorrections(t *testing.T) {
	bad := `{"city":"Paris","temp_c":999,"sky":"sunny"}`
	for _, mode := range modes {
		for _, b := range []agentkit.Budget{{ModelCalls: 2}, {Tokens: 150}} {
			t.Run(fmt.Sprintf("%s/%+v", mode, b), func(t *testing.T) {
				reply := func() agentkittest.Reply {
					r := agentkittest.Text(bad)
					if mode == agentkit.OutputTool {
						r = agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, bad))
					}
					r.Usage = openai.Usage{PromptTokens: 75, TotalTokens: 75}
					return r
				}
				m := agentkittest.New(nil, reply(), reply(), reply(), reply())
				a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode}), Budget: b})
				res, err := a.Run(context.Background(), "Weather in Paris?")
				if res.Stop != agentkit.StopBudget || !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.Is(err, agentkit.ErrBudgetExhausted) {
					t.Errorf("Run = %q, %v; want StopBudget, ErrOutputInvalid and ErrBudgetExhausted", res.Stop, err)
				}
				if got := len(m.Requests()); got != 2 {
					t.Errorf("%d model calls, want 2", got)
				}
			})
		}
	}
}

// A token limit counts each call's tokens as that call reports them: prompt and completion
// tokens, or the total when a provider reports only that — per call, so that a run whose
// calls report differently (a fallback to another provider) is not undercounted.
func TestBudgetTokensPerCall(t *testing.T) {
	onlyTotal := looping(1, 0)[0]
	onlyTotal.Usage = openai.Usage{TotalTokens: 100}
	split := looping(1, 0)[0]
	split.Usage = openai.Usage{PromptTokens: 60, CompletionTokens: 40}
	model := agentkittest.New(nil, onlyTotal, split, looping(1, 0)[0])
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echoTool()}, Budget: agentkit.Budget{Tokens: 200}, LoopLimit: 10})
	res, err := a.Run(context.Background(), "go")
	if res.Limit != agentkit.LimitTokens || len(model.Requests()) != 2 || !strings.Contains(fmt.Sprint(err), "tokens 200 of 200") {
		t.Errorf("Run = %q %q after %d calls, %v; want the token limit after 2 calls, 200 tokens", res.Stop, res.Limit, len(model.Requests()), err)
	}
}
