package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/sqlite"
)

func TestConformance(t *testing.T) {
	defer goleak.VerifyNone(t)
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return openStore(t, filepath.Join(t.TempDir(), "memory.db")) })
}

func TestInMemoryDatabaseConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return openStore(t, ":memory:") })
}

func openStore(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
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

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with spaces?and#signs%20.db")
	ctx := context.Background()
	want := append([]openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")}, memorytest.Step("call_1", 2)...)
	s := openStore(t, path)
	if err := s.Append(ctx, "s", want); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path)
	got, err := s.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, equateEmpty); diff != "" {
		t.Fatalf("after reopening (-want +got):\n%s", diff)
	}
}

func TestCorruptRows(t *testing.T) {
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
		{"missing row", `DELETE FROM messages WHERE session = 'chat-7' AND seq = 1`, `session "chat-7": sqlite: corrupt stored message: message 1 is missing`},
		{"sequence not a number", `UPDATE messages SET seq = 'abc' WHERE session = 'chat-7' AND seq = 2`, `session "chat-7", row 2`},
		{"10 MB of nested brackets", `UPDATE messages SET message = '{"role":"user","content":' || replace(hex(zeroblob(10485760)), '00', '[') WHERE session = 'chat-7' AND seq = 0`, `session "chat-7", message 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			s := openStore(t, path)
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
			if !errors.Is(err, sqlite.ErrCorrupt) {
				t.Fatalf("Load = %v, want an error wrapping ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if _, err := s.Search(ctx, "chat-7", memory.Query{Text: "q"}); !errors.Is(err, sqlite.ErrCorrupt) {
				t.Errorf("Search = %v, want an error wrapping ErrCorrupt", err)
			}
			if got, err := s.Load(ctx, "other"); err != nil || len(got) != 3 {
				t.Errorf("Load of another session = %d messages, %v; want 3, nil", len(got), err)
			}
		})
	}
}

func TestNotADatabase(t *testing.T) {
	if _, err := sqlite.Open("", nil); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	if _, err := sqlite.Open(filepath.Join(t.TempDir(), "missing-dir", "m.db"), nil); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

func TestWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	openStore(t, path)
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

func TestStoresSearchAndSummaries(t *testing.T) {
	stores := map[string]interface {
		agentkit.Memory
		memory.Searcher
		memory.SummaryStore
	}{
		"InMemory": memory.NewInMemory(),
		"SQLite":   openStore(t, filepath.Join(t.TempDir(), "m.db")),
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
