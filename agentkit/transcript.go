package agentkit

import (
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// FormatTranscript renders messages for a human: one block per message with its role, tool
// calls with their ids and arguments, and tool results with the id they answer. It is the
// seed article's advice — print the messages and see what the model received — in one call.
// Long contents are shown whole: this is for debugging, not for logs at scale.
func FormatTranscript(msgs []openai.ChatCompletionMessage) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "[%d] %s", i, m.Role)
		if m.Role == openai.ChatMessageRoleTool {
			fmt.Fprintf(&b, " (%s)", m.ToolCallID)
		}
		b.WriteString(":")
		content := m.Content
		if content == "" {
			var parts []string
			for _, p := range m.MultiContent {
				if p.Type == openai.ChatMessagePartTypeText {
					parts = append(parts, p.Text)
				} else {
					parts = append(parts, "<"+string(p.Type)+">")
				}
			}
			content = strings.Join(parts, " ")
		}
		if content != "" {
			b.WriteString(" ")
			b.WriteString(strings.ReplaceAll(content, "\n", "\n    "))
		}
		b.WriteString("\n")
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "    -> %s(%s) [%s]\n", c.Function.Name, c.Function.Arguments, c.ID)
		}
	}
	return b.String()
}
