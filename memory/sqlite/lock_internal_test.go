package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// A process paused past its lease (a GC pause, SIGSTOP, a frozen VM) finds, when it resumes,
// that another process holds the session: its appends fail with agentkit.ErrLeaseLost, and
// nothing it writes reaches the session. The pause is simulated by holding the first store's
// write slot, which its renewals need, until its lease has expired and the second store has
// taken the session.
func TestLeaseLostInAPause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	const lease = 150 * time.Millisecond
	a, err := Open(path, &Options{LockLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// b's lease is long: only a's must expire, and a loaded machine (-race, parallel
	// packages) must not make b miss a renewal of its own before it appends.
	b, err := Open(path, &Options{LockLease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	msg := func(s string) []openai.ChatCompletionMessage {
		return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: s}}
	}

	unlockA, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer unlockA()
	if err := a.Append(ctx, "s", msg("a before the pause")); err != nil {
		t.Fatal(err)
	}
	a.write <- struct{}{} // a is paused: it cannot renew
	lockCtx, cancel := context.WithTimeout(ctx, 10*lease)
	unlockB, err := b.Lock(lockCtx, "s")
	cancel()
	<-a.write // a resumes
	if err != nil {
		t.Fatalf("b could not take the session after a's lease expired: %v", err)
	}
	defer unlockB()
	if err := b.Append(ctx, "s", msg("b")); err != nil {
		t.Fatalf("b appends to the session it holds: %v", err)
	}
	if err := a.Append(ctx, "s", msg("a after the pause")); !errors.Is(err, agentkit.ErrLeaseLost) {
		t.Errorf("a's append after losing its lease: %v, want an error wrapping ErrLeaseLost", err)
	}
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range got {
		contents = append(contents, m.Content)
	}
	if want := []string{"a before the pause", "b"}; !slices.Equal(contents, want) {
		t.Errorf("the session holds %q, want %q", contents, want)
	}
	// A store that does not hold the session cannot append while another one leases it.
	c, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Append(ctx, "s", msg("c")); !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("an append to a session another store leases: %v, want an error wrapping ErrSessionBusy", err)
	}
}

// A renewal that finds the lease taken marks it lost at once: Append refuses without waiting
// for the lease to expire.
func TestRenewalNoticesALostLease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	const lease = 90 * time.Millisecond
	a, err := Open(path, &Options{LockLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	unlock, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// Another holder takes the lease behind a's back (an operator, an old version ignoring it).
	if _, err := a.db.Exec("UPDATE locks SET owner = 'other', token = token + 1 WHERE session = 's'"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * lease)
	for time.Now().Before(deadline) {
		if token, _ := a.held.Get("s"); token == 0 {
			return
		}
		time.Sleep(lease / 10)
	}
	t.Error("the renewals never noticed that the lease was taken")
}

// A Lock whose context ends while another process leases the session says so, whether the
// context ends while Lock waits between two tries or during a try (a try then fails with the
// context's error). The try is held up by holding the store's write slot, which it needs.
func TestLockBusyErrorNamesTheHolder(t *testing.T) {
	tests := []struct {
		name      string
		duringTry bool // the context ends during a try, else between two
	}{
		{"between tries", false},
		{"during a try", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.db")
			a, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			unlock, err := a.Lock(context.Background(), "s")
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := b.Lock(ctx, "s")
				errc <- err
			}()
			// b tries at once, then after 20ms and 60ms (backing off), and next at 140ms.
			time.Sleep(100 * time.Millisecond)
			if tc.duringTry {
				b.write <- struct{}{} // b's next try waits for the slot until ctx ends
				defer func() { <-b.write }()
			}
			time.Sleep(100 * time.Millisecond)
			cancel()
			err = <-errc
			if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.Canceled) {
				t.Fatalf("Lock = %v, want an error wrapping ErrSessionBusy and Canceled", err)
			}
			if got, want := err.Error(), "leased by another process until"; !strings.Contains(got, want) {
				t.Errorf("Lock = %q, want it to say %q", got, want)
			}
		})
	}
}
