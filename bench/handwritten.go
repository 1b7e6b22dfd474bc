package bench

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/handwritten"
)

// HandWritten is the floor: the seed-style loop written by hand (package handwritten).
func HandWritten() Framework {
	return Framework{
		Name:  "handwritten",
		Agent: func(s *script.Script, url string) Run { return handwritten.Agent(s, url) },
		Conversations: []Conversation{{
			Name: "messages",
			Note: "one []openai.ChatCompletionMessage kept across turns: everything is sent (no memory)",
			New: func(c *script.Conversation, url string) func(ctx context.Context) error {
				return handwritten.Conversation(c, url, false)
			},
		}, {
			Name:     "window",
			Note:     fmt.Sprintf("one slice kept across turns; each request sends the system prompt, the first user message and the latest %d turns, built into one reused buffer (no store, no checks)", script.WindowTurns),
			Windowed: true,
			New: func(c *script.Conversation, url string) func(ctx context.Context) error {
				return handwritten.Conversation(c, url, true)
			},
		}},
	}
}
