package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A session that paused in one process resumes in another, after a restart, once: two
// processes resuming it at the same time run the approved transfer once between them, and
// the session's history is whole and valid afterwards.
func TestResumeSessionAfterRestart(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	path := filepath.Join(t.TempDir(), "sessions.db")
	var transfers atomic.Int32
	transfer := tool.New("transfer", "转账。", func(ctx context.Context, in struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}) (string, error) {
		transfers.Add(1)
		return "已转账", nil
	}, tool.Options{RequireApproval: true})
	ctx := context.Background()
	key := []byte("k")

	first := openStore(t, path)
	a := agentkit.New(agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c1", "transfer", `{"to":"bob","amount":500}`))),
		&agentkit.Options{Tools: []*tool.Tool{transfer}, Memory: first, PauseKey: key})
	if _, err := a.RunSession(ctx, "u", "转账 500 元给 bob"); !errors.Is(err, agentkit.ErrPaused) {
		t.Fatalf("RunSession = %v, want ErrPaused", err)
	}
	first.Close() // the process ends

	// Two new processes, each with its Store on the file, resume at once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	var last *agentkit.Agent
	for range 2 {
		s := openStore(t, path)
		model := agentkittest.New(nil, agentkittest.Text("已转账给 bob"))
		b := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{transfer}, Memory: s, PauseKey: key})
		last = b
		wg.Go(func() {
			res, err := b.ResumeSession(ctx, "u", []agentkit.Decision{{CallID: "c1", Approve: true}})
			switch {
			case err == nil && res.Output == "已转账给 bob":
				mu.Lock()
				wins++
				mu.Unlock()
			case errors.Is(err, agentkit.ErrNoPause) || errors.Is(err, agentkit.ErrAlreadyResumed):
			default:
				t.Errorf("ResumeSession = %q, %v", res.Stop, err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || transfers.Load() != 1 {
		t.Errorf("two processes resuming: %d won, transfer ran %d times; want 1, 1", wins, transfers.Load())
	}
	check := openStore(t, path)
	hist, err := check.Load(ctx, "u")
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
