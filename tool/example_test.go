package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolcall/toolcall/tool"
)

func ExampleNew() {
	weather := tool.New("get_weather",
		"查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
		}) (string, error) {
			if in.City == "北京" {
				return "晴，气温26℃，东南风2级", nil
			}
			return in.City + "暂无数据", nil
		})

	fmt.Println(string(weather.Parameters()))

	// A well-formed call.
	res := weather.Handle(context.Background(), tool.Call{ID: "call_1", Arguments: `{"city":"北京"}`})
	fmt.Println(res.Content)

	// The seed article's "extra comma", inside a markdown fence: repaired, then run.
	res = weather.Handle(context.Background(), tool.Call{ID: "call_2", Arguments: "```json\n{\"city\": \"上海\",}\n```"})
	fmt.Println(res.Content, "|", res.Repair)

	// A hallucinated parameter: refused before the function runs, with a message for the model.
	res = weather.Handle(context.Background(), tool.Call{ID: "call_3", Arguments: `{"town":"北京"}`})
	fmt.Println(res.Kind)
	fmt.Println(res.Content)
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"城市中文名，例如：北京、上海、广州"}},"required":["city"],"additionalProperties":false}
	// 晴，气温26℃，东南风2级
	// 上海暂无数据 | stripped markdown fence; repaired malformed JSON
	// invalid_arguments
	// invalid arguments for tool get_weather:
	// - /city: required property is missing (string: 城市中文名，例如：北京、上海、广州)
	// - /town: unknown property; known properties: city
	// Fix these arguments and call the tool again.
}

// Raw declares a tool from a schema given as data (one an MCP server or a config file
// describes): the arguments are repaired and validated against it, and the function gets
// them as canonical JSON.
func ExampleRaw() {
	echo, err := tool.Raw("echo", "Repeats a message.",
		json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]}`),
		func(ctx context.Context, args json.RawMessage) (string, error) {
			return string(args), nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(echo.Handle(context.Background(), tool.Call{ID: "1", Arguments: `{ "text" : "你好", }`}).Content)
	fmt.Println(echo.Handle(context.Background(), tool.Call{ID: "2", Arguments: `{"text":""}`}).Content)
	// Output:
	// {"text":"你好"}
	// invalid arguments for tool echo:
	// - /text: expected at least 1 characters, got 0: ""
	// Fix these arguments and call the tool again.
}
