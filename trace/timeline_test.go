package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// TestTimelineWithoutDurations: a Result whose durations are all zero (one rebuilt from a
// store, a frozen clock) has its bars drawn in order, one slot each, as a session's are, not
// all on top of each other at 0 under five ticks saying "0s"; a Result with no steps draws
// no axis.
func TestTimelineWithoutDurations(t *testing.T) {
	step := func(i int, names ...string) agentkit.Step {
		s := agentkit.Step{Iteration: i, Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "x"}}
		for _, n := range names {
			s.Calls = append(s.Calls, agentkit.CallRecord{Call: tool.Call{ID: n, Name: n}, Result: tool.Result{Content: "ok"}})
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		res   *agentkit.Result
		bars  []string // each bar's href and x
		ticks int      // the axis's labels
		note  bool
	}{
		{"zero steps", &agentkit.Result{}, nil, 0, false},
		{"zero durations", &agentkit.Result{Steps: []agentkit.Step{step(1, "a", "b"), step(2, "c"), step(3)}},
			[]string{"#t1 70.0", "#t1c1 250.0", "#t1c2 250.0", "#t2 430.0", "#t2c1 610.0", "#t3 790.0"}, 0, true},
		{"timed", &agentkit.Result{Steps: []agentkit.Step{{Iteration: 1, Duration: 3, Message: openai.ChatCompletionMessage{Content: "x"}}}},
			[]string{"#t1 70.0"}, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := Write(&b, tc.res, nil); err != nil {
				t.Fatal(err)
			}
			doc := parse(t, b.String())
			var got []string
			for _, a := range doc.all(tagged("a")) {
				got = append(got, a.attr["href"]+" "+a.all(tagged("rect"))[0].attr["x"])
			}
			if diff := cmp.Diff(tc.bars, got); diff != "" {
				t.Errorf("the bars (-want +got):\n%s", diff)
			}
			if got := len(doc.all(classed("text", "tick"))); got != tc.ticks {
				t.Errorf("%d labels on the axis, want %d", got, tc.ticks)
			}
			if got := strings.Contains(doc.textContent(), "Every duration is zero"); got != tc.note {
				t.Errorf("the page says the durations are all zero: %v, want %v", got, tc.note)
			}
		})
	}
}
