package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

func TestFoldBelowTriggerChangesNothing(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(4, 1)
	rec := &recorder{}
	f := memory.Fold(memory.FoldOptions{Trigger: c.Messages(msgs), Summarizer: rec, Counter: c})
	got, err := f.Apply(context.Background(), "s", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Fatalf("view (-want +got):\n%s", diff)
	}
	if rec.count() != 0 {
		t.Errorf("summarizer called %d times below the trigger", rec.count())
	}
}

func TestFoldFoldsOldestTurnsInABatch(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(10, 1)
	ts := turnStarts(msgs)
	rec := &recorder{}
	var events []memory.FoldEvent
	trigger := c.Messages(msgs) - 1
	f := memory.Fold(memory.FoldOptions{Trigger: trigger, Keep: 2, Summarizer: rec, Counter: c,
		OnEvent: func(ctx context.Context, e memory.FoldEvent) { events = append(events, e) }})
	in := cat(msgs)
	got, err := f.Apply(context.Background(), "s", in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, in); diff != "" {
		t.Fatalf("Apply modified its input (-before +after):\n%s", diff)
	}
	if rec.count() != 1 {
		t.Fatalf("summarizer calls = %d, want 1", rec.count())
	}
	call := rec.calls[0]
	if call.previous != "" {
		t.Errorf("first fold's previous summary = %q, want empty", call.previous)
	}
	// The batch is whole turns from the first user message's replies on, and brings the
	// estimate down to Target = Trigger/2.
	folded := len(call.turns)
	to := 2 + folded
	if !containsInt(ts, to) {
		t.Fatalf("fold ends at message %d, not at a turn start %v", to, ts)
	}
	if diff := cmp.Diff(msgs[2:to], call.turns); diff != "" {
		t.Errorf("folded messages (-want +got):\n%s", diff)
	}
	if rest := c.Messages(cat(msgs[:2], msgs[to:])); rest > trigger/2 {
		t.Errorf("after the fold the kept messages cost %d tokens, above the target %d", rest, trigger/2)
	}
	if rest := c.Messages(cat(msgs[:2], msgs[to-5:])); rest <= trigger/2 {
		t.Errorf("the fold took a turn more than the target needs (%d tokens without it)", rest)
	}

	want := cat(msgs[:2], []openai.ChatCompletionMessage{{Role: "assistant", Content: memory.SummaryPrefix + "\nsummary 1: " + fmt.Sprint(folded) + ` messages, first ""`}}, msgs[to:])
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("view (-want +got):\n%s", diff)
	}
	if err := agentkit.ValidateHistory(got); err != nil {
		t.Errorf("view invalid: %v", err)
	}
	if len(events) != 1 || events[0].Err != nil || events[0].Folded != folded || events[0].Batch != folded || events[0].Calls != 1 ||
		events[0].Before != c.Messages(msgs) || events[0].After != c.Messages(got) {
		t.Errorf("events = %+v", events)
	}

	// The next request, one message longer, reuses the summary: no new call.
	next := cat(msgs, []openai.ChatCompletionMessage{{Role: "user", Content: "and now?"}})
	got2, err := f.Apply(context.Background(), "s", next)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count() != 1 {
		t.Errorf("summarizer calls = %d after the next request, want 1", rec.count())
	}
	if diff := cmp.Diff(cat(want, next[len(next)-1:]), got2); diff != "" {
		t.Errorf("next view (-want +got):\n%s", diff)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A conversation growing turn by turn: folds are incremental (each gets the previous
// summary and only new turns), amortized (few calls), never touch the latest Keep turns,
// and keep every view under the trigger.
func TestFoldIncrementalOverAConversation(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	all := syntheticConversation(60, 2)
	ts := turnStarts(all)
	rec := &recorder{}
	const keep = 3
	trigger := 6000
	f := memory.Fold(memory.FoldOptions{Trigger: trigger, Keep: keep, Summarizer: rec, Counter: c})
	requests := 0
	for i := 1; i < len(ts); i++ {
		msgs := all[:ts[i]] // the transcript when the model is asked to answer turn i-1
		view, err := f.Apply(context.Background(), "s", msgs)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		requests++
		if n := c.Messages(view); n > trigger {
			t.Fatalf("turn %d: view costs %d tokens, trigger %d", i, n, trigger)
		}
		if err := agentkit.ValidateHistory(view); err != nil {
			t.Fatalf("turn %d: view invalid: %v", i, err)
		}
		if diff := cmp.Diff(msgs[1], view[1]); diff != "" {
			t.Fatalf("turn %d: first user message changed:\n%s", i, diff)
		}
		// The latest keep turns are in the view, whole.
		from := ts[max(0, i-keep)]
		if diff := cmp.Diff(msgs[from:], view[len(view)-(len(msgs)-from):]); diff != "" {
			t.Fatalf("turn %d: latest turns not kept whole:\n%s", i, diff)
		}
	}
	calls := rec.calls
	if len(calls) == 0 || len(calls) > requests/5 {
		t.Fatalf("%d summarizer calls for %d requests: folds are not batched", len(calls), requests)
	}
	next := 2 // the first message not folded yet
	for k, call := range calls {
		if k > 0 && !strings.HasPrefix(call.previous, fmt.Sprintf("summary %d:", k)) {
			t.Errorf("call %d: previous = %q, want the summary of call %d", k+1, call.previous, k)
		}
		if diff := cmp.Diff(all[next:next+len(call.turns)], call.turns); diff != "" {
			t.Fatalf("call %d did not get the next messages in order:\n%s", k+1, diff)
		}
		next += len(call.turns)
	}
}

func TestFoldFailureLeavesHistoryUnchanged(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(10, 1)
	boom := errors.New("model unavailable")
	tests := []struct {
		name       string
		summarizer memory.Summarizer
		wantErr    string
	}{
		{"error", &recorder{err: boom}, "model unavailable"},
		{"empty summary", memory.SummarizerFunc(func(context.Context, string, []openai.ChatCompletionMessage) (string, error) { return " \n", nil }), "empty summary"},
		{"canceled", memory.SummarizerFunc(func(ctx context.Context, _ string, _ []openai.ChatCompletionMessage) (string, error) {
			return "", context.Canceled
		}), "canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []memory.FoldEvent
			f := memory.Fold(memory.FoldOptions{Trigger: c.Messages(msgs) / 2, Summarizer: tt.summarizer, Counter: c,
				OnEvent: func(ctx context.Context, e memory.FoldEvent) { events = append(events, e) }})
			got, err := f.Apply(context.Background(), "s", msgs)
			if err != nil {
				t.Fatalf("Apply = %v, want no error", err)
			}
			if diff := cmp.Diff(msgs, got); diff != "" {
				t.Fatalf("view after a failed fold (-want +got):\n%s", diff)
			}
			if len(events) != 1 || events[0].Err == nil || !strings.Contains(events[0].Err.Error(), tt.wantErr) {
				t.Fatalf("events = %+v, want one with an error containing %q", events, tt.wantErr)
			}
		})
	}
}

// After a successful fold, a failing one keeps the summary it has: the view is the one
// before the failed fold and the turns since, not the whole history, which would cost every
// turn the summary stands for and could overflow the model's context.
func TestFoldFailureAfterSuccess(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	all := syntheticConversation(30, 1)
	ts := turnStarts(all)
	rec := &recorder{}
	f := memory.Fold(memory.FoldOptions{Trigger: 2500, Summarizer: rec, Counter: c})
	i := 1
	var folded []openai.ChatCompletionMessage // the view of the previous history
	for ; rec.count() == 0; i++ {
		var err error
		if folded, err = f.Apply(context.Background(), "s", all[:ts[i]]); err != nil {
			t.Fatal(err)
		}
	}
	rec.err = errors.New("down")
	for ; i < len(ts); i++ {
		msgs := all[:ts[i]]
		got, err := f.Apply(context.Background(), "s", msgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.calls) > 1 { // a second fold was attempted and failed
			want := cat(folded, all[ts[i-1]:ts[i]]) // the previous view and the new turn
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("view after a failed second fold (-want +got):\n%s", diff)
			}
			return
		}
		folded = got
	}
	t.Fatal("no second fold was attempted")
}

func TestFoldBudgetTooSmall(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(6, 2)
	ts := turnStarts(msgs)
	lastTwo := c.Messages(cat(msgs[:2], msgs[ts[4]:]))
	tests := []struct {
		name    string
		trigger int
		wantErr error
	}{
		{"the latest turns do not fit", lastTwo - 1, memory.ErrBudgetTooSmall},
		{"no room for the summary", lastTwo + 5, memory.ErrBudgetTooSmall},
		{"room for the summary", lastTwo + 100, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			_, err := memory.Fold(memory.FoldOptions{Trigger: tt.trigger, Target: tt.trigger, Keep: 2, Summarizer: rec, Counter: c}).Apply(context.Background(), "s", msgs)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// Runs without a session share the key "": conversations with different first messages
// never get each other's summary.
func TestFoldSeparatesConversationsWithoutSession(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	a := syntheticConversation(10, 1)
	b := cat(a)
	b[1] = openai.ChatCompletionMessage{Role: "user", Content: "a different first question"}
	folds := 0
	f := memory.Fold(memory.FoldOptions{Trigger: c.Messages(a) / 2, Summarizer: &recorder{}, Counter: c,
		OnEvent: func(context.Context, memory.FoldEvent) { folds++ }})
	for _, msgs := range [][]openai.ChatCompletionMessage{a, b, a, b} {
		if _, err := f.Apply(context.Background(), "", msgs); err != nil {
			t.Fatal(err)
		}
	}
	if folds != 2 {
		t.Errorf("folds = %d, want 2 (one per conversation)", folds)
	}
}

// With a Store, a new Fold (a restarted process) reads the summary back instead of folding
// again, and only for the history it was made from.
func TestFoldStore(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(10, 1)
	store := memory.NewInMemory()
	rec := &recorder{}
	opts := memory.FoldOptions{Trigger: c.Messages(msgs) / 2, Summarizer: rec, Counter: c, Store: store}
	first, err := memory.Fold(opts).Apply(context.Background(), "s", msgs)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := store.LoadSummary(context.Background(), "s")
	calls := rec.count()
	if sum.Folded == 0 || sum.Text != fmt.Sprintf("summary %d: %d messages, first %q", calls, len(rec.calls[calls-1].turns), clipText(rec.calls[calls-1].turns[0].Content, 30)) {
		t.Fatalf("stored summary = %+v", sum)
	}
	again, err := memory.Fold(opts).Apply(context.Background(), "s", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count() != calls {
		t.Errorf("summarizer calls = %d after a restart, want %d", rec.count(), calls)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("view after a restart (-want +got):\n%s", diff)
	}
	// A different history under the same session id: the stored summary does not fit.
	other := cat(msgs)
	other[1].Content = "another task"
	if _, err := memory.Fold(opts).Apply(context.Background(), "s", other); err != nil {
		t.Fatal(err)
	}
	if rec.count() == calls {
		t.Error("the summary of another history was reused")
	}
}

// Clearing tool results before folding changes the folded messages' contents from request
// to request; the summary is still reused.
func TestFoldAfterClearToolResults(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	all := syntheticConversation(60, 2)
	ts := turnStarts(all)
	rec := &recorder{}
	s := memory.Chain(memory.ClearToolResults(1), memory.Fold(memory.FoldOptions{Trigger: 3000, Keep: 4, Summarizer: rec, Counter: c}))
	for i := 1; i < len(ts); i++ {
		view, err := s.Apply(context.Background(), "s", all[:ts[i]])
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if err := agentkit.ValidateHistory(view); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	if n := rec.count(); n == 0 || n > 15 {
		t.Errorf("summarizer calls = %d over %d requests", n, len(ts)-1)
	}
}

// A long backlog is folded in chunks the summarizer can read, each no bigger than Trigger.
func TestFoldChunksALongBacklog(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(80, 1)
	rec := &recorder{}
	trigger := 3000
	var events []memory.FoldEvent
	f := memory.Fold(memory.FoldOptions{Trigger: trigger, Keep: 1, Summarizer: rec, Counter: c,
		OnEvent: func(ctx context.Context, e memory.FoldEvent) { events = append(events, e) }})
	if _, err := f.Apply(context.Background(), "s", msgs); err != nil {
		t.Fatal(err)
	}
	if rec.count() < 2 {
		t.Fatalf("summarizer calls = %d, want several chunks", rec.count())
	}
	for k, call := range rec.calls {
		if n := c.Messages(call.turns) - 3; n > trigger {
			t.Errorf("chunk %d costs %d tokens, above %d", k, n, trigger)
		}
	}
	if len(events) != 1 || events[0].Calls != rec.count() {
		t.Errorf("events = %+v, want one reporting %d calls", events, rec.count())
	}
}

func TestFoldConcurrentSessions(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(20, 1)
	var mu sync.Mutex
	folds := map[string]int{}
	f := memory.Fold(memory.FoldOptions{Trigger: c.Messages(msgs) / 3, Summarizer: &recorder{}, Counter: c,
		OnEvent: func(ctx context.Context, e memory.FoldEvent) {
			mu.Lock()
			folds[e.Session]++
			mu.Unlock()
		}})
	var wg sync.WaitGroup
	for s := range 8 {
		wg.Go(func() {
			for range 5 {
				view, err := f.Apply(context.Background(), fmt.Sprint("s", s), msgs)
				if err != nil {
					t.Error(err)
					return
				}
				if err := agentkit.ValidateHistory(view); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(folds) != 8 {
		t.Errorf("folds in %d sessions, want 8", len(folds))
	}
	for s, n := range folds {
		if n != 1 {
			t.Errorf("session %s folded %d times, want 1", s, n)
		}
	}
}

func TestFoldPanics(t *testing.T) {
	tests := []struct {
		name string
		opts memory.FoldOptions
	}{
		{"no trigger", memory.FoldOptions{Summarizer: &recorder{}}},
		{"no summarizer", memory.FoldOptions{Trigger: 10}},
		{"target above trigger", memory.FoldOptions{Trigger: 10, Target: 11, Summarizer: &recorder{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Fold did not panic")
				}
			}()
			memory.Fold(tt.opts)
		})
	}
}

// countingStore counts the reads of a SummaryStore.
type countingStore struct {
	memory.InMemory
	loads int
}

func (s *countingStore) LoadSummary(ctx context.Context, session string) (memory.Summary, error) {
	s.loads++
	return s.InMemory.LoadSummary(ctx, session)
}

func TestFoldReadsTheStoreOnce(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	all := syntheticConversation(20, 1)
	ts := turnStarts(all)
	store := &countingStore{}
	f := memory.Fold(memory.FoldOptions{Trigger: 2000, Summarizer: &recorder{}, Counter: c, Store: store})
	for i := 1; i < len(ts); i++ {
		if _, err := f.Apply(context.Background(), "s", all[:ts[i]]); err != nil {
			t.Fatal(err)
		}
	}
	if store.loads != 1 {
		t.Errorf("LoadSummary called %d times over %d requests, want 1", store.loads, len(ts)-1)
	}
}

type brokenStore struct{}

func (brokenStore) LoadSummary(context.Context, string) (memory.Summary, error) {
	return memory.Summary{}, errors.New("store down")
}
func (brokenStore) SaveSummary(context.Context, string, memory.Summary) error {
	return errors.New("store down")
}

// A failing Store is reported, and folding goes on without it.
func TestFoldStoreErrors(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(10, 1)
	var events []memory.FoldEvent
	f := memory.Fold(memory.FoldOptions{Trigger: c.Messages(msgs) / 2, Summarizer: &recorder{}, Counter: c, Store: brokenStore{},
		OnEvent: func(ctx context.Context, e memory.FoldEvent) { events = append(events, e) }})
	view, err := f.Apply(context.Background(), "s", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(view) >= len(msgs) {
		t.Errorf("no fold: %d messages of %d", len(view), len(msgs))
	}
	if len(events) != 2 || events[0].StoreErr == nil || events[1].StoreErr == nil || events[1].Err != nil || events[1].Folded == 0 {
		t.Errorf("events = %+v, want a load error then a fold with a save error", events)
	}
}
