package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// The seed article's run: the model calls two tools in one turn, reads both results, answers.
func ExampleAgent_Run() {
	weather := tool.New("get_weather", "查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
		}) (string, error) {
			return "晴，气温26℃，东南风2级", nil
		})
	calculate := tool.New("calculate", "执行四则运算，当用户提出数学计算需求时使用。",
		func(ctx context.Context, in struct {
			Expression string `json:"expression" jsonschema:"description=数学表达式，例如：12.5 * 4 + 2"`
		}) (float64, error) {
			return 123.45 * 678, nil
		})

	// A scripted model stands in for a real one (a *openai.Client works the same way).
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(
			agentkittest.Call("get_weather", `{"city":"北京"}`),
			agentkittest.Call("calculate", `{"expression":"123.45 * 678"}`),
		),
		agentkittest.Text("北京今天晴，气温26℃，东南风2级；123.45 × 678 = 83699.1。"),
	)

	agent := agentkit.New(model, &agentkit.Options{
		Model:        "gpt-4o-mini",
		Instructions: "你是一个乐于助人的智能助手，可以通过工具获取实时信息。",
		Tools:        []*tool.Tool{weather, calculate},
	})
	res, err := agent.Run(context.Background(), "北京天气怎么样？顺便帮我算一下 123.45 * 678")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Output)
	fmt.Println(res.Stop, res.Iterations)
	fmt.Print(agentkit.FormatTranscript(res.Messages))
	// Output:
	// 北京今天晴，气温26℃，东南风2级；123.45 × 678 = 83699.1。
	// answered 2
	// [0] system: 你是一个乐于助人的智能助手，可以通过工具获取实时信息。
	// [1] user: 北京天气怎么样？顺便帮我算一下 123.45 * 678
	// [2] assistant:
	//     -> get_weather({"city":"北京"}) [call_1]
	//     -> calculate({"expression":"123.45 * 678"}) [call_2]
	// [3] tool (call_1): 晴，气温26℃，东南风2级
	// [4] tool (call_2): 83699.1
	// [5] assistant: 北京今天晴，气温26℃，东南风2级；123.45 × 678 = 83699.1。
}

// A run that cannot finish still returns its Result, with a stop reason and a valid transcript.
func ExampleAgent_Run_iterationLimit() {
	ping := tool.New("ping", "Checks that the service is up.", func(ctx context.Context, in struct{}) (string, error) {
		return "pong", nil
	})
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("ping", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("ping", "")),
	)
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{ping}, MaxIterations: 2})
	res, err := agent.Run(context.Background(), "is it up?")
	fmt.Println(errors.Is(err, agentkit.ErrIterationLimit), res.Stop, len(res.Messages))
	fmt.Println(agentkit.ValidateHistory(res.Messages) == nil)
	// Output:
	// true iteration_limit 5
	// true
}

// ModelFunc turns a closure into a Model: the smallest possible fake.
func ExampleModelFunc() {
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		last := req.Messages[len(req.Messages)-1]
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
			Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "echo: " + last.Content},
		}}}, nil
	})
	res, _ := agentkit.New(model, nil).Run(context.Background(), "hello")
	fmt.Println(res.Output)
	// Output:
	// echo: hello
}

// A chat is a session: RunSession loads what was said before from the Memory and appends
// each turn to it. memory.NewInMemory keeps it in this process (sqlite.Open, of package
// memory/sqlite, in a file).
func ExampleAgent_RunSession() {
	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return in.City + "：晴，26℃", nil
		})
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京晴，26℃。"),
		agentkittest.Text("不客气！"),
	)
	store := memory.NewInMemory()
	agent := agentkit.New(model, &agentkit.Options{Instructions: "你是天气助手。", Tools: []*tool.Tool{weather}, Memory: store})
	for _, input := range []string{"北京天气怎么样？", "谢谢"} {
		res, err := agent.RunSession(context.Background(), "user-42", input)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(res.Output)
	}
	stored, _ := store.Load(context.Background(), "user-42")
	fmt.Println(len(stored), "messages stored")
	// Output:
	// 北京晴，26℃。
	// 不客气！
	// 6 messages stored
}

// RunStream yields the run's events as they happen: here the answer's text as it is written,
// and each tool call when it is ready and when it ends.
func ExampleAgent_RunStream() {
	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return in.City + "：晴，26℃", nil
		})
	model := agentkittest.New(nil, // a StreamingModel: it streams each reply in fragments
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京晴，26℃。"),
	)
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}})
	s := agent.RunStream(context.Background(), "北京天气怎么样？")
	for e := range s.Events() {
		switch e.Kind {
		case agentkit.EventToolCallReady:
			fmt.Println("ready:", e.Call.Name, e.Call.Arguments)
		case agentkit.EventToolEnd:
			fmt.Println("result:", e.Result.Content)
		case agentkit.EventTextDelta:
			fmt.Print(e.Text)
		}
	}
	res, err := s.Result()
	fmt.Println()
	fmt.Println(res.Stop, err)
	// Output:
	// ready: get_weather {"city":"北京"}
	// result: 北京：晴，26℃
	// 北京晴，26℃。
	// answered <nil>
}

// A model middleware of your own: a CallMiddlewareFunc wraps the plain calls, and streamed
// ones pass through it still streaming; a type with both methods of ModelMiddleware wraps
// both. WrapModel applies middleware to a Model outside an Agent.
func ExampleCallMiddlewareFunc() {
	count := 0
	counting := agentkit.CallMiddlewareFunc(func(next agentkit.CallFunc) agentkit.CallFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			count++
			return next(ctx, req)
		}
	})
	model := agentkit.WrapModel(agentkittest.New(nil, agentkittest.Text("hi")), counting)
	resp, err := model.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hello"}},
	})
	fmt.Println(resp.Choices[0].Message.Content, err, count)
	// Output:
	// hi <nil> 1
}

// A transfer needs approval: the run pauses with the call, its state travels as JSON (to a
// database, a client, another process), and Resume runs the approved call once.
func ExampleAgent_Resume() {
	transfer := tool.New("transfer", "转账给指定收款人。",
		func(ctx context.Context, in struct {
			To     string `json:"to"`
			Amount int    `json:"amount"`
		}) (string, error) {
			return fmt.Sprintf("已向 %s 转账 %d 元", in.To, in.Amount), nil
		}, tool.Options{RequireApproval: true})
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.CallID("call_1", "transfer", `{"to":"bob","amount":500}`)),
		agentkittest.Text("已向 bob 转账 500 元。"),
	)
	agent := agentkit.New(model, &agentkit.Options{
		Tools:    []*tool.Tool{transfer},
		Ledger:   memory.NewInMemory(), // where resumed pauses are recorded: memory/sqlite's Store across processes
		PauseKey: []byte("a key of the application's"),
	})
	ctx := context.Background()

	res, err := agent.Run(ctx, "转账 500 元给 bob")
	fmt.Println(res.Stop, errors.Is(err, agentkit.ErrPaused))
	state, _ := json.Marshal(res.Pause) // store it anywhere

	var p agentkit.Pause
	_ = json.Unmarshal(state, &p)
	for _, c := range p.Pending {
		fmt.Printf("%s %s %s (%s)\n", c.ID, c.Name, c.Arguments, c.Kind)
	}
	res, err = agent.Resume(ctx, &p, []agentkit.Decision{{CallID: "call_1", Approve: true}})
	fmt.Println(res.Output, err)
	_, err = agent.Resume(ctx, &p, []agentkit.Decision{{CallID: "call_1", Approve: true}})
	fmt.Println(errors.Is(err, agentkit.ErrAlreadyResumed))
	// Output:
	// paused true
	// call_1 transfer {"to":"bob","amount":500} (approval)
	// 已向 bob 转账 500 元。 <nil>
	// true
}
