package wiretest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// Two calls in one response run concurrently, and the follow-up request carries their
// results in the order the model emitted the calls, each under its own tool_call_id, even
// though the second call finished first. The fixture of the final answer only matches when
// the last message is the result of call_sh, so aimock itself checks the order too.
func TestParallelToolCalls(t *testing.T) {
	t.Parallel()
	eachClient(t, "parallel.json", clientOptions{}, testParallelToolCalls)
}

func testParallelToolCalls(t *testing.T, e *env) {
	shanghaiDone := make(chan struct{})
	w := &weather{
		before: func(ctx context.Context, city string) error {
			if city != "北京" {
				return nil
			}
			select { // 北京 answers only after 上海 has: proves the calls overlap
			case <-shanghaiDone:
				return nil
			case <-time.After(10 * time.Second):
				t.Error("get_weather(北京) waited 10s for get_weather(上海): the calls did not run concurrently")
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		after: func(city string) {
			if city == "上海" {
				close(shanghaiDone)
			}
		},
	}
	agent := agentkit.New(e.model, &agentkit.Options{
		Model:        "gpt-4o-mini",
		Instructions: instructions,
		Tools:        []*tool.Tool{w.tool()},
	})
	const question = "北京和上海的天气怎么样？"
	res, err := agent.Run(testContext(t), question)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Stop != agentkit.StopAnswered || res.Output != "北京晴，气温26℃；上海多云，气温28℃。" {
		t.Errorf("Stop = %q, Output = %q", res.Stop, res.Output)
	}
	if got, want := w.calls(), []string{"上海", "北京"}; !cmp.Equal(got, want) {
		t.Errorf("calls finished in order %v, want %v", got, want)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("transcript: %v", err)
	}

	exs := e.capture.Exchanges()
	if got, want := statuses(exs), []int{200, 200}; !cmp.Equal(got, want) {
		t.Fatalf("statuses = %v, want %v", got, want)
	}
	reqs := requests(t, exs)
	first := reqs[0]
	if first.Model != "gpt-4o-mini" || len(first.Tools) != 1 || first.Tools[0].Type != "function" || first.Tools[0].Function.Name != "get_weather" {
		t.Errorf("first request: model %q, tools %+v", first.Model, first.Tools)
	}
	// The tool-calling temperature 0 reaches the wire: as agentkit.WireZeroTemperature
	// through go-openai, which would drop an exact 0; as 0 through openaichat.
	wantTemperature := map[client]float64{goOpenAI: 1e-06, openAIChat: 0}[e.client]
	if first.Temperature == nil || *first.Temperature != wantTemperature {
		t.Errorf("temperature = %v, want %v", first.Temperature, wantTemperature)
	}
	want := []wireMessage{
		{Role: "system", Content: instructions},
		{Role: "user", Content: question},
		{Role: "assistant", ToolCalls: []wireToolCall{
			call("call_bj", "get_weather", `{"city":"北京"}`),
			call("call_sh", "get_weather", `{"city":"上海"}`),
		}},
		{Role: "tool", ToolCallID: "call_bj", Content: forecasts["北京"]},
		{Role: "tool", ToolCallID: "call_sh", Content: forecasts["上海"]},
	}
	if diff := cmp.Diff(want, reqs[1].Messages); diff != "" {
		t.Errorf("follow-up request messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:2], first.Messages); diff != "" {
		t.Errorf("first request messages (-want +got):\n%s", diff)
	}
}

// Arguments a real server sends as it received them from the model: one wrapped in a
// markdown fence with a trailing comma (repaired, the tool runs), one that is no JSON at all
// (the model is told, the tool does not run). The follow-up request carries arguments that
// are JSON, as providers require when a history is sent back.
func TestMalformedArgumentsFromTheServer(t *testing.T) {
	t.Parallel()
	eachClient(t, "badarguments.json", clientOptions{}, testMalformedArgumentsFromTheServer)
}

func testMalformedArgumentsFromTheServer(t *testing.T, e *env) {
	w := &weather{}
	agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "坏的参数：广州和上海的天气")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Stop != agentkit.StopAnswered {
		t.Errorf("Stop = %q", res.Stop)
	}
	if got, want := w.calls(), []string{"广州"}; !cmp.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	if len(res.Steps) != 2 || len(res.Steps[0].Calls) != 2 {
		t.Fatalf("steps = %+v", res.Steps)
	}
	gz, xx := res.Steps[0].Calls[0].Result, res.Steps[0].Calls[1].Result
	if gz.Kind != "" || gz.Repair == "" {
		t.Errorf("fenced call: kind %q, repair %q; want a repaired success", gz.Kind, gz.Repair)
	}
	if xx.Kind != tool.KindInvalidJSON {
		t.Errorf("non-JSON call: kind %q, want %q", xx.Kind, tool.KindInvalidJSON)
	}

	reqs := requests(t, e.capture.Exchanges())
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) != 4 || msgs[1].Role != "assistant" || len(msgs[1].ToolCalls) != 2 {
		t.Fatalf("follow-up messages = %+v", msgs)
	}
	for i, c := range msgs[1].ToolCalls {
		if !json.Valid([]byte(c.Function.Arguments)) {
			t.Errorf("tool call %d sent back with arguments %q: not JSON", i, c.Function.Arguments)
		}
	}
	var args struct{ City string }
	if err := json.Unmarshal([]byte(msgs[1].ToolCalls[0].Function.Arguments), &args); err != nil || args.City != "广州" {
		t.Errorf("repaired arguments = %q", msgs[1].ToolCalls[0].Function.Arguments)
	}
	if msgs[2].ToolCallID != "call_gz" || msgs[2].Content != forecasts["广州"] {
		t.Errorf("first result = %+v", msgs[2])
	}
	if c, _ := msgs[3].Content.(string); msgs[3].ToolCallID != "call_xx" || !strings.Contains(c, "JSON") {
		t.Errorf("second result = %+v, want an error about JSON under call_xx", msgs[3])
	}
}
