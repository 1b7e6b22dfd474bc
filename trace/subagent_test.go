package trace

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// TestRecorderSharedWithSubAgent: a parent agent and its sub-agent (Agent.Tool) given the
// same OnEvent. The page is the parent's run, whole: the sub-agent's EventRunEnd does not end
// it, its model calls are not the parent's, and the ids of the page stay unique. A
// sub-agent's own Recorder records the sub-agent's run.
func TestRecorderSharedWithSubAgent(t *testing.T) {
	defer goleak.VerifyNone(t)
	var page, subPage strings.Builder
	rec := NewRecorder(&page, nil)
	subRec := NewRecorder(&subPage, nil)
	both := func(ctx context.Context, e agentkit.Event) {
		rec.OnEvent(ctx, e)
		subRec.OnEvent(ctx, e)
	}
	sub := agentkit.New(agentkittest.New(t, agentkittest.Text("sub answer")), &agentkit.Options{OnEvent: both})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("call_0", "helper", `{"input":"x"}`)),
		agentkittest.Text("top answer"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{sub.Tool("helper", "helps")}, OnEvent: rec.OnEvent})
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// subRec saw the sub-agent's events only (the parent's OnEvent is rec alone).
	for _, tc := range []struct {
		name, page string
		want       []string // the turns' ids, the bars' links, the answer
	}{
		{"parent", page.String(), []string{"t1", "t2", "#t1", "#t1c1", "#t2", "top answer"}},
		{"sub-agent", subPage.String(), []string{"t1", "#t1", "sub answer"}},
	} {
		doc := parse(t, tc.page)
		var got []string
		for _, s := range doc.all(classed("section", "turn")) {
			got = append(got, s.attr["id"])
		}
		for _, a := range doc.all(tagged("a")) {
			got = append(got, a.attr["href"])
		}
		for _, s := range doc.all(classed("section", "summary")) {
			got = append(got, s.all(classed("pre", "text"))[0].textContent())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("the %s's page: turns, bars, answer (-want +got):\n%s", tc.name, diff)
		}
	}
}
