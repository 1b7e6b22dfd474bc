package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
)

// Two Stores, each with a pool of its own, stand for two processes: the lease refuses the
// second until the first unlocks, renewal keeps it held past its lease, and a dead
// process's lease is taken over once expired, with a greater token.
func TestLockAcrossStores(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	url := pgtest.Database(t)
	a := openOn(t, url, nil)
	b := openOn(t, url, &postgres.Options{LockLease: 1200 * time.Millisecond})

	unlock, err := a.Lock(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	_, err = b.Lock(ctx, "s")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock from another Store = %v, want ErrSessionBusy and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "another process") {
		t.Errorf("error %q does not say who holds the session", err)
	}
	// An append from a Store that does not hold the session is refused while it is held.
	if err := b.Append(context.Background(), "s", []openai.ChatCompletionMessage{memorytest.User("intruder")}); !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("Append while another Store holds the session = %v, want ErrSessionBusy", err)
	}

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
		t.Fatalf("Lock after the other Store unlocked: %v", err)
	}

	// b holds it for 2.5 leases: renewal keeps a out.
	ub, err := b.Lock(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
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

	// A crashed process's lease, expired: taken over, with the next token.
	raw := newPool(t, url, 1)
	bg := context.Background()
	if _, err := raw.Exec(bg, "UPDATE toolcall_leases SET owner = 'dead', token = 41, expires = now() - interval '1 second' WHERE session = 's'"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	ua, err = a.Lock(ctx, "s")
	if err != nil {
		t.Fatalf("Lock of an expired lease: %v", err)
	}
	defer ua()
	var token int64
	if err := raw.QueryRow(bg, "SELECT token FROM toolcall_leases WHERE session = 's'").Scan(&token); err != nil || token != 42 {
		t.Errorf("token after the takeover = %d, %v; want 42", token, err)
	}
}

// starve holds every connection of pool until release is called: the Store on it can no
// longer reach the database (renew its lease), as a process paused or partitioned away.
func starve(t *testing.T, pool *pgxpool.Pool) (release func()) {
	t.Helper()
	var conns []*pgxpool.Conn
	for range pool.Config().MaxConns {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	return func() {
		for _, c := range conns {
			c.Release()
		}
	}
}

// A holder cut off from the database past its lease loses it: another process takes the
// session, and the old holder's Append fails with ErrLeaseLost, writing nothing.
func TestLeaseLost(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	url := pgtest.Database(t)
	poolA := newPool(t, url, 1)
	a, err := postgres.Open(context.Background(), poolA, &postgres.Options{LockLease: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b := openOn(t, url, nil)
	ctx := context.Background()

	unlockA, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer unlockA()
	release := starve(t, poolA)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlockB, err := b.Lock(wctx, "s") // once a's lease expired
	if err != nil {
		release()
		t.Fatalf("Lock after the holder's lease expired: %v", err)
	}
	defer unlockB()
	release()

	err = a.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("from the old holder")})
	if !errors.Is(err, agentkit.ErrLeaseLost) {
		t.Fatalf("Append after the lease was lost = %v, want ErrLeaseLost", err)
	}
	if err := b.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("from the new holder")}); err != nil {
		t.Fatalf("Append of the new holder: %v", err)
	}
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Content != "from the new holder" {
		t.Errorf("session = %+v, want only the new holder's message", got)
	}
}

// A run whose process is cut off past its lease, while the model thinks, ends with a clear
// error (StopMemoryError, ErrLeaseLost); the answer it got after the loss never lands, and
// the run that took the session over is intact.
func TestRunSessionLeaseLost(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	url := pgtest.Database(t)
	poolA := newPool(t, url, 1)
	a, err := postgres.Open(context.Background(), poolA, &postgres.Options{LockLease: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b := openOn(t, url, nil)
	ctx := context.Background()

	var other *agentkit.Result
	var otherErr error
	model := agentkittest.New(t, agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
		// The process pauses: no connection, no renewal; another replica takes the session
		// and runs a turn in it.
		release := starve(t, poolA)
		defer release()
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		agentB := agentkit.New(agentkittest.New(t, agentkittest.Text("B's answer")), &agentkit.Options{Memory: b})
		other, otherErr = agentB.RunSession(wctx, "s", "B's question")
		return agentkittest.Text("A's late answer")
	}))
	agentA := agentkit.New(model, &agentkit.Options{Memory: a})
	res, err := agentA.RunSession(ctx, "s", "A's question")
	if otherErr != nil || other.Output != "B's answer" {
		t.Fatalf("the run that took the session over: %v, %v", other, otherErr)
	}
	if !errors.Is(err, agentkit.ErrLeaseLost) || res.Stop != agentkit.StopMemoryError {
		t.Fatalf("the run that lost its lease = %v, stop %q; want ErrLeaseLost, %q", err, res.Stop, agentkit.StopMemoryError)
	}
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range got {
		contents = append(contents, m.Content)
	}
	want := []string{"A's question", "B's question", "B's answer"}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Errorf("session = %q, want %q (A's answer, after its lease was lost, must not land)", contents, want)
	}
	if err := agentkit.ValidateHistory(got); err != nil {
		t.Errorf("ValidateHistory: %v", err)
	}
}
