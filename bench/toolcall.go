package bench

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/memory"
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

func toolcallOptions(s *script.Script) *agentkit.Options {
	return &agentkit.Options{
		Model:         "gpt-4o-mini",
		Instructions:  script.Instructions,
		Tools:         toolcallTools(s.Tools),
		MaxIterations: MaxIterations,
	}
}

// Toolcall is the SDK with every default on: argument repair, validation against the schema,
// history checks before every request, the loop guard, parallel calls.
func Toolcall() Framework {
	return Framework{
		Name: "toolcall",
		Agent: func(s *script.Script) Run {
			a := agentkit.New(newOpenAIModel(s), toolcallOptions(s))
			return func(ctx context.Context, input string) (string, error) {
				res, err := a.Run(ctx, input)
				return res.Output, err
			}
		},
		Conversations: []Conversation{
			{
				Name:     "session+window",
				Windowed: true,
				Note:     fmt.Sprintf("RunSession on memory.NewInMemory(), Options.Context = memory.Window(budget %d tokens, tiktoken o200k counter, new per conversation), Options.SessionTurns %d (twice the turns the budget holds)", WindowBudget, 2*WindowTurns),
				New:      toolcallSession(func() *memory.Counter { return memory.NewCounter("gpt-4o-mini") }),
			},
			{
				Name:     "session+turns",
				Windowed: true,
				Note:     fmt.Sprintf("RunSession on memory.NewInMemory(), Options.Context = memory.Window(MaxTurns %d), Options.SessionTurns %[1]d: the store loads the first user message and the latest turns, the window keeps them by count, no token budget, as openai-agents-go's session with LimitMemory", WindowTurns),
				New:      toolcallSessionWith(memory.WindowOptions{MaxTurns: WindowTurns}, WindowTurns),
			},
			{
				Name:     "session+turns-whole",
				Windowed: true,
				Note:     "as session+turns without Options.SessionTurns: every run loads and checks the whole session",
				New:      toolcallSessionWith(memory.WindowOptions{MaxTurns: WindowTurns}, 0),
			},
			{
				Name:     "session+window-bytes4",
				Windowed: true,
				Note:     "as session+window, with the zero memory.Counter (one token per 4 bytes, no tokenizer): the cost of the window without tiktoken",
				New:      toolcallSession(func() *memory.Counter { return &memory.Counter{} }),
			},
			{
				Name:     "conversation+turns",
				Note:     fmt.Sprintf("Agent.NewConversation with Options.Context = memory.Window(MaxTurns %d): the transcript kept in process, the latest turns sent", WindowTurns),
				Windowed: true,
				New: func(c *script.Conversation) func(ctx context.Context) error {
					o := toolcallOptions(c.Script)
					o.Context = memory.Window(memory.WindowOptions{MaxTurns: WindowTurns})
					return toolcallConversation(agentkit.New(newOpenAIModel(c.Script), o), c)
				},
			},
			{
				Name: "conversation",
				Note: "Agent.NewConversation, then Conversation.Run per turn: the transcript kept in process, checked as it grows, everything sent (no window)",
				New: func(c *script.Conversation) func(ctx context.Context) error {
					return toolcallConversation(agentkit.New(newOpenAIModel(c.Script), toolcallOptions(c.Script)), c)
				},
			},
			{
				Name: "messages",
				Note: "RunMessages with the previous Result.Messages plus the new user message: everything is sent (no memory)",
				New: func(c *script.Conversation) func(ctx context.Context) error {
					a := agentkit.New(newOpenAIModel(c.Script), toolcallOptions(c.Script))
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
		},
	}
}

// toolcallConversation runs c's conversation as one Conversation of a, a turn per input.
func toolcallConversation(a *agentkit.Agent, c *script.Conversation) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		conv, err := a.NewConversation()
		if err != nil {
			return err
		}
		for _, in := range c.Inputs {
			if _, err := conv.Run(ctx, in); err != nil {
				return err
			}
		}
		return nil
	}
}

// toolcallSession runs a conversation with RunSession on a new InMemory store and a
// memory.Window counting with a new counter, loading twice the turns its budget holds.
func toolcallSession(counter func() *memory.Counter) func(c *script.Conversation) func(ctx context.Context) error {
	return toolcallSessionOn(func() memory.WindowOptions { return memory.WindowOptions{Budget: WindowBudget, Counter: counter()} }, 2*WindowTurns)
}

// toolcallSessionWith is toolcallSession with a memory.Window of fixed options and the given
// Options.SessionTurns.
func toolcallSessionWith(o memory.WindowOptions, sessionTurns int) func(c *script.Conversation) func(ctx context.Context) error {
	return toolcallSessionOn(func() memory.WindowOptions { return o }, sessionTurns)
}

func toolcallSessionOn(window func() memory.WindowOptions, sessionTurns int) func(c *script.Conversation) func(ctx context.Context) error {
	return func(c *script.Conversation) func(ctx context.Context) error {
		model := newOpenAIModel(c.Script)
		opts := toolcallOptions(c.Script) // the tools are declared once, as the peers' are
		return func(ctx context.Context) error {
			o := *opts
			o.Memory = memory.NewInMemory()
			o.Context = memory.Window(window())
			o.SessionTurns = sessionTurns
			a := agentkit.New(model, &o)
			for _, in := range c.Inputs {
				if _, err := a.RunSession(ctx, "s", in); err != nil {
					return err
				}
			}
			return nil
		}
	}
}
