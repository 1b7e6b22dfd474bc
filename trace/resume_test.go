package trace

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// pausedAndResumed runs an agent that pauses on its second turn, and resumes it with
// onEvent. The transcript: user, assistant c0, tool c0, assistant c1, tool c1, assistant done.
func pausedAndResumed(t *testing.T, onEvent agentkit.OnEvent) (paused, resumed *agentkit.Result) {
	t.Helper()
	look := tool.New("look", "looks", func(context.Context, struct{}) (string, error) { return "seen", nil })
	pay := tool.New("pay", "pays", func(context.Context, struct{}) (string, error) { return "paid", nil },
		tool.Options{RequireApproval: true})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c0", "look", `{}`)),
		agentkittest.ToolCalls(agentkittest.CallID("c1", "pay", `{}`)),
		agentkittest.Text("done"))
	opts := agentkit.Options{Tools: []*tool.Tool{look, pay}, Ledger: memory.NewInMemory()}
	paused, _ = agentkit.New(model, &opts).Run(context.Background(), "pay")
	if paused.Pause == nil {
		t.Fatalf("the run ended %q, want a pause", paused.Stop)
	}
	opts.OnEvent = onEvent
	resumed, err := agentkit.New(model, &opts).Resume(context.Background(), paused.Pause, []agentkit.Decision{{CallID: "c1", Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	return paused, resumed
}

// TestResumedRunRequests: a resumed run's Result holds the paused run's messages from New,
// and its Steps begin with the resumed turn: each step's request is still the transcript up
// to its own reply (it was the transcript up to the paused run's first replies).
func TestResumedRunRequests(t *testing.T) {
	paused, resumed := pausedAndResumed(t, nil)
	for _, tc := range []struct {
		name string
		res  *agentkit.Result
		want []string
	}{
		{"paused", paused, []string{"carried 1", "carried 3"}},
		{"resumed", resumed, []string{"carried 3", "carried 5"}},
	} {
		var b strings.Builder
		if err := Write(&b, tc.res, nil); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range parse(t, b.String()).all(classed("details", "request")) {
			s := d.all(tagged("summary"))[0].textContent()
			got = append(got, regexp.MustCompile(`carried \d+`).FindString(s))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("the %s run's requests (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestRecorderOfAResumedRun: the resumed turn's calls come with no model call before them;
// the page puts them in their turn's section, which says it was resumed.
func TestRecorderOfAResumedRun(t *testing.T) {
	var out strings.Builder
	rec := NewRecorder(&out, nil)
	pausedAndResumed(t, rec.OnEvent)
	doc := parse(t, out.String())
	var got []string
	for _, s := range doc.all(classed("section", "turn")) {
		line := s.attr["id"] + ":"
		for _, c := range s.all(classed("details", "call")) {
			line += " " + c.attr["id"]
		}
		if strings.Contains(s.textContent(), "resumed") {
			line += " (resumed)"
		}
		got = append(got, line)
	}
	if diff := cmp.Diff([]string{"t2: t2c1 (resumed)", "t3:"}, got); diff != "" {
		t.Errorf("the turns and their calls (-want +got):\n%s", diff)
	}
	if got, want := len(doc.all(classed("details", "call"))), 1; got != want {
		t.Errorf("%d call sections, want %d", got, want)
	}
}
