package trace

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// A priced run shows its cost on every model call and in the run's summary, on the page of
// its Result and on the Recorder's; an unpriced one shows none.
func TestPageShowsCost(t *testing.T) {
	usage := openai.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000, TotalTokens: 1_100_000}
	for _, tc := range []struct {
		name   string
		prices agentkit.Prices
		want   []string // the texts of the page's cost spans, in order
	}{
		{"priced", agentkit.Prices{"m": {Input: 2, Output: 10}}, []string{"cost 3", "cost 3", "cost 6"}},
		{"unpriced", nil, nil},
		{"unknown model", agentkit.Prices{"other": {Input: 2}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := func(r agentkittest.Reply) agentkittest.Reply { r.Usage = usage; return r }
			var b strings.Builder
			rec := NewRecorder(&b, nil)
			model := agentkittest.New(t,
				reply(agentkittest.ToolCalls(agentkittest.Call("nothing", `{}`))),
				reply(agentkittest.Text("done")))
			agent := agentkit.New(model, &agentkit.Options{Model: "m", Prices: tc.prices, OnEvent: rec.OnEvent})
			res, err := agent.Run(context.Background(), "hi")
			if err != nil {
				t.Fatal(err)
			}
			var w strings.Builder
			if err := Write(&w, res, nil); err != nil {
				t.Fatal(err)
			}
			for name, page := range map[string]string{"Write": w.String(), "Recorder": b.String()} {
				var got []string
				for _, n := range parse(t, page).all(classed("span", "cost")) {
					got = append(got, n.textContent())
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: the cost spans (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}
