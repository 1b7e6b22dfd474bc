package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolcall/toolcall/mcp/internal/npmtest"
)

// clientScenarios are the client scenarios of the conformance suite that our client plays
// (internal/conformanceclient: mcp.Connect and an agent run calling the scenario's tool).
// The auth/* scenarios test OAuth flows: package mcp leaves authorization to the
// application's ServerConfig.HTTPClient, so they are out of scope.
var clientScenarios = []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"}

// The conformance suite, in client mode, against our client: for each scenario the suite
// starts a server of its own on 127.0.0.1 and runs the client with its URL. Every scenario
// needs at least one SUCCESS check and no FAILURE.
func TestConformanceClient(t *testing.T) {
	node := npmtest.Node22(t)
	suite := npmtest.Bin(t, "@modelcontextprotocol/conformance", npmtest.ConformanceVersion, "conformance")
	bin := filepath.Join(t.TempDir(), "conformanceclient")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/conformanceclient").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, scenario := range clientScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out := t.TempDir()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--scenario", scenario, "-o", out)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			log, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the suite did not finish in time:\n%s", log)
			}
			checks := readClientChecks(t, out)
			counts := map[string]int{}
			for _, c := range checks {
				counts[c.Status]++
				switch c.Status {
				case "FAILURE":
					t.Errorf("%s: FAILURE: %s", c.ID, c.ErrorMessage)
				case "WARNING":
					t.Logf("%s: WARNING: %s", c.ID, c.ErrorMessage)
				}
			}
			if counts["SUCCESS"] == 0 {
				t.Errorf("no check succeeded (%v)", counts)
			}
			if err != nil && !t.Failed() {
				t.Errorf("the suite exited with %v", err)
			}
			if t.Failed() {
				t.Logf("the suite's output:\n%s", log)
			}
		})
	}
}

// readClientChecks reads the checks.json of the one scenario the suite saved in dir.
func readClientChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		t.Fatalf("the suite's output in %s: %v, %d entries, want one directory", dir, err, len(entries))
	}
	b, err := os.ReadFile(filepath.Join(dir, entries[0].Name(), "checks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("checks.json: %v", err)
	}
	return checks
}
