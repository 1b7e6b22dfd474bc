package bench

import (
	"context"
	"errors"
	"fmt"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// einoModel is the scripted model behind eino's model.ToolCallingChatModel. Every response is
// a new *schema.Message (the agent keeps and may annotate the pointer); its tool calls are
// copied from ones built once.
type einoModel struct {
	s     *script.Script
	calls [][]schema.ToolCall
}

func newEinoModel(s *script.Script) *einoModel {
	m := &einoModel{s: s, calls: make([][]schema.ToolCall, len(s.Replies))}
	for i, r := range s.Replies {
		for _, c := range r.Calls {
			m.calls[i] = append(m.calls[i], schema.ToolCall{ID: c.ID, Type: "function", Function: schema.FunctionCall{Name: c.Name, Arguments: c.Args}})
		}
	}
	return m
}

func (m *einoModel) reply(in []*schema.Message) *schema.Message {
	v := &script.View{}
	i := len(in)
	for i > 0 && in[i-1].Role == schema.Tool {
		i--
	}
	for _, t := range in[i:] {
		v.Results = append(v.Results, script.Result{ID: t.ToolCallID, Content: t.Content})
	}
	for j := i - 1; j >= 0; j-- {
		if in[j].Role == schema.User {
			v.LastUser = in[j].Content
			break
		}
	}
	r := m.s.Next(v)
	msg := &schema.Message{Role: schema.Assistant, Content: r.Text,
		ResponseMeta: &schema.ResponseMeta{FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}}
	if len(r.Calls) > 0 {
		msg.ToolCalls = append([]schema.ToolCall(nil), m.calls[r.N]...)
		msg.ResponseMeta.FinishReason = "tool_calls"
	}
	return msg
}

func (m *einoModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return m.reply(in), nil
}

func (m *einoModel) Stream(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{m.reply(in)}), nil
}

func (m *einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

type einoCity struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
}

type einoExpr struct {
	Expression string `json:"expression" jsonschema:"description=数学表达式，例如：12.5 * 4 + 2"`
}

type einoStep struct {
	N int `json:"n" jsonschema:"description=上一步的结果"`
}

type einoNone struct{}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// einoTools declares the tools with utils.InferTool, as eino's docs do.
func einoTools(names []string) []einotool.BaseTool {
	var out []einotool.BaseTool
	for _, name := range names {
		d := script.Descriptions[name]
		switch name {
		case "get_weather":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoCity) (string, error) { return script.Weather(in.City), nil })))
		case "calculate":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoExpr) (string, error) { return script.Calculate(in.Expression), nil })))
		case "sleep":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoNone) (string, error) { return script.Sleep(ctx), nil })))
		case "step":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoStep) (string, error) { return script.Step(in.N), nil })))
		case "slow":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoNone) (string, error) { return script.Slow(ctx), nil })))
		case "fast":
			out = append(out, must(utils.InferTool(name, d, func(ctx context.Context, in einoNone) (string, error) { return script.Fast(ctx), nil })))
		default:
			panic("bench: no tool " + name)
		}
	}
	return out
}

// einoChatModel is the model of s: the scripted one in process when url is "", else
// eino-ext's OpenAI chat model pointed at url.
func einoChatModel(s *script.Script, url string) model.ToolCallingChatModel {
	if url == "" {
		return newEinoModel(s)
	}
	return must(einoopenai.NewChatModel(context.Background(), &einoopenai.ChatModelConfig{APIKey: "bench", BaseURL: url, Model: "gpt-4o-mini"}))
}

// newEinoRunner builds the README's ChatModelAgent and Runner.
func newEinoRunner(s *script.Script, url string) *adk.Runner {
	ctx := context.Background()
	a := must(adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "assistant",
		Description:   "a helpful assistant",
		Instruction:   script.Instructions,
		Model:         einoChatModel(s, url),
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: einoTools(s.Tools)}},
		MaxIterations: script.MaxIterations,
	}))
	return adk.NewRunner(ctx, adk.RunnerConfig{Agent: a})
}

var errEinoNoAnswer = errors.New("bench: eino run ended without an answer")

// einoDrain reads a run's events: the messages it added, and its answer.
func einoDrain(it *adk.AsyncIterator[*adk.AgentEvent], keep func(*schema.Message)) (string, error) {
	var out string
	answered := false
	for {
		ev, ok := it.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return "", ev.Err
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			return "", err
		}
		if keep != nil {
			keep(msg)
		}
		if msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			out, answered = msg.Content, true
		}
	}
	if !answered {
		return "", errEinoNoAnswer
	}
	return out, nil
}

// Eino is github.com/cloudwego/eino as its README teaches: adk.NewChatModelAgent with
// ToolsConfig, adk.NewRunner, Runner.Query (over HTTP, eino-ext's OpenAI chat model).
func Eino() Framework {
	return Framework{
		Name: "eino",
		Agent: func(s *script.Script, url string) Run {
			r := newEinoRunner(s, url)
			return func(ctx context.Context, input string) (string, error) {
				return einoDrain(r.Query(ctx, input), nil)
			}
		},
		Conversations: []Conversation{{
			Name: "messages",
			Note: "no session store in eino's Runner: the app keeps []*schema.Message and passes it to Runner.Run, adding the messages of every event: everything is sent",
			New: func(c *script.Conversation, url string) func(ctx context.Context) error {
				r := newEinoRunner(c.Script, url)
				return func(ctx context.Context) error {
					var hist []*schema.Message
					for _, in := range c.Inputs {
						hist = append(hist, schema.UserMessage(in))
						if _, err := einoDrain(r.Run(ctx, hist), func(m *schema.Message) { hist = append(hist, m) }); err != nil {
							return fmt.Errorf("eino turn %q: %w", in, err)
						}
					}
					return nil
				}
			},
		}},
	}
}
