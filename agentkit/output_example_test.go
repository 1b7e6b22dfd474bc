package agentkit_test

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A run that calls its tools and ends with a Go value: the model's first answer breaks the
// schema, reads why, and gives a valid one.
func ExampleOutput() {
	type Forecast struct {
		City  string `json:"city"`
		TempC int    `json:"temp_c" jsonschema:"minimum=-90,maximum=60"`
		Sky   string `json:"sky" jsonschema:"enum=sunny,enum=cloudy,enum=rain"`
	}
	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "晴，气温26℃", nil
		})

	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.ToolCalls(agentkittest.Call("final_answer", `{"city":"北京","temp_c":26,"sky":"晴"}`)),
		agentkittest.ToolCalls(agentkittest.Call("final_answer", `{"city":"北京","temp_c":26,"sky":"sunny"}`)),
	)
	agent := agentkit.New(model, &agentkit.Options{
		Tools:  []*tool.Tool{weather},
		Output: agentkit.Output[Forecast](nil), // tool mode: a final_answer tool whose arguments are a Forecast
	})
	res, err := agent.Run(context.Background(), "北京天气怎么样？")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	f, _ := agentkit.ValueOf[Forecast](res)
	fmt.Printf("%+v\n", f)
	fmt.Println(res.Output)
	fmt.Println(res.Stop, res.Iterations)
	fmt.Println(res.Messages[4].Content) // what the model read of its first answer
	// Output:
	// {City:北京 TempC:26 Sky:sunny}
	// {"city":"北京","temp_c":26,"sky":"sunny"}
	// answered 3
	// invalid arguments for tool final_answer:
	// - /sky: expected one of "sunny", "cloudy", "rain"; got "晴"
	// Fix these arguments and call the tool again.
}
