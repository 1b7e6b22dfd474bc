package trace

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// TestRecorderCloseEndsAnUnfinishedRun: a run whose other listener panics is ended by the
// panic, with no EventRunEnd: Close ends its page, which is then whole and says so, with the
// calls recorded before. After a run that ended, Close writes nothing.
func TestRecorderCloseEndsAnUnfinishedRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	echo := tool.New("echo", "echoes", func(context.Context, struct{}) (string, error) { return "x", nil })
	run := func(onEvent agentkit.OnEvent) {
		model := agentkittest.New(nil, agentkittest.ToolCalls(agentkittest.Call("echo", `{}`)), agentkittest.Text("done"))
		a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{echo}, OnEvent: onEvent})
		defer func() { _ = recover() }()
		a.Run(context.Background(), "go")
	}
	for _, tc := range []struct {
		name        string
		run, panics bool
		wantBars    int
	}{
		{"a run that panicked", true, true, 2},
		{"a run that ended", true, false, 3},
		{"no run", false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			rec := NewRecorder(&out, nil)
			ended := tc.run && !tc.panics
			if tc.run {
				run(func(ctx context.Context, e agentkit.Event) {
					rec.OnEvent(ctx, e)
					if tc.panics && e.Kind == agentkit.EventToolEnd {
						panic("a listener's bug")
					}
				})
			}
			before := out.String()
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			doc := parse(t, out.String())
			if got := len(doc.all(classed("rect", "bar"))); got != tc.wantBars {
				t.Errorf("%d bars, want %d", got, tc.wantBars)
			}
			if got, want := strings.Contains(doc.textContent(), "the run did not end"), !ended; got != want {
				t.Errorf("the page says the run did not end: %v, want %v", got, want)
			}
			if ended && out.String() != before {
				t.Errorf("Close after the run's end wrote to the page")
			}
			rec.OnEvent(context.Background(), agentkit.Event{Kind: agentkit.EventModelRequest, Iteration: 9})
			if err := rec.Close(); err != nil || !strings.HasSuffix(out.String(), "</html>\n") {
				t.Errorf("an event and a Close after Close: %v, the page no longer ends", err)
			}
		})
	}
}
