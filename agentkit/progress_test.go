package agentkit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// TestReportProgress: a running call's progress reaches the run's events, between its start
// and its end, in plain and streamed runs; a report after the call ended, or from a
// goroutine the call left behind, emits nothing.
func TestReportProgress(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			var late context.Context
			slow := tool.New("slow", "Takes a while.", func(ctx context.Context, in struct{}) (string, error) {
				agentkit.ReportProgress(ctx, agentkit.Progress{Done: 1, Total: 2, Message: "half"})
				var wg sync.WaitGroup
				wg.Go(func() { agentkit.ReportProgress(ctx, agentkit.Progress{Done: 2, Total: 2}) }) // another goroutine
				wg.Wait()
				late = ctx
				return "done", nil
			})
			var mu sync.Mutex
			var got []string
			onEvent := func(_ context.Context, e agentkit.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Kind {
				case agentkit.EventToolStart, agentkit.EventToolEnd:
					got = append(got, string(e.Kind)+" "+e.Call.Name)
				case agentkit.EventToolProgress:
					got = append(got, fmt.Sprintf("progress %s %v/%v %q", e.Call.Name, e.Progress.Done, e.Progress.Total, e.Progress.Message))
				}
			}
			model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("slow", `{}`)), agentkittest.Text("ok"))
			agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{slow}, OnEvent: onEvent})
			var err error
			if streamed {
				_, err = agent.RunStream(context.Background(), "go").Result()
			} else {
				_, err = agent.Run(context.Background(), "go")
			}
			if err != nil {
				t.Fatal(err)
			}
			agentkit.ReportProgress(late, agentkit.Progress{Done: 3}) // after the call's end
			want := []string{"tool_start slow", `progress slow 1/2 "half"`, `progress slow 2/2 ""`, "tool_end slow"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	agentkit.ReportProgress(context.Background(), agentkit.Progress{Done: 1}) // outside a run: nothing, no panic
}
