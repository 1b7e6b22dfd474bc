package trace_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
	"github.com/toolcall/toolcall/trace"
)

func weatherAgent(onEvent agentkit.OnEvent) *agentkit.Agent {
	weather := tool.New("get_weather", "查询指定城市的当前天气", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴，25°C", nil
	})
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京今天晴，25°C。"))
	return agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, OnEvent: onEvent})
}

// A run's page, from its Result (write it to a file and open it in a browser).
func ExampleWrite() {
	res, err := weatherAgent(nil).Run(context.Background(), "北京天气怎么样？")
	var page strings.Builder
	if err := trace.Write(&page, res, &trace.Options{Err: err}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(page.String(), "<!DOCTYPE html>"), strings.Contains(page.String(), "北京：晴，25°C"))
	// Output: true true
}

// A long run's page, written as the run goes; it is whole when the run ends.
func ExampleRecorder() {
	var page strings.Builder
	rec := trace.NewRecorder(&page, &trace.Options{Title: "weather"})
	res, _ := weatherAgent(rec.OnEvent).Run(context.Background(), "北京天气怎么样？")
	fmt.Println(res.Output, rec.Close(), strings.HasSuffix(page.String(), "</html>\n"))
	// Output: 北京今天晴，25°C。 <nil> true
}

// A stored session's page: the messages a Memory loads, with no durations.
func ExampleWriteSession() {
	res, _ := weatherAgent(nil).Run(context.Background(), "北京天气怎么样？")
	var page strings.Builder
	fmt.Println(trace.WriteSession(&page, res.Messages, nil), strings.Contains(page.String(), "no durations"))
	// Output: <nil> true
}
