package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	_ "github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/mcp"
)

// serverModeEnv, when set, makes the test binary an MCP server over stdio instead of
// running tests: the subprocess the Command tests start (see subprocess).
const serverModeEnv = "TOOLCALL_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(serve(mode))
	}
	goleak.VerifyTestMain(m)
}

// subprocess returns a ServerConfig that runs this test binary as an MCP server in mode:
// "stdio" (tools echo, pid, hang, spew), "spawn" (the same, after starting a grandchild that
// sleeps; its pid is the tool grandchild's answer), "garbage" (prints a line that is not
// JSON-RPC, then waits for stdin to close), "complain" (says why it cannot start on stderr,
// and exits). The servers say they are running on stderr.
func subprocess(name, mode string) mcp.ServerConfig {
	// A binary built with -race sleeps 1s at exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return mcp.ServerConfig{Name: name, Command: os.Args[0], Args: []string{"-test.run=^$"},
		Env: append(os.Environ(), serverModeEnv+"="+mode, "GORACE="+gorace)}
}

func serve(mode string) int {
	if mode == "complain" {
		fmt.Fprintln(os.Stderr, "Starting...")
		fmt.Fprintln(os.Stderr, "Error: GITHUB_TOKEN is not set")
		return 1
	}
	if mode == "garbage" {
		fmt.Println("Starting server... (this is not JSON-RPC)")
		_, _ = os.Stdin.Read(make([]byte, 1))
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	}
	fmt.Fprintln(os.Stderr, "test server running on stdio")
	s := newServer()
	addEcho(s, "echo")
	addRaw(s, &sdkmcp.Tool{Name: "pid", Description: "Says the server's process id."},
		func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			return text(fmt.Sprint(os.Getpid())), nil
		})
	addRaw(s, &sdkmcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	addRaw(s, &sdkmcp.Tool{Name: "spew", Description: "Prints garbage on stdout, then hangs."},
		func(ctx context.Context, _ *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
			fmt.Println("oops: a stray log line on stdout")
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if mode == "spawn" {
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		addRaw(s, &sdkmcp.Tool{Name: "grandchild", Description: "Says the grandchild's process id."},
			func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
				return text(fmt.Sprint(child.Process.Pid)), nil
			})
	}
	if err := s.Run(context.Background(), &sdkmcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
