package browsertest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
	"github.com/toolcall/toolcall/trace"
)

// TestLongUnbrokenTextsStayInThePage: a text with no space to break it at — a long tool
// name or call id, base64 in an error, a URL, the title — wraps inside the page, which does
// not scroll sideways (only the timeline may, inside its own box).
func TestLongUnbrokenTextsStayInThePage(t *testing.T) {
	long := strings.Repeat("长", 20) + strings.Repeat("A", 400)
	res := &agentkit.Result{
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: long, Name: long}},
		Steps: []agentkit.Step{{Iteration: 1, FinishReason: openai.FinishReason(long),
			Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Refusal: long,
				ToolCalls: []openai.ToolCall{{ID: long, Function: openai.FunctionCall{Name: long, Arguments: long}}}},
			Calls: []agentkit.CallRecord{{Call: tool.Call{ID: long, Name: long, Arguments: long},
				Result: tool.Result{Content: long, Kind: tool.Kind(long), Repair: long, Err: errors.New(long)}}}}},
		Stop:   agentkit.StopReason(long),
		Output: long,
		Pause:  &agentkit.Pause{Pending: []agentkit.PendingCall{{ID: long, Name: long, Arguments: []byte(`"` + long + `"`)}}},
	}
	var b bytes.Buffer
	if err := trace.Write(&b, res, &trace.Options{Title: long, Err: errors.New(long)}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	load(t, ctx, b.Bytes())
	eval[bool](t, ctx, `(() => { document.querySelectorAll("details").forEach(d => d.open = true); return true })()`)
	type wide struct {
		Page, Window int
		Culprits     []string
	}
	got := eval[wide](t, ctx, `(() => {
		const w = document.documentElement.clientWidth;
		const culprits = [...document.querySelectorAll("body *")].filter(el => !el.closest(".timeline") && el.getBoundingClientRect().right > w + 1)
			.map(el => el.tagName.toLowerCase() + "." + [...el.classList].join("."));
		return {Page: document.documentElement.scrollWidth, Window: w, Culprits: culprits};
	})()`)
	if got.Page > got.Window || len(got.Culprits) > 0 {
		t.Errorf("the page is %dpx wide in a window of %dpx; past its right edge: %v", got.Page, got.Window, got.Culprits)
	}
}
