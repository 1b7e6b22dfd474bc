package browsertest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// injected is a tool result that would run a script if the page wrote it as markup.
const injected = `</script><script>alert(1)</script><img src=x onerror=alert(1)>`

// chineseWord is in the result of one call only (and in the request that carried it).
const chineseWord = "雷阵雨"

// run runs a real agent on a scripted model through the cases the page shows: a repaired
// call, a validation failure, an unknown tool, a panic, an injected result, a long result
// shortened by middleware.Truncate, loop-guard refusals, and a pause for an approval.
func run(t *testing.T, onEvent agentkit.OnEvent) *agentkit.Result {
	t.Helper()
	type city struct {
		City string `json:"city" jsonschema:"description=城市中文名"`
	}
	weather := tool.New("get_weather", "查询天气", func(_ context.Context, in city) (string, error) {
		if in.City == "北京" {
			return "北京：" + chineseWord + "，25°C，东南风 3 级", nil
		}
		return in.City + "：晴，30°C", nil
	})
	fetch := tool.New("fetch", "fetch a page", func(_ context.Context, in struct {
		Page string `json:"page"`
	}) (string, error) {
		if in.Page == "big" {
			return strings.Repeat("长文本 long text ", 1000), nil
		}
		return injected, nil
	})
	boom := tool.New("boom", "panics", func(context.Context, struct{}) (string, error) { panic("kaboom") })
	transfer := tool.New("transfer", "转账", func(context.Context, struct {
		Amount int `json:"amount"`
	}) (string, error) {
		return "done", nil
	}, tool.Options{RequireApproval: true})
	usage := openai.Usage{PromptTokens: 1200, CompletionTokens: 48, TotalTokens: 1248,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: 1024}}
	turn := func(calls ...openai.ToolCall) agentkittest.Reply {
		r := agentkittest.ToolCalls(calls...)
		r.Usage = usage
		return r
	}
	again := agentkittest.Call("get_weather", `{"city":"上海"}`)
	model := agentkittest.New(t,
		turn(
			agentkittest.Call("get_weather", `{"city":"北京",}`),
			agentkittest.Call("get_weather", `{"city":5}`),
			agentkittest.Call("get_wether", `{"city":"广州"}`),
			agentkittest.Call("fetch", `{"page":"x"}`),
			agentkittest.Call("fetch", `{"page":"big"}`),
			agentkittest.Call("boom", `{}`),
		),
		turn(again), turn(again), turn(again),
		turn(agentkittest.Call("transfer", `{"amount":100}`)),
	)
	agent := agentkit.New(model, &agentkit.Options{
		Instructions: "你是一个乐于助人的智能助手。",
		Tools:        []*tool.Tool{weather, fetch, boom, transfer},
		Middleware:   []tool.Middleware{middleware.Truncate(3000)},
		OnEvent:      onEvent,
	})
	res, err := agent.Run(context.Background(), "北京天气怎么样？")
	if !errors.Is(err, agentkit.ErrPaused) {
		t.Fatalf("the run ended with %v (stop %q), want it paused", err, res.Stop)
	}
	return res
}

// realistic gives res the durations of the same run on a real provider, for the README's
// picture: a scripted model answers in microseconds, and a tool that panics (its stack is
// captured) would look like the run's slowest call. Model calls take about a second, the
// weather and the page fetches some hundreds of milliseconds; calls refused before they ran
// (invalid arguments, an unknown tool, the loop guard, an approval) take next to nothing.
func realistic(res *agentkit.Result) {
	model := []time.Duration{1420, 960, 780, 830, 1140} // ms, by model call
	tools := map[string]time.Duration{"get_weather": 310, "fetch": 580, "boom": 40}
	for k := range res.Steps {
		s := &res.Steps[k]
		s.Duration = model[k%len(model)] * time.Millisecond
		for i := range s.Calls {
			c := &s.Calls[i]
			c.Duration = 200 * time.Microsecond
			if d, ok := tools[c.Call.Name]; ok && c.Result.Kind != tool.KindInvalidArguments && c.Result.Kind != tool.KindLoop {
				c.Duration = d*time.Millisecond + time.Duration(i)*37*time.Millisecond
			}
		}
	}
}

// calls is the number of model calls and tool calls of a Result: the bars of its timeline.
func calls(res *agentkit.Result) int {
	n := len(res.Steps)
	for _, s := range res.Steps {
		n += len(s.Calls)
	}
	return n
}
