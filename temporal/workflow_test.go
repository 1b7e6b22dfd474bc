package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"log/slog"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

type cityIn struct {
	City string `json:"city"`
}

// counted returns a tool named name that counts its runs in n and answers "<name>:<city>".
func counted(name string, n *atomic.Int32, opts ...tool.Options) *tool.Tool {
	return tool.New(name, "test tool", func(ctx context.Context, in cityIn) (string, error) {
		n.Add(1)
		return name + ":" + in.City, nil
	}, opts...)
}

func quietLogger() tlog.Logger { return tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

func run(t *testing.T, a *Agent, in Input, setup func(env *testsuite.TestWorkflowEnvironment)) (*Result, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	a.Register(env)
	if setup != nil {
		setup(env)
	}
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		return nil, env
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return &res, env
}

// complete is run for a workflow that must complete with a Result.
func complete(t *testing.T, a *Agent, in Input, setup func(env *testsuite.TestWorkflowEnvironment)) *Result {
	t.Helper()
	res, env := run(t, a, in, setup)
	if res == nil {
		t.Fatalf("the workflow failed: %v", env.GetWorkflowError())
	}
	return res
}

// toolContents returns the contents of the tool messages of msgs.
func toolContents(msgs []openai.ChatCompletionMessage) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestWorkflowRunsTools(t *testing.T) {
	var n atomic.Int32
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "weather", `{"city":"北京"}`), agentkittest.CallID("c2", "weather", `{"city":"上海"}`), agentkittest.CallID("c3", "nope", `{}`)),
		agentkittest.Text("北京晴，上海雨"))
	a := New(agentkit.New(model, &agentkit.Options{Model: "m", Instructions: "be brief", Tools: []*tool.Tool{counted("weather", &n)}}), nil)
	res := complete(t, a, NewInput("天气？"), nil)
	if got, want := res.Output, "北京晴，上海雨"; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
	if res.Stop != agentkit.StopAnswered || res.Error != "" || res.Iterations != 2 {
		t.Errorf("Stop, Error, Iterations = %q, %q, %d; want answered, \"\", 2", res.Stop, res.Error, res.Iterations)
	}
	got := toolContents(res.Messages)
	if len(got) != 3 || got[0] != "weather:北京" || got[1] != "weather:上海" || !strings.Contains(got[2], `no tool named "nope"`) {
		t.Errorf("tool results = %q", got)
	}
	if n.Load() != 2 {
		t.Errorf("weather ran %d times, want 2", n.Load())
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("transcript: %v", err)
	}
	// The model read what the workflow holds: the second request is the transcript before the answer.
	reqs := model.Requests()
	if diff := cmp.Diff(res.Messages[:len(res.Messages)-1], reqs[1].Messages); diff != "" {
		t.Errorf("second request vs. transcript (-got +want):\n%s", diff)
	}
	if res.Messages[0].Role != openai.ChatMessageRoleSystem || res.New != 2 {
		t.Errorf("transcript starts %q, New %d; want system, 2", res.Messages[0].Role, res.New)
	}
}

// TestWorkflowRetriesByNature: a call whose activity timed out is attempted again when its
// tool is idempotent, and reported as not known to have completed, never run again, when not.
func TestWorkflowRetriesByNature(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ann          tool.Annotations
		lost         int32 // the attempts whose worker is lost
		wantAttempts int32
		wantResult   string
	}{
		{"read-only", tool.Annotations{ReadOnly: true}, 1, 2, "ran"},
		{"idempotent", tool.Annotations{Idempotent: true}, 1, 2, "ran"},
		{"idempotent, lost every time", tool.Annotations{Idempotent: true}, 3, 3, "did not complete"},
		{"neither", tool.Annotations{}, 1, 1, UnknownOutcome},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "op", `{"city":"x"}`)), agentkittest.Text("done"))
			a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{counted("op", &n, tool.Options{Annotations: tc.ann})}}), nil)
			var attempts atomic.Int32
			res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(toolActivity, mock.Anything, mock.Anything).Return(func(ctx context.Context, in toolIn) (callOut, error) {
					if attempts.Add(1) <= tc.lost {
						return callOut{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
					}
					return callOut{Content: "ran"}, nil
				})
			})
			if got := attempts.Load(); got != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tc.wantAttempts)
			}
			if got := toolContents(res.Messages); len(got) != 1 || !strings.Contains(got[0], tc.wantResult) {
				t.Errorf("tool results = %q, want [%q]", got, tc.wantResult)
			}
		})
	}
}

// TestWorkflowModelRetries: a 5xx is retried, a 400 is not.
func TestWorkflowModelRetries(t *testing.T) {
	for _, tc := range []struct {
		code      int
		wantCalls int
		wantStop  agentkit.StopReason
	}{
		{500, 2, agentkit.StopAnswered},
		{429, 2, agentkit.StopAnswered},
		{400, 1, agentkit.StopModelError},
	} {
		var calls atomic.Int32
		model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			if calls.Add(1) == 1 {
				return openai.ChatCompletionResponse{}, &openai.APIError{HTTPStatusCode: tc.code, Message: "boom"}
			}
			return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: "hi"}}}}, nil
		})
		res := complete(t, New(agentkit.New(model, nil), nil), NewInput("x"), nil)
		if got := int(calls.Load()); got != tc.wantCalls || res.Stop != tc.wantStop {
			t.Errorf("status %d: model calls, stop = %d, %q; want %d, %q", tc.code, got, res.Stop, tc.wantCalls, tc.wantStop)
		}
	}
}

func TestWorkflowApprovalByUpdate(t *testing.T) {
	var sent, looked atomic.Int32
	model := agentkittest.New(t,
		agentkittest.ToolCalls(
			agentkittest.CallID("c1", "send", `{"city":"a"}`),
			agentkittest.CallID("c2", "send", `{"city":"b"}`),
			agentkittest.CallID("c3", "lookup", `{"city":"c"}`),
			agentkittest.CallID("c4", "client_side", `{"city":"d"}`)),
		agentkittest.Text("ok"))
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{
		counted("send", &sent, tool.Options{RequireApproval: true}),
		counted("lookup", &looked),
		tool.Deferred[cityIn]("client_side", "runs in the client"),
	}}), nil)
	var pending []agentkit.PendingCall
	var rejected, accepted error
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(QueryPending)
			if err == nil {
				err = v.Get(&pending)
			}
			if err != nil {
				t.Error(err)
			}
			// A decision set that leaves a call undecided is refused, and changes nothing.
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { rejected = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c1", Approve: true}})
			env.UpdateWorkflow(UpdateDecide, "u2", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { accepted = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{
				{CallID: "c1", Approve: true, Arguments: []byte(`{"city":"A"}`)},
				{CallID: "c2", Approve: false, Message: "not b"},
				{CallID: "c4", Approve: true, Result: "client says hi"},
			})
		}, time.Hour)
	})
	wantPending := []string{"c1 send approval", "c2 send approval", "c4 client_side deferred"}
	var gotPending []string
	for _, p := range pending {
		gotPending = append(gotPending, p.ID+" "+p.Name+" "+string(p.Kind))
	}
	if diff := cmp.Diff(wantPending, gotPending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if rejected == nil || !strings.Contains(rejected.Error(), "no decision for call") {
		t.Errorf("incomplete decisions: rejection %v, want one naming the undecided call", rejected)
	}
	if accepted != nil {
		t.Errorf("complete decisions rejected: %v", accepted)
	}
	got := toolContents(res.Messages)
	if len(got) != 4 || !strings.HasSuffix(got[0], "send:A") || !strings.Contains(got[0], "edited") ||
		!strings.Contains(got[1], "declined") || !strings.Contains(got[1], "not b") || got[2] != "lookup:c" || got[3] != "client says hi" {
		t.Errorf("tool results = %q", got)
	}
	if sent.Load() != 1 || looked.Load() != 1 {
		t.Errorf("send ran %d, lookup %d times; want 1, 1", sent.Load(), looked.Load())
	}
	if res.Stop != agentkit.StopAnswered {
		t.Errorf("Stop = %q", res.Stop)
	}
}

// TestWorkflowCancel: a run canceled while a tool runs completes with StopCanceled and a valid
// transcript. (The test environment does not cancel an activity's context: that the
// cancellation reaches the tool is TestServerCancelReachesTool's, on the real server.)
func TestWorkflowCancel(t *testing.T) {
	started, release, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer func() { close(release); <-ended }()
	block := tool.New("block", "blocks", func(ctx context.Context, in cityIn) (string, error) {
		defer close(ended)
		close(started)
		select {
		case <-ctx.Done():
		case <-release:
		}
		return "", ctx.Err()
	})
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "block", `{"city":"x"}`)))
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{block}}), &Options{HeartbeatTimeout: time.Second})
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		// The callback runs on the environment's loop, which the activity needs too: it
		// must not block, so it looks again later until the tool has started.
		var cancelOnceStarted func()
		cancelOnceStarted = func() {
			select {
			case <-started:
				env.CancelWorkflow()
			default:
				env.RegisterDelayedCallback(cancelOnceStarted, time.Millisecond)
			}
		}
		env.RegisterDelayedCallback(cancelOnceStarted, time.Millisecond)
	})
	if res.Stop != agentkit.StopCanceled {
		t.Errorf("Stop = %q, want canceled", res.Stop)
	}
	if got := toolContents(res.Messages); len(got) != 1 || !strings.Contains(got[0], "canceled") {
		t.Errorf("tool results = %q", got)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Error(err)
	}
}

// TestWorkflowContinuesAsNew: past Options.ContinueAfter model calls the run continues as new,
// carrying the transcript, and the continued run finishes it.
func TestWorkflowContinuesAsNew(t *testing.T) {
	var n atomic.Int32
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "w", `{"city":"a"}`)),
		agentkittest.ToolCalls(agentkittest.CallID("c2", "w", `{"city":"b"}`)),
		agentkittest.Text("done"))
	a := New(agentkit.New(model, &agentkit.Options{Instructions: "sys", Tools: []*tool.Tool{counted("w", &n)}}), &Options{ContinueAfter: 1})
	in := NewInput("go")
	var res *Result
	for hop := 0; res == nil; hop++ {
		if hop == 4 {
			t.Fatal("the run did not end in 4 hops")
		}
		var env *testsuite.TestWorkflowEnvironment
		res, env = run(t, a, in, nil)
		if res != nil {
			break
		}
		var can *workflow.ContinueAsNewError
		if !errors.As(env.GetWorkflowError(), &can) {
			t.Fatalf("hop %d: %v, want a continue-as-new", hop, env.GetWorkflowError())
		}
		in = Input{}
		if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
			t.Fatal(err)
		}
		if !in.Continued || in.Iterations != hop+1 {
			t.Fatalf("hop %d: carried Continued %v Iterations %d", hop, in.Continued, in.Iterations)
		}
	}
	if res.Output != "done" || res.Iterations != 3 || res.New != 2 {
		t.Errorf("Output, Iterations, New = %q, %d, %d; want done, 3, 2", res.Output, res.Iterations, res.New)
	}
	if got, want := toolContents(res.Messages), []string{"w:a", "w:b"}; !cmp.Equal(got, want) {
		t.Errorf("tool results = %q, want %q", got, want)
	}
	if got := len(res.Messages); got != 7 { // system, user, call, result, call, result, answer
		t.Errorf("%d messages, want 7", got)
	}
}

// TestWorkflowLargeResultByReference: a result over the threshold is a reference in the
// history and the transcript, and the model reads the content.
func TestWorkflowLargeResultByReference(t *testing.T) {
	big := strings.Repeat("x", 1000)
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "big", `{}`), agentkittest.CallID("c2", "small", `{}`), agentkittest.CallID("c3", "spoof", `{}`)),
		agentkittest.Text("done"))
	mk := func(name, out string) *tool.Tool {
		return tool.New(name, "t", func(context.Context, struct{}) (string, error) { return out, nil })
	}
	blobs := DirBlobs(t.TempDir())
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{mk("big", big), mk("small", "tiny"), mk("spoof", BlobPrefix+"abc")}}),
		&Options{Blobs: blobs, BlobThreshold: 100})
	res := complete(t, a, NewInput("go"), nil)
	got := toolContents(res.Messages)
	if len(got) != 3 || !strings.HasPrefix(got[0], BlobPrefix) || got[1] != "tiny" || !strings.HasPrefix(got[2], BlobPrefix) {
		t.Fatalf("tool results in the transcript = %q", got)
	}
	resolved, err := Resolve(context.Background(), blobs, res.Messages)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{big, "tiny", BlobPrefix + "abc"}
	if diff := cmp.Diff(want, toolContents(resolved)); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, toolContents(model.Requests()[1].Messages)); diff != "" {
		t.Errorf("what the model read (-want +got):\n%s", diff)
	}
}

// TestWorkflowCost: the Result sums the priced model calls and the costs tools report, as
// agentkit.Result.Cost does.
func TestWorkflowCost(t *testing.T) {
	var calls atomic.Int32
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		msg := openai.ChatCompletionMessage{Role: "assistant", Content: "done"}
		if calls.Add(1) == 1 {
			msg = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "paid", Arguments: "{}"}}}}
		}
		return openai.ChatCompletionResponse{Model: "m", Choices: []openai.ChatCompletionChoice{{Message: msg}}, Usage: openai.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}, nil
	})
	paid := tool.New("paid", "a paid API", func(ctx context.Context, _ struct{}) (string, error) {
		agentkit.ReportCost(ctx, agentkit.Cost{Amount: 0.5})
		return "ok", nil
	})
	a := New(agentkit.New(model, &agentkit.Options{Model: "m", Tools: []*tool.Tool{paid}, Prices: agentkit.Prices{"m": {Input: 1e6}}}), nil)
	res := complete(t, a, NewInput("go"), nil)
	if got, want := res.Cost, (agentkit.Cost{Amount: 20.5}); got != want {
		t.Errorf("Cost = %+v, want %+v", got, want)
	}
	if got := res.Usage.TotalTokens; got != 24 {
		t.Errorf("TotalTokens = %d, want 24", got)
	}
}

// New refuses an agent whose options the workflow would leave out, naming them.
func TestNewRefusesRunOnlyOptions(t *testing.T) {
	pass := func(next agentkit.RunFunc) agentkit.RunFunc { return next }
	a := agentkit.New(agentkittest.New(t), &agentkit.Options{Budget: agentkit.Budget{ModelCalls: 3}, RunMiddleware: []agentkit.RunMiddleware{pass}})
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Options.RunMiddleware") || strings.Contains(msg, "Budget") {
			t.Errorf("New panicked with %q, want it to name Options.RunMiddleware, not Budget", msg)
		}
	}()
	New(a, nil)
}

// TestWorkflowTranscriptHoldsAnswer: the Result's transcript ends with the model's answer, as
// agentkit.Result.Messages does, so that a conversation continued on it (the package doc's
// way) shows the model its own answer and stays provider-valid with the next user message.
func TestWorkflowTranscriptHoldsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []agentkittest.Reply
		opts    agentkit.Options
		want    int // messages: system, user, ..., the answer
	}{
		{"answer only", []agentkittest.Reply{agentkittest.Text("hi")}, agentkit.Options{}, 3},
		{"after a call", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("c1", "w", `{"city":"a"}`)), agentkittest.Text("hi")}, agentkit.Options{}, 5},
		{"final tool-free request", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("c1", "w", `{"city":"a"}`)), agentkittest.Text("hi")},
			agentkit.Options{MaxIterations: 1, FinalAnswerOnLimit: true}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			opts := tc.opts
			opts.Instructions, opts.Tools = "sys", []*tool.Tool{counted("w", &n)}
			a := New(agentkit.New(agentkittest.New(t, tc.replies...), &opts), nil)
			res := complete(t, a, NewInput("go"), nil)
			if got := len(res.Messages); got != tc.want {
				t.Fatalf("%d messages, want %d", got, tc.want)
			}
			last := res.Messages[len(res.Messages)-1]
			if got, want := [2]string{last.Role, last.Content}, [2]string{openai.ChatMessageRoleAssistant, "hi"}; got != want {
				t.Errorf("last message = %q, want %q", got, want)
			}
			next := append(res.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "and?"})
			if err := agentkit.ValidateHistory(next); err != nil {
				t.Errorf("transcript plus the next user message: %v", err)
			}
		})
	}
}

// failingBlobs is a BlobStore whose Put fails.
type failingBlobs struct{}

func (failingBlobs) Put(context.Context, []byte) (string, error) {
	return "", errors.New("disk full")
}
func (failingBlobs) Get(context.Context, string) ([]byte, error) { return nil, errors.New("none") }

// TestWorkflowResultNotKept: a call that ran but whose large result the store refused is
// never reported as not run: the model reads that it took effect (a non-idempotent call
// called again would act twice); an idempotent call is attempted again, as its nature allows.
func TestWorkflowResultNotKept(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ann          tool.Annotations
		wantAttempts int32
	}{
		{"not idempotent", tool.Annotations{}, 1},
		{"idempotent", tool.Annotations{Idempotent: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			big := tool.New("send", "t", func(context.Context, struct{}) (string, error) {
				n.Add(1)
				return strings.Repeat("x", 200), nil
			}, tool.Options{Annotations: tc.ann})
			model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "send", `{}`)), agentkittest.Text("done"))
			a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{big}}), &Options{Blobs: failingBlobs{}, BlobThreshold: 100})
			res := complete(t, a, NewInput("go"), nil)
			if got := n.Load(); got != tc.wantAttempts {
				t.Errorf("the tool ran %d times, want %d", got, tc.wantAttempts)
			}
			got := toolContents(res.Messages)
			if len(got) != 1 || !strings.Contains(got[0], "took effect") || !strings.Contains(got[0], "disk full") {
				t.Errorf("tool results = %q, want one saying the call took effect, with the store's error", got)
			}
		})
	}
}

// TestWorkflowTranscriptStaysUnderPayloadLimit: results each under Options.BlobThreshold but
// together past Temporal's 2 MiB payload limit go to Options.Blobs once the transcript is
// large, so that the model activity's input (the whole transcript), the continue-as-new
// Input and the Result stay under the limit, where the server would terminate the run.
func TestWorkflowTranscriptStaysUnderPayloadLimit(t *testing.T) {
	const turns, size = 10, 250 << 10 // each under the default 256 KiB threshold
	var replies []agentkittest.Reply
	for i := range turns {
		replies = append(replies, agentkittest.ToolCalls(agentkittest.CallID(fmt.Sprint("c", i), "page", fmt.Sprintf(`{"n":%d}`, i))))
	}
	model := agentkittest.New(t, append(replies, agentkittest.Text("done"))...)
	page := tool.New("page", "a web page", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat(fmt.Sprint(in.N), size), nil
	})
	blobs := DirBlobs(t.TempDir())
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{page}, MaxIterations: turns + 1}), &Options{Blobs: blobs})
	res := complete(t, a, NewInput("go"), nil)
	b, err := json.Marshal(res.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > payloadLimit {
		t.Errorf("the transcript is %d bytes encoded, over the %d-byte payload limit", len(b), payloadLimit)
	}
	resolved, err := Resolve(context.Background(), blobs, res.Messages)
	if err != nil {
		t.Fatal(err)
	}
	got := toolContents(resolved)
	for i := range turns {
		if i >= len(got) || got[i] != strings.Repeat(fmt.Sprint(i), size) {
			t.Fatalf("result %d is not the tool's (%d results)", i, len(got))
		}
	}
	if len(got) != turns {
		t.Errorf("%d results, want %d", len(got), turns)
	}
}

// TestWorkflowReplyTooLargeForHistory: a model reply that would take the transcript past what
// Temporal's payload limit leaves ends the run as agentkit's Options.MaxReplyBytes does
// (StopModelError, ErrReplyTooLarge), with the transcript kept, rather than run its calls and
// schedule a model activity whose input the server would refuse, terminating the run; an
// answer counts twice, as the Result holds it twice (Output, and the transcript's end).
func TestWorkflowReplyTooLargeForHistory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply agentkittest.Reply
	}{
		{"tool call of 1.7 MiB", agentkittest.ToolCalls(agentkittest.CallID("c1", "w", fmt.Sprintf(`{"city":%q}`, strings.Repeat("x", 1700<<10))))},
		{"answer of 1 MiB", agentkittest.Text(strings.Repeat("x", 1<<20))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			model := agentkittest.New(t, tc.reply, agentkittest.Text("done"))
			a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{counted("w", &n)}}), &Options{Blobs: DirBlobs(t.TempDir())})
			res := complete(t, a, NewInput("go"), nil)
			if res.Stop != agentkit.StopModelError || !strings.Contains(res.Error, agentkit.ErrReplyTooLarge.Error()) {
				t.Errorf("Stop, Error = %q, %q; want %q and ErrReplyTooLarge", res.Stop, res.Error, agentkit.StopModelError)
			}
			if got := len(res.Messages); got != 1 {
				t.Errorf("%d messages, want 1 (the input)", got)
			}
		})
	}
}

// TestWorkflowPendingAfterDecision: once decisions are accepted, QueryPending lists nothing
// (the run no longer waits: a second Decide is refused), while the approved call runs.
func TestWorkflowPendingAfterDecision(t *testing.T) {
	var sent atomic.Int32
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "send", `{"city":"a"}`)), agentkittest.Text("ok"))
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{counted("send", &sent, tool.Options{RequireApproval: true})}}), nil)
	var after []agentkit.PendingCall
	var second error
	complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Errorf("decision refused: %v", err) }, OnAccept: func() {},
				OnComplete: func(any, error) {
					v, err := env.QueryWorkflow(QueryPending)
					if err == nil {
						err = v.Get(&after)
					}
					if err != nil {
						t.Error(err)
					}
					env.UpdateWorkflow(UpdateDecide, "u2", &testsuite.TestUpdateCallback{
						OnReject: func(err error) { second = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
					}, []agentkit.Decision{{CallID: "c1", Approve: true}})
				},
			}, []agentkit.Decision{{CallID: "c1", Approve: true}})
		}, time.Hour)
	})
	if len(after) != 0 {
		t.Errorf("pending once decided = %+v, want none", after)
	}
	if second == nil {
		t.Error("a second decision was accepted")
	}
	if sent.Load() != 1 {
		t.Errorf("send ran %d times, want 1", sent.Load())
	}
}

// TestWorkflowDeferredResultNotAReference: a deferred call's result given with the decision
// may not be a BlobPrefix reference, which the model activity would resolve: to another
// run's blob, or to none, failing every model call after it. Decide refuses it.
func TestWorkflowDeferredResultNotAReference(t *testing.T) {
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "client_side", `{"city":"a"}`)), agentkittest.Text("ok"))
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{tool.Deferred[cityIn]("client_side", "runs in the client")}}),
		&Options{Blobs: DirBlobs(t.TempDir())})
	var refused, accepted error
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { refused = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c1", Approve: true, Result: BlobPrefix + strings.Repeat("0", 64)}})
			env.UpdateWorkflow(UpdateDecide, "u2", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { accepted = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c1", Approve: true, Result: "client says hi"}})
		}, time.Hour)
	})
	if refused == nil || !strings.Contains(refused.Error(), "BlobPrefix") {
		t.Errorf("a reference as a deferred result: %v, want refused naming BlobPrefix", refused)
	}
	if accepted != nil {
		t.Errorf("a plain result refused: %v", accepted)
	}
	if got := toolContents(res.Messages); len(got) != 1 || got[0] != "client says hi" {
		t.Errorf("tool results = %q", got)
	}
}

// TestWorkflowQueryTranscriptBetweenTurns: QueryTranscript returns the transcript as the last
// turn ended — provider-valid — also while a turn's calls run or wait for a decision, when
// the model's calls have no results yet.
func TestWorkflowQueryTranscriptBetweenTurns(t *testing.T) {
	var sent atomic.Int32
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "send", `{"city":"a"}`)), agentkittest.Text("ok"))
	a := New(agentkit.New(model, &agentkit.Options{Instructions: "sys", Tools: []*tool.Tool{counted("send", &sent, tool.Options{RequireApproval: true})}}), nil)
	var mid []openai.ChatCompletionMessage
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(QueryTranscript)
			if err == nil {
				err = v.Get(&mid)
			}
			if err != nil {
				t.Error(err)
			}
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Errorf("decision refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c1", Approve: true}})
		}, time.Hour)
	})
	if err := agentkit.ValidateHistory(mid); err != nil {
		t.Errorf("transcript while waiting for a decision: %v", err)
	}
	if diff := cmp.Diff(res.Messages[:2], mid); diff != "" {
		t.Errorf("transcript while waiting (-want +got):\n%s", diff)
	}
}

// TestWorkflowApprovedSequentialCalls: approved calls of a Sequential tool run one at a time,
// as in agentkit.Resume, not together with the turn's other approved calls.
func TestWorkflowApprovedSequentialCalls(t *testing.T) {
	var inFlight, overlaps, runs atomic.Int32
	commit := tool.New("commit", "one at a time", func(_ context.Context, in cityIn) (string, error) {
		if inFlight.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer inFlight.Add(-1)
		runs.Add(1)
		time.Sleep(50 * time.Millisecond) // long enough for a concurrent call to overlap: never one that does not
		return "committed " + in.City, nil
	}, tool.Options{Sequential: true, RequireApproval: true})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "commit", `{"city":"a"}`), agentkittest.CallID("c2", "commit", `{"city":"b"}`), agentkittest.CallID("c3", "commit", `{"city":"c"}`)),
		agentkittest.Text("ok"))
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{commit}}), nil)
	res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Errorf("decision refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, []agentkit.Decision{{CallID: "c1", Approve: true}, {CallID: "c2", Approve: true}, {CallID: "c3", Approve: true}})
		}, time.Hour)
	})
	if runs.Load() != 3 || overlaps.Load() != 0 {
		t.Errorf("%d runs, %d overlapping; want 3, 0", runs.Load(), overlaps.Load())
	}
	if got, want := toolContents(res.Messages), []string{"committed a", "committed b", "committed c"}; !cmp.Equal(got, want) {
		t.Errorf("tool results = %q, want %q", got, want)
	}
}

// TestWorkflowApprovedRetriesByNature: an approved call is retried by its tool's nature too: an
// idempotent one whose worker was lost runs again, any other is reported as not known to have
// completed.
func TestWorkflowApprovedRetriesByNature(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ann          tool.Annotations
		wantAttempts int32
		wantResult   string
	}{
		{"idempotent", tool.Annotations{Idempotent: true}, 2, "ran"},
		{"neither", tool.Annotations{}, 1, UnknownOutcome},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "op", `{"city":"x"}`)), agentkittest.Text("done"))
			a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{counted("op", &n, tool.Options{Annotations: tc.ann, RequireApproval: true})}}), nil)
			var attempts atomic.Int32
			res := complete(t, a, NewInput("go"), func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(approvedActivity, mock.Anything, mock.Anything).Return(func(ctx context.Context, in approvedIn) (callOut, error) {
					if attempts.Add(1) == 1 {
						return callOut{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
					}
					return callOut{Content: "ran"}, nil
				})
				env.RegisterDelayedCallback(func() {
					env.UpdateWorkflow(UpdateDecide, "u1", &testsuite.TestUpdateCallback{
						OnReject: func(err error) { t.Errorf("decision refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
					}, []agentkit.Decision{{CallID: "c1", Approve: true}})
				}, time.Hour)
			})
			if got := attempts.Load(); got != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tc.wantAttempts)
			}
			if got := toolContents(res.Messages); len(got) != 1 || !strings.Contains(got[0], tc.wantResult) {
				t.Errorf("tool results = %q, want [%q]", got, tc.wantResult)
			}
		})
	}
}

// TestWorkflowResultTooLargeWithoutBlobs: without Options.Blobs, a result past what the
// transcript may take inline is replaced by an error that says the call ran and took effect
// (TestServerResultTooLargeWithoutBlobs shows the server refusing it otherwise).
func TestWorkflowResultTooLargeWithoutBlobs(t *testing.T) {
	var n atomic.Int32
	export := tool.New("export", "t", func(context.Context, struct{}) (string, error) {
		n.Add(1)
		return strings.Repeat("x", 1600<<10), nil
	})
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "export", `{}`)), agentkittest.Text("done"))
	res := complete(t, New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{export}}), nil), NewInput("go"), nil)
	if got := toolContents(res.Messages); len(got) != 1 || !strings.Contains(got[0], "took effect") || !strings.Contains(got[0], "too large") {
		t.Errorf("tool results = %.200q, want one saying the call took effect and its result was too large", got)
	}
	if n.Load() != 1 || res.Stop != agentkit.StopAnswered {
		t.Errorf("export ran %d times, stop %q; want 1, answered", n.Load(), res.Stop)
	}
}
