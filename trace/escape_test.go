package trace

import (
	"strings"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// TestInjectedMarkupStaysText puts markup everywhere a run's strings reach the page — a tool
// result, arguments, a tool name and id, a message, an error, the title — and checks that the
// page has no element, attribute or script it did not write itself.
func TestInjectedMarkupStaysText(t *testing.T) {
	evil := injected + `"'><svg onload=alert(1)>&amp;`
	res := &agentkit.Result{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: evil},
			{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: evil, Function: openai.FunctionCall{Name: evil, Arguments: evil}}}},
			{Role: openai.ChatMessageRoleTool, ToolCallID: evil, Content: evil},
		},
		Steps: []agentkit.Step{{Iteration: 1, Message: openai.ChatCompletionMessage{Role: evil, Content: evil, ReasoningContent: evil,
			ToolCalls: []openai.ToolCall{{ID: evil, Function: openai.FunctionCall{Name: evil, Arguments: evil}}}},
			FinishReason: openai.FinishReason(evil),
			Calls: []agentkit.CallRecord{{Call: tool.Call{ID: evil, Name: evil, Arguments: evil},
				Result: tool.Result{Content: evil, Kind: tool.Kind(evil), Repair: evil, Original: evil, Err: errString(evil)}}}}},
		Stop:   agentkit.StopReason(evil),
		Output: evil,
		Pause: &agentkit.Pause{Pending: []agentkit.PendingCall{{ID: evil, Name: evil, Kind: agentkit.PendingKind(evil),
			Arguments: []byte(`"` + strings.ReplaceAll(evil, `"`, `\"`) + `"`)}}},
	}
	var b strings.Builder
	if err := Write(&b, res, &Options{Title: evil, Err: errString(evil)}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	doc := parse(t, page)
	for _, n := range doc.all(func(*node) bool { return true }) {
		switch n.tag {
		case "img", "svg", "script":
			if n.tag == "svg" && n.hasClass("chart") || n.tag == "script" && n.attr["type"] == "" && len(n.children) == 0 && strings.Contains(n.textContent(), "use strict") {
				continue
			}
			t.Errorf("injected markup became a <%s> element", n.tag)
		}
		for k := range n.attr {
			if strings.HasPrefix(k, "on") {
				t.Errorf("injected markup became an attribute %s on <%s>", k, n.tag)
			}
		}
	}
	if got := strings.Count(page, "</script>"); got != 1 {
		t.Errorf("the page has %d </script>, want the one of its own script", got)
	}
	// Shown as text, as it was.
	var shown int
	for _, p := range doc.all(classed("pre", "text")) {
		if p.textContent() == evil {
			shown++
		}
	}
	if shown < 5 {
		t.Errorf("the injected text is shown verbatim %d times, want it in every message, argument and result", shown)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestInvalidUTF8 puts bytes that are not UTF-8 (a tool's binary output, a stream cut in the
// middle of a character) everywhere a run's strings reach the page: the page is still UTF-8,
// each shown as U+FFFD, as a browser would show it.
func TestInvalidUTF8(t *testing.T) {
	bad := "北京\xe5\x8c" + "\xff\xfe</p>"
	res := &agentkit.Result{
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: bad}},
		Steps: []agentkit.Step{{Iteration: 1, Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: bad},
			Calls: []agentkit.CallRecord{{Call: tool.Call{ID: bad, Name: bad, Arguments: bad},
				Result: tool.Result{Content: bad, Kind: tool.Kind(bad), Err: errString(bad)}}}}},
		Output: bad,
	}
	var b strings.Builder
	if err := Write(&b, res, &Options{Title: bad, Err: errString(bad)}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !utf8.ValidString(page) {
		t.Fatalf("the page is not UTF-8")
	}
	doc := parse(t, page)
	if got := strings.Count(doc.textContent(), "北京\uFFFD&lt;/p>"); got != 0 {
		t.Errorf("a text was escaped twice")
	}
	if got := strings.Count(doc.textContent(), "北京\uFFFD</p>"); got < 8 {
		t.Errorf("the text is shown %d times with U+FFFD for its invalid bytes, want it everywhere", got)
	}
}
