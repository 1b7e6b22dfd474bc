package agentkit_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// A RunSession that pauses keeps its pause in the store; the session's history stays valid
// and ends before the paused turn; a new message on the paused session is refused; and
// ResumeSession continues it once.
func TestResumeSession(t *testing.T) {
	var b bank
	store := memory.NewInMemory()
	model := agentkittest.New(t, pauseTurn(), agentkittest.Text("办好了"))
	a := agentkit.New(model, &agentkit.Options{Instructions: "你是银行助手。", Tools: []*tool.Tool{b.transfer(), b.lookup()}, Memory: store})
	ctx := context.Background()
	res, err := a.RunSession(ctx, "u1", "给 alice 和 bob 转账")
	if !errors.Is(err, agentkit.ErrPaused) || res.Pause == nil || res.Pause.Session != "u1" {
		t.Fatalf("RunSession = %q, %v; want a pause of session u1", res.Stop, err)
	}
	hist, _ := store.Load(ctx, "u1")
	if err := agentkit.ValidateHistory(hist); err != nil || len(hist) != 1 {
		t.Errorf("the paused session holds %d messages (%v), want the user's only, valid", len(hist), err)
	}
	shown, err := a.SessionPause(ctx, "u1")
	if err != nil || len(shown.Pending) != 2 {
		t.Fatalf("SessionPause = %v, %v; want the two pending transfers", shown, err)
	}

	res, err = a.RunSession(ctx, "u1", "怎么还没好？")
	if !errors.Is(err, agentkit.ErrSessionPaused) || res.Stop != agentkit.StopPaused || res.Pause == nil {
		t.Errorf("RunSession on a paused session = %q, %v; want StopPaused, ErrSessionPaused and the pause", res.Stop, err)
	}
	if hist2, _ := store.Load(ctx, "u1"); len(hist2) != 1 || len(model.Requests()) != 1 {
		t.Errorf("the refused RunSession stored %d messages or called the model (%d requests)", len(hist2)-1, len(model.Requests())-1)
	}

	if _, err := a.Resume(ctx, shown, []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b"}}); !errors.Is(err, agentkit.ErrInvalidPause) {
		t.Errorf("Resume of a session's pause = %v, want ErrInvalidPause (it resumes with ResumeSession)", err)
	}
	if _, err := a.ResumeSession(ctx, "u1", []agentkit.Decision{{CallID: "call_a", Approve: true}}); !errors.Is(err, agentkit.ErrDecision) {
		t.Fatalf("ResumeSession with a decision missing = %v, want ErrDecision", err)
	}

	decisions := []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Message: "bob 不用了"}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, others := 0, 0
	for range 8 {
		wg.Go(func() {
			res, err := a.ResumeSession(ctx, "u1", decisions)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && res.Output == "办好了":
				wins++
			case errors.Is(err, agentkit.ErrNoPause) || errors.Is(err, agentkit.ErrAlreadyResumed):
				others++
			default:
				t.Errorf("ResumeSession = %q, %v", res.Stop, err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || others != 7 || b.transfers.Load() != 1 {
		t.Errorf("8 ResumeSessions: %d won, %d refused, transfer ran %d times; want 1, 7, 1", wins, others, b.transfers.Load())
	}
	hist, _ = store.Load(ctx, "u1")
	if err := agentkit.ValidateHistory(hist); err != nil || len(hist) != 6 {
		t.Errorf("the resumed session holds %d messages (%v), want 6 (user, the call, 3 results, the answer)", len(hist), err)
	}
	if _, err := a.SessionPause(ctx, "u1"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Errorf("SessionPause after the resume = %v, want ErrNoPause", err)
	}
}

// A session whose Memory keeps no pauses does not pause: the calls that would wait are
// answered not executed, and the run goes on.
func TestSessionWithoutPauseStore(t *testing.T) {
	var b bank
	mem := &sessionMemory{sessions: map[string][]openai.ChatCompletionMessage{}}
	model := agentkittest.New(t, pauseTurn(), agentkittest.Text("需要您批准"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Memory: mem})
	res, err := a.RunSession(context.Background(), "s", "转账")
	if err != nil || res.Output != "需要您批准" || res.Pause != nil {
		t.Fatalf("RunSession = %q, %v, pause %v; want the answer", res.Stop, err, res.Pause)
	}
	if k := res.Steps[0].Calls[0].Result.Kind; k != tool.KindNotExecuted || b.transfers.Load() != 0 {
		t.Errorf("the transfer's result = %q, ran %d times; want not_executed, 0", k, b.transfers.Load())
	}
	if err := agentkit.ValidateHistory(mem.sessions["s"]); err != nil {
		t.Error(err)
	}
}

// The streamed forms: RunSessionStream pauses the session, ResumeSessionStream resumes it.
func TestResumeSessionStream(t *testing.T) {
	var b bank
	store := memory.NewInMemory()
	model := agentkittest.New(t, pauseTurn(), agentkittest.Text("办好了"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Memory: store})
	ctx := context.Background()
	s := a.RunSessionStream(ctx, "u", "转账")
	for range s.Events() {
	}
	if _, err := s.Result(); !errors.Is(err, agentkit.ErrPaused) {
		t.Fatalf("RunSessionStream = %v, want ErrPaused", err)
	}
	s = a.ResumeSessionStream(ctx, "u", []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}})
	answers := 0
	for e := range s.Events() {
		if e.Kind == agentkit.EventAnswer {
			answers++
		}
	}
	res, err := s.Result()
	if err != nil || res.Output != "办好了" || answers != 1 || b.transfers.Load() != 2 {
		t.Fatalf("ResumeSessionStream = %q, %v, %d answers, %d transfers", res.Output, err, answers, b.transfers.Load())
	}
	s = a.ResumeSessionStream(ctx, "u", nil)
	for range s.Events() {
	}
	if res, err := s.Result(); !errors.Is(err, agentkit.ErrNoPause) || res.Stop != agentkit.StopResumeRefused {
		t.Errorf("ResumeSessionStream of a resumed session = %q, %v; want StopResumeRefused, ErrNoPause", res.Stop, err)
	}
}

// failingPauses is a PauseStore whose SavePause fails.
type failingPauses struct{ *memory.InMemory }

func (failingPauses) SavePause(context.Context, string, []byte) error {
	return errors.New("disk full")
}

// A RunSession whose pause cannot be saved ends with StopMemoryError and no Pause (Result.Pause
// is nil unless the run paused: that one could be resumed nowhere), its session valid and
// without a pause.
func TestRunSessionPauseNotSaved(t *testing.T) {
	var b bank
	store := failingPauses{memory.NewInMemory()}
	a := agentkit.New(agentkittest.New(t, pauseTurn()), &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Memory: store})
	res, err := a.RunSession(context.Background(), "u1", "转账")
	if res.Stop != agentkit.StopMemoryError || err == nil || res.Pause != nil {
		t.Fatalf("RunSession = %q, %v, pause %v; want StopMemoryError and no pause", res.Stop, err, res.Pause != nil)
	}
	hist, _ := store.Load(context.Background(), "u1")
	if err := agentkit.ValidateHistory(hist); err != nil {
		t.Errorf("the session does not validate: %v", err)
	}
	if _, err := store.LoadPause(context.Background(), "u1"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Errorf("LoadPause = %v, want ErrNoPause", err)
	}
}
