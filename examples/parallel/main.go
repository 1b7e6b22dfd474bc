// Command parallel asks for the weather of several cities at once. The model emits one tool
// call per city in a single turn; the agent runs them concurrently and appends the results in
// the order the model emitted the calls, each under its own tool_call_id — so "上海的天气"
// never ends up answering "北京".
//
//	go run ./examples/parallel                    # offline, on a built-in scripted model
//	go run ./examples/parallel -latency 300ms     # each lookup takes 300 ms: the turn still takes ~300 ms
//	OPENAI_API_KEY=sk-... go run ./examples/parallel "北京、上海、广州、深圳今天天气如何？"
//
// It prints, for each call, when it started and ended relative to the turn, then the answer.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

var weatherData = map[string]string{
	"北京": "晴，气温26℃，东南风2级",
	"上海": "多云，气温28℃，湿度65%",
	"广州": "阵雨，气温30℃，体感较热",
	"深圳": "多云转晴，气温29℃",
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parallel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	latency := fs.Duration("latency", 200*time.Millisecond, "simulated latency of each weather lookup")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	question := strings.Join(fs.Args(), " ")
	if question == "" {
		question = "北京、上海、广州、深圳今天天气如何？"
	}

	var mu sync.Mutex
	var timeline []string
	var running, peak int
	turnStart := time.Now()
	weather := tool.New("get_weather",
		"查询指定城市的当前天气。当用户询问天气时使用；多个城市请在同一轮中分别调用，每次一个城市。",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=城市中文名，例如：北京"`
		}) (string, error) {
			begin := time.Since(turnStart)
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			defer func() { mu.Lock(); running--; mu.Unlock() }()
			select {
			case <-time.After(*latency):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			mu.Lock()
			timeline = append(timeline, fmt.Sprintf("  %s: %v → %v", in.City, begin.Round(time.Millisecond), time.Since(turnStart).Round(time.Millisecond)))
			mu.Unlock()
			if w, ok := weatherData[in.City]; ok {
				return w, nil
			}
			return in.City + "暂无数据", nil
		})

	var model agentkit.Model
	name := getenv("OPENAI_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	if key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		model = openaichat.New(cmp.Or(base, "https://api.openai.com/v1"), &openaichat.Options{APIKey: key})
	} else {
		fmt.Fprintln(stderr, "parallel: OPENAI_API_KEY and OPENAI_BASE_URL are not set: running offline on a built-in scripted model.")
		model = offline()
	}

	agent := agentkit.New(model, &agentkit.Options{
		Model:          name,
		Tools:          []*tool.Tool{weather},
		MaxConcurrency: 8,
		OnEvent: func(ctx context.Context, e agentkit.Event) {
			if e.Kind == agentkit.EventModelResponse {
				turnStart = time.Now() // tools of this turn are timed from here
			}
		},
	})
	res, err := agent.Run(ctx, question)
	if err != nil {
		fmt.Fprintln(stderr, "parallel:", err)
		return 1
	}
	for _, s := range res.Steps {
		if len(s.Calls) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "turn %d: %d calls, results appended in emission order:\n", s.Iteration, len(s.Calls))
		for _, c := range s.Calls {
			fmt.Fprintf(stdout, "  [%s] %s%s -> %s\n", c.Call.ID, c.Call.Name, c.Call.Arguments, c.Result.Content)
		}
	}
	fmt.Fprintln(stdout, "timeline (start → end, relative to the turn):")
	mu.Lock()
	for _, l := range timeline {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "peak concurrency: %d\n", peak)
	mu.Unlock()
	fmt.Fprintln(stdout, res.Output)
	return 0
}

// offline plays one parallel turn over four cities, then answers from the tool results.
func offline() agentkit.Model {
	var calls []openai.ToolCall
	for _, c := range []string{"北京", "上海", "广州", "深圳"} {
		calls = append(calls, agentkittest.Call("get_weather", `{"city":"`+c+`"}`))
	}
	return agentkittest.New(nil,
		agentkittest.ToolCalls(calls...),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			var b strings.Builder
			for i, m := range agentkittest.ToolMessages(req) {
				fmt.Fprintf(&b, "%s：%s。", []string{"北京", "上海", "广州", "深圳"}[i], m.Content)
			}
			return agentkittest.Text(b.String())
		}),
	)
}
