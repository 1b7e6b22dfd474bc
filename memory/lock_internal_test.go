package memory

import (
	"context"
	"testing"
	"time"
)

// A Locks forgets a session once nobody holds or waits for it, waiters given up included.
func TestLocksForgetReleasedSessions(t *testing.T) {
	var locks Locks
	unlock, err := locks.Lock(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := locks.Lock(ctx, "a"); err == nil {
		t.Fatal("a second Lock of a held session succeeded")
	}
	u, err := locks.Lock(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(locks.m), 2; got != want {
		t.Errorf("sessions tracked while a and b are held: %d, want %d", got, want)
	}
	u()
	unlock()
	if got := len(locks.m); got != 0 {
		t.Errorf("sessions tracked after every holder unlocked: %d, want 0", got)
	}
}
