package memorytest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
)

// testLedger checks an agentkit.Ledger: a key is claimed once, by one of many concurrent
// claimers, and keys are independent.
func testLedger(t *testing.T, m agentkit.Memory) {
	l, ok := m.(agentkit.Ledger)
	if !ok {
		t.Skip("the store is not an agentkit.Ledger")
	}
	ctx := context.Background()
	for _, key := range []string{"agentkit.pause:a", "agentkit.pause:b"} {
		won, err := l.Claim(ctx, key)
		if err != nil || !won {
			t.Fatalf("first Claim(%q) = %v, %v; want true", key, won, err)
		}
		won, err = l.Claim(ctx, key)
		if err != nil || won {
			t.Fatalf("second Claim(%q) = %v, %v; want false", key, won, err)
		}
	}
	const claimers = 16
	for k := range 4 {
		key := "concurrent-" + strconv.Itoa(k)
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range claimers {
			wg.Go(func() {
				won, err := l.Claim(ctx, key)
				if err != nil {
					t.Errorf("Claim(%q): %v", key, err)
				}
				if won {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d concurrent Claim(%q): %d won, want exactly 1", claimers, key, wins)
		}
	}
}

// testPauseStore checks an agentkit.PauseStore: a saved pause loads and is taken once, by
// one of many concurrent takers; sessions are independent; a copy is kept.
func testPauseStore(t *testing.T, m agentkit.Memory) {
	ps, ok := m.(agentkit.PauseStore)
	if !ok {
		t.Skip("the store is not an agentkit.PauseStore")
	}
	ctx := context.Background()
	if _, err := ps.LoadPause(ctx, "s"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Fatalf("LoadPause of a session without a pause: %v, want ErrNoPause", err)
	}
	if _, err := ps.TakePause(ctx, "s"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Fatalf("TakePause of a session without a pause: %v, want ErrNoPause", err)
	}
	state := []byte(`{"version":1,"id":"p1"}`)
	if err := ps.SavePause(ctx, "s", state); err != nil {
		t.Fatal(err)
	}
	if err := ps.SavePause(ctx, "other", []byte(`{"version":1,"id":"p2"}`)); err != nil {
		t.Fatal(err)
	}
	state[0] = 'X' // the store kept its own copy
	got, err := ps.LoadPause(ctx, "s")
	if err != nil || string(got) != `{"version":1,"id":"p1"}` {
		t.Fatalf("LoadPause = %q, %v", got, err)
	}
	if err := ps.SavePause(ctx, "s", []byte(`{"version":1,"id":"p3"}`)); err != nil {
		t.Fatal(err)
	}
	const takers = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	var taken []string
	for range takers {
		wg.Go(func() {
			got, err := ps.TakePause(ctx, "s")
			switch {
			case err == nil:
				mu.Lock()
				taken = append(taken, string(got))
				mu.Unlock()
			case !errors.Is(err, agentkit.ErrNoPause):
				t.Errorf("TakePause: %v", err)
			}
		})
	}
	wg.Wait()
	if len(taken) != 1 || taken[0] != `{"version":1,"id":"p3"}` {
		t.Errorf("%d concurrent TakePause got %q, want the latest pause exactly once", takers, taken)
	}
	if _, err := ps.LoadPause(ctx, "s"); !errors.Is(err, agentkit.ErrNoPause) {
		t.Errorf("LoadPause after the take: %v, want ErrNoPause", err)
	}
	if got, err := ps.TakePause(ctx, "other"); err != nil || string(got) != `{"version":1,"id":"p2"}` {
		t.Errorf("TakePause of another session = %q, %v", got, err)
	}
}
