package agentkit_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A streamed run pauses as a plain one does (its calls started early included), and
// ResumeStream streams the resumed turn's tool events and the answer; a refused
// ResumeStream ends at once with its EventRunEnd.
func TestResumeStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	var b bank
	model := agentkittest.New(t, pauseTurn(), agentkittest.Text("办好了"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Ledger: &mapLedger{}})
	s := a.RunStream(context.Background(), "给 alice 和 bob 转账")
	var last agentkit.Event
	for e := range s.Events() {
		last = e
	}
	res, err := s.Result()
	if !errors.Is(err, agentkit.ErrPaused) || last.Kind != agentkit.EventRunEnd || last.Stop != agentkit.StopPaused {
		t.Fatalf("RunStream = %q, %v, last event %v; want a pause", res.Stop, err, last.Kind)
	}
	if b.transfers.Load() != 0 || b.lookups.Load() != 1 {
		t.Errorf("before the decision: transfer ran %d times, lookup %d; want 0, 1", b.transfers.Load(), b.lookups.Load())
	}
	decisions := []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}}
	s = a.ResumeStream(context.Background(), res.Pause, decisions)
	kinds := map[agentkit.EventKind]int{}
	var text string
	for e := range s.Events() {
		kinds[e.Kind]++
		if e.Kind == agentkit.EventTextDelta {
			text += e.Text
		}
	}
	got, err := s.Result()
	if err != nil || got.Output != "办好了" || text != "办好了" {
		t.Fatalf("ResumeStream = %q, %v, streamed %q", got.Output, err, text)
	}
	if kinds[agentkit.EventToolEnd] != 2 || kinds[agentkit.EventRunEnd] != 1 || b.transfers.Load() != 2 {
		t.Errorf("events %v, transfer ran %d times; want 2 tool ends (the approved calls), 1 run end, 2 runs", kinds, b.transfers.Load())
	}

	s = a.ResumeStream(context.Background(), res.Pause, decisions)
	n := 0
	for e := range s.Events() {
		n++
		last = e
	}
	if _, err := s.Result(); !errors.Is(err, agentkit.ErrAlreadyResumed) || n != 1 || last.Stop != agentkit.StopResumeRefused {
		t.Errorf("a second ResumeStream = %v after %d events; want ErrAlreadyResumed after its EventRunEnd only", err, n)
	}
}
