package mcp_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp/internal/npmtest"
)

// claimedScenarios are the server scenarios of @modelcontextprotocol/conformance that our
// server must pass: each needs at least one SUCCESS check and no FAILURE. The tool
// scenarios call toolcall tools served by mcp.NewServer (conformance_server_test.go); the
// others test what the go-sdk server does around them (initialization, ping, logging,
// completion, resources and prompts added with plain go-sdk calls, transport rules).
var claimedScenarios = map[string]string{
	"tools-list":                    "ours: names, descriptions, schemas of tool.Tool values",
	"tools-call-simple-text":        "ours: a tool.New tool's text",
	"tools-call-image":              "ours: an output that is an mcp.Contenter (image)",
	"tools-call-audio":              "ours: an mcp.Contenter (audio)",
	"tools-call-embedded-resource":  "ours: an mcp.Contenter (resource)",
	"tools-call-mixed-content":      "ours: an mcp.Contenter (text, image, resource)",
	"tools-call-with-logging":       "ours: a tool logging through mcp.RequestFromContext's session",
	"tools-call-error":              "ours: a returned error is an isError result",
	"tools-call-with-progress":      "ours: a tool notifying progress through mcp.RequestFromContext",
	"tools-call-sampling":           "ours: a tool asking the client for sampling",
	"tools-call-elicitation":        "ours: a tool asking the client for elicitation",
	"elicitation-sep1034-defaults":  "ours: a tool eliciting with defaults",
	"elicitation-sep1330-enums":     "ours: a tool eliciting with enums",
	"json-schema-2020-12":           "ours: a tool.Raw schema with $schema, $defs, $anchor, if/then/else kept through tool.Raw",
	"server-initialize":             "go-sdk",
	"logging-set-level":             "go-sdk",
	"ping":                          "go-sdk",
	"completion-complete":           "go-sdk (ServerOptions.SDK.CompletionHandler)",
	"server-sse-multiple-streams":   "go-sdk streamable HTTP",
	"dns-rebinding-protection":      "go-sdk streamable HTTP",
	"resources-list":                "go-sdk resources on our server",
	"resources-read-text":           "go-sdk resources on our server",
	"resources-read-binary":         "go-sdk resources on our server",
	"resources-templates-read":      "go-sdk resources on our server",
	"resources-subscribe":           "go-sdk (ServerOptions.SDK.SubscribeHandler)",
	"resources-unsubscribe":         "go-sdk (ServerOptions.SDK.UnsubscribeHandler)",
	"prompts-list":                  "go-sdk prompts on our server",
	"prompts-get-simple":            "go-sdk prompts on our server",
	"prompts-get-with-args":         "go-sdk prompts on our server",
	"prompts-get-embedded-resource": "go-sdk prompts on our server",
	"prompts-get-with-image":        "go-sdk prompts on our server",
}

// unclaimedScenarios run, and are reported, but do not fail the test.
var unclaimedScenarios = map[string]string{
	// The suite speaks protocol 2025-03-26 here; the go-sdk's streamable handler then
	// closes the POST stream (test_reconnection asks it to) before any event with an id,
	// so nothing can resume: 0 checks pass, 2 warnings (no priming event, no retry field),
	// no failure. The go-sdk's transport, not toolcall's code.
	"server-sse-polling": "go-sdk transport: SSE resumability warnings only",
}

type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// The conformance suite, in server mode, against our server over streamable HTTP on
// 127.0.0.1, with Node 22. It runs every server scenario (--suite all: the active ones and
// the pending json-schema-2020-12 and server-sse-polling), offline.
func TestConformanceServer(t *testing.T) {
	node := npmtest.Node22(t)
	suite := npmtest.Bin(t, "@modelcontextprotocol/conformance", npmtest.ConformanceVersion, "conformance")
	s, err := conformanceServer()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, nil))
	defer func() {
		for ss := range s.Sessions() { // the suite leaves its sessions open
			ss.Close()
		}
		ts.Close()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", ts.URL, "--suite", "all", "-o", out)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	start := time.Now()
	log, err := cmd.CombinedOutput()
	t.Logf("conformance %s server --suite all: %v, exit %v", npmtest.ConformanceVersion, time.Since(start).Round(time.Millisecond), err)
	if ctx.Err() != nil {
		t.Fatalf("the suite did not finish in time:\n%s", log)
	}

	results := readConformanceResults(t, out)
	for name := range claimedScenarios {
		if _, ok := results[name]; !ok {
			t.Errorf("claimed scenario %s did not run", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(results)) {
		checks := results[name]
		counts := map[string]int{}
		for _, c := range checks {
			counts[c.Status]++
			if c.Status == "WARNING" {
				t.Logf("%s: %s: WARNING: %s", name, c.ID, c.ErrorMessage)
			}
		}
		_, claimed := claimedScenarios[name]
		_, unclaimed := unclaimedScenarios[name]
		switch {
		case !claimed && !unclaimed:
			t.Errorf("scenario %s is neither claimed nor listed as unclaimed (checks %v)", name, counts)
		case claimed && (counts["FAILURE"] > 0 || counts["SUCCESS"] == 0):
			for _, c := range checks {
				if c.Status == "FAILURE" {
					t.Errorf("%s: %s: FAILURE: %s", name, c.ID, c.ErrorMessage)
				}
			}
			if counts["SUCCESS"] == 0 {
				t.Errorf("%s: no check succeeded (%v)", name, counts)
			}
		default:
			t.Logf("%s: %v (claimed: %v)", name, counts, claimed)
		}
	}
	if t.Failed() {
		t.Logf("the suite's output:\n%s", log)
	}
}

// serverResultDir is a directory of the suite's -o output: server-<scenario>-<timestamp>.
var serverResultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

// readConformanceResults reads the checks.json of every scenario the suite saved in dir.
func readConformanceResults(t *testing.T, dir string) map[string][]conformanceCheck {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]conformanceCheck{}
	for _, e := range entries {
		m := serverResultDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			t.Errorf("unexpected entry %s in the suite's output", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Errorf("%s: %v", m[1], err)
			continue
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Errorf("%s: checks.json: %v", m[1], err)
			continue
		}
		results[m[1]] = append(results[m[1]], checks...)
	}
	if len(results) == 0 {
		t.Fatalf("the suite saved no results in %s", dir)
	}
	return results
}
