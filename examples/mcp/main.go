// Command mcp shows MCP both ways, offline: it serves tools of its own over MCP on stdio, in a
// child process (itself, started with -serve), connects an agent to that server as it would to
// any MCP server, and runs the agent on a scripted model that calls the server's tools.
//
//	go run .            # offline: the scripted model, the server in a child process
//	go run . -v         # and every tool call, its progress and its result on stderr
//	go run . -deny      # the approver declines the destructive call
//	go run . -serve     # be the MCP server, on stdin and stdout (what the parent starts)
//
// What it shows:
//   - package mcp's server: tool.Tool values (with annotations and a typed output) served by
//     mcp.NewServer on the go-sdk's stdio transport;
//   - package mcp's client: mcp.Connect starts the server, lists its tools and offers them
//     to the agent as a Toolset; the calls go through repair, validation against the server's
//     schema and the agent's middleware like the agent's own tools;
//   - annotations across the wire: the server marks cancel_booking destructive, and the
//     client's middleware.When(middleware.Destructive, middleware.Approve(...)) asks before
//     it runs, while get_weather (read-only) runs without asking;
//   - progress: the server's book_table reports progress, which reaches the run's events.
//
// The answer goes to stdout; the exit status is 0 with an answer, 1 with one line on stderr
// saying what went wrong. It makes no network call.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

const question = "明天北京天气怎么样？适合户外用餐的话帮我订一张两人桌，并取消我上周的预订 B-1024。"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program, its streams passed in so tests can drive it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serve := fs.Bool("serve", false, "serve the tools over MCP on stdin and stdout")
	verbose := fs.Bool("v", false, "print each tool call, its progress and its result to stderr")
	deny := fs.Bool("deny", false, "decline the destructive call instead of approving it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *serve {
		if err := serveStdio(ctx, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "mcp -serve:", err)
			return 1
		}
		return 0
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return 1
	}
	answer, err := ask(ctx, mcp.ServerConfig{Name: "restaurant", Command: self, Args: []string{"-serve"}}, !*deny, verbose, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return 1
	}
	fmt.Fprintln(stdout, answer)
	return 0
}

// serveStdio serves the restaurant's tools over MCP until the client hangs up.
func serveStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	server, err := mcp.NewServer(&sdkmcp.Implementation{Name: "restaurant", Version: "v1.0.0"}, restaurantTools(), nil)
	if err != nil {
		return err
	}
	t := &sdkmcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	return server.Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ask connects to the server and runs the agent on the question, approving destructive calls
// when approve is set.
func ask(ctx context.Context, srv mcp.ServerConfig, approve bool, verbose *bool, stderr io.Writer) (string, error) {
	client, err := mcp.Connect(ctx, []mcp.ServerConfig{srv}, nil)
	if err != nil {
		return "", err
	}
	defer client.Close()

	approver := func(_ context.Context, c tool.Call) (bool, error) {
		verdict := "approved"
		if !approve {
			verdict = "declined"
		}
		fmt.Fprintf(stderr, "approval: %s %s — %s\n", c.Name, c.Arguments, verdict)
		return approve, nil
	}
	opts := &agentkit.Options{
		Instructions: "你是餐厅预订助手。",
		Toolsets:     []agentkit.Toolset{client},
		Middleware: []tool.Middleware{
			middleware.When(middleware.Destructive, middleware.Approve(approver, nil)),
		},
	}
	if *verbose {
		opts.OnEvent = func(_ context.Context, e agentkit.Event) { logEvent(stderr, e) }
	}
	agent := agentkit.New(scriptedModel(), opts)
	res, err := agent.Run(ctx, question)
	if err != nil {
		return "", fmt.Errorf("%s: %w", res.Stop, err)
	}
	return res.Output, nil
}

func logEvent(w io.Writer, e agentkit.Event) {
	switch e.Kind {
	case agentkit.EventToolStart:
		fmt.Fprintf(w, "→ %s %s\n", e.Call.Name, e.Call.Arguments)
	case agentkit.EventToolProgress:
		fmt.Fprintf(w, "  %s: %v/%v %s\n", e.Call.Name, e.Progress.Done, e.Progress.Total, e.Progress.Message)
	case agentkit.EventToolEnd:
		fmt.Fprintf(w, "← %s: %s\n", e.Call.Name, strings.ReplaceAll(e.Result.Content, "\n", " "))
	}
}
