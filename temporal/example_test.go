package temporal_test

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/temporal"
	"github.com/toolcall/toolcall/tool"
)

// The workflow on a scripted model, in Temporal's in-process test environment: a real
// worker registers the Agent the same way (durable.Register(w)).
func Example() {
	weather := tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴，25°C", nil
	}, tool.Options{Annotations: tool.Annotations{ReadOnly: true}}) // read-only: retried when its worker is lost
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京今天晴，25°C。"))
	durable := temporal.New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}}), nil)

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler))) // the default logs to stdout
	env := suite.NewTestWorkflowEnvironment()
	durable.Register(env)
	env.ExecuteWorkflow(temporal.WorkflowName, temporal.NewInput("北京天气怎么样？"))
	var res temporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, res.Iterations)
	fmt.Println(res.Messages[2].Content)
	fmt.Println(res.Output)
	// Output:
	// answered 2
	// 北京：晴，25°C
	// 北京今天晴，25°C。
}

// A run with a budget of its own (Input.Budget, as agentkit.WithBudget gives one): past its
// one tool call, the model's second is answered not_executed, and with FinalAnswerOnLimit
// the exhausted budget asks for the answer in a final tool-free request.
func ExampleInput_budget() {
	weather := tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴", nil
	})
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`), agentkittest.Call("get_weather", `{"city":"上海"}`)),
		agentkittest.Text("北京晴；上海不知道。"))
	durable := temporal.New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, FinalAnswerOnLimit: true}), nil)

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	durable.Register(env)
	in := temporal.NewInput("北京和上海天气怎么样？")
	in.Budget = &agentkit.Budget{ToolCalls: 1}
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	var res temporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, res.Limit, res.Iterations)
	fmt.Println(res.Messages[2].Content)
	fmt.Println(res.Messages[3].Content[:29])
	fmt.Println(res.Output)
	// Output:
	// budget_exhausted tool_calls 2
	// 北京：晴
	// error: not executed: this run
	// 北京晴；上海不知道。
}
