package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/bench/internal/script"
)

// handFuncs are the seed article's TOOL_MAP: names to functions on decoded arguments.
var handFuncs = map[string]func(ctx context.Context, args map[string]any) string{
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

// handLoop is the seed article's run_agent on go-openai types: json.Unmarshal into a map, a map
// of functions, calls one after the other, no validation, no repair. An unknown tool is
// answered "错误：未知工具 name"; arguments that are not JSON end the run (json.loads raises in
// the article).
type handLoop struct {
	model *openaiModel
	defs  []openai.Tool
}

func newHandLoop(s *script.Script) *handLoop {
	h := &handLoop{model: newOpenAIModel(s)}
	for _, t := range toolcallTools(s.Tools) {
		h.defs = append(h.defs, agentkit.Definition(t)) // the same JSON Schemas, built once
	}
	return h
}

var errHandLimit = errors.New("handwritten: 已达到最大迭代次数")

// handWindow is the hand-written window: the system prompt, the first user message and the
// latest WindowTurns turns, built into one reused buffer.
type handWindow struct {
	turns []int // where each turn begins in the history
	buf   []openai.ChatCompletionMessage
}

func (w *handWindow) view(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if len(w.turns) <= WindowTurns {
		return msgs
	}
	w.buf = append(append(w.buf[:0], msgs[:w.turns[0]+1]...), msgs[w.turns[len(w.turns)-WindowTurns]:]...)
	return w.buf
}

// turn runs one user message on msgs (which already ends with it) and returns the history.
// With w, each request sends w's window of msgs instead of all of them.
func (h *handLoop) turn(ctx context.Context, msgs []openai.ChatCompletionMessage, w *handWindow) ([]openai.ChatCompletionMessage, string, error) {
	for range MaxIterations {
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
			if f, ok := handFuncs[tc.Function.Name]; ok {
				result = f(ctx, args)
			} else {
				result = "错误：未知工具 " + tc.Function.Name
			}
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: result})
		}
	}
	return msgs, "", errHandLimit
}

// HandWritten is the floor: the seed-style loop written by hand.
func HandWritten() Framework {
	return Framework{
		Name: "handwritten",
		Agent: func(s *script.Script) Run {
			h := newHandLoop(s)
			return func(ctx context.Context, input string) (string, error) {
				msgs := []openai.ChatCompletionMessage{
					{Role: openai.ChatMessageRoleSystem, Content: script.Instructions},
					{Role: openai.ChatMessageRoleUser, Content: input},
				}
				_, out, err := h.turn(ctx, msgs, nil)
				return out, err
			}
		},
		Conversations: []Conversation{{
			Name: "messages",
			Note: "one []openai.ChatCompletionMessage kept across turns: everything is sent (no memory)",
			New: func(c *script.Conversation) func(ctx context.Context) error {
				h := newHandLoop(c.Script)
				return func(ctx context.Context) error {
					msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: script.Instructions}}
					for _, in := range c.Inputs {
						var err error
						msgs, _, err = h.turn(ctx, append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in}), nil)
						if err != nil {
							return err
						}
					}
					return nil
				}
			},
		}, {
			Name:     "window",
			Note:     fmt.Sprintf("one slice kept across turns; each request sends the system prompt, the first user message and the latest %d turns, built into one reused buffer (no store, no checks)", WindowTurns),
			Windowed: true,
			New: func(c *script.Conversation) func(ctx context.Context) error {
				h := newHandLoop(c.Script)
				return func(ctx context.Context) error {
					msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: script.Instructions}}
					w := &handWindow{}
					for _, in := range c.Inputs {
						w.turns = append(w.turns, len(msgs))
						var err error
						msgs, _, err = h.turn(ctx, append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in}), w)
						if err != nil {
							return err
						}
					}
					return nil
				}
			},
		}},
	}
}
