package memory_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

func TestInMemoryConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return memory.NewInMemory() })
}

func TestInMemoryZeroValueConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return &memory.InMemory{} })
}

func TestSQLiteConformance(t *testing.T) {
	defer goleak.VerifyNone(t)
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return openSQLite(t, filepath.Join(t.TempDir(), "memory.db")) })
}

func TestSQLiteInMemoryDatabaseConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return openSQLite(t, ":memory:") })
}

func openSQLite(t testing.TB, path string) *memory.SQLite {
	t.Helper()
	s, err := memory.OpenSQLite(path, nil)
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens the store's file directly, for the tests that write what the store never would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var equateEmpty = cmpopts.EquateEmpty()

func TestSQLiteReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with spaces?and#signs%20.db")
	ctx := context.Background()
	want := append([]openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")}, memorytest.Step("call_1", 2)...)
	s := openSQLite(t, path)
	if err := s.Append(ctx, "s", want); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openSQLite(t, path)
	got, err := s.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, equateEmpty); diff != "" {
		t.Fatalf("after reopening (-want +got):\n%s", diff)
	}
}

func TestSQLiteCorruptRows(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		wantMsg string
	}{
		{"not JSON", `UPDATE messages SET message = 'garbage{' WHERE session = 'chat-7' AND seq = 1`, `session "chat-7", message 1`},
		{"binary", `UPDATE messages SET message = X'FF00FE' WHERE session = 'chat-7' AND seq = 2`, `session "chat-7", message 2`},
		{"JSON without a role", `UPDATE messages SET message = '{"content":"x"}' WHERE session = 'chat-7' AND seq = 0`, `session "chat-7", message 0`},
		{"null", `UPDATE messages SET message = 'null' WHERE session = 'chat-7' AND seq = 0`, `session "chat-7", message 0`},
		{"number", `UPDATE messages SET message = 42 WHERE session = 'chat-7' AND seq = 0`, `session "chat-7", message 0`},
		{"wrong type", `UPDATE messages SET message = '{"role":5}' WHERE session = 'chat-7' AND seq = 0`, `session "chat-7", message 0`},
		{"missing row", `DELETE FROM messages WHERE session = 'chat-7' AND seq = 1`, `session "chat-7": memory: corrupt stored message: message 1 is missing`},
		{"sequence not a number", `UPDATE messages SET seq = 'abc' WHERE session = 'chat-7' AND seq = 2`, `session "chat-7", row 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			s := openSQLite(t, path)
			ctx := context.Background()
			msgs := append([]openai.ChatCompletionMessage{memorytest.User("q")}, memorytest.Step("call_1", 1)...)
			if err := s.Append(ctx, "chat-7", msgs); err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, "other", msgs); err != nil {
				t.Fatal(err)
			}
			if _, err := rawDB(t, path).Exec(tt.sql); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load(ctx, "chat-7")
			if !errors.Is(err, memory.ErrCorrupt) {
				t.Fatalf("Load = %v, want an error wrapping ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if _, err := s.Search(ctx, "chat-7", memory.Query{Text: "q"}); !errors.Is(err, memory.ErrCorrupt) {
				t.Errorf("Search = %v, want an error wrapping ErrCorrupt", err)
			}
			if got, err := s.Load(ctx, "other"); err != nil || len(got) != 3 {
				t.Errorf("Load of another session = %d messages, %v; want 3, nil", len(got), err)
			}
		})
	}
}

func TestSQLiteNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s := openSQLite(t, path)
	s.Close()
	if _, err := rawDB(t, path).Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := memory.OpenSQLite(path, nil)
	if !errors.Is(err, memory.ErrSchemaVersion) {
		t.Fatalf("OpenSQLite of a newer schema = %v, want ErrSchemaVersion", err)
	}
	if !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("error %q does not name the version", err)
	}
}

func TestSQLiteNotADatabase(t *testing.T) {
	if _, err := memory.OpenSQLite("", nil); err == nil {
		t.Error("OpenSQLite(\"\") succeeded")
	}
	if _, err := memory.OpenSQLite(filepath.Join(t.TempDir(), "missing-dir", "m.db"), nil); err == nil {
		t.Error("OpenSQLite in a missing directory succeeded")
	}
}

func TestSQLiteWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	openSQLite(t, path)
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

// Two handles on one file stand for two processes: the lease refuses the second until
// the first unlocks, and a lease left by a dead process expires.
func TestSQLiteLockAcrossHandles(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the other cleanups close the databases
	path := filepath.Join(t.TempDir(), "m.db")
	a := openSQLite(t, path)
	b, err := memory.OpenSQLite(path, &memory.SQLiteOptions{LockLease: 600 * time.Millisecond})
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
	time.Sleep(1500 * time.Millisecond) // 2.5 leases, renewed every 200ms
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = a.Lock(ctx, "s")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Fatalf("Lock while the holder renews its lease = %v, want ErrSessionBusy", err)
	}
	ub()

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
	u()
	u() // unlock twice is harmless
	var n int
	if err := raw.QueryRow("SELECT COUNT(*) FROM locks").Scan(&n); err != nil || n != 0 {
		t.Errorf("locks left after unlock: %d (%v)", n, err)
	}
}

func TestStoresSearchAndSummaries(t *testing.T) {
	stores := map[string]interface {
		agentkit.Memory
		memory.Searcher
		memory.SummaryStore
	}{
		"InMemory": memory.NewInMemory(),
		"SQLite":   openSQLite(t, filepath.Join(t.TempDir(), "m.db")),
	}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			msgs := append([]openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")}, memorytest.Step("call_1", 1)...)
			msgs = append(msgs, memorytest.Assistant("北京晴，26℃。"), memorytest.User("Paris weather?"))
			if err := s.Append(ctx, "s", msgs); err != nil {
				t.Fatal(err)
			}
			got, err := s.Search(ctx, "s", memory.Query{Text: "26℃"})
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, m := range got {
				idx = append(idx, m.Index)
			}
			if diff := cmp.Diff([]int{3, 2}, idx); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
			if len(got) == 2 && got[1].Tool != "get_weather" {
				t.Errorf("tool of the tool result = %q, want get_weather", got[1].Tool)
			}
			if got, _ := s.Search(ctx, "other", memory.Query{Text: "26℃"}); len(got) != 0 {
				t.Errorf("search of another session found %d", len(got))
			}

			if sum, err := s.LoadSummary(ctx, "s"); err != nil || sum != (memory.Summary{}) {
				t.Errorf("LoadSummary of none = %+v, %v", sum, err)
			}
			want := memory.Summary{Text: "## Task\n查天气", Folded: 7, Fingerprint: 1 << 63}
			if err := s.SaveSummary(ctx, "s", want); err != nil {
				t.Fatal(err)
			}
			if sum, err := s.LoadSummary(ctx, "s"); err != nil || sum != want {
				t.Errorf("LoadSummary = %+v, %v; want %+v", sum, err, want)
			}
		})
	}
}
