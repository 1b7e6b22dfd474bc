package main

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// scriptedModel plays the conversation offline: it asks for the weather, then books a table
// and cancels the old booking in one turn, then answers from the results it was sent — the
// real outputs of the MCP server's tools. It makes no network call.
func scriptedModel() *agentkittest.Model {
	return agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京","date":"明天"}`)),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			var f struct {
				Outdoor bool `json:"outdoor"`
			}
			if r := lastResults(req.Messages); len(r) > 0 {
				_ = json.Unmarshal([]byte(r[0]), &f)
			}
			outdoor := "false"
			if f.Outdoor {
				outdoor = "true"
			}
			return agentkittest.ToolCalls(
				agentkittest.Call("book_table", `{"people":2,"time":"明天 19:00","outdoor":`+outdoor+`}`),
				agentkittest.Call("cancel_booking", `{"id":"B-1024"}`))
		}),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			return agentkittest.Text("已处理：\n" + strings.Join(lastResults(req.Messages), "\n"))
		}),
	)
}

// lastResults returns the contents of the tool messages at the end of msgs, in order.
func lastResults(msgs []openai.ChatCompletionMessage) []string {
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == openai.ChatMessageRoleTool {
		i--
	}
	var out []string
	for _, m := range msgs[i:] {
		out = append(out, m.Content)
	}
	return out
}
