package bench

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/handwritten"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
}

type exprIn struct {
	Expression string `json:"expression" jsonschema:"description=数学表达式，例如：12.5 * 4 + 2"`
}

type stepIn struct {
	N int `json:"n" jsonschema:"description=上一步的结果"`
}

// toolcallTools declares the tools with tool.New, as the SDK's docs do.
func toolcallTools(names []string) []*tool.Tool {
	var out []*tool.Tool
	for _, name := range names {
		d := script.Descriptions[name]
		var t *tool.Tool
		switch name {
		case "get_weather":
			t = tool.New(name, d, func(ctx context.Context, in cityIn) (string, error) { return script.Weather(in.City), nil })
		case "calculate":
			t = tool.New(name, d, func(ctx context.Context, in exprIn) (string, error) { return script.Calculate(in.Expression), nil })
		case "sleep":
			t = tool.New(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Sleep(ctx), nil })
		case "step":
			t = tool.New(name, d, func(ctx context.Context, in stepIn) (string, error) { return script.Step(in.N), nil })
		case "slow":
			t = tool.New(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Slow(ctx), nil })
		case "fast":
			t = tool.New(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Fast(ctx), nil })
		default:
			panic("bench: no tool " + name)
		}
		out = append(out, t)
	}
	return out
}

// newToolcall returns the one constructor of toolcall agents for s and url: agentkit.New on
// the scripted model behind go-openai's types in process (handwritten.NewModel), or over HTTP
// on openaichat, the SDK's own client; every default on, the tools declared once with
// tool.New, as the peers' are. configure, when not nil, sets the options of one way of
// running workload 4.
func newToolcall(s *script.Script, url string) func(configure func(o *agentkit.Options)) *agentkit.Agent {
	model, tools := handwritten.NewModel(s, url), toolcallTools(s.Tools)
	if url != "" {
		model = openaichat.New(url, &openaichat.Options{APIKey: "bench"})
	}
	return func(configure func(o *agentkit.Options)) *agentkit.Agent {
		o := &agentkit.Options{Model: "gpt-4o-mini", Instructions: script.Instructions, Tools: tools, MaxIterations: script.MaxIterations}
		if configure != nil {
			configure(o)
		}
		return agentkit.New(model, o)
	}
}

// Toolcall is the SDK with every default on: argument repair, validation against the schema,
// history checks before every request, the loop guard, parallel calls.
func Toolcall() Framework {
	return Framework{
		Name: "toolcall",
		Agent: func(s *script.Script, url string) Run {
			a := newToolcall(s, url)(nil)
			return func(ctx context.Context, input string) (string, error) {
				res, err := a.Run(ctx, input)
				return res.Output, err
			}
		},
		Conversations: []Conversation{
			{
				Name: "conversation",
				Note: "RunSession on memory.NewInMemory() without Options.Context: the chat kept in process, everything sent (no window)",
				New:  toolcallSession(func(o *agentkit.Options) {}),
			},
			{
				Name: "messages",
				Note: "RunMessages with the previous Result.Messages plus the new user message: everything is sent (no memory)",
				New: func(c *script.Conversation, url string) func(ctx context.Context) error {
					a := newToolcall(c.Script, url)(nil)
					return func(ctx context.Context) error {
						var hist []openai.ChatCompletionMessage
						for _, in := range c.Inputs {
							res, err := a.RunMessages(ctx, append(hist, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in}))
							if err != nil {
								return err
							}
							hist = res.Messages
						}
						return nil
					}
				},
			},
			{
				Name:     "session+turns",
				Windowed: true,
				Note:     fmt.Sprintf("RunSession on memory.NewInMemory(), Options.Context = memory.Window(MaxTurns %d): the store loads the first user message and the latest turns, the window keeps them by count, as openai-agents-go's session with LimitMemory", script.WindowTurns),
				New: toolcallSession(func(o *agentkit.Options) {
					o.Context = memory.Window(memory.WindowOptions{MaxTurns: script.WindowTurns})
				}),
			},
			{
				Name:     "session+window",
				Windowed: true,
				Note:     fmt.Sprintf("RunSession on memory.NewInMemory(), Options.Context = memory.Window(budget %d tokens, tiktoken o200k counter, new per conversation, MaxTurns %d: twice the turns the budget holds, so that the store loads only those)", WindowBudget, 2*script.WindowTurns),
				New: toolcallSession(func(o *agentkit.Options) {
					o.Context = memory.Window(memory.WindowOptions{Budget: WindowBudget, Counter: memory.NewCounter("gpt-4o-mini"), MaxTurns: 2 * script.WindowTurns})
				}),
			},
		},
	}
}

// toolcallSession runs a conversation with RunSession on a new InMemory store, with the
// options configure sets (a new window per conversation).
func toolcallSession(configure func(o *agentkit.Options)) func(c *script.Conversation, url string) func(ctx context.Context) error {
	return func(c *script.Conversation, url string) func(ctx context.Context) error {
		build := newToolcall(c.Script, url)
		return func(ctx context.Context) error {
			a := build(func(o *agentkit.Options) {
				o.Memory = memory.NewInMemory()
				configure(o)
			})
			for _, in := range c.Inputs {
				if _, err := a.RunSession(ctx, "s", in); err != nil {
					return err
				}
			}
			return nil
		}
	}
}
