package memory_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// growth applies s to a conversation growing by one turn at a time (turns 1..n), and returns
// the views.
func growth(t *testing.T, s agentkit.ContextStrategy, n int) (full [][]openai.ChatCompletionMessage, views [][]openai.ChatCompletionMessage) {
	t.Helper()
	msgs := syntheticConversation(0, 0)
	for i := range n {
		msgs = append(msgs, syntheticTurn(i, 1)...)
		view, err := s.Apply(context.Background(), "s", cat(msgs))
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if err := agentkit.ValidateHistory(view); err != nil {
			t.Fatalf("turn %d: view invalid: %v", i, err)
		}
		full, views = append(full, cat(msgs)), append(views, view)
	}
	return full, views
}

// moves counts the views that do not begin with the previous view: those that break the
// prompt cache.
func moves(views [][]openai.ChatCompletionMessage) int {
	n := 0
	for i := 1; i < len(views); i++ {
		prev, cur := views[i-1], views[i]
		if len(cur) < len(prev) || !cmp.Equal(prev, cur[:len(prev)]) {
			n++
		}
	}
	return n
}

// keptTurns counts the turns of a view besides the first user message's.
func keptTurns(view []openai.ChatCompletionMessage) int {
	return len(turnStarts(view)) - 1
}

// With MaxTurns, the window keeps between MaxTurns-Block+1 and MaxTurns turns, and its first
// turn moves about every Block/2 turns: a view begins with the previous one far more often
// than with a window that moves every turn (Block 1).
func TestWindowMaxTurnsMovesInBlocks(t *testing.T) {
	const turns, maxTurns = 200, 20
	tests := []struct {
		block            int
		minMoves, maxMov int
	}{
		{1, turns - maxTurns, turns - maxTurns}, // every turn past MaxTurns
		{10, (turns - maxTurns) / 10, (turns - maxTurns) * 3 / 11},
		{20, (turns - maxTurns) / 20, (turns - maxTurns) * 3 / 21},
	}
	for _, tt := range tests {
		_, views := growth(t, memory.Window(memory.WindowOptions{MaxTurns: maxTurns, Block: tt.block}), turns)
		for i, v := range views {
			if got, lo := keptTurns(v), maxTurns-tt.block; i >= maxTurns && (got <= lo || got > maxTurns) {
				t.Errorf("Block %d, turn %d: the view carries %d turns, want %d to %d", tt.block, i, got, lo+1, maxTurns)
			}
		}
		if got := moves(views); got < tt.minMoves || got > tt.maxMov {
			t.Errorf("Block %d: the view's beginning moved %d times in %d turns, want %d to %d", tt.block, got, turns, tt.minMoves, tt.maxMov)
		}
	}
}

// The window decides from the history alone: the view of a session loaded in part (its
// first user message and its latest TurnLimit turns, as RunSession loads it for a
// TurnLimiter, or more) is the view of the whole session.
func TestWindowMaxTurnsSameOnPartialLoads(t *testing.T) {
	const maxTurns = 8
	for _, opts := range []memory.WindowOptions{
		{MaxTurns: maxTurns},
		{MaxTurns: maxTurns, Block: 3},
		{MaxTurns: maxTurns, Budget: 4000, Counter: memory.NewCounter("gpt-4o")},
	} {
		w := memory.Window(opts)
		limit := w.(agentkit.TurnLimiter).TurnLimit() // RunSession loads limit-1 turns, then adds its own
		full, views := growth(t, w, 60)
		for i, msgs := range full {
			ts := turnStarts(msgs)
			for _, loaded := range []int{limit, limit + 3} {
				if loaded >= len(ts) {
					continue
				}
				part := cat(msgs[:ts[0]+1], msgs[ts[len(ts)-loaded]:])
				got, err := w.Apply(context.Background(), "s", part)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(views[i], got); diff != "" {
					t.Fatalf("%+v, turn %d, %d turns loaded: the view differs from the whole session's (-whole +part):\n%s", opts, i, loaded, diff)
				}
			}
		}
	}
}

// With a Budget, the window keeps the view within it and cuts down to Target when it must:
// the view begins with the previous one unless the budget forced a cut.
func TestWindowBudgetMovesInBlocks(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	const turns, budget = 120, 6000
	turn := c.Messages(syntheticTurn(1, 1)) // every turn costs about as much
	tests := []struct {
		target   int
		maxMoves int
	}{
		{budget, turns}, // every turn once the budget is reached
		{0, turns*turn/(budget/2-turn) + 1},
		{budget / 4, turns*turn/(budget*3/4-turn) + 1},
	}
	for _, tt := range tests {
		_, views := growth(t, memory.Window(memory.WindowOptions{Budget: budget, Target: tt.target, Counter: c}), turns)
		for i, v := range views {
			if n := c.Messages(v); n > budget {
				t.Errorf("Target %d, turn %d: the view costs %d tokens, the budget is %d", tt.target, i, n, budget)
			}
		}
		got := moves(views)
		if got > tt.maxMoves {
			t.Errorf("Target %d: the view's beginning moved %d times in %d turns, want at most %d", tt.target, got, turns, tt.maxMoves)
		}
		if tt.target == budget && got < turns-budget/turn-2 {
			t.Errorf("Target = Budget: the view's beginning moved %d times in %d turns, want about every turn past the budget", got, turns)
		}
	}
}

// ClearToolResults never clears the latest keep turns' results, always the results older than
// 2×keep+1 turns, and moves the boundary between them every keep+2 turns.
func TestClearToolResultsInBlocks(t *testing.T) {
	const turns = 120
	for _, keep := range []int{1, 2, 4} {
		_, views := growth(t, memory.ClearToolResults(keep), turns)
		for i, v := range views {
			whole := 0 // turns whose results are whole, counted from the end
			for j, u := range turnStarts(v)[1:] {
				if !strings.HasPrefix(v[u+2].Content, "[tool result cleared") {
					whole = len(turnStarts(v)) - 1 - j
					break
				}
			}
			if i >= 2*keep+2 && (whole < keep || whole > 2*keep+1) {
				t.Errorf("keep %d, turn %d: the latest %d turns have their results, want %d to %d", keep, i, whole, keep, 2*keep+1)
			}
		}
		if got, most := moves(views), turns/(keep+2)+1; got > most || got < most-2 {
			t.Errorf("keep %d: the view's beginning moved %d times in %d turns, want %d to %d", keep, got, turns, most-2, most)
		}
	}
}

// Fold changes the beginning of the view only when it folds, and folds in batches down to
// Target: between two folds every view begins with the previous one, and the folds are few.
func TestFoldMovesInBlocks(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	const turns, trigger = 120, 6000
	turn := c.Messages(syntheticTurn(1, 1))
	rec := &recorder{}
	folds := 0
	f := memory.Fold(memory.FoldOptions{Trigger: trigger, Summarizer: rec, Counter: c,
		OnEvent: func(ctx context.Context, e memory.FoldEvent) { folds++ }})
	_, views := growth(t, f, turns)
	for i, v := range views {
		if n := c.Messages(v); n > trigger {
			t.Errorf("turn %d: the view costs %d tokens, the trigger is %d", i, n, trigger)
		}
	}
	t.Logf("%d folds in %d turns (%d tokens a turn)", folds, turns, turn)
	if got := moves(views); got != folds {
		t.Errorf("the view's beginning moved %d times, want once per fold (%d)", got, folds)
	}
	// A fold brings the view to about Target (trigger/2): the next one is trigger/2 later.
	if most := turns*turn/(trigger/2-2*turn) + 1; folds == 0 || folds > most {
		t.Errorf("%d folds in %d turns, want 1 to %d", folds, turns, most)
	}
}

// windowStarts returns, for a conversation growing to n turns, where each view of a Window
// with MaxTurns begins: the turn number in its first kept user message.
func windowStarts(t *testing.T, n int) string {
	t.Helper()
	_, views := growth(t, memory.Window(memory.WindowOptions{MaxTurns: 8}), n)
	var b strings.Builder
	for _, v := range views {
		if ts := turnStarts(v); len(ts) > 1 {
			b.WriteString(strings.Fields(v[ts[1]].Content)[1]) // "Turn 12: …"
		}
	}
	return b.String()
}

// The window's choice is the same in another process: its fingerprints use no per-process
// seed (a store shared by processes, a restart, would otherwise move the window and lose
// the prompt cache). The test runs itself again in a child process and compares.
func TestWindowSameInAnotherProcess(t *testing.T) {
	const env = "TOOLCALL_WINDOW_STARTS_CHILD"
	if os.Getenv(env) == "1" {
		fmt.Println("starts:" + windowStarts(t, 60))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowSameInAnotherProcess$")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, got, ok := strings.Cut(string(out), "starts:")
	got, _, _ = strings.Cut(got, "\n")
	if want := windowStarts(t, 60); !ok || got != want {
		t.Errorf("the child process's windows begin at turns %q, this one's at %q", got, want)
	}
}
