package browsertest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
	"github.com/toolcall/toolcall/trace"
)

// TestSearchShowsWhereItFound: a word past the cut of a long result is shown by the
// search (the result's full text opened), one in the shown head opens no full text, and
// text with regular expression characters is searched as written.
func TestSearchShowsWhereItFound(t *testing.T) {
	pad := strings.Repeat("填充 ", 50)
	res := &agentkit.Result{
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "go"}},
		Steps: []agentkit.Step{{Iteration: 1, Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant,
			ToolCalls: []openai.ToolCall{{ID: "a", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}, {ID: "b", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}},
			Calls: []agentkit.CallRecord{
				{Call: tool.Call{ID: "a", Name: "f", Arguments: "{}"}, Result: tool.Result{Content: pad + "藏在后面的词"}},
				{Call: tool.Call{ID: "b", Name: "f", Arguments: "{}"}, Result: tool.Result{Content: "前面 (a+b)*[c] " + pad}},
			}}},
	}
	var b bytes.Buffer
	if err := trace.Write(&b, res, &trace.Options{Excerpt: 100}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	load(t, ctx, b.Bytes())
	for _, tc := range []struct {
		query string
		want  []string // the calls shown, and whether their full text is open
	}{
		{"藏在后面", []string{"a full text open"}},
		{"(a+b)*[c]", []string{"b full text closed"}},
	} {
		eval[bool](t, ctx, `(q => { q.value = ""; document.querySelectorAll("details").forEach(d => d.open = false); return q.dispatchEvent(new Event("input")) })(document.getElementById("q"))`)
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#q"))); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: tc.query}); err != nil {
			t.Fatal(err)
		}
		got := eval[[]string](t, ctx, `[...document.querySelectorAll("details.call")].filter(d => d.checkVisibility()).map(d =>
			d.querySelector(".id").textContent + " full text " + (d.querySelector("details.full").open ? "open" : "closed"))`)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("searching %q: %v, want %v", tc.query, got, tc.want)
		}
	}
}
