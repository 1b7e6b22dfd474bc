package memory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// A Locks holds each session for one holder at a time: a second Lock of the same session
// waits, one of another session does not, and a waiter whose context ends gives up with
// ErrSessionBusy.
func TestLocks(t *testing.T) {
	defer goleak.VerifyNone(t)
	var locks memory.Locks // the zero value
	unlock, err := locks.Lock(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	other, err := locks.Lock(context.Background(), "other")
	if err != nil {
		t.Fatalf("Lock of another session while s is held: %v", err)
	}
	other()

	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		wantBusy bool
		wantErr  error
	}{
		{"waits, then its deadline passes", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, true, context.DeadlineExceeded},
		{"canceled before it asks", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := locks.Lock(ctx, "s")
			if got := errors.Is(err, agentkit.ErrSessionBusy); got != tt.wantBusy {
				t.Errorf("Lock of a held session = %v; wraps ErrSessionBusy: %v, want %v", err, got, tt.wantBusy)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Lock of a held session = %v, want an error wrapping %v", err, tt.wantErr)
			}
		})
	}

	// A waiter gets the session when the holder unlocks.
	acquired, release, done := make(chan error, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u, err := locks.Lock(ctx, "s")
		acquired <- err
		if err == nil {
			<-release
			u()
		}
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	if err := <-acquired; err != nil {
		t.Fatalf("Lock after the holder unlocked: %v", err)
	}
	// unlock twice is harmless: the second call does not release the waiter's hold.
	unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if u, err := locks.Lock(ctx, "s"); !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("Lock after a second unlock of the previous holder = %v, want ErrSessionBusy", err)
		if err == nil {
			u()
		}
	}
	close(release)
	<-done
	u, err := locks.Lock(context.Background(), "s")
	if err != nil {
		t.Fatalf("Lock once every holder unlocked: %v", err)
	}
	u()
}

// Two runs of one session in one process: the second waits for the first.
func ExampleLocks() {
	var locks memory.Locks
	unlock, _ := locks.Lock(context.Background(), "chat-7")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := locks.Lock(ctx, "chat-7")
	fmt.Println("while held:", errors.Is(err, agentkit.ErrSessionBusy))

	unlock()
	unlock, err = locks.Lock(context.Background(), "chat-7")
	fmt.Println("once released:", err)
	unlock()
	// Output:
	// while held: true
	// once released: <nil>
}
