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

// TestResumedRunRequests: a resumed run's Result holds the paused run's messages from New,
// and its Steps begin with the resumed turn: each step's request is still the transcript up
// to its own reply (it was the transcript up to the paused run's first replies).
func TestResumedRunRequests(t *testing.T) {
	look := tool.New("look", "looks", func(context.Context, struct{}) (string, error) { return "seen", nil })
	pay := tool.New("pay", "pays", func(context.Context, struct{}) (string, error) { return "paid", nil },
		tool.Options{RequireApproval: true})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c0", "look", `{}`)),
		agentkittest.ToolCalls(agentkittest.CallID("c1", "pay", `{}`)),
		agentkittest.Text("done"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{look, pay}, Ledger: memory.NewInMemory()})
	paused, _ := a.Run(context.Background(), "pay")
	if paused.Pause == nil {
		t.Fatalf("the run ended %q, want a pause", paused.Stop)
	}
	res, err := a.Resume(context.Background(), paused.Pause, []agentkit.Decision{{CallID: "c1", Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*agentkit.Result{"paused": paused, "resumed": res} {
		var b strings.Builder
		if err := Write(&b, r, nil); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range parse(t, b.String()).all(classed("details", "request")) {
			s := d.all(tagged("summary"))[0].textContent()
			got = append(got, regexp.MustCompile(`carried \d+`).FindString(s))
		}
		// The transcript: user, assistant c0, tool c0, assistant c1, tool c1, assistant done.
		want := map[string][]string{
			"paused":  {"carried 1", "carried 3"},
			"resumed": {"carried 3", "carried 5"},
		}[name]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the %s run's requests (-want +got):\n%s", name, diff)
		}
	}
}
