package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/sqlite"
)

// Two handles on one file stand for two processes: the lease refuses the second until
// the first unlocks, and a lease left by a dead process expires.
func TestLockAcrossHandles(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the other cleanups close the databases
	path := filepath.Join(t.TempDir(), "m.db")
	a := openStore(t, path)
	// A lease of 1.2 s renewed every 400 ms: under a loaded machine (-race -count=200) a 600 ms
	// lease saw a renewal late by more than 400 ms, and a takeover that is the lease's rule.
	b, err := sqlite.Open(path, &sqlite.Options{LockLease: 1200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	unlock, err := a.Lock(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	_, err = b.Lock(ctx, "s")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock from another handle = %v, want ErrSessionBusy and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "another process") {
		t.Errorf("error %q does not say who holds the session", err)
	}
	// The waiter gets it when the holder unlocks.
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u, err := b.Lock(ctx, "s")
		if err == nil {
			u()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("Lock after the other handle unlocked: %v", err)
	}

	// b holds it past several lease periods: renewal keeps a out.
	ub, err := b.Lock(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // 2.5 leases, renewed every 400ms
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	ua, err := a.Lock(ctx, "s")
	cancel()
	ub()
	if err == nil {
		ua()
	}
	if !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Fatalf("Lock while the holder renews its lease = %v, want ErrSessionBusy", err)
	}

	// A crashed process's lease: taken over once expired.
	raw := rawDB(t, path)
	if _, err := raw.Exec("INSERT OR REPLACE INTO locks (session, owner, expires) VALUES ('s', 'dead', ?)", time.Now().Add(-time.Second).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	u, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatalf("Lock over an expired lease: %v", err)
	}
	var before int64
	if err := raw.QueryRow("SELECT token FROM locks WHERE session = 's'").Scan(&before); err != nil {
		t.Fatal(err)
	}
	u()
	u() // unlock twice is harmless
	var n int
	if err := raw.QueryRow("SELECT COUNT(*) FROM locks WHERE expires > ?", time.Now().UnixMilli()).Scan(&n); err != nil || n != 0 {
		t.Errorf("live leases left after unlock: %d (%v)", n, err)
	}
	// The next lease's fencing token is one more than the last, also after a release.
	u, err = a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer u()
	var after int64
	if err := raw.QueryRow("SELECT token FROM locks WHERE session = 's'").Scan(&after); err != nil || after != before+1 {
		t.Errorf("the token after a release is %d (%v), want %d", after, err, before+1)
	}
}

// Lock waits while another process keeps the file's write lock for longer than BusyTimeout
// (SQLITE_BUSY), as it waits for another holder's lease, and gets the session once the write
// ends; when ctx ends first, the error wraps agentkit.ErrSessionBusy and ctx.Err().
func TestLockWaitsForABusyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := sqlite.Open(path, &sqlite.Options{BusyTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawDB(t, path)
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO summaries (session, folded, fingerprint, summary) VALUES ('x', 0, 0, '')"); err != nil {
		t.Fatal(err)
	}
	// ctx ends while the file stays busy.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = s.Lock(ctx, "s")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock on a busy file past its deadline: %v, want an error wrapping ErrSessionBusy and DeadlineExceeded", err)
	}
	// The write ends while Lock waits.
	time.AfterFunc(100*time.Millisecond, func() { tx.Rollback() })
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unlock, err := s.Lock(ctx, "s")
	if err != nil {
		t.Fatalf("Lock once the file is free: %v", err)
	}
	unlock()
}
