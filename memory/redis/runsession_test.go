package redis_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
	"github.com/toolcall/toolcall/tool"
)

// Runs of one session in two processes, one after the other: the second sees the first
// (through a partial load, the window's MaxTurns, and the recall tool's search of the whole
// session).
func TestRunSessionAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Shared(t)
	prefix := redistest.Prefix()
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴，26℃", nil
	})
	run := func(input string, replies ...agentkittest.Reply) (*agentkit.Result, *agentkittest.Model) {
		t.Helper()
		store, err := redis.New(ctx, srv.Client(t, nil), &redis.Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		model := agentkittest.New(t, replies...)
		agent := agentkit.New(model, &agentkit.Options{
			Instructions: "You are a weather assistant.",
			Tools:        []*tool.Tool{weather, memory.RecallTool(store, nil)},
			Memory:       store,
			Context:      memory.Window(memory.WindowOptions{Budget: 100_000, MaxTurns: 1}), // loads 1 turn before its own
		})
		res, err := agent.RunSession(ctx, "u", input)
		if err != nil {
			t.Fatalf("RunSession(%q): %v", input, err)
		}
		return res, model
	}
	run("北京天气怎么样？", agentkittest.ToolCalls(agentkittest.CallID("call_bj", "get_weather", `{"city":"北京"}`)), agentkittest.Text("北京晴，26℃。"))
	run("上海呢？", agentkittest.Text("上海也晴。"))
	run("广州呢？", agentkittest.Text("广州也晴。"))
	res, model := run("我第一次问的是哪里？",
		agentkittest.ToolCalls(agentkittest.CallID("call_recall", memory.RecallName, `{"query":"北京"}`)),
		agentkittest.Text("北京。"))
	if res.Omitted == 0 {
		t.Errorf("the fourth run loaded the whole session (Omitted 0), want a partial load")
	}
	reqs := model.Requests()
	if got := agentkit.FormatTranscript(reqs[0].Messages); !strings.Contains(got, "北京天气怎么样？") || strings.Contains(got, "上海也晴。") {
		t.Errorf("the fourth run's first request is not the first user message and the latest turns:\n%s", got)
	}
	if got := agentkittest.ToolMessages(reqs[1]); len(got) != 1 || !strings.Contains(got[0].Content, "北京：晴，26℃") {
		t.Errorf("the recall tool's result = %+v, want the first run's tool result", got)
	}
}

// A session that paused in one process resumes in another once: two processes resuming it
// at the same time run the approved transfer once between them, and the session's history
// is whole and valid afterwards.
func TestResumeSessionAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Shared(t)
	prefix := redistest.Prefix()
	open := func() *redis.Store {
		s, err := redis.New(ctx, srv.Client(t, nil), &redis.Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var transfers atomic.Int32
	transfer := tool.New("transfer", "转账。", func(ctx context.Context, in struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}) (string, error) {
		transfers.Add(1)
		return "已转账", nil
	}, tool.Options{RequireApproval: true})
	key := []byte("k")
	a := agentkit.New(agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "transfer", `{"to":"bob","amount":500}`))),
		&agentkit.Options{Tools: []*tool.Tool{transfer}, Memory: open(), PauseKey: key})
	if _, err := a.RunSession(ctx, "u", "转账 500 元给 bob"); !errors.Is(err, agentkit.ErrPaused) {
		t.Fatalf("RunSession = %v, want ErrPaused", err)
	}
	var wg sync.WaitGroup
	var wins atomic.Int32
	var last *agentkit.Agent
	for range 2 {
		store := open()
		b := agentkit.New(agentkittest.New(nil, agentkittest.Text("已转账给 bob")), &agentkit.Options{Tools: []*tool.Tool{transfer}, Memory: store, PauseKey: key})
		last = b
		wg.Go(func() {
			res, err := b.ResumeSession(ctx, "u", []agentkit.Decision{{CallID: "c1", Approve: true}})
			switch {
			case err == nil && res.Output == "已转账给 bob":
				wins.Add(1)
			case errors.Is(err, agentkit.ErrNoPause) || errors.Is(err, agentkit.ErrAlreadyResumed):
			default:
				t.Errorf("ResumeSession = %q, %v", res.Stop, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || transfers.Load() != 1 {
		t.Errorf("two processes resuming: %d won, transfer ran %d times; want 1, 1", wins.Load(), transfers.Load())
	}
	hist, err := open().Load(ctx, "u")
	if err != nil || len(hist) != 4 {
		t.Fatalf("the session holds %d messages (%v), want 4", len(hist), err)
	}
	if err := agentkit.ValidateHistory(hist); err != nil {
		t.Error(err)
	}
	if _, err := last.SessionPause(ctx, "u"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Errorf("SessionPause after the resume = %v, want ErrNoPause", err)
	}
}
