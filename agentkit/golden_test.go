package agentkit_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

var update = flag.Bool("update", false, "rewrite agentkit/testdata/pause/v<PauseVersion>.json with a state of this version")

// goldenKey signs the golden states.
var goldenKey = []byte("toolcall golden pause key")

// goldenTurn is the paused turn of the golden state: a transfer waiting for approval, a
// lookup that ran, a deferred page opening.
func goldenTurn() agentkittest.Reply {
	return agentkittest.ToolCalls(
		agentkittest.CallID("call_a", "transfer", `{"to":"alice","amount":10}`),
		agentkittest.CallID("call_l", "lookup", `{}`),
		agentkittest.CallID("call_p", "open_page", `{"url":"https://example.com"}`),
	)
}

// The state of this version, written with -update, is testdata/pause/v<PauseVersion>.json.
func TestWriteGoldenPause(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the golden state of this version")
	}
	var b bank
	a := agentkit.New(agentkittest.New(t, goldenTurn()), &agentkit.Options{Instructions: "你是银行助手。",
		Tools: []*tool.Tool{b.transfer(), b.lookup(), browser}, PauseKey: goldenKey})
	p := paused(t, a)
	data, err := json.MarshalIndent(p, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("testdata", "pause", "v"+itoa(agentkit.PauseVersion)+".json")
	if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every state in testdata/pause, one written by each version of the format, still resumes:
// its approved call runs once, its deferred call gets its result, and the model reads both
// beside the result of the call that ran before the pause. A file named for a version this
// package does not know fails with ErrPauseVersion.
func TestResumeGoldenPauses(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "pause", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden states in testdata/pause: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var p agentkit.Pause
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSuffix(filepath.Base(file), ".json"); "v"+itoa(p.Version) != want {
				t.Fatalf("%s holds version %d", file, p.Version)
			}
			var b bank
			model := agentkittest.New(t, agentkittest.Text("已转账，页面也打开了"))
			a := agentkit.New(model, &agentkit.Options{Instructions: "你是银行助手。",
				Tools: []*tool.Tool{b.transfer(), b.lookup(), browser}, PauseKey: goldenKey, Ledger: &mapLedger{}})
			res, err := a.Resume(context.Background(), &p, []agentkit.Decision{
				{CallID: "call_a", Approve: true}, {CallID: "call_p", Approve: true, Result: "<title>Example</title>"}})
			if err != nil || res.Output != "已转账，页面也打开了" {
				t.Fatalf("Resume = %q %q, %v", res.Stop, res.Output, err)
			}
			got := agentkittest.ToolMessages(model.Requests()[0])
			want := []string{"已转账 alice", "余额 1000", "<title>Example</title>"}
			if len(got) != len(want) {
				t.Fatalf("the model read %d tool messages, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Content != want[i] {
					t.Errorf("tool message %d = %q, want %q", i, got[i].Content, want[i])
				}
			}
			if b.transfers.Load() != 1 || b.lookups.Load() != 0 {
				t.Errorf("transfer ran %d times, lookup %d; want 1, 0", b.transfers.Load(), b.lookups.Load())
			}
		})
	}
}

// A state of a version from the future fails with a clear error that names it.
func TestResumeFutureVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pause", "v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p agentkit.Pause
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	p.Version = agentkit.PauseVersion + 1
	a := agentkit.New(agentkittest.New(t), &agentkit.Options{Ledger: &mapLedger{}})
	_, err = a.Resume(context.Background(), &p, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown pause version "+itoa(p.Version)) {
		t.Errorf("Resume of version %d = %v, want an error naming the version", p.Version, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
