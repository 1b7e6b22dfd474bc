package main

import (
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// offlineHelp is the answer offline mode gives to a question it has no script for.
const offlineHelp = `离线演示模式只能回答天气（北京、上海、广州）和算术问题，例如：“北京天气怎么样？顺便帮我算一下 123.45 * 678”。
To use a real model, set OPENAI_API_KEY (and OPENAI_BASE_URL for DeepSeek, Qwen, Ollama, vLLM… , and OPENAI_MODEL), then run again.`

var (
	cityPattern = regexp.MustCompile(`北京|上海|广州|深圳|杭州|成都|南京|武汉|西安|重庆|天津`)
	exprPattern = regexp.MustCompile(`[-(]*\d+(?:\.\d+)?\)*(?:\s*(?:\*\*|[-+*/%×÷])\s*[-(]*\d+(?:\.\d+)?\)*)+`)
)

// offlineModel is the built-in scripted model used when no provider is configured. It plays
// the seed article's conversation for the question it was given: first it calls get_weather
// for each city the question names and calculate for its arithmetic, all in one parallel turn;
// then it writes its answer from the tool results it receives — the real outputs of the tools.
// It makes no network call.
func offlineModel(question string) *agentkittest.Model {
	cities := cityPattern.FindAllString(question, -1)
	expr := exprPattern.FindString(question)
	var calls []openai.ToolCall
	for _, c := range dedupe(cities) {
		calls = append(calls, agentkittest.Call("get_weather", `{"city":"`+c+`"}`))
	}
	if expr != "" {
		expr = strings.NewReplacer("×", "*", "÷", "/").Replace(strings.TrimSpace(expr))
		calls = append(calls, agentkittest.Call("calculate", `{"expression":"`+expr+`"}`))
	}
	if len(calls) == 0 {
		return agentkittest.New(nil, agentkittest.Text(offlineHelp))
	}
	return agentkittest.New(nil,
		agentkittest.ToolCalls(calls...),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			return agentkittest.Text(summarize(req.Messages))
		}),
	)
}

// summarize writes the final answer from the last turn's calls and their results.
func summarize(msgs []openai.ChatCompletionMessage) string {
	results := map[string]string{}
	var calls []openai.ToolCall
	for _, m := range msgs {
		switch m.Role {
		case openai.ChatMessageRoleAssistant:
			calls = m.ToolCalls
		case openai.ChatMessageRoleTool:
			results[m.ToolCallID] = m.Content
		}
	}
	var parts []string
	for _, c := range calls {
		r := results[c.ID]
		switch c.Function.Name {
		case "get_weather":
			city := cityPattern.FindString(c.Function.Arguments)
			parts = append(parts, city+"现在的天气："+r+"。")
		case "calculate":
			parts = append(parts, "计算结果："+r+"。")
		}
	}
	return strings.Join(parts, "")
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
