package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/sqlite"
	"github.com/toolcall/toolcall/tool"
)

// Three runs of one session on a SQLite file reopened between runs, as three processes would:
// each run sees the whole conversation so far; the third crashes on a fatal tool error and
// keeps the steps it completed; a fourth run continues from there.
func TestRunSessionEndToEnd(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	path := filepath.Join(t.TempDir(), "sessions.db")
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴，26℃", nil
	})
	crash := tool.New("deploy", "Deploys.", func(ctx context.Context, in struct{}) (string, error) {
		return "", tool.Fatal(errors.New("disk on fire"))
	})
	ctx := context.Background()
	const session = "user-42"

	run := func(input string, replies ...agentkittest.Reply) (*agentkit.Result, error, *agentkittest.Model) {
		t.Helper()
		store, err := sqlite.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		model := agentkittest.New(t, replies...)
		agent := agentkit.New(model, &agentkit.Options{
			Instructions: "You are a weather assistant.",
			Tools:        []*tool.Tool{weather, crash, memory.RecallTool(store, nil)},
			Memory:       store,
			Context:      memory.Window(memory.WindowOptions{Budget: 100_000}),
		})
		res, err := agent.RunSession(ctx, session, input)
		return res, err, model
	}

	res, err, _ := run("北京天气怎么样？",
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京晴，26℃。"))
	if err != nil || res.Output != "北京晴，26℃。" {
		t.Fatalf("run 1: %q, %v", res.Output, err)
	}

	res, err, model := run("上海呢？",
		agentkittest.ToolCalls(agentkittest.CallID("call_sh", "get_weather", `{"city":"上海"}`)),
		agentkittest.Text("上海也晴。"))
	if err != nil {
		t.Fatalf("run 2: %v", err)
	}
	first := model.Requests()[0].Messages
	if got := agentkit.FormatTranscript(first); !strings.Contains(got, "北京晴，26℃。") || !strings.HasSuffix(got, "user: 上海呢？\n") {
		t.Errorf("run 2's first request does not carry run 1:\n%s", got)
	}

	// Run 3: recall, a completed step, then a fatal tool error.
	res, err, model = run("再查广州，然后部署。",
		agentkittest.ToolCalls(agentkittest.CallID("call_recall", memory.RecallName, `{"query":"北京"}`)),
		agentkittest.ToolCalls(agentkittest.CallID("call_gz", "get_weather", `{"city":"广州"}`)),
		agentkittest.ToolCalls(agentkittest.CallID("call_deploy", "deploy", `{}`)))
	if !errors.Is(err, tool.ErrFatal) || res.Stop != agentkit.StopFatalTool {
		t.Fatalf("run 3: stop %q, err %v; want a fatal tool error", res.Stop, err)
	}
	recalled := agentkittest.ToolMessages(model.Requests()[1])
	if got := recalled[len(recalled)-1].Content; !strings.Contains(got, "北京天气怎么样？") || !strings.Contains(got, "tool result of get_weather: 北京：晴，26℃") {
		t.Errorf("recall_history result:\n%s", got)
	}

	store := openStore(t, path)
	stored, err := store.Load(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	if err := agentkit.ValidateHistory(stored); err != nil {
		t.Fatalf("stored history invalid after the crash: %v", err)
	}
	var ids []string
	for _, m := range stored {
		if m.Role == openai.ChatMessageRoleTool {
			ids = append(ids, m.ToolCallID)
		}
	}
	if got, want := strings.Join(ids, " "), "call_1 call_sh call_recall call_gz call_deploy"; got != want {
		t.Errorf("stored tool results = %s, want %s", got, want)
	}
	if n := len(stored); n != 15 { // 4 + 4 + the user message and 3 steps of 2
		t.Errorf("stored %d messages, want 15:\n%s", n, agentkit.FormatTranscript(stored))
	}
	store.Close()

	res, err, model = run("部署失败了吗？", agentkittest.Text("是的，磁盘故障。"))
	if err != nil {
		t.Fatalf("run 4: %v", err)
	}
	if got := len(model.Requests()[0].Messages); got != 1+15+1 {
		t.Errorf("run 4's request has %d messages, want 17", got)
	}
}

// wrapped hides every optional interface of a store (SessionLocker): RunSession only has
// Load and Append.
type wrapped struct{ agentkit.Memory }

// RunSession gives the same transcripts on every store, with the agent's system prompt or the
// one stored in the session.
func TestRunSessionStoresAgree(t *testing.T) {
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴", nil
	})
	turns := []struct {
		input   string
		replies []agentkittest.Reply
	}{
		{"北京？", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)), agentkittest.Text("晴。")}},
		{"上海和广州？", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"上海"}`), agentkittest.Call("get_weather", `{"city":"广州"}`)), agentkittest.Text("都晴。")}},
		{"谢谢", []agentkittest.Reply{agentkittest.Text("不客气。")}},
	}
	stores := map[string]func(t *testing.T) agentkit.Memory{
		"InMemory": func(*testing.T) agentkit.Memory { return memory.NewInMemory() },
		"wrapped":  func(*testing.T) agentkit.Memory { return wrapped{memory.NewInMemory()} },
		"SQLite": func(t *testing.T) agentkit.Memory {
			s, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, storedPrompt := range []bool{false, true} {
		transcripts := map[string][][]openai.ChatCompletionMessage{}
		for name, newStore := range stores {
			store := newStore(t)
			if storedPrompt {
				if err := store.Append(context.Background(), "s", []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "stored prompt"}}); err != nil {
					t.Fatal(err)
				}
			}
			for _, turn := range turns {
				agent := agentkit.New(agentkittest.New(t, turn.replies...), &agentkit.Options{Instructions: "agent prompt", Tools: []*tool.Tool{weather}, Memory: store})
				res, err := agent.RunSession(context.Background(), "s", turn.input)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				transcripts[name] = append(transcripts[name], res.Messages)
			}
		}
		want := transcripts["wrapped"]
		if got := want[0][0].Content; (got == "stored prompt") != storedPrompt {
			t.Errorf("stored prompt %v: the transcript starts with %q", storedPrompt, got)
		}
		for name, got := range transcripts {
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("stored prompt %v: %s's transcripts differ from the wrapped store's (-wrapped +%s):\n%s", storedPrompt, name, name, diff)
			}
		}
	}
}
