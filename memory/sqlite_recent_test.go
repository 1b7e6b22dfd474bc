package memory_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// recentTurnsSession is a session of 7 turns (the first calls a tool, every turn answers),
// preceded by a greeting.
func recentTurnsSession() []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{memorytest.Assistant("welcome"), memorytest.User("task")}
	msgs = append(msgs, memorytest.Step("call_first", 1)...)
	msgs = append(msgs, memorytest.Assistant("done"))
	for _, q := range []string{"a", "b", "c", "d", "e", "f"} {
		msgs = append(msgs, memorytest.User(q))
		msgs = append(msgs, memorytest.Step("call_"+q, 2)...)
		msgs = append(msgs, memorytest.Assistant("answer "+q))
	}
	return msgs
}

// checkSameLoads compares the partial loads of a store with InMemory's, for every number
// of turns, and their CallIDUsed on every id of the session.
func checkSameLoads(t *testing.T, got agentkit.RecentLoader, session string, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	ctx := context.Background()
	ref := memory.NewInMemory()
	if err := ref.Append(ctx, session, msgs); err != nil {
		t.Fatal(err)
	}
	ids := []string{"call_unknown"}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	for _, id := range ids {
		w, err := ref.CallIDUsed(ctx, session, id)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := got.CallIDUsed(ctx, session, id); g != w || err != nil {
			t.Errorf("CallIDUsed(%q) = %v, %v; want %v, nil", id, g, err, w)
		}
	}
	omitted := 0
	for recent := 1; recent <= 8; recent++ {
		want, wantOmitted, err := ref.LoadRecent(ctx, session, recent)
		if err != nil {
			t.Fatal(err)
		}
		h, gotOmitted, err := got.LoadRecent(ctx, session, recent)
		if err != nil {
			t.Fatalf("LoadRecent %d: %v", recent, err)
		}
		if gotOmitted != wantOmitted {
			t.Errorf("LoadRecent %d: omitted = %d, want %d", recent, gotOmitted, wantOmitted)
		}
		if diff := cmp.Diff(want, h, equateEmpty); diff != "" {
			t.Errorf("LoadRecent %d: messages differ from InMemory's (-InMemory +got):\n%s", recent, diff)
		}
		omitted = max(omitted, gotOmitted)
	}
	if omitted == 0 {
		t.Error("no load left anything out")
	}
}

// SQLite's partial loads are InMemory's.
func TestSQLiteLoadsRecentTurns(t *testing.T) {
	s := openSQLite(t, filepath.Join(t.TempDir(), "memory.db"))
	msgs := recentTurnsSession()
	// Appended in steps, as runs do.
	for i := 0; i < len(msgs); {
		n := min(3, len(msgs)-i)
		if err := s.Append(context.Background(), "s", msgs[i:i+n]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	checkSameLoads(t, s, "s", msgs)
}

// schemaV1 is the schema of version 1, which had neither turns nor call_ids.
const schemaV1 = `
CREATE TABLE messages (session TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE summaries (session TEXT NOT NULL PRIMARY KEY, folded INTEGER NOT NULL, fingerprint INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locks (session TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
PRAGMA user_version = 1;
`

// A database of version 1 is upgraded when opened: its sessions load in part as if they
// had been appended by this version.
func TestSQLiteUpgradesVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db := rawDB(t, path)
	if _, err := db.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	msgs := recentTurnsSession()
	for _, session := range []string{"s", "other"} {
		for i, m := range msgs {
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO messages (session, seq, message) VALUES (?, ?, ?)", session, i, string(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	s := openSQLite(t, path)
	checkSameLoads(t, s, "s", msgs)
	checkSameLoads(t, s, "other", msgs)
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 4 {
		t.Errorf("schema version after the upgrade = %d, %v; want 4", v, err)
	}
}
