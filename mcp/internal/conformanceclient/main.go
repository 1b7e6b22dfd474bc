// Command conformanceclient is toolcall's MCP client under the client scenarios of the MCP
// conformance suite (@modelcontextprotocol/conformance): the suite starts it with the URL of
// the server it plays as the last argument, and the scenario's name in
// MCP_CONFORMANCE_SCENARIO (a test program reads the environment; the SDK does not). Each
// scenario is played the way an application uses package mcp: mcp.Connect, then an agent run
// on a scripted model that calls the scenario's tool, so the call goes through the whole
// loop. It exits 1, saying why on stderr, when the scenario could not be played.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
)

// scenarios maps each scenario to the call the scripted model makes (none: connecting and
// listing are the scenario) and the text its result must hold.
var scenarios = map[string]struct{ tool, args, want string }{
	"initialize":                          {},
	"tools_call":                          {"add_numbers", `{"a":5,"b":3}`, "8"},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`, "Elicitation completed"},
	"sse-retry":                           {"test_reconnection", `{}`, "Reconnection test completed"},
}

func main() {
	if err := run(os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

func run(args []string, scenario string) error {
	if len(args) == 0 {
		return errors.New("usage: conformanceclient <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)")
	}
	sc, ok := scenarios[scenario]
	if !ok {
		return fmt.Errorf("unknown scenario %q", scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	opts := &mcp.Options{
		// An application would show a form filled with the defaults; this one accepts them.
		Elicit: func(_ context.Context, _ string, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error) {
			defaults, err := mcp.ElicitDefaults(req)
			if err != nil {
				return nil, err
			}
			return &sdkmcp.ElicitResult{Action: "accept", Content: defaults}, nil
		},
	}
	client, err := mcp.Connect(ctx, []mcp.ServerConfig{{Name: "conformance", URL: args[len(args)-1]}}, opts)
	if err != nil {
		return err
	}
	defer client.Close()
	if sc.tool == "" {
		_, err := client.Tools(ctx)
		return err
	}
	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call(sc.tool, sc.args)),
		agentkittest.Text("done"))
	res, err := agentkit.New(model, &agentkit.Options{Toolsets: []agentkit.Toolset{client}}).Run(ctx, "play "+scenario)
	if err != nil {
		return fmt.Errorf("%s: %w", res.Stop, err)
	}
	if len(res.Steps) == 0 || len(res.Steps[0].Calls) != 1 {
		return errors.New("the model's call was not made")
	}
	got := res.Steps[0].Calls[0].Result
	if got.Failed() || !strings.Contains(got.Content, sc.want) {
		return fmt.Errorf("%s returned %q (%s), want a result holding %q", sc.tool, got.Content, got.Kind, sc.want)
	}
	fmt.Println(got.Content)
	return nil
}
