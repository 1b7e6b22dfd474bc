package memory_test

import (
	"context"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// A conversation of three runs on one session. Before every request the Fold strategy
// checks the estimate; when it passes the trigger, the oldest turns are folded into one
// summary (the first user message and the latest turn stay), while the store keeps every
// message.
func Example() {
	ctx := context.Background()
	store := memory.NewInMemory()

	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return in.City + "：晴，26℃。东南风2级，湿度40%，空气质量优。未来三天：晴 27℃，多云 25℃，小雨 22℃。", nil
		})

	// A scripted summarizer; a real application uses
	// memory.ModelSummarizer{Model: client, ModelName: "gpt-4o-mini"}.
	summarizer := memory.SummarizerFunc(func(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
		facts := []string{"## Facts learned from tools"}
		if previous != "" {
			facts = strings.Split(previous, "\n")
		}
		for _, m := range turns {
			if m.Role == openai.ChatMessageRoleTool {
				fact, _, _ := strings.Cut(m.Content, "。")
				facts = append(facts, "- get_weather: "+fact)
			}
		}
		return strings.Join(facts, "\n"), nil
	})

	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京今天晴，26℃。"),
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"上海"}`)),
		agentkittest.Text("上海也是晴天，26℃。"),
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"广州"}`)),
		agentkittest.Text("广州同样晴，26℃。三个城市都适合出行。"),
	)
	agent := agentkit.New(model, &agentkit.Options{
		Model:        "gpt-4o-mini",
		Instructions: "你是一个天气助手。",
		Tools:        []*tool.Tool{weather},
		Memory:       store,
		Context: memory.Fold(memory.FoldOptions{
			Trigger:    160,
			Keep:       1,
			Summarizer: summarizer,
			Counter:    memory.NewCounter("gpt-4o-mini"),
			OnEvent: func(ctx context.Context, e memory.FoldEvent) {
				fmt.Printf("  (folded %d messages: %d → %d tokens)\n", e.Batch, e.Before, e.After)
			},
		}),
	})

	for _, q := range []string{"北京天气怎么样？", "上海呢？", "广州呢？"} {
		res, err := agent.RunSession(ctx, "demo", q)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(q, "→", res.Output)
	}

	reqs := model.Requests()
	fmt.Println("The last request:")
	fmt.Print(agentkit.FormatTranscript(reqs[len(reqs)-1].Messages))
	stored, _ := store.Load(ctx, "demo")
	fmt.Println("Messages in the store:", len(stored))
	// Output:
	// 北京天气怎么样？ → 北京今天晴，26℃。
	//   (folded 3 messages: 163 → 116 tokens)
	// 上海呢？ → 上海也是晴天，26℃。
	//   (folded 4 messages: 197 → 126 tokens)
	// 广州呢？ → 广州同样晴，26℃。三个城市都适合出行。
	// The last request:
	// [0] system: 你是一个天气助手。
	// [1] user: 北京天气怎么样？
	// [2] assistant: [Summary of earlier conversation]
	//     ## Facts learned from tools
	//     - get_weather: 北京：晴，26℃
	//     - get_weather: 上海：晴，26℃
	// [3] user: 广州呢？
	// [4] assistant:
	//     -> get_weather({"city":"广州"}) [call_3]
	// [5] tool (call_3): 广州：晴，26℃。东南风2级，湿度40%，空气质量优。未来三天：晴 27℃，多云 25℃，小雨 22℃。
	// Messages in the store: 12
}

// Window keeps the system prompt, the first user message and the latest turns that fit. When
// the history passes the budget (80 tokens), old turns are dropped in a block, down to
// Target (half the budget by default), so that the next requests repeat this one's beginning.
func ExampleWindow() {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant."},
		{Role: openai.ChatMessageRoleUser, Content: "Plan a trip to Beijing."},
		{Role: openai.ChatMessageRoleAssistant, Content: "Sure. When do you leave, and for how long?"},
		{Role: openai.ChatMessageRoleUser, Content: "Next Monday, for three days."},
		{Role: openai.ChatMessageRoleAssistant, Content: "Day 1: the Forbidden City. Day 2: the Great Wall. Day 3: the Summer Palace."},
		{Role: openai.ChatMessageRoleUser, Content: "Swap days 2 and 3."},
	}
	w := memory.Window(memory.WindowOptions{Budget: 80, Counter: memory.NewCounter("gpt-4o")})
	view, err := w.Apply(context.Background(), "", msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(agentkit.FormatTranscript(view))
	// Output:
	// [0] system: You are a helpful assistant.
	// [1] user: Plan a trip to Beijing.
	// [2] user: Swap days 2 and 3.
}

// ClearToolResults keeps every call answered while old results shrink to a placeholder. It
// clears in blocks, so that requests keep repeating their beginning for the prompt cache: with
// keep 1, the results of the turns before a multiple of 3 turns.
func ExampleClearToolResults() {
	long := strings.Repeat("sunny, 26°C; ", 10)
	var msgs []openai.ChatCompletionMessage
	for i, city := range []string{"Beijing", "Shanghai", "Guangzhou", "Shenzhen"} {
		id := fmt.Sprintf("call_%d", i+1)
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: city + "?"},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
				{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"` + city + `"}`}},
			}},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: long},
		)
	}
	view, _ := memory.ClearToolResults(1).Apply(context.Background(), "", msgs)
	for _, m := range view {
		if m.Role == openai.ChatMessageRoleTool {
			fmt.Println(m.ToolCallID+":", m.Content[:min(len(m.Content), 60)])
		}
	}
	// Output:
	// call_1: [tool result cleared to save context: 130 characters]
	// call_2: [tool result cleared to save context: 130 characters]
	// call_3: [tool result cleared to save context: 130 characters]
	// call_4: sunny, 26°C; sunny, 26°C; sunny, 26°C; sunny, 26°C; sunn
}

// Counting the tokens of a request offline.
func ExampleCounter() {
	c := memory.NewCounter("gpt-4o-mini")
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant."},
		{Role: openai.ChatMessageRoleUser, Content: "北京天气怎么样？"},
	}
	fmt.Println(c.Encoding(), c.Messages(msgs))
	// Output:
	// o200k_base 21
}

// A session of 30 turns, sent through a window of the latest 3 turns: the window is an
// agentkit.TurnLimiter and the store an agentkit.RecentLoader, so from turn 5 on the store
// loads only the first user message and the latest turns (one more than the window sends: its
// choice of where to start reads the turn before), and a run costs the same however long the
// session grows. The store keeps it all.
func ExampleWindow_longSession() {
	ctx := context.Background()
	store := memory.NewInMemory()
	var replies []agentkittest.Reply
	for i := range 30 {
		replies = append(replies, agentkittest.Text(fmt.Sprintf("answer %d", i)))
	}
	model := agentkittest.New(nil, replies...)
	agent := agentkit.New(model, &agentkit.Options{
		Memory:  store,
		Context: memory.Window(memory.WindowOptions{MaxTurns: 3}),
	})
	var res *agentkit.Result
	for i := range 30 {
		var err error
		if res, err = agent.RunSession(ctx, "chat", fmt.Sprintf("question %d", i)); err != nil {
			fmt.Println("error:", err)
			return
		}
	}
	reqs := model.Requests()
	fmt.Println("last request:", len(reqs[len(reqs)-1].Messages), "messages")
	fmt.Println("last run:", len(res.Messages), "messages in Result.Messages,", res.Omitted, "left out")
	stored, _ := store.Load(ctx, "chat")
	fmt.Println("stored:", len(stored), "messages")
	// Output:
	// last request: 6 messages
	// last run: 9 messages in Result.Messages, 51 left out
	// stored: 60 messages
}
