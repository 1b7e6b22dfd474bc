package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// approx compares costs to the cent of a millionth: float sums differ in their last bits.
var approx = cmpopts.EquateApprox(0, 1e-12)

// A Usage is priced without counting a token twice: cached and cache-write tokens are part of
// the prompt tokens, reasoning tokens part of the completion tokens.
func TestPriceOf(t *testing.T) {
	full := agentkit.Price{Input: 2, CachedInput: 0.5, CacheWrite: 2.5, Output: 8}
	tests := []struct {
		name  string
		price agentkit.Price
		usage agentkit.Usage
		want  float64
	}{
		{"nothing", full, agentkit.Usage{}, 0},
		{"uncached prompt and output", full, agentkit.Usage{PromptTokens: 1_000_000, CompletionTokens: 500_000}, 2 + 4},
		{"cached part at the cached price", full, agentkit.Usage{PromptTokens: 1_000_000, CachedTokens: 800_000}, 0.2*2 + 0.8*0.5},
		{"cache writes at the write price", full, agentkit.Usage{PromptTokens: 1_000_000, CachedTokens: 500_000, CacheWriteTokens: 500_000}, 0.5*0.5 + 0.5*2.5},
		{"reasoning tokens are output, counted once", full, agentkit.Usage{CompletionTokens: 1_000_000, ReasoningTokens: 900_000}, 8},
		{"no cache prices: cached billed as input", agentkit.Price{Input: 2, Output: 8}, agentkit.Usage{PromptTokens: 1_000_000, CachedTokens: 1_000_000, CacheWriteTokens: 0}, 2},
		{"more cached than prompt: no negative part", full, agentkit.Usage{PromptTokens: 10, CachedTokens: 1_000_000}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Of(tt.usage); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Of(%+v) = %v, want %v", tt.usage, got, tt.want)
			}
		})
	}
}

// A model call is priced under the response's model, else the request's; a model without a
// price is an unknown cost, never 0; a sum with an unknown part is a lower bound.
func TestPricesCost(t *testing.T) {
	table := agentkit.Prices{"gpt-4o-mini": {Input: 0.15, CachedInput: 0.075, Output: 0.6}, "snap-1": {Input: 1, Output: 1}}
	u := agentkit.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000}
	tests := []struct {
		name   string
		table  agentkit.Prices
		models []string
		want   agentkit.Cost
	}{
		{"response model", table, []string{"snap-1", "gpt-4o-mini"}, agentkit.Cost{Amount: 2}},
		{"dated snapshot falls back to the requested model", table, []string{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"}, agentkit.Cost{Amount: 0.75}},
		{"response names none", table, []string{"", "gpt-4o-mini"}, agentkit.Cost{Amount: 0.75}},
		{"unpriced", table, []string{"other", "other"}, agentkit.Cost{Unknown: 1}},
		{"no table", nil, []string{"gpt-4o-mini"}, agentkit.Cost{Unknown: 1}},
		{"a negative price is no price", agentkit.Prices{"neg": {Input: -1, Output: 1}}, []string{"neg"}, agentkit.Cost{Unknown: 1}},
		{"an infinite price is no price", agentkit.Prices{"inf": {Input: math.Inf(1), Output: 1}}, []string{"inf"}, agentkit.Cost{Unknown: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.table.Cost(u, tt.models...), approx); diff != "" {
				t.Errorf("Cost (-want +got):\n%s", diff)
			}
		})
	}

	var sum agentkit.Cost
	sum.Add(agentkit.Cost{Amount: 0.5})
	if !sum.Known() || sum.String() != "0.5" {
		t.Errorf("known sum: Known %v, String %q; want true, 0.5", sum.Known(), sum.String())
	}
	sum.Add(agentkit.Cost{Unknown: 1})
	if sum.Known() || sum.Amount != 0.5 || sum.String() != "at least 0.5 (1 unpriced)" {
		t.Errorf("known + unknown: Known %v, Amount %v, String %q; want false, 0.5, a lower bound", sum.Known(), sum.Amount, sum.String())
	}
}

// A run's cost: each model call's on its Step and EventModelResponse, each tool's report on
// its CallRecord and EventToolEnd, their sum on the Result; an unpriced model makes the
// sum a lower bound.
func TestRunCost(t *testing.T) {
	search := tool.New("search", "Searches the web.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.004})
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.001}) // reports add up
		return "results", nil
	})
	free := tool.New("free", "Costs nothing.", func(ctx context.Context, in struct{}) (string, error) { return "ok", nil })
	usage := func(p, c, cached int) openai.Usage {
		return openai.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c, PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: cached}}
	}
	prices := agentkit.Prices{"m": {Input: 1, CachedInput: 0.1, Output: 4}}
	tests := []struct {
		name     string
		model    string
		steps    []agentkit.Cost
		calls    []agentkit.Cost
		want     agentkit.Cost
		unpriced bool
	}{
		// call 1: 1000 prompt, 100 out; call 2: 2000 prompt, 1000 cached, 50 out.
		{"priced", "m", []agentkit.Cost{{Amount: (1000 + 400) / 1e6}, {Amount: (1000 + 100 + 200) / 1e6}}, []agentkit.Cost{{Amount: 0.005}, {}},
			agentkit.Cost{Amount: (1400+1300)/1e6 + 0.005}, false},
		{"unpriced model", "other", []agentkit.Cost{{Unknown: 1}, {Unknown: 1}}, []agentkit.Cost{{Amount: 0.005}, {}},
			agentkit.Cost{Amount: 0.005, Unknown: 2}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := agentkittest.ToolCalls(agentkittest.Call("search", `{}`), agentkittest.Call("free", `{}`))
			call.Usage = usage(1000, 100, 0)
			answer := agentkittest.Text("done")
			answer.Usage = usage(2000, 50, 1000)
			var mu sync.Mutex
			var events []agentkit.Cost
			a := agentkit.New(agentkittest.New(t, call, answer), &agentkit.Options{
				Model: tt.model, Prices: prices, Tools: []*tool.Tool{search, free},
				OnEvent: func(_ context.Context, e agentkit.Event) {
					if e.Kind == agentkit.EventModelResponse || e.Kind == agentkit.EventToolEnd {
						mu.Lock()
						events = append(events, e.Cost)
						mu.Unlock()
					}
				},
			})
			res, err := a.Run(context.Background(), "search")
			if err != nil {
				t.Fatal(err)
			}
			var steps, calls []agentkit.Cost
			for _, s := range res.Steps {
				steps = append(steps, s.Cost)
				for _, c := range s.Calls {
					calls = append(calls, c.Cost)
				}
			}
			if diff := cmp.Diff(tt.steps, steps, approx); diff != "" {
				t.Errorf("Step.Cost (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.calls, calls, approx); diff != "" {
				t.Errorf("CallRecord.Cost (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, res.Cost, approx); diff != "" {
				t.Errorf("Result.Cost (-want +got):\n%s", diff)
			}
			if res.Cost.Known() == tt.unpriced {
				t.Errorf("Result.Cost.Known() = %v, want %v", res.Cost.Known(), !tt.unpriced)
			}
			// The tool events arrive concurrently: compare as a multiset.
			wantEvents := append(append([]agentkit.Cost{}, tt.steps...), tt.calls...)
			less := func(a, b agentkit.Cost) bool {
				return a.Amount < b.Amount || a.Amount == b.Amount && a.Unknown < b.Unknown
			}
			if diff := cmp.Diff(wantEvents, events, approx, cmpopts.SortSlices(less)); diff != "" {
				t.Errorf("events' Cost (-want +got):\n%s", diff)
			}
		})
	}
	agentkit.ReportCost(context.Background(), agentkit.Cost{Amount: 1}) // outside a call: nothing, no panic
}

// An agent used as a tool reports its run's cost as the call's: the caller's Result.Cost
// includes the sub-agent's model calls.
func TestSubAgentCost(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	subAnswer := agentkittest.Text("sub done")
	subAnswer.Usage = openai.Usage{PromptTokens: 500_000, CompletionTokens: 500_000}
	sub := agentkit.New(agentkittest.New(t, subAnswer), &agentkit.Options{Model: "m", Prices: prices})
	call := agentkittest.ToolCalls(agentkittest.Call("helper", `{"input":"do it"}`))
	call.Usage = openai.Usage{PromptTokens: 1_000_000}
	a := agentkit.New(agentkittest.New(t, call, agentkittest.Text("done")), &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{sub.Tool("helper", "Helps.")}})
	res, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Steps[0].Calls[0].Cost; !cmp.Equal(got, agentkit.Cost{Amount: 1}, approx) {
		t.Errorf("the sub-agent call's cost = %v, want 1", got)
	}
	if want := (agentkit.Cost{Amount: 2}); !cmp.Equal(res.Cost, want, approx) {
		t.Errorf("Result.Cost = %v, want %v (own call 1, sub-agent 1, answer 0)", res.Cost, want)
	}
}

// A Meter sums what is spent per session, across runs and a resumed pause, each model call
// and each tool report once; concurrent sessions do not mix.
func TestMeterPerSession(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	paid := tool.New("paid", "A paid API.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.5})
		return "ok", nil
	})
	step := func(r agentkittest.Reply) agentkittest.Reply {
		r.Usage = openai.Usage{PromptTokens: 100_000, CompletionTokens: 100_000, TotalTokens: 200_000}
		return r
	}
	script := func() []agentkittest.Reply {
		return []agentkittest.Reply{step(agentkittest.ToolCalls(agentkittest.Call("paid", `{}`))), step(agentkittest.Text("done"))}
	}
	var meter agentkit.Meter
	var wg sync.WaitGroup
	sessions := []string{"alice", "bob", "carol"}
	for _, s := range sessions {
		wg.Go(func() {
			replies := append(script(), script()...) // two runs per session
			a := agentkit.New(agentkittest.New(t, replies...), &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{paid}, Memory: memory.NewInMemory(), UsageRecorder: &meter})
			for range 2 {
				if _, err := a.RunSession(context.Background(), s, "go"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// Per run: two calls of 0.2 each, one tool report of 0.5.
	want := agentkit.Spend{Usage: agentkit.Usage{PromptTokens: 400_000, CompletionTokens: 400_000, TotalTokens: 800_000}, Cost: agentkit.Cost{Amount: 2 * (0.4 + 0.5)}, ModelCalls: 4}
	for _, s := range sessions {
		if diff := cmp.Diff(want, meter.Session(s), approx); diff != "" {
			t.Errorf("session %s (-want +got):\n%s", s, diff)
		}
	}
	if got := meter.Total().ModelCalls; got != 12 {
		t.Errorf("Total().ModelCalls = %d, want 12", got)
	}
	if got := meter.Session("nobody"); got != (agentkit.Spend{}) {
		t.Errorf("an unknown session spent %+v, want nothing", got)
	}
}

// A resumed session records only what it spends itself; its Result sums the paused run's
// and its own, the tool that ran before the pause counted once.
func TestMeterResumedSession(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	var meter agentkit.Meter
	paid := tool.New("paid", "A paid API.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.5})
		return "ok", nil
	})
	pay := tool.New("pay", "Pays.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.25})
		return "paid", nil
	}, tool.Options{RequireApproval: true})
	first := agentkittest.ToolCalls(agentkittest.CallID("c1", "paid", `{}`), agentkittest.CallID("c2", "pay", `{}`))
	first.Usage = openai.Usage{PromptTokens: 1_000_000}
	answer := agentkittest.Text("done")
	answer.Usage = openai.Usage{CompletionTokens: 1_000_000}
	a := agentkit.New(agentkittest.New(t, first, answer), &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{paid, pay}, Memory: memory.NewInMemory(), UsageRecorder: &meter})
	res, err := a.RunSession(context.Background(), "s", "go")
	if res.Stop != agentkit.StopPaused {
		t.Fatalf("RunSession = %q, %v; want a pause", res.Stop, err)
	}
	if want := (agentkit.Cost{Amount: 1.5}); !cmp.Equal(meter.Session("s").Cost, want, approx) {
		t.Errorf("paused: the session spent %v, want %v", meter.Session("s").Cost, want)
	}
	res, err = a.ResumeSession(context.Background(), "s", []agentkit.Decision{{CallID: "c2", Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (agentkit.Cost{Amount: 1 + 0.5 + 0.25 + 1}); !cmp.Equal(res.Cost, want, approx) || !cmp.Equal(meter.Session("s").Cost, want, approx) {
		t.Errorf("resumed: Result.Cost %v, the session spent %v; want %v both", res.Cost, meter.Session("s").Cost, want)
	}
	if got := meter.Session("s").ModelCalls; got != 2 {
		t.Errorf("the session made %d model calls, want 2", got)
	}
}

// A streamed call is priced as a plain one: under the model its chunks name (a dated
// snapshot the table prices) before the requested one.
func TestStreamedCostUnderResponseModel(t *testing.T) {
	prices := agentkit.Prices{"m-2024-07-18": {Input: 1, Output: 1}} // the snapshot only
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			resp := openai.ChatCompletionResponse{Model: "m-2024-07-18",
				Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "hi"}, FinishReason: openai.FinishReasonStop}},
				Usage:   openai.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000, TotalTokens: 2_000_000}}
			a := agentkit.New(agentkittest.New(t, agentkittest.Reply{Response: &resp}), &agentkit.Options{Model: "m", Prices: prices})
			var res *agentkit.Result
			var err error
			if streamed {
				res, err = a.RunStream(context.Background(), "hi").Result()
			} else {
				res, err = a.Run(context.Background(), "hi")
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := (agentkit.Cost{Amount: 2}); !cmp.Equal(res.Cost, want, approx) {
				t.Errorf("Result.Cost = %v, want %v", res.Cost, want)
			}
		})
	}
}

// A reply the run rejects after it arrived — over MaxReplyBytes, or without choices — was
// billed all the same: its usage and cost are the run's and are recorded.
func TestRejectedReplyCost(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	u := openai.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000, TotalTokens: 2_000_000}
	big := agentkittest.Text(strings.Repeat("x", 100))
	big.Usage = u
	tests := []struct {
		name    string
		reply   agentkittest.Reply
		wantErr error
	}{
		{"reply too large", big, agentkit.ErrReplyTooLarge},
		{"no choices", agentkittest.Reply{Response: &openai.ChatCompletionResponse{Usage: u}}, agentkit.ErrNoChoices},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var meter agentkit.Meter
			a := agentkit.New(agentkittest.New(t, tt.reply), &agentkit.Options{Model: "m", Prices: prices, MaxReplyBytes: 10, UsageRecorder: &meter})
			res, err := a.Run(context.Background(), "hi")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run error %v, want %v", err, tt.wantErr)
			}
			want := agentkit.Spend{Usage: agentkit.UsageOf(u), Cost: agentkit.Cost{Amount: 2}, ModelCalls: 1}
			if diff := cmp.Diff(want, agentkit.Spend{Usage: res.Usage, Cost: res.Cost, ModelCalls: 1}, approx); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, meter.Total(), approx); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
		})
	}
	// A stream cut by MaxReplyBytes before its usage chunk: generated, billed, of unknown cost.
	t.Run("stream cut", func(t *testing.T) {
		var meter agentkit.Meter
		a := agentkit.New(agentkittest.New(t, big), &agentkit.Options{Model: "m", Prices: prices, MaxReplyBytes: 10, UsageRecorder: &meter})
		res, err := a.RunStream(context.Background(), "hi").Result()
		if !errors.Is(err, agentkit.ErrReplyTooLarge) {
			t.Fatalf("Run error %v, want ErrReplyTooLarge", err)
		}
		want := agentkit.Spend{Cost: agentkit.Cost{Unknown: 1}, ModelCalls: 1}
		if diff := cmp.Diff(want, meter.Total()); diff != "" || res.Cost != want.Cost {
			t.Errorf("Result.Cost %v; recorded (-want +got):\n%s", res.Cost, diff)
		}
	})
}

// An agent used as a tool that shares its caller's UsageRecorder (one Meter for the
// application): each model call is recorded once, under the caller's session, and the
// Meter's sum is the caller's Result.Cost.
func TestSubAgentMeter(t *testing.T) {
	prices := agentkit.Prices{"m": {Input: 1, Output: 1}}
	var meter agentkit.Meter
	paid := tool.New("paid", "A paid API.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.25})
		return "ok", nil
	})
	subCall := agentkittest.ToolCalls(agentkittest.Call("paid", `{}`))
	subCall.Usage = openai.Usage{PromptTokens: 500_000}
	subAnswer := agentkittest.Text("sub done")
	subAnswer.Usage = openai.Usage{CompletionTokens: 500_000}
	sub := agentkit.New(agentkittest.New(t, subCall, subAnswer), &agentkit.Options{Model: "m", Prices: prices, Tools: []*tool.Tool{paid}, UsageRecorder: &meter})
	call := agentkittest.ToolCalls(agentkittest.Call("helper", `{"input":"do it"}`), agentkittest.Call("paid", `{}`))
	call.Usage = openai.Usage{PromptTokens: 1_000_000}
	a := agentkit.New(agentkittest.New(t, call, agentkittest.Text("done")), &agentkit.Options{Model: "m", Prices: prices, Memory: memory.NewInMemory(),
		Tools: []*tool.Tool{sub.Tool("helper", "Helps."), paid}, UsageRecorder: &meter})
	res, err := a.RunSession(context.Background(), "s", "go")
	if err != nil {
		t.Fatal(err)
	}
	// Own call 1, the sub-agent's calls 0.5 + 0.5 and its tool 0.25, own tool 0.25.
	if want := (agentkit.Cost{Amount: 2.5}); !cmp.Equal(res.Cost, want, approx) {
		t.Fatalf("Result.Cost = %v, want %v", res.Cost, want)
	}
	want := agentkit.Spend{Usage: agentkit.Usage{PromptTokens: 1_500_000, CompletionTokens: 500_000}, Cost: res.Cost, ModelCalls: 4}
	if diff := cmp.Diff(want, meter.Total(), approx); diff != "" {
		t.Errorf("Meter.Total (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, meter.Session("s"), approx); diff != "" {
		t.Errorf("Meter.Session(s) (-want +got):\n%s", diff)
	}
}

// A cost a tool reports that is not a number of at least 0 (NaN, an infinity, a negative
// amount or count) is not summed as one: it is an unknown cost, and a Cost budget stops.
func TestReportCostInvalid(t *testing.T) {
	for _, c := range []agentkit.Cost{{Amount: math.NaN()}, {Amount: math.Inf(1)}, {Amount: -1}, {Unknown: -1}} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			bad := tool.New("bad", "Reports a bad cost.", func(ctx context.Context, in struct{}) (string, error) {
				agentkit.ReportCost(ctx, c)
				return "ok", nil
			})
			model := agentkittest.New(t, looping(1, 10)[0], agentkittest.ToolCalls(agentkittest.Call("bad", `{}`)), agentkittest.Text("done"))
			a := agentkit.New(model, &agentkit.Options{Model: "m", Prices: agentkit.Prices{"m": {Input: 1, Output: 1}}, Tools: []*tool.Tool{bad, echoTool()},
				Budget: agentkit.Budget{Cost: 1}, Ledger: memory.NewInMemory()})
			res, err := a.Run(context.Background(), "go")
			if res.Cost.Known() || math.IsNaN(res.Cost.Amount) || math.IsInf(res.Cost.Amount, 0) || res.Cost.Amount < 0 {
				t.Errorf("Result.Cost = %+v, want a finite, unknown cost", res.Cost)
			}
			if res.Stop != agentkit.StopBudget || res.Limit != agentkit.LimitCost || len(model.Requests()) != 2 {
				t.Errorf("Run = %q %q after %d calls, %v; want the cost limit after 2", res.Stop, res.Limit, len(model.Requests()), err)
			}
		})
	}
}

// brokenStream streams a call of paid, then begins a second call and breaks once the first
// ran (started early): the message is lost, the paid call is not.
type brokenStream struct {
	ran    chan struct{}
	chunks []openai.ChatCompletionStreamResponse
}

func (m *brokenStream) CreateChatCompletion(context.Context, openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return openai.ChatCompletionResponse{}, errors.New("streams only")
}

func (m *brokenStream) CreateChatCompletionStream(context.Context, openai.ChatCompletionRequest) (agentkit.Stream, error) {
	call := func(i int, id, name, args string) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
			ToolCalls: []openai.ToolCall{{Index: &i, ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}}}}}
	}
	m.chunks = []openai.ChatCompletionStreamResponse{call(0, "c0", "paid", `{}`), call(1, "c1", "paid", `{`)}
	return m, nil
}

func (m *brokenStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	if len(m.chunks) == 0 {
		<-m.ran
		return openai.ChatCompletionStreamResponse{}, errors.New("connection reset")
	}
	c := m.chunks[0]
	m.chunks = m.chunks[1:]
	return c, nil
}

func (m *brokenStream) Close() error { return nil }

// A call started early, while its message streamed, ran and cost what it reported, though the
// stream then broke and the message is not in the transcript: the cost is the run's.
func TestBrokenStreamKeepsEarlyCallCost(t *testing.T) {
	defer goleak.VerifyNone(t)
	ran := make(chan struct{})
	var once sync.Once
	paid := tool.New("paid", "A paid API.", func(ctx context.Context, in struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.5})
		once.Do(func() { close(ran) })
		return "ok", nil
	})
	var meter agentkit.Meter
	a := agentkit.New(&brokenStream{ran: ran}, &agentkit.Options{Model: "m", Prices: agentkit.Prices{"m": {Input: 1, Output: 1}}, Tools: []*tool.Tool{paid}, UsageRecorder: &meter})
	res, err := a.RunStream(context.Background(), "go").Result()
	var se *agentkit.StreamError
	if !errors.As(err, &se) {
		t.Fatalf("Run error %v, want a *StreamError", err)
	}
	// The broken call's own cost is unknown (no usage arrived); the paid call's is 0.5.
	want := agentkit.Cost{Amount: 0.5, Unknown: 1}
	if !cmp.Equal(res.Cost, want, approx) || !cmp.Equal(meter.Total().Cost, want, approx) {
		t.Errorf("Result.Cost %v, recorded %v; want %v both", res.Cost, meter.Total().Cost, want)
	}
}

// A model call that middleware.ModelRetry retried is one model call: its usage and cost are
// its successful attempt's, counted and recorded once.
func TestRetriedCallCountedOnce(t *testing.T) {
	answer := agentkittest.Text("hi")
	answer.Usage = openai.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000, TotalTokens: 2_000_000}
	model := agentkittest.New(t, agentkittest.Error(&openai.APIError{HTTPStatusCode: 503, Message: "overloaded"}), answer)
	retry := middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: func(context.Context, time.Duration) error { return nil }})
	var meter agentkit.Meter
	a := agentkit.New(model, &agentkit.Options{Model: "m", Prices: agentkit.Prices{"m": {Input: 1, Output: 1}}, ModelMiddleware: []agentkit.ModelMiddleware{retry}, UsageRecorder: &meter})
	res, err := a.Run(context.Background(), "hi")
	if err != nil || len(model.Requests()) != 2 {
		t.Fatalf("Run: %v after %d attempts, want an answer after 2", err, len(model.Requests()))
	}
	want := agentkit.Spend{Usage: agentkit.UsageOf(answer.Usage), Cost: agentkit.Cost{Amount: 2}, ModelCalls: 1}
	if diff := cmp.Diff(want, meter.Total(), approx); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.Usage, res.Usage); diff != "" || res.Iterations != 1 {
		t.Errorf("Result: %d iterations, usage (-want +got):\n%s", res.Iterations, diff)
	}
}
