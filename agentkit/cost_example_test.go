package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A price table the application keeps (here as JSON: per million tokens, in its currency;
// these figures are an illustration, not a provider's current prices) prices each model
// call; a tool reports what its paid API cost; the Result sums both. A model the table has
// no price for is an unknown cost, never 0.
func ExamplePrices() {
	var prices agentkit.Prices
	_ = json.Unmarshal([]byte(`{"gpt-4o-mini": {"input": 0.15, "cached_input": 0.075, "output": 0.60}}`), &prices)

	search := tool.New("search", "Searches the web.", func(ctx context.Context, in struct {
		Q string `json:"q"`
	}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.005}) // the search API's price
		return "Beijing: sunny, 26°C", nil
	})
	call := agentkittest.ToolCalls(agentkittest.Call("search", `{"q":"Beijing weather"}`))
	call.Usage = openai.Usage{PromptTokens: 2000, CompletionTokens: 50,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: 1024}}
	answer := agentkittest.Text("Sunny, 26°C.")
	answer.Usage = openai.Usage{PromptTokens: 2100, CompletionTokens: 20}

	var meter agentkit.Meter // per-session sums, in memory
	agent := agentkit.New(agentkittest.New(nil, call, answer), &agentkit.Options{
		Model: "gpt-4o-mini", Prices: prices, Tools: []*tool.Tool{search}, UsageRecorder: &meter,
	})
	res, _ := agent.Run(context.Background(), "Weather in Beijing?")
	for _, s := range res.Steps {
		fmt.Printf("model call %d: %d prompt tokens (%d cached): %.6f\n", s.Iteration, s.Usage.PromptTokens, s.Usage.CachedTokens, s.Cost.Amount)
		for _, c := range s.Calls {
			fmt.Printf("  %s: %.6f\n", c.Call.Name, c.Cost.Amount)
		}
	}
	fmt.Printf("run: %.6f, known %v; meter: %.6f\n", res.Cost.Amount, res.Cost.Known(), meter.Total().Cost.Amount)

	unpriced := agentkit.New(agentkittest.New(nil, agentkittest.Text("hi")), &agentkit.Options{Model: "some-new-model", Prices: prices})
	res, _ = unpriced.Run(context.Background(), "hello")
	fmt.Println("unpriced:", res.Cost)
	// Output:
	// model call 1: 2000 prompt tokens (1024 cached): 0.000253
	//   search: 0.005000
	// model call 2: 2100 prompt tokens (0 cached): 0.000327
	// run: 0.005580, known true; meter: 0.005580
	// unpriced: at least 0 (1 unpriced)
}

// One budget for a run: a service gives each request its own with WithBudget. The first
// limit exhausted stops the run with StopBudget; with FinalAnswerOnLimit the model is asked,
// in one last tool-free request, to answer with what it has.
func ExampleWithBudget() {
	lookup := tool.New("lookup", "Looks a city up.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + ": sunny", nil
	})
	step := func(city string) agentkittest.Reply {
		r := agentkittest.ToolCalls(agentkittest.Call("lookup", `{"city":"`+city+`"}`))
		r.Usage = openai.Usage{PromptTokens: 900, CompletionTokens: 100}
		return r
	}
	model := agentkittest.New(nil, step("Beijing"), step("Shanghai"), step("Guangzhou"), agentkittest.Text("Beijing and Shanghai are sunny."))

	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{lookup}})
	ctx := agentkit.WithBudget(context.Background(), agentkit.Budget{Tokens: 2000})
	res, err := agent.Run(ctx, "Weather in every city?")
	var be *agentkit.BudgetError
	if errors.As(err, &be) {
		fmt.Println(res.Stop, res.Limit, "after", res.Iterations, "model calls:", err)
	}

	model = agentkittest.New(nil, agentkittest.Text("Beijing and Shanghai are sunny."))
	final := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{lookup}, FinalAnswerOnLimit: true})
	res, err = final.Run(agentkit.WithBudget(context.Background(), agentkit.Budget{ModelCalls: 1}), "Weather?")
	fmt.Println(res.Stop, res.Limit, err, "→", res.Output)
	// Output:
	// budget_exhausted tokens after 2 model calls: agentkit: run budget exhausted: tokens 2000 of 2000
	// budget_exhausted model_calls <nil> → Beijing and Shanghai are sunny.
}
