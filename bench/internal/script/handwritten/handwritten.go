package handwritten

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// funcs are the seed article's TOOL_MAP: names to functions on decoded arguments.
var funcs = map[string]func(ctx context.Context, args map[string]any) string{
	"get_weather": func(ctx context.Context, args map[string]any) string { return script.Weather(fmt.Sprint(args["city"])) },
	"calculate": func(ctx context.Context, args map[string]any) string {
		return script.Calculate(fmt.Sprint(args["expression"]))
	},
	"sleep": func(ctx context.Context, args map[string]any) string { return script.Sleep(ctx) },
	"step": func(ctx context.Context, args map[string]any) string {
		n, _ := args["n"].(float64)
		return script.Step(int(n))
	},
	"slow": func(ctx context.Context, args map[string]any) string { return script.Slow(ctx) },
	"fast": func(ctx context.Context, args map[string]any) string { return script.Fast(ctx) },
}

// parameters are the seed article's TOOLS: the JSON Schemas of the tools' arguments, written
// once by hand. They are the schemas toolcall's tool.New infers for the same tools (the bench
// module's TestFloorTools holds them to that).
var parameters = map[string]string{
	"get_weather": `{"type":"object","properties":{"city":{"type":"string","description":"城市中文名，例如：北京、上海、广州"}},"required":["city"],"additionalProperties":false}`,
	"calculate":   `{"type":"object","properties":{"expression":{"type":"string","description":"数学表达式，例如：12.5 * 4 + 2"}},"required":["expression"],"additionalProperties":false}`,
	"sleep":       `{"type":"object","properties":{},"additionalProperties":false}`,
	"step":        `{"type":"object","properties":{"n":{"type":"integer","description":"上一步的结果"}},"required":["n"],"additionalProperties":false}`,
	"slow":        `{"type":"object","properties":{},"additionalProperties":false}`,
	"fast":        `{"type":"object","properties":{},"additionalProperties":false}`,
}

// Tools returns the definitions the floor sends for the named tools.
func Tools(names []string) []openai.Tool {
	var defs []openai.Tool
	for _, name := range names {
		p, ok := parameters[name]
		if !ok {
			panic("handwritten: no tool " + name)
		}
		defs = append(defs, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: name, Description: script.Descriptions[name], Parameters: json.RawMessage(p)}})
	}
	return defs
}

// loop is the seed article's run_agent on go-openai types: json.Unmarshal into a map, a map of
// functions, calls one after the other, no validation, no repair. An unknown tool is answered
// "错误：未知工具 name"; arguments that are not JSON end the run (json.loads raises in the
// article).
type loop struct {
	model Model
	defs  []openai.Tool
}

func newLoop(s *script.Script, url string) *loop {
	return &loop{model: NewModel(s, url), defs: Tools(s.Tools)}
}

var errLimit = errors.New("handwritten: 已达到最大迭代次数")

// window is the hand-written window: the system prompt, the first user message and the
// latest script.WindowTurns turns, built into one reused buffer.
type window struct {
	turns []int // where each turn begins in the history
	buf   []openai.ChatCompletionMessage
}

func (w *window) view(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if len(w.turns) <= script.WindowTurns {
		return msgs
	}
	w.buf = append(append(w.buf[:0], msgs[:w.turns[0]+1]...), msgs[w.turns[len(w.turns)-script.WindowTurns]:]...)
	return w.buf
}

// turn runs one user message on msgs (which already ends with it) and returns the history.
// With w, each request sends w's window of msgs instead of all of them.
func (h *loop) turn(ctx context.Context, msgs []openai.ChatCompletionMessage, w *window) ([]openai.ChatCompletionMessage, string, error) {
	for range script.MaxIterations {
		sent := msgs
		if w != nil {
			sent = w.view(msgs)
		}
		resp, err := h.model.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: sent, Tools: h.defs})
		if err != nil {
			return msgs, "", err
		}
		msg := resp.Choices[0].Message
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			return msgs, msg.Content, nil
		}
		for _, tc := range msg.ToolCalls {
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
				return msgs, "", fmt.Errorf("handwritten: arguments of %s: %w", tc.Function.Name, err)
			}
			var result string
			if f, ok := funcs[tc.Function.Name]; ok {
				result = f(ctx, args)
			} else {
				result = "错误：未知工具 " + tc.Function.Name
			}
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: result})
		}
	}
	return msgs, "", errLimit
}

// Agent returns a run of one user message through the hand-written loop on s's tools, whose
// model is [NewModel](s, url).
func Agent(s *script.Script, url string) func(ctx context.Context, input string) (string, error) {
	h := newLoop(s, url)
	return func(ctx context.Context, input string) (string, error) {
		msgs := []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: script.Instructions},
			{Role: openai.ChatMessageRoleUser, Content: input},
		}
		_, out, err := h.turn(ctx, msgs, nil)
		return out, err
	}
}

// Conversation returns a function running the whole conversation of c, turn after turn, on
// fresh state, with one slice kept across turns. Every request sends all of it, or, when
// windowed, the system prompt, the first user message and the latest script.WindowTurns
// turns. The model is [NewModel](c.Script, url).
func Conversation(c *script.Conversation, url string, windowed bool) func(ctx context.Context) error {
	h := newLoop(c.Script, url)
	return func(ctx context.Context) error {
		msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: script.Instructions}}
		var w *window
		if windowed {
			w = &window{}
		}
		for _, in := range c.Inputs {
			if w != nil {
				w.turns = append(w.turns, len(msgs))
			}
			var err error
			msgs, _, err = h.turn(ctx, append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in}), w)
			if err != nil {
				return err
			}
		}
		return nil
	}
}
