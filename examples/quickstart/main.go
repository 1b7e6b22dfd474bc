// Command quickstart runs the seed article's agent: a model with two tools, get_weather and
// calculate, answering "北京天气怎么样？顺便帮我算一下 123.45 * 678".
//
//	go run ./examples/quickstart                      # offline, on a built-in scripted model
//	go run ./examples/quickstart -stream              # print the answer as it is written
//	go run ./examples/quickstart -trace run.html      # also write the run's trace: one HTML page to open in a browser
//	OPENAI_API_KEY=sk-... go run ./examples/quickstart "上海和广州哪里更热？"
//	OPENAI_BASE_URL=https://api.deepseek.com/v1 OPENAI_MODEL=deepseek-chat OPENAI_API_KEY=... go run ./examples/quickstart
//
// Configuration comes from the environment: OPENAI_API_KEY, OPENAI_BASE_URL (any
// OpenAI-compatible server; it must end in /v1 or the server's equivalent) and OPENAI_MODEL
// (default gpt-4o-mini). With neither OPENAI_API_KEY nor OPENAI_BASE_URL set it runs offline
// and says so on stderr.
//
// The answer goes to stdout (as it is written with -stream). -v prints every step and the full transcript to stderr. The exit
// status is 0 with an answer, 1 with one line on stderr saying what went wrong.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
	"github.com/toolcall/toolcall/trace"
)

const defaultQuestion = "北京天气怎么样？顺便帮我算一下 123.45 * 678"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program, with its environment passed in so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "print each step and the transcript to stderr")
	stream := fs.Bool("stream", false, "print the answer as the model writes it")
	tracePath := fs.String("trace", "", "write the run's trace to this `file`: one self-contained HTML page (package trace)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: quickstart [-v] [-stream] [-trace file.html] [question]\n\nEnvironment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL (default gpt-4o-mini).\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		question = defaultQuestion
	}

	model, modelName, err := newModel(getenv, question, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	// Production defaults, composed here so you can copy them. Logs go to stderr: failed
	// tool calls at Warn by default, every request, response and call with -v.
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	opts := &agentkit.Options{
		Model:        modelName,
		Instructions: "你是一个乐于助人的智能助手，可以通过工具获取实时信息。回答天气和计算问题时，必须基于最新的工具结果。",
		Tools:        []*tool.Tool{weatherTool(), calculateTool()},
		// FinalAnswerOnLimit: past the iteration bound the user still gets an answer.
		FinalAnswerOnLimit: true,
		Logger:             logger,
		// Tool middleware, outermost first: one log record per call; every failure in one
		// envelope with guidance for the model; long results cut to 4000 characters (head and
		// tail kept); each call bounded to 10 s even if the tool ignores its context.
		Middleware: []tool.Middleware{
			middleware.Log(logger, nil),
			middleware.WrapErrors(nil),
			middleware.Truncate(4000),
			middleware.Timeout(10 * time.Second),
		},
		// Model calls: 429, 5xx and network errors retried with backoff, honoring the
		// server's Retry-After (read by the transport installed in newModel).
		ModelMiddleware: []agentkit.ModelMiddleware{middleware.ModelRetry(nil)},
	}
	agent := agentkit.New(model, opts)

	// The trace's file is created before the run: a path that cannot be written fails here,
	// before the model is paid for an answer the program would not print.
	var traceFile *os.File
	if *tracePath != "" {
		if traceFile, err = os.Create(*tracePath); err != nil {
			fmt.Fprintln(stderr, "quickstart:", err)
			return 1
		}
	}
	var res *agentkit.Result
	if *stream {
		res, err = runStream(ctx, agent, question, stdout)
	} else {
		res, err = agent.Run(ctx, question)
	}
	if *verbose {
		printSteps(stderr, res)
	}
	if traceFile != nil {
		if terr := writeTrace(traceFile, res, err); terr != nil {
			fmt.Fprintln(stderr, "quickstart:", terr)
			return 1
		}
		fmt.Fprintln(stderr, "quickstart: trace written to", *tracePath)
	}
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", describe(err, res))
		return 1
	}
	if !*stream {
		fmt.Fprintln(stdout, res.Output)
	}
	return 0
}

// writeTrace writes the run's page to f, and closes it: its timeline, calls, tokens and
// messages.
func writeTrace(f *os.File, res *agentkit.Result, runErr error) error {
	err := trace.Write(f, res, &trace.Options{Title: "quickstart trace", Err: runErr})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// newModel returns the configured provider's client, or the offline scripted model.
func newModel(getenv func(string) string, question string, stderr io.Writer) (agentkit.Model, string, error) {
	key, base, name := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"), getenv("OPENAI_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	if key == "" && base == "" {
		fmt.Fprintln(stderr, "quickstart: OPENAI_API_KEY and OPENAI_BASE_URL are not set: running offline on a built-in scripted model (no network).")
		return offlineModel(question), "offline-scripted", nil
	}
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	// openaichat keeps what providers send back (reasoning, thought signatures), reports
	// their errors with the server's detail and Retry-After, and bounds replies.
	return openaichat.New(base, &openaichat.Options{APIKey: key}), name, nil
}

// runStream prints the model's text as it arrives. Text written in a turn that also calls
// tools ("let me check…") is printed too, on its own line, as chat interfaces show it.
func runStream(ctx context.Context, agent *agentkit.Agent, question string, stdout io.Writer) (*agentkit.Result, error) {
	s := agent.RunStream(ctx, question)
	midLine := false
	for e := range s.Events() {
		switch e.Kind {
		case agentkit.EventTextDelta:
			fmt.Fprint(stdout, e.Text)
			midLine = true
		case agentkit.EventToolCallStart, agentkit.EventAnswer:
			if midLine {
				fmt.Fprintln(stdout)
				midLine = false
			}
		}
	}
	return s.Result()
}

// describe turns a run's error into one line a person can act on.
func describe(err error, res *agentkit.Result) string {
	var perr *openaichat.Error
	var nerr *url.Error
	switch {
	case errors.As(err, &perr):
		hint := ""
		switch perr.StatusCode {
		case 401:
			hint = " (check OPENAI_API_KEY)"
		case 404:
			hint = " (check OPENAI_MODEL and that OPENAI_BASE_URL ends in /v1)"
		}
		return fmt.Sprintf("the provider refused the request: %s%s", strings.TrimPrefix(perr.Error(), "openaichat: "), hint)
	case errors.As(err, &nerr):
		return fmt.Sprintf("the provider could not be reached (check OPENAI_BASE_URL): %v", nerr)
	case errors.Is(err, agentkit.ErrIterationLimit):
		return fmt.Sprintf("no answer after %d model calls (stop reason %s)", res.Iterations, res.Stop)
	}
	return fmt.Sprintf("%v (stop reason %s)", err, res.Stop)
}

// printSteps prints what happened in each step, then the whole transcript.
func printSteps(w io.Writer, res *agentkit.Result) {
	for _, s := range res.Steps {
		fmt.Fprintf(w, "step %d: model replied in %v with %d tool call(s), finish_reason %q\n", s.Iteration, s.Duration.Round(1000), len(s.Calls), s.FinishReason)
		for _, c := range s.Calls {
			status := "ok"
			if c.Result.Failed() {
				status = string(c.Result.Kind)
			}
			fmt.Fprintf(w, "  - %s(%s) -> %s in %v: %s\n", c.Call.Name, c.Call.Arguments, status, c.Duration.Round(1000), c.Result.Content)
			if c.Result.Repair != "" {
				fmt.Fprintf(w, "    arguments repaired: %s\n", c.Result.Repair)
			}
		}
	}
	tokens := "tokens: " + strconv.Itoa(res.Usage.TotalTokens)
	if res.Usage.TotalTokens == 0 {
		tokens = "tokens: none reported by the model" // the offline model reports no usage
	}
	fmt.Fprintf(w, "stop: %s after %d model call(s); %s\n--- transcript ---\n%s", res.Stop, res.Iterations, tokens, agentkit.FormatTranscript(res.Messages))
}
