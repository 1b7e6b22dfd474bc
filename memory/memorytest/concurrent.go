package memorytest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// The subtests of concurrent use, contexts and session locks.

func testConcurrentSessions(t *testing.T, m agentkit.Memory) {
	const sessions, steps = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, sessions*steps)
	for s := range sessions {
		wg.Go(func() {
			id := "s" + strconv.Itoa(s)
			if err := m.Append(context.Background(), id, []openai.ChatCompletionMessage{User(id)}); err != nil {
				errs <- err
				return
			}
			for i := range steps {
				if err := m.Append(context.Background(), id, Step(fmt.Sprintf("call_%d_%d", s, i), 2)); err != nil {
					errs <- err
					return
				}
				if _, err := m.Load(context.Background(), id); err != nil {
					errs <- err
					return
				}
				if rl, ok := m.(agentkit.RecentLoader); ok {
					if _, _, err := rl.LoadRecent(context.Background(), id, 1); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent use: %v", err)
	}
	for s := range sessions {
		id := "s" + strconv.Itoa(s)
		want := []openai.ChatCompletionMessage{User(id)}
		for i := range steps {
			want = append(want, Step(fmt.Sprintf("call_%d_%d", s, i), 2)...)
		}
		got := load(t, m, id)
		if diff := cmp.Diff(want, got, equal); diff != "" {
			t.Errorf("session %s after concurrent appends (-want +got):\n%s", id, diff)
		}
	}
}

// Appends to one session at once (which a SessionLocker prevents for runs, but a Memory
// must survive) each land whole.
func testConcurrentOneSession(t *testing.T, m agentkit.Memory) {
	const writers, steps = 4, 10
	appendOK(t, m, "s", User("q"))
	var wg sync.WaitGroup
	errs := make(chan error, writers*steps)
	for w := range writers {
		wg.Go(func() {
			for i := range steps {
				turn := append([]openai.ChatCompletionMessage{User(fmt.Sprintf("q%d_%d", w, i))}, Step(fmt.Sprintf("call_%d_%d", w, i), 3)...)
				if err := m.Append(context.Background(), "s", turn); err != nil {
					errs <- err
				}
				// Partial loads while the session grows, as runs of it with a turn window do.
				if rl, ok := m.(agentkit.RecentLoader); ok {
					if _, _, err := rl.LoadRecent(context.Background(), "s", 1); err != nil {
						errs <- err
					} else if _, err := rl.CallIDUsed(context.Background(), "s", "call_0_0"); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent appends: %v", err)
	}
	got := load(t, m, "s")
	if want := 1 + writers*steps*5; len(got) != want {
		t.Fatalf("%d messages, want %d", len(got), want)
	}
	if err := agentkit.ValidateHistory(got); err != nil {
		t.Fatalf("concurrent appends interleaved their batches: %v", err)
	}
}

func testCanceled(t *testing.T, m agentkit.Memory) {
	appendOK(t, m, "s", User("q"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := m.Append(ctx, "s", []openai.ChatCompletionMessage{Assistant("after cancel")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a canceled context = %v, want an error wrapping context.Canceled", err)
	}
	if got := load(t, m, "s"); len(got) != 1 {
		t.Errorf("Append with a canceled context appended: %d messages, want 1", len(got))
	}
	if _, err := m.Load(ctx, "s"); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a canceled context = %v, want an error wrapping context.Canceled", err)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	if _, err := m.Load(dctx, "s"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Load past its deadline = %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

// testLocker checks a SessionLocker: a held session is not granted again until unlocked
// (Lock waits or refuses with ErrSessionBusy, both allowed), other sessions are not held up.
func testLocker(t *testing.T, m agentkit.Memory) {
	l, ok := m.(agentkit.SessionLocker)
	if !ok {
		t.Skip("the store is not an agentkit.SessionLocker")
	}
	unlock, err := l.Lock(context.Background(), "s")
	if err != nil {
		t.Fatalf("Lock of a free session: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	u2, err := l.Lock(ctx, "s")
	cancel()
	if err == nil {
		u2()
		unlock()
		t.Fatal("Lock granted a session another run holds")
	}
	if !errors.Is(err, agentkit.ErrSessionBusy) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock of a held session = %v, want an error wrapping agentkit.ErrSessionBusy or the context's error", err)
	}

	other, err := l.Lock(context.Background(), "other")
	if err != nil {
		t.Fatalf("Lock of another session while one is held: %v", err)
	}
	other()

	// A waiter gets the session once it is released (a refusing store refuses at once).
	got := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u, err := l.Lock(ctx, "s")
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	if err := <-got; err != nil && !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("Lock after release = %v", err)
	}

	unlock, err = l.Lock(context.Background(), "s")
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	unlock()

	// Many runs of one session: never two at once.
	var mu sync.Mutex
	holders, maxHolders := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			u, err := l.Lock(ctx, "busy")
			if err != nil {
				return
			}
			mu.Lock()
			holders++
			maxHolders = max(maxHolders, holders)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			holders--
			mu.Unlock()
			u()
		})
	}
	wg.Wait()
	if maxHolders > 1 {
		t.Errorf("%d runs held one session at once", maxHolders)
	}
}
