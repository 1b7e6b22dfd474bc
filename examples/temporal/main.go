// Command temporal runs an agent durably on Temporal, offline on a scripted model: a worker
// process serves the workflow, a starter starts runs, and a run that waits for an approval
// waits in the server — for as long as it takes, across restarts of either — until a
// decision arrives.
//
//	temporal server start-dev --ip 127.0.0.1 --headless --db-filename /tmp/toolcall-temporal.db   # terminal 1
//	go run . worker                                   # terminal 2: serves the workflow (stop it, start it again: runs go on)
//	go run . start -id demo "北京天气怎么样？发给 bob"    # terminal 3: starts a run; it waits for approval of send_message
//	go run . decide -id demo -approve                 # approves the waiting call (or -reject -message "…"), prints the answer
//
// The agent checks the weather (a read-only tool: retried if its worker is lost), then asks
// to send a message (a tool that requires approval), then answers. start prints the calls the
// run waits for and exits; decide delivers the decision with an update (a wrong one is
// refused with the reason), waits for the run's end and prints the transcript and answer.
//
// Flags: -address (default 127.0.0.1:7233), -queue (default toolcall-example). Exit status 0
// on success, 1 with one line on stderr, 2 for bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/temporal"
	"github.com/toolcall/toolcall/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	address, queue, id, message string
	approve, reject             bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: temporal worker|start|decide [flags]")
		return 2
	}
	var cfg config
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.address, "address", "127.0.0.1:7233", "the Temporal server's host:port")
	fs.StringVar(&cfg.queue, "queue", "toolcall-example", "the task queue")
	fs.StringVar(&cfg.id, "id", "toolcall-demo", "the workflow id (start, decide)")
	fs.BoolVar(&cfg.approve, "approve", false, "decide: approve the waiting calls")
	fs.BoolVar(&cfg.reject, "reject", false, "decide: reject the waiting calls")
	fs.StringVar(&cfg.message, "message", "", "decide: with -reject, the reason the model reads")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	switch {
	case args[0] != "worker" && args[0] != "start" && args[0] != "decide":
		fmt.Fprintf(stderr, "unknown command %q: worker, start or decide\n", args[0])
		return 2
	case args[0] == "decide" && cfg.approve == cfg.reject:
		fmt.Fprintln(stderr, "decide: give one of -approve and -reject")
		return 2
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: cfg.address, Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		fmt.Fprintln(stderr, "temporal:", err)
		return 1
	}
	defer c.Close()
	switch args[0] {
	case "worker":
		err = serve(ctx, c, cfg)
	case "start":
		err = start(ctx, c, cfg, fs.Args(), stdout)
	default:
		err = decide(ctx, c, cfg, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "temporal:", err)
		return 1
	}
	return 0
}

// newAgent is the example's agent: every worker builds the same one.
func newAgent() *temporal.Agent {
	weather := tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in struct {
		City string `json:"city" jsonschema:"description=城市中文名"`
	}) (string, error) {
		return in.City + "：晴，25°C", nil
	}, tool.Options{Annotations: tool.Annotations{ReadOnly: true}})
	send := tool.New("send_message", "给联系人发消息。", func(ctx context.Context, in struct {
		To   string `json:"to"`
		Text string `json:"text"`
	}) (string, error) {
		return "已发送给 " + in.To, nil
	}, tool.Options{RequireApproval: true})
	return temporal.New(agentkit.New(model, &agentkit.Options{
		Model: "scripted", Instructions: "你是一个乐于助人的智能助手。", Tools: []*tool.Tool{weather, send},
	}), &temporal.Options{HeartbeatTimeout: 10 * time.Second})
}

// model is scripted on the transcript, so that any worker, started at any time, plays it the
// same: weather first, then the message, then the answer.
var model = agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	last := req.Messages[len(req.Messages)-1]
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	call := func(id, name, args string) {
		msg.ToolCalls = []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}
	}
	switch {
	case last.Role == openai.ChatMessageRoleUser:
		call("call_1", "get_weather", `{"city":"北京"}`)
	case last.ToolCallID == "call_1":
		call("call_2", "send_message", `{"to":"bob","text":"`+last.Content+`"}`)
	default:
		msg.Content = "北京今天晴，25°C。消息：" + last.Content
	}
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
})

func serve(ctx context.Context, c client.Client, cfg config) error {
	w := worker.New(c, cfg.queue, worker.Options{})
	newAgent().Register(w)
	if err := w.Start(); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "worker: serving", temporal.WorkflowName, "on task queue", cfg.queue, "(Ctrl-C stops)")
	<-ctx.Done()
	w.Stop()
	return nil
}

func start(ctx context.Context, c client.Client, cfg config, words []string, stdout io.Writer) error {
	if len(words) != 1 {
		return errors.New(`start takes the user's message as one argument: start -id demo "北京天气怎么样？"`)
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: cfg.id, TaskQueue: cfg.queue}, temporal.WorkflowName, temporal.NewInput(words[0]))
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "started", run.GetID())
	// Wait until the run waits for a decision, or ends.
	for {
		pending, err := temporal.Pending(ctx, c, run.GetID(), "")
		if err != nil {
			return err
		}
		if len(pending) > 0 {
			for _, p := range pending {
				fmt.Fprintf(stdout, "waiting for %s: %s %s\n", p.Kind, p.Name, p.Arguments)
			}
			fmt.Fprintf(stdout, "decide with: go run . decide -id %s -approve\n", run.GetID())
			return nil
		}
		d, err := c.DescribeWorkflow(ctx, run.GetID(), "")
		if err != nil {
			return err
		}
		if d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil {
			return printResult(ctx, c, cfg.id, stdout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func decide(ctx context.Context, c client.Client, cfg config, stdout io.Writer) error {
	pending, err := temporal.Pending(ctx, c, cfg.id, "")
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return fmt.Errorf("run %s waits for no decision", cfg.id)
	}
	var ds []agentkit.Decision
	for _, p := range pending {
		ds = append(ds, agentkit.Decision{CallID: p.ID, Approve: cfg.approve, Message: cfg.message})
	}
	if err := temporal.Decide(ctx, c, cfg.id, "", ds); err != nil {
		return err
	}
	return printResult(ctx, c, cfg.id, stdout)
}

func printResult(ctx context.Context, c client.Client, id string, stdout io.Writer) error {
	var res temporal.Result
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		return err
	}
	fmt.Fprint(stdout, agentkit.FormatTranscript(res.Messages))
	fmt.Fprintf(stdout, "stop: %s\nanswer: %s\n", res.Stop, res.Output)
	return nil
}
