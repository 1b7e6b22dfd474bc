package temporal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// recordEnv, set to 1, makes the server tests write the histories they replay to testdata/,
// which TestReplayRecordedHistories replays without a server.
const recordEnv = "TOOLCALL_TEMPORAL_RECORD"

// approvalModel: the first turn calls weather twice, send (needs approval) and big (a large
// result, kept by reference); the second answers.
var approvalModel = agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
		for i, c := range [][2]string{{"weather", `{"city":"北京"}`}, {"weather", `{"city":"上海"}`}, {"send", `{"city":"x"}`}, {"big", `{}`}} {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: "call_" + string(rune('a'+i)), Type: "function", Function: openai.FunctionCall{Name: c[0], Arguments: c[1]}})
		}
	} else {
		msg.Content = "sent"
	}
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}, Usage: openai.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}, nil
})

func approvalAgent(blobs BlobStore, agentOpts agentkit.Options) *Agent {
	city := func(name string, opts tool.Options) *tool.Tool {
		return tool.New(name, "test", func(ctx context.Context, in cityIn) (string, error) { return name + ":" + in.City, nil }, opts)
	}
	agentOpts.Instructions = "sys"
	agentOpts.Tools = []*tool.Tool{
		city("weather", tool.Options{Annotations: tool.Annotations{ReadOnly: true}}),
		city("send", tool.Options{RequireApproval: true}),
		tool.New("big", "test", func(context.Context, struct{}) (string, error) { return strings.Repeat("本", 200), nil }),
	}
	return New(agentkit.New(approvalModel, &agentOpts), &Options{Blobs: blobs, BlobThreshold: 100})
}

// replayers returns the workflow of each recorded history, as its test configured it.
var replayers = map[string]func() *Agent{
	"approval.json": func() *Agent { return approvalAgent(nil, agentkit.Options{}) },
	"kill.json":     func() *Agent { return killAgent(os.DevNull, false) },
}

func replayer(a *Agent) worker.WorkflowReplayer {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(a.Workflow, workflow.RegisterOptions{Name: WorkflowName})
	return r
}

// TestReplayRecordedHistories replays the histories recorded from runs on the dev server: a
// change to the workflow that would make running workflows nondeterministic fails here.
func TestReplayRecordedHistories(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) != len(replayers) {
		t.Fatalf("testdata holds %d histories, want %d", len(files), len(replayers))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			mk := replayers[filepath.Base(f)]
			if mk == nil {
				t.Fatalf("no workflow configuration for %s", f)
			}
			if err := replayer(mk()).ReplayWorkflowHistoryFromJSONFile(quietLogger(), f); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReplayDetectsChange: the same history replayed by a workflow that decides otherwise
// (one tool call per reply runs) is refused as nondeterministic.
func TestReplayDetectsChange(t *testing.T) {
	a := approvalAgent(nil, agentkit.Options{MaxToolCalls: 1})
	err := replayer(a).ReplayWorkflowHistoryFromJSONFile(quietLogger(), "testdata/approval.json")
	// TMPRL1100 is the SDK's code of a nondeterminism error.
	if err == nil || !strings.Contains(err.Error(), "TMPRL1100") && !strings.Contains(strings.ToLower(err.Error()), "nondetermin") {
		t.Errorf("replay of a changed workflow: %v, want a nondeterminism error", err)
	}
}

// checkHistory replays the history of a finished run with a's workflow, and writes it to
// testdata/name when recordEnv is set.
func checkHistory(t *testing.T, c client.Client, a *Agent, id, runID, name string) {
	t.Helper()
	h := &historypb.History{}
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	if err := replayer(a).ReplayWorkflowHistory(quietLogger(), h); err != nil {
		t.Errorf("replay: %v", err)
	}
	if os.Getenv(recordEnv) != "1" {
		return
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServerApproval: a run waits for an approval on the real server; Pending lists the call,
// Decide refuses a wrong decision and delivers a right one, and the run finishes.
func TestServerApproval(t *testing.T) {
	c := needServer(t)
	blobs := DirBlobs(t.TempDir())
	a := approvalAgent(blobs, agentkit.Options{})
	queue := "approval-" + t.Name()
	ctx, run := serve(t, c, a, queue, "approval-test", NewInput("send it"))
	var pending []agentkit.PendingCall
	var err error
	waitFor(t, 30*time.Second, "a pending call", func() bool {
		pending, err = Pending(ctx, c, run.GetID(), "")
		return err == nil && len(pending) > 0
	})
	if got, want := pending, []agentkit.PendingCall{{ID: "call_c", Name: "send", Arguments: []byte(`{"city":"x"}`), Kind: agentkit.PendingApproval}}; !cmp.Equal(got, want) {
		t.Errorf("pending = %+v, want %+v", got, want)
	}
	if err := Decide(ctx, c, run.GetID(), "", []agentkit.Decision{{CallID: "nope", Approve: true}}); err == nil || !strings.Contains(err.Error(), `no pending call has id "nope"`) {
		t.Errorf("a decision for no call: %v, want refused", err)
	}
	if err := Decide(ctx, c, run.GetID(), "", []agentkit.Decision{{CallID: "call_c", Approve: true}}); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	got := toolContents(res.Messages)
	if len(got) != 4 || got[0] != "weather:北京" || got[1] != "weather:上海" || got[2] != "send:x" || !strings.HasPrefix(got[3], BlobPrefix) {
		t.Errorf("tool results = %q", got)
	}
	if res.Output != "sent" || res.Usage.TotalTokens != 24 || res.Iterations != 2 {
		t.Errorf("Output, tokens, iterations = %q, %d, %d", res.Output, res.Usage.TotalTokens, res.Iterations)
	}
	if p, err := Pending(ctx, c, run.GetID(), ""); err != nil || len(p) != 0 {
		t.Errorf("pending after the run: %v, %v", p, err)
	}
	checkHistory(t, c, a, run.GetID(), run.GetRunID(), "approval.json")
}
