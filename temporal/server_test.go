package temporal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// The kill test's agent: one turn calls record (not idempotent, quick), hang (not
// idempotent, blocks in the first worker) and fetch (read-only, blocks in the first worker);
// the next answers. Each tool appends a line to the file of killLogEnv when it starts.
const (
	killLogEnv   = "TOOLCALL_TEMPORAL_TEST_LOG"
	killQueueEnv = "TOOLCALL_TEMPORAL_TEST_QUEUE"
	killBlockEnv = "TOOLCALL_TEMPORAL_TEST_BLOCK"
)

// killModel is deterministic on the transcript, so that any worker plays it the same.
var killModel = agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
		for _, n := range []string{"record", "hang", "fetch"} {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: "call_" + n, Type: "function", Function: openai.FunctionCall{Name: n, Arguments: `{}`}})
		}
	} else {
		msg.Content = "done"
	}
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
})

// killAgent returns the kill test's agent; its tools log to logPath and, when block, hang
// and fetch wait for their context's end.
func killAgent(logPath string, block bool) *Agent {
	var mu sync.Mutex
	logLine := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, s)
			f.Sync()
			f.Close()
		}
	}
	mk := func(name string, ann tool.Annotations, blocks bool) *tool.Tool {
		return tool.New(name, "test", func(ctx context.Context, _ struct{}) (string, error) {
			logLine(name)
			if blocks && block {
				<-ctx.Done()
				return "", ctx.Err()
			}
			return name + " ok", nil
		}, tool.Options{Annotations: ann})
	}
	return New(agentkit.New(killModel, &agentkit.Options{Tools: []*tool.Tool{
		mk("record", tool.Annotations{}, false),
		mk("hang", tool.Annotations{}, true),
		mk("fetch", tool.Annotations{ReadOnly: true}, true),
	}}), &Options{HeartbeatTimeout: 2 * time.Second, ToolTimeout: time.Minute})
}

// workerMain is the worker process: it serves the kill test's agent until SIGTERM.
func workerMain(addr string) int {
	c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	w := worker.New(c, os.Getenv(killQueueEnv), worker.Options{})
	killAgent(os.Getenv(killLogEnv), os.Getenv(killBlockEnv) != "").Register(w)
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	w.Stop()
	return 0
}

// startWorker starts a worker process; the returned function kills it with sig and waits.
func startWorker(t *testing.T, queue, logPath string, block bool) func(os.Signal) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+devServer, killQueueEnv+"="+queue, killLogEnv+"="+logPath,
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	if block {
		cmd.Env = append(cmd.Env, killBlockEnv+"=1")
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func(sig os.Signal) {
		once.Do(func() {
			cmd.Process.Signal(sig)
			cmd.Wait()
		})
	}
	t.Cleanup(func() { stop(os.Kill) })
	return stop
}

// lines counts the lines of the log by content.
func lines(t *testing.T, path string) map[string]int {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := map[string]int{}
	for l := range strings.Lines(string(b)) {
		n[strings.TrimSpace(l)]++
	}
	return n
}

// waitFor polls cond every 50ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// TestServerWorkerKilledMidTool: a worker process is SIGKILLed while two calls of a turn
// run; a second worker process finishes the run. The call that had completed is not run
// again, the read-only call is run again, and the non-idempotent call that was in flight is
// reported as not known to have completed, never run twice.
func TestServerWorkerKilledMidTool(t *testing.T) {
	testWorkerLostMidTool(t, os.Kill, "kill.json")
}

// TestServerWorkerStoppedMidTool: the same with a worker stopped gracefully (SIGTERM: a
// deploy), which cancels the contexts of the calls it runs: the non-idempotent call that was
// in flight is reported as not known to have completed too, not as canceled or failed, which
// would invite the model to call it again.
func TestServerWorkerStoppedMidTool(t *testing.T) {
	testWorkerLostMidTool(t, syscall.SIGTERM, "")
}

// testWorkerLostMidTool is TestServerWorkerKilledMidTool with the first worker ended by sig;
// a non-empty history names the recorded history the run's is checked against.
func testWorkerLostMidTool(t *testing.T, sig os.Signal, history string) {
	c := needServer(t)
	queue := "kill-" + t.Name()
	logPath := filepath.Join(t.TempDir(), "calls.log")
	kill1 := startWorker(t, queue, logPath, true)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, WorkflowName, NewInput("go"))
	if err != nil {
		t.Fatal(err)
	}
	// Kill once record has completed (the server holds its result) and hang and fetch run.
	waitFor(t, 30*time.Second, "record done, hang and fetch running", func() bool {
		n := lines(t, logPath)
		if n["record"] != 1 || n["hang"] != 1 || n["fetch"] != 1 {
			return false
		}
		d, err := c.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
		return err == nil && len(d.RawResponse.GetPendingActivities()) == 2
	})
	kill1(sig)
	stop2 := startWorker(t, queue, logPath, false)
	defer stop2(syscall.SIGTERM)
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stop != agentkit.StopAnswered || res.Output != "done" {
		t.Errorf("Stop, Output = %q, %q; want answered, done", res.Stop, res.Output)
	}
	if diff := cmp.Diff([]string{"record ok", UnknownOutcome, "fetch ok"}, toolContents(res.Messages)); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"record": 1, "hang": 1, "fetch": 2}, lines(t, logPath)); diff != "" {
		t.Errorf("runs per tool (-want +got):\n%s", diff)
	}
	if history != "" {
		checkHistory(t, c, killAgent(os.DevNull, false), run.GetID(), run.GetRunID(), history)
	}
}

// TestServerCancelReachesTool: canceling the workflow cancels the running tool's context
// (the activity's heartbeat brings the cancellation back), and the run completes canceled.
func TestServerCancelReachesTool(t *testing.T) {
	c := needServer(t)
	started, sawCancel := make(chan struct{}), make(chan struct{})
	block := tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		close(sawCancel)
		return "", ctx.Err()
	})
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		msg := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "block", Arguments: "{}"}}}}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
	queue := "cancel-" + t.Name()
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{block}}), &Options{HeartbeatTimeout: time.Second})
	ctx, run := serve(t, c, a, queue, "cancel-test", NewInput("go"))
	<-started
	if err := c.CancelWorkflow(ctx, run.GetID(), run.GetRunID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sawCancel:
	case <-ctx.Done():
		t.Fatal("the tool's context was never canceled")
	}
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stop != agentkit.StopCanceled {
		t.Errorf("Stop = %q, want canceled", res.Stop)
	}
	if got := toolContents(res.Messages); len(got) != 1 || !strings.Contains(got[0], "canceled") {
		t.Errorf("tool results = %q", got)
	}
}

// TestServerContinuesAsNew: on the real server, a run past Options.ContinueAfter continues as
// new, run after run, and the last one's Result holds the whole transcript; the client's Get
// follows the chain.
func TestServerContinuesAsNew(t *testing.T) {
	c := needServer(t)
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		n := len(toolContents(req.Messages))
		msg := openai.ChatCompletionMessage{Role: "assistant", Content: fmt.Sprintf("done after %d", n)}
		if n < 3 {
			msg = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: fmt.Sprint("c", n), Type: "function", Function: openai.FunctionCall{Name: "step", Arguments: fmt.Sprintf(`{"n":%d}`, n)}}}}
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
	step := tool.New("step", "a step", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return fmt.Sprint("step ", in.N), nil
	})
	queue := "can-" + t.Name()
	a := New(agentkit.New(model, &agentkit.Options{Instructions: "sys", Tools: []*tool.Tool{step}}), &Options{ContinueAfter: 1})
	ctx, run := serve(t, c, a, queue, "can-test", NewInput("go"))
	var res Result
	if err := c.GetWorkflow(ctx, run.GetID(), "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Output != "done after 3" || res.Iterations != 4 {
		t.Errorf("Output, Iterations = %q, %d; want done after 3, 4", res.Output, res.Iterations)
	}
	if diff := cmp.Diff([]string{"step 0", "step 1", "step 2"}, toolContents(res.Messages)); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	d, err := c.DescribeWorkflow(ctx, run.GetID(), "")
	if err != nil {
		t.Fatal(err)
	}
	if d.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId() == run.GetRunID() {
		t.Error("the latest run is the first: the workflow never continued as new")
	}
}

// TestServerLargeTranscript: on the real server, whose payload limit is 2 MiB, a run whose
// results are each under Options.BlobThreshold but together past the limit completes (the
// results past the transcript's budget go to Blobs), where the server would terminate it on
// the model activity whose input is the whole transcript.
func TestServerLargeTranscript(t *testing.T) {
	c := needServer(t)
	const turns, size = 9, 250 << 10
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		n := len(toolContents(req.Messages))
		msg := openai.ChatCompletionMessage{Role: "assistant", Content: "done"}
		if n < turns {
			msg = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: fmt.Sprint("c", n), Type: "function", Function: openai.FunctionCall{Name: "page", Arguments: fmt.Sprintf(`{"n":%d}`, n)}}}}
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
	page := tool.New("page", "a page", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat(fmt.Sprint(in.N), size), nil
	})
	queue := "large-" + t.Name()
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{page}, MaxIterations: turns + 1}), &Options{Blobs: DirBlobs(t.TempDir())})
	ctx, run := serve(t, c, a, queue, "large-test", NewInput("go"))
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stop != agentkit.StopAnswered || len(toolContents(res.Messages)) != turns {
		t.Errorf("Stop %q with %d results; want answered with %d", res.Stop, len(toolContents(res.Messages)), turns)
	}
}

// TestServerResultTooLargeWithoutBlobs: without Options.Blobs, a result past what the
// transcript may take inline is not sent to the server (which refuses an activity result over
// its payload limit): the model reads that the call ran and took effect, and that its result
// was too large, rather than a failure that invites it to run the call again.
func TestServerResultTooLargeWithoutBlobs(t *testing.T) {
	c := needServer(t)
	var runs atomic.Int32
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		msg := openai.ChatCompletionMessage{Role: "assistant", Content: "done"}
		if len(toolContents(req.Messages)) == 0 {
			msg = openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "export", Arguments: "{}"}}}}
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
	export := tool.New("export", "exports everything", func(ctx context.Context, _ struct{}) (string, error) {
		runs.Add(1)
		return strings.Repeat("x", 3<<20), nil
	})
	queue := "toolarge-" + t.Name()
	a := New(agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{export}}), nil)
	ctx, run := serve(t, c, a, queue, queue, NewInput("go"))
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	got := toolContents(res.Messages)
	if len(got) != 1 || !strings.Contains(got[0], "took effect") {
		t.Errorf("tool results = %q, want one saying the call took effect", got)
	}
	if runs.Load() != 1 || res.Stop != agentkit.StopAnswered {
		t.Errorf("export ran %d times, stop %q; want 1, answered", runs.Load(), res.Stop)
	}
}

// serve registers a on a worker of queue, started for the test, and starts a run of in with
// workflow id id; the context ends with the test, or after a minute.
func serve(t *testing.T, c client.Client, a *Agent, queue, id string, in Input) (context.Context, client.WorkflowRun) {
	t.Helper()
	w := worker.New(c, queue, worker.Options{})
	a.Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, WorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, run
}
