package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
}

var weatherData = map[string]string{
	"北京": "晴，气温26℃，东南风2级",
	"上海": "多云，气温28℃，湿度65%",
	"广州": "阵雨，气温30℃，体感较热",
}

func weatherTool() *tool.Tool {
	return tool.New("get_weather", "查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。",
		func(ctx context.Context, in cityIn) (string, error) {
			if w, ok := weatherData[in.City]; ok {
				return w, nil
			}
			return in.City + "暂无数据", nil
		})
}

// toolContents returns the contents of the tool messages of the last request's final tool block.
func lastToolBlock(req openai.ChatCompletionRequest) []openai.ChatCompletionMessage {
	msgs := req.Messages
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == openai.ChatMessageRoleTool {
		i--
	}
	return msgs[i:]
}

func TestRunAnswersAfterToolCall(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京今天晴，26℃。"),
	)
	a := agentkit.New(m, &agentkit.Options{Model: "gpt-4o-mini", Instructions: "sys", Tools: []*tool.Tool{weatherTool()}})
	res, err := a.Run(context.Background(), "北京天气怎么样？")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := res.Output, "北京今天晴，26℃。"; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
	if got, want := res.Stop, agentkit.StopAnswered; got != want {
		t.Errorf("Stop = %q, want %q", got, want)
	}
	if got, want := res.Iterations, 2; got != want {
		t.Errorf("Iterations = %d, want %d", got, want)
	}
	roles := []string{}
	for _, msg := range res.Messages {
		roles = append(roles, msg.Role)
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool", "assistant"}, roles); diff != "" {
		t.Errorf("transcript roles (-want +got):\n%s", diff)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	tm := lastToolBlock(reqs[1])
	if len(tm) != 1 || tm[0].ToolCallID != "call_1" || tm[0].Content != weatherData["北京"] {
		t.Errorf("tool message = %+v, want id call_1 with the weather", tm)
	}
	rec := res.Steps[0].Calls[0]
	if rec.Result.Value != weatherData["北京"] || rec.Result.Failed() {
		t.Errorf("call record = %+v", rec.Result)
	}
}

func TestRequestCarriesToolsAndZeroTemperature(t *testing.T) {
	for _, tc := range []struct {
		model    string
		temp     *float32
		wantTemp float32
	}{
		{"gpt-4o-mini", nil, agentkit.WireZeroTemperature},
		{"deepseek-chat", ptr(float32(0.2)), 0.2},
		{"o3-mini", nil, 0},
		{"gpt-5", ptr(float32(0.7)), 0},
		{"openai/o4-mini", nil, 0},
	} {
		t.Run(tc.model, func(t *testing.T) {
			m := agentkittest.New(t, agentkittest.Text("ok"))
			a := agentkit.New(m, &agentkit.Options{Model: tc.model, Tools: []*tool.Tool{weatherTool()}, Temperature: tc.temp})
			if _, err := a.Run(context.Background(), "hi"); err != nil {
				t.Fatal(err)
			}
			req := m.Requests()[0]
			if req.Temperature != tc.wantTemp {
				t.Errorf("temperature = %v, want %v", req.Temperature, tc.wantTemp)
			}
			body, _ := json.Marshal(req)
			if strings.Contains(string(body), `"parallel_tool_calls"`) {
				t.Errorf("parallel_tool_calls sent although not set: %s", body)
			}
			if has := strings.Contains(string(body), `"temperature"`); has != (tc.wantTemp != 0) {
				t.Errorf("wire body has temperature = %v, want %v: %s", has, tc.wantTemp != 0, body)
			}
			if len(req.Tools) != 1 || req.Tools[0].Function.Name != "get_weather" || !strings.Contains(req.Tools[0].Function.Description, "天气") {
				t.Errorf("tools = %+v", req.Tools)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// The seed article's troubleshooting table, one row per case.
func TestSeedTroubleshootingTable(t *testing.T) {
	var ran atomic.Int32
	counted := tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in cityIn) (string, error) {
		ran.Add(1)
		return weatherData[in.City], nil
	})
	failing := tool.New("flaky", "总是失败的工具。", func(ctx context.Context, in struct{}) (string, error) {
		return "", errors.New("upstream 503")
	})
	tests := []struct {
		name      string
		replies   []agentkittest.Reply
		wantStop  agentkit.StopReason
		wantErr   error
		wantKinds []tool.Kind // kinds of the calls of the first step
		wantText  string      // substring of the first tool result
		wantRuns  int32
	}{{
		name: "模型胡编参数: schema violation fed back, tool not run",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"town":"北京"}`)),
			agentkittest.Text("done"),
		},
		wantStop: agentkit.StopAnswered, wantKinds: []tool.Kind{tool.KindInvalidArguments}, wantText: "/city", wantRuns: 0,
	}, {
		name: "参数解析失败: missing quote and extra comma repaired",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_weather", "```json\n{\"city\": \"北京\",}\n```")),
			agentkittest.Text("done"),
		},
		wantStop: agentkit.StopAnswered, wantKinds: []tool.Kind{""}, wantText: "晴", wantRuns: 1,
	}, {
		name: "模型胡编工具: unknown tool with suggestion",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_wether", `{"city":"北京"}`)),
			agentkittest.Text("done"),
		},
		wantStop: agentkit.StopAnswered, wantKinds: []tool.Kind{tool.KindUnknownTool}, wantText: `Did you mean "get_weather"?`,
	}, {
		name: "工具报错导致任务中断: error becomes a tool message",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("flaky", `{}`)),
			agentkittest.Text("查询失败了"),
		},
		wantStop: agentkit.StopAnswered, wantKinds: []tool.Kind{tool.KindToolError}, wantText: "upstream 503",
	}, {
		name: "Agent 陷入死循环: iteration limit",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"上海"}`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"广州"}`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"深圳"}`)),
		},
		wantStop: agentkit.StopIterationLimit, wantErr: agentkit.ErrIterationLimit, wantKinds: []tool.Kind{""}, wantText: "晴", wantRuns: 4,
	}, {
		name: "Agent 陷入死循环: identical calls refused then stopped",
		replies: []agentkittest.Reply{
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{ "city": "北京" }`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		},
		wantStop: agentkit.StopLoopDetected, wantErr: agentkit.ErrLoopDetected, wantKinds: []tool.Kind{""}, wantText: "晴", wantRuns: 2,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ran.Store(0)
			m := agentkittest.New(t, tc.replies...)
			a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{counted, failing}, MaxIterations: 4})
			res, err := a.Run(context.Background(), "q")
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if res.Stop != tc.wantStop {
				t.Errorf("Stop = %q, want %q", res.Stop, tc.wantStop)
			}
			var kinds []tool.Kind
			for _, c := range res.Steps[0].Calls {
				kinds = append(kinds, c.Result.Kind)
			}
			if diff := cmp.Diff(tc.wantKinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if got := res.Steps[0].Calls[0].Result.Content; !strings.Contains(got, tc.wantText) {
				t.Errorf("first result = %q, want it to contain %q", got, tc.wantText)
			}
			if got := ran.Load(); got != tc.wantRuns {
				t.Errorf("tool ran %d times, want %d", got, tc.wantRuns)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("final transcript invalid: %v", err)
			}
		})
	}
}

func TestLoopGuardRefusesThenStops(t *testing.T) {
	same := agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`))
	m := agentkittest.New(t, same, same, same, same)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	res, err := a.Run(context.Background(), "q")
	if !errors.Is(err, agentkit.ErrLoopDetected) {
		t.Fatalf("err = %v, want ErrLoopDetected", err)
	}
	var kinds []tool.Kind
	for _, s := range res.Steps {
		kinds = append(kinds, s.Calls[0].Result.Kind)
	}
	want := []tool.Kind{"", "", tool.KindLoop, tool.KindLoop}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds per turn (-want +got):\n%s", diff)
	}
}

func TestFinalAnswerOnLimit(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			if req.ToolChoice != "none" {
				return agentkittest.Error(fmt.Errorf("tool_choice = %v, want none", req.ToolChoice))
			}
			if last := req.Messages[len(req.Messages)-1]; last.Content != agentkit.BudgetExhaustedPrompt {
				return agentkittest.Error(fmt.Errorf("last message = %q", last.Content))
			}
			return agentkittest.Text("北京晴。")
		}),
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, MaxIterations: 1, FinalAnswerOnLimit: true})
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if res.Output != "北京晴。" || res.Stop != agentkit.StopIterationLimit || res.Iterations != 2 {
		t.Errorf("Output %q Stop %q Iterations %d", res.Output, res.Stop, res.Iterations)
	}
}

// Parallel calls with random latencies: results in emission order, each with its own id.
func TestParallelResultsInEmissionOrder(t *testing.T) {
	slow := tool.New("echo", "returns its input after a random delay", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		return in.N * 10, nil
	})
	for round := 0; round < 5; round++ {
		var calls []openai.ToolCall
		for i := 0; i < 10; i++ {
			calls = append(calls, agentkittest.CallID(fmt.Sprintf("id_%d", i), "echo", fmt.Sprintf(`{"n":%d}`, i)))
		}
		m := agentkittest.New(t, agentkittest.ToolCalls(calls...), agentkittest.Text("done"))
		a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{slow}})
		if _, err := a.Run(context.Background(), "q"); err != nil {
			t.Fatal(err)
		}
		tm := lastToolBlock(m.Requests()[1])
		var got, want []string
		for i, msg := range tm {
			got = append(got, msg.ToolCallID+"="+msg.Content)
			want = append(want, fmt.Sprintf("id_%d=%d", i, i*10))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d tool block (-want +got):\n%s", round, diff)
		}
	}
}

func TestConcurrencyBound(t *testing.T) {
	var cur, peak atomic.Int32
	busy := tool.New("busy", "sleeps", func(ctx context.Context, in struct{}) (string, error) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		cur.Add(-1)
		return "ok", nil
	})
	var calls []openai.ToolCall
	for i := 0; i < 12; i++ {
		calls = append(calls, agentkittest.Call("busy", `{}`))
	}
	m := agentkittest.New(t, agentkittest.ToolCalls(calls...), agentkittest.Text("done"))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{busy}, MaxConcurrency: 3})
	if _, err := a.Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if got := peak.Load(); got > 3 || got < 2 {
		t.Errorf("peak concurrency = %d, want 2..3 (bound 3)", got)
	}
}

func TestSequentialToolsDoNotOverlap(t *testing.T) {
	var cur, peak atomic.Int32
	var mu sync.Mutex
	var order []int
	seq := tool.New("write", "writes", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		if n := cur.Add(1); n > peak.Load() {
			peak.Store(n)
		}
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		order = append(order, in.N)
		mu.Unlock()
		cur.Add(-1)
		return "ok", nil
	}, tool.Options{Sequential: true})
	calls := []openai.ToolCall{agentkittest.Call("write", `{"n":1}`), agentkittest.Call("write", `{"n":2}`), agentkittest.Call("write", `{"n":3}`)}
	m := agentkittest.New(t, agentkittest.ToolCalls(calls...), agentkittest.Text("done"))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{seq}})
	if _, err := a.Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, order); diff != "" || peak.Load() != 1 {
		t.Errorf("order (-want +got):\n%s peak %d", diff, peak.Load())
	}
}

func TestOnePanickingToolAmongTen(t *testing.T) {
	p := tool.New("work", "works, except n=4 panics", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		if in.N == 4 {
			panic("boom")
		}
		return fmt.Sprint("ok ", in.N), nil
	})
	var calls []openai.ToolCall
	for i := 0; i < 10; i++ {
		calls = append(calls, agentkittest.Call("work", fmt.Sprintf(`{"n":%d}`, i)))
	}
	m := agentkittest.New(t, agentkittest.ToolCalls(calls...), agentkittest.Text("done"))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{p}})
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Steps[0].Calls {
		wantKind := tool.Kind("")
		if i == 4 {
			wantKind = tool.KindPanic
		}
		if c.Result.Kind != wantKind {
			t.Errorf("call %d kind = %q, want %q (%s)", i, c.Result.Kind, wantKind, c.Result.Content)
		}
	}
	if c := res.Steps[0].Calls[4].Result; !strings.Contains(c.Content, "work") || len(c.Stack) == 0 {
		t.Errorf("panic result should name the tool and carry a stack: %q", c.Content)
	}
}

func TestFatalToolStopsRun(t *testing.T) {
	f := tool.New("pay", "pays", func(ctx context.Context, in struct{}) (string, error) {
		return "", tool.Fatalf("card declined permanently")
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("pay", `{}`)))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{f}})
	res, err := a.Run(context.Background(), "q")
	if !errors.Is(err, tool.ErrFatal) || res.Stop != agentkit.StopFatalTool {
		t.Fatalf("err = %v, stop = %q", err, res.Stop)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("partial transcript invalid: %v", err)
	}
}

func TestModelFailures(t *testing.T) {
	apiErr := &openai.APIError{HTTPStatusCode: 401, Message: "bad key"}
	tests := []struct {
		name  string
		reply agentkittest.Reply
		want  error
	}{
		{"no choices", agentkittest.Reply{Response: &openai.ChatCompletionResponse{}}, agentkit.ErrNoChoices},
		{"empty message", agentkittest.Reply{Message: openai.ChatCompletionMessage{}, FinishReason: "length"}, agentkit.ErrEmptyMessage},
		{"api error", agentkittest.Error(apiErr), apiErr},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := agentkittest.New(t, tc.reply)
			a := agentkit.New(m, nil)
			res, err := a.Run(context.Background(), "q")
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if res == nil || res.Stop != agentkit.StopModelError {
				t.Fatalf("res = %+v", res)
			}
			if got := len(res.Messages); got != 1 {
				t.Errorf("transcript has %d messages, want the input only", got)
			}
		})
	}
}

func TestNormalizesCallsForReplay(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(
			agentkittest.CallID("", "get_weather", `{'city': '北京'}`),
			agentkittest.CallID("dup", "get_weather", `{"city":"上海"}`),
			agentkittest.CallID("dup", "get_weather", `not json at all`),
		),
		agentkittest.Text("ok"),
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	res, err := a.Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	// the scripted model assigns call_1 to the id-less call
	var got []string
	for _, c := range res.Messages[1].ToolCalls {
		got = append(got, c.ID+" "+c.Function.Arguments)
	}
	want := []string{`call_1 {"city": "北京"}`, `dup {"city":"上海"}`, `call_1_2 {}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("normalized calls (-want +got):\n%s", diff)
	}
	if k := res.Steps[0].Calls[2].Result.Kind; k != tool.KindInvalidJSON {
		t.Errorf("kind of the non-JSON call = %q", k)
	}
	if raw := res.Steps[0].Message.ToolCalls[0].Function.Arguments; raw != `{'city': '北京'}` {
		t.Errorf("step keeps the raw message: %q", raw)
	}
}

func TestInvalidInputHistory(t *testing.T) {
	m := agentkittest.New(t)
	a := agentkit.New(m, nil)
	hist := []openai.ChatCompletionMessage{
		{Role: "user", Content: "q"},
		{Role: "tool", ToolCallID: "nope", Content: "orphan"},
	}
	res, err := a.RunMessages(context.Background(), hist)
	if !errors.Is(err, agentkit.ErrInvalidHistory) || res.Stop != agentkit.StopInvalidHistory {
		t.Fatalf("err = %v stop = %q", err, res.Stop)
	}
	var he *agentkit.HistoryError
	if !errors.As(err, &he) {
		t.Errorf("err does not wrap *HistoryError: %v", err)
	}
	if len(m.Requests()) != 0 {
		t.Errorf("a request was sent")
	}
}

type ctxKey struct{}

func TestRunMiddlewareWrapsRunAndPassesContext(t *testing.T) {
	var trace []string
	mw := func(name string) agentkit.RunMiddleware {
		return func(next agentkit.RunFunc) agentkit.RunFunc {
			return func(ctx context.Context) (*agentkit.Result, error) {
				trace = append(trace, name+">")
				res, err := next(context.WithValue(ctx, ctxKey{}, name))
				trace = append(trace, "<"+name)
				return res, err
			}
		}
	}
	var seen any
	probe := tool.New("probe", "sees the context", func(ctx context.Context, in struct{}) (string, error) {
		seen = ctx.Value(ctxKey{})
		return "ok", nil
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("probe", `{}`)), agentkittest.Text("done"))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{probe}, RunMiddleware: []agentkit.RunMiddleware{mw("a"), mw("b")}})
	if _, err := a.Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(trace, " "), "a> b> <b <a"; got != want || seen != "b" {
		t.Errorf("trace = %q (want %q), tool saw %v (want b)", got, want, seen)
	}
}

func TestCallWithoutName(t *testing.T) {
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("", `{"city":"北京"}`)), agentkittest.Text("ok"))
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}}).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	got := res.Steps[0].Calls[0].Result
	if got.Kind != tool.KindUnknownTool || !strings.Contains(got.Content, "no tool name") || !strings.Contains(got.Content, "get_weather") {
		t.Errorf("result = %+v", got)
	}
	if name := res.Messages[1].ToolCalls[0].Function.Name; name != agentkit.MissingToolName {
		t.Errorf("replayed name = %q", name)
	}
}

// One Agent, many concurrent runs: no shared state between them (run with -race).
func TestAgentConcurrentRuns(t *testing.T) {
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		last := req.Messages[len(req.Messages)-1]
		msg := openai.ChatCompletionMessage{Role: "assistant"}
		if last.Role == openai.ChatMessageRoleUser {
			msg.ToolCalls = []openai.ToolCall{{ID: "c", Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"` + last.Content + `"}`}}}
		} else {
			msg.Content = "answer: " + last.Content
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	var wg sync.WaitGroup
	cities := []string{"北京", "上海", "广州", "深圳"}
	errs := make(chan string, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			city := cities[i%len(cities)]
			res, err := a.Run(context.Background(), city)
			want := "answer: " + weatherData[city]
			if city == "深圳" {
				want = "answer: 深圳暂无数据"
			}
			if err != nil || res.Output != want {
				errs <- fmt.Sprintf("run %d: %q, %v; want %q", i, res.Output, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// The loop guard compares arguments as JSON values: key order, spacing and escapes do not
// make a call new; a different value does.
func TestLoopGuardEquality(t *testing.T) {
	tests := []struct {
		first, second string
		repeat        bool
	}{
		{`{"city":"北京"}`, `{"city":"北京"}`, true},
		{`{"city":"北京","unit":"c"}`, `{ "unit" : "c", "city" : "北京" }`, true},
		{`{"city":"北京"}`, `{"city":"\u5317\u4eac"}`, true},
		{`{"city":"北京"}`, `{"city":"上海"}`, false},
		{`{"city":"a b"}`, `{"city":"ab "}`, false},
		{`{"n":1}`, `{"n":10}`, false},
		{`{"city":"北京"}`, `{'city': '北京'}`, false}, // raw text compared when not JSON: not proven equal
	}
	for _, tc := range tests {
		m := agentkittest.New(t,
			agentkittest.ToolCalls(agentkittest.Call("get_weather", tc.first)),
			agentkittest.ToolCalls(agentkittest.Call("get_weather", tc.second)),
			agentkittest.Text("done"),
		)
		res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, LoopLimit: 1, LoopStop: 3}).Run(context.Background(), "q")
		if err != nil {
			t.Fatalf("%s / %s: %v", tc.first, tc.second, err)
		}
		if got := res.Steps[1].Calls[0].Result.Kind == tool.KindLoop; got != tc.repeat {
			t.Errorf("%s then %s: refused as a repeat = %v, want %v", tc.first, tc.second, got, tc.repeat)
		}
	}
}

// An answer that is not provider-valid as received (an empty part, a legacy function_call)
// is normalized: the run's transcript stays valid.
func TestAnswerKeepsTranscriptValid(t *testing.T) {
	for name, msg := range map[string]openai.ChatCompletionMessage{
		"empty part":    {MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "ok"}, {Type: openai.ChatMessagePartTypeText}}},
		"function_call": {Content: "ok", FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"}},
	} {
		m := agentkittest.New(t, agentkittest.Reply{Message: msg})
		a := agentkit.New(m, nil)
		res, err := a.Run(context.Background(), "hi")
		if verr := agentkit.ValidateHistory(res.Messages); verr != nil {
			t.Errorf("%s: err=%v stop=%s but transcript invalid: %v", name, err, res.Stop, verr)
		}
	}
}

// A reply that sets Content and an empty, non-nil MultiContent (a ModelFunc can build one)
// keeps its Content and loses the empty list: go-openai refuses to send both.
func TestEmptyMultiContentBesideContent(t *testing.T) {
	empty := []openai.ChatMessagePart{}
	tests := []struct {
		name    string
		replies []openai.ChatCompletionMessage
		want    []openai.ChatCompletionMessage // Result.Messages after the user's
	}{
		{
			name:    "answer",
			replies: []openai.ChatCompletionMessage{{Role: "assistant", Content: "ok", MultiContent: empty}},
			want:    []openai.ChatCompletionMessage{{Role: "assistant", Content: "ok"}},
		},
		{
			name: "tool call",
			replies: []openai.ChatCompletionMessage{
				{Role: "assistant", Content: "checking", MultiContent: empty, ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京"}`}}}},
				{Role: "assistant", Content: "ok"},
			},
			want: []openai.ChatCompletionMessage{
				{Role: "assistant", Content: "checking", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京"}`}}}},
				{Role: "tool", Content: weatherData["北京"], ToolCallID: "c1"},
				{Role: "assistant", Content: "ok"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
				msg := tc.replies[n.Add(1)-1]
				return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
			})
			res, err := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}}).Run(context.Background(), "hi")
			if err != nil || res.Stop != agentkit.StopAnswered {
				t.Fatalf("Run: stop=%s err=%v, want %s and no error", res.Stop, err, agentkit.StopAnswered)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("ValidateHistory(Result.Messages) = %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, res.Messages[1:]); diff != "" {
				t.Errorf("Result.Messages after the user's (-want +got):\n%s", diff)
			}
		})
	}
}

// Tool call ids that are not valid UTF-8 are distinct in memory and the same on the wire
// (both become U+FFFD): the loop gives them new ids, so the transcript stays valid after a
// round trip through JSON.
func TestCallIDsNotUTF8AreRenamed(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("call_\xff", "get_weather", `{"city":"Paris"}`), agentkittest.CallID("call_\xfe", "get_weather", `{"city":"Rome"}`)),
		agentkittest.Text("done"))
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}}).Run(context.Background(), "weather?")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := json.Marshal(res.Messages)
	if err != nil {
		t.Fatal(err)
	}
	var back []openai.ChatCompletionMessage
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	if err := agentkit.ValidateHistory(back); err != nil {
		t.Errorf("the transcript after a JSON round trip: %v", err)
	}
}

// No call of a reply cut short (finish_reason length or content_filter) runs: its arguments
// may be cut too. The model reads why, and its next, complete reply runs; the run's
// iteration bound still holds.
func TestCutOffReplyRunsNoCall(t *testing.T) {
	for _, finish := range []openai.FinishReason{openai.FinishReasonLength, openai.FinishReasonContentFilter} {
		t.Run(string(finish), func(t *testing.T) {
			var amounts []int
			transfer := tool.New("transfer", "moves money", func(ctx context.Context, in struct {
				To     string `json:"to"`
				Amount int    `json:"amount"`
			}) (string, error) {
				amounts = append(amounts, in.Amount)
				return "done", nil
			})
			cut := agentkittest.ToolCalls(agentkittest.Call("transfer", `{"to":"bob","amount": 10`))
			cut.FinishReason = finish
			m := agentkittest.New(t, cut,
				agentkittest.ToolCalls(agentkittest.Call("transfer", `{"to":"bob","amount": 1000}`)),
				agentkittest.Text("sent"))
			res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{transfer}}).Run(context.Background(), "send bob 1000")
			if err != nil {
				t.Fatal(err)
			}
			if want := []int{1000}; !slices.Equal(amounts, want) {
				t.Errorf("transfer ran with %v, want %v", amounts, want)
			}
			r := res.Steps[0].Calls[0].Result
			if r.Kind != tool.KindNotExecuted || !strings.Contains(r.Content, string(finish)) {
				t.Errorf("the cut call's result: %s %q, want not_executed naming %s", r.Kind, r.Content, finish)
			}
		})
	}
	// The bound still holds: a model that keeps being cut off ends at MaxIterations.
	cut := agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Par`))
	cut.FinishReason = openai.FinishReasonLength
	m := agentkittest.New(t, cut, cut)
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, MaxIterations: 2}).Run(context.Background(), "q")
	if !errors.Is(err, agentkit.ErrIterationLimit) || res.Iterations != 2 {
		t.Errorf("err %v after %d iterations, want ErrIterationLimit after 2", err, res.Iterations)
	}
}

// The calls of one reply past Options.MaxToolCalls are answered, not run.
func TestMaxToolCalls(t *testing.T) {
	var ran atomic.Int32
	f := tool.New("f", "counts", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		ran.Add(1)
		return "ok", nil
	})
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("f", `{"n":1}`), agentkittest.Call("f", `{"n":2}`), agentkittest.Call("f", `{"n":3}`)),
		agentkittest.Text("done"))
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{f}, MaxToolCalls: 2}).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []tool.Kind
	for _, c := range res.Steps[0].Calls {
		kinds = append(kinds, c.Result.Kind)
	}
	if diff := cmp.Diff([]tool.Kind{"", "", tool.KindNotExecuted}, kinds); diff != "" || ran.Load() != 2 {
		t.Errorf("%d calls ran; kinds (-want +got):\n%s", ran.Load(), diff)
	}
	if got := res.Steps[0].Calls[2].Result.Content; !strings.Contains(got, "at most 2 tool calls") {
		t.Errorf("the refused call's result %q does not tell the bound", got)
	}
}

// A reply larger than Options.MaxReplyBytes ends the run with ErrReplyTooLarge, plain or
// streamed, and nothing of it enters the transcript.
func TestReplyTooLarge(t *testing.T) {
	huge := strings.Repeat("x", 2<<20)
	for _, stream := range []bool{false, true} {
		m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"`+huge+`"}`)))
		a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, MaxReplyBytes: 1 << 20})
		var res *agentkit.Result
		var err error
		if stream {
			res, err = a.RunStream(context.Background(), "q").Result()
		} else {
			res, err = a.Run(context.Background(), "q")
		}
		if !errors.Is(err, agentkit.ErrReplyTooLarge) || res.Stop != agentkit.StopModelError || len(res.Messages) != 1 {
			t.Errorf("stream %v: stop %q, err %v, %d messages; want %q, ErrReplyTooLarge, the input only", stream, res.Stop, err, len(res.Messages), agentkit.StopModelError)
		}
	}
}

// A panic in OnEvent is raised from Run, on the caller's goroutine, also when it happens on a
// call's goroutine: it never ends the process from a goroutine nobody can recover.
func TestOnEventPanicIsRaisedFromRun(t *testing.T) {
	m := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`), agentkittest.Call("get_weather", `{"city":"Rome"}`)),
		agentkittest.Text("done"))
	onEvent := func(_ context.Context, e agentkit.Event) {
		if e.Kind == agentkit.EventToolEnd {
			panic("observer bug")
		}
	}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, OnEvent: onEvent})
	defer func() {
		if p := recover(); p != "observer bug" {
			t.Errorf("recovered %v, want the OnEvent's panic", p)
		}
	}()
	a.Run(context.Background(), "weather?")
	t.Error("Run returned")
}

// A provider's reply of 10 MB of nested brackets, plain or streamed, ends the run with a
// model error, never a crash: go-openai's decoding (encoding/json) bounds the nesting.
func TestDeepReplyBody(t *testing.T) {
	deep := strings.Repeat("[", 10<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"choices\":%s\n\n", deep)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","choices":%s`, deep)
	}))
	defer srv.Close()
	cfg := openai.DefaultConfig("test")
	cfg.BaseURL = srv.URL + "/v1"
	client := openai.NewClientWithConfig(cfg)
	for _, stream := range []bool{false, true} {
		a := agentkit.New(agentkit.OpenAIStreaming(client), nil)
		var res *agentkit.Result
		var err error
		if stream {
			res, err = a.RunStream(context.Background(), "q").Result()
		} else {
			res, err = a.Run(context.Background(), "q")
		}
		if err == nil || res.Stop != agentkit.StopModelError {
			t.Errorf("stream %v: stop %q, err %v; want %q and an error", stream, res.Stop, err, agentkit.StopModelError)
		}
	}
}

// A Sequential call runs after the calls of its turn that may run in parallel, as
// tool.Options.Sequential says ("one at a time, after the calls of the same turn that may run
// in parallel"), also when only one of them may: a lone parallel call now runs inline, in
// emission order among the sequential ones, so a sequential call emitted first runs first.
// With two parallel calls the order is the documented one; with one it is not.
func TestSequentialCallsRunAfterParallelOnes(t *testing.T) {
	var mu sync.Mutex
	var order []string
	record := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	write := tool.New("write", "writes", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		record(fmt.Sprint("write", in.N))
		return "ok", nil
	}, tool.Options{Sequential: true})
	read := tool.New("read", "reads", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		record(fmt.Sprint("read", in.N))
		return "ok", nil
	})
	for _, tc := range []struct {
		name  string
		calls []openai.ToolCall
		want  []string
	}{
		{"two parallel", []openai.ToolCall{agentkittest.Call("write", `{"n":1}`), agentkittest.Call("read", `{"n":1}`), agentkittest.Call("read", `{"n":2}`)}, []string{"read", "read", "write1"}},
		{"one parallel", []openai.ToolCall{agentkittest.Call("write", `{"n":1}`), agentkittest.Call("read", `{"n":1}`)}, []string{"read1", "write1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order = nil
			m := agentkittest.New(t, agentkittest.ToolCalls(tc.calls...), agentkittest.Text("done"))
			a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{write, read}})
			if _, err := a.Run(context.Background(), "q"); err != nil {
				t.Fatal(err)
			}
			got := slices.Clone(order)
			for i, s := range got { // the parallel reads may run in any order
				if strings.HasPrefix(s, "read") && len(tc.want) == 3 {
					got[i] = "read"
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("execution order (-want +got):\n%s", diff)
			}
		})
	}
}
