package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory/memorytest"
)

// A version-1 file holding one row that is valid JSON but not a message (here tool_calls
// holds a string, not objects) is upgraded when opened: that row is left out of the
// indexes, and loading its session reports ErrCorrupt naming it, as the package promises.
// (An upgrade or trigger that read each tool call's id from the element's value would fail
// with "malformed JSON" on such a row, and the file could not be opened.)
func TestUpgradeWithAnUndecodableRowOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw := oldDatabase(t, path, schemaV1)
	good, _ := json.Marshal(memorytest.User("task"))
	for _, r := range []struct {
		session, message string
	}{
		{"good", string(good)},
		{"bad", string(good)},
		{"bad", `{"role":"assistant","tool_calls":["call_1"]}`},
	} {
		if _, err := raw.Exec("INSERT INTO messages (session, seq, message) VALUES (?, (SELECT COUNT(*) FROM messages WHERE session = ?), ?)", r.session, r.session, r.message); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open on a version-1 file with one undecodable row: %v (want the upgrade to leave the row out of the indexes, as the Go upgrade did)", err)
	}
	defer s.Close()
	ctx := context.Background()
	if h, err := s.Load(ctx, "good"); err != nil || len(h) != 1 {
		t.Errorf("Load(good) = %d messages, %v; want 1, nil", len(h), err)
	}
	if _, err := s.Load(ctx, "bad"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Load(bad) = %v, want ErrCorrupt", err)
	}
	if err := s.Append(ctx, "good", []openai.ChatCompletionMessage{memorytest.Assistant("ok")}); err != nil {
		t.Errorf("Append after the upgrade: %v", err)
	}
}

// A version-2 file (never released) had a trigger that failed on a tool call that is not an
// object: opening it replaces the trigger, after which any writer may insert such a row.
func TestUpgradesVersion2Trigger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	raw := oldDatabase(t, path, `
CREATE TABLE messages (session TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE turns (session TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE call_ids (session TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (session, id)) WITHOUT ROWID;
CREATE TABLE summaries (session TEXT NOT NULL PRIMARY KEY, folded INTEGER NOT NULL, fingerprint INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locks (session TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER messages_index AFTER INSERT ON messages WHEN json_valid(NEW.message)
BEGIN
	INSERT OR IGNORE INTO turns (session, seq)
		SELECT NEW.session, NEW.seq WHERE json_extract(NEW.message, '$.role') = 'user';
	INSERT OR IGNORE INTO call_ids (session, id)
		SELECT NEW.session, json_extract(value, '$.id') FROM json_each(NEW.message, '$.tool_calls')
		WHERE json_type(value, '$.id') = 'text';
END;
PRAGMA user_version = 2;`)
	defer raw.Close()
	const odd = `{"role":"assistant","tool_calls":["call_1"]}`
	if _, err := raw.Exec("INSERT INTO messages (session, seq, message) VALUES ('s', 0, ?)", odd); err == nil {
		t.Fatal("the version-2 trigger accepted a tool call that is not an object: this test no longer reproduces it")
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := raw.Exec("INSERT INTO messages (session, seq, message) VALUES ('s', 0, ?)", odd); err != nil {
		t.Errorf("after opening, inserting a row with a tool call that is not an object: %v", err)
	}
	var v int
	if err := raw.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Errorf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
}

// schemaV1 is the schema of version 1, which had neither turns nor call_ids.
const schemaV1 = `
CREATE TABLE messages (session TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE summaries (session TEXT NOT NULL PRIMARY KEY, folded INTEGER NOT NULL, fingerprint INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locks (session TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
PRAGMA user_version = 1;`

// oldDatabase creates a database file at path with an older schema, opened directly.
func oldDatabase(t *testing.T, path, schema string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(schema); err != nil {
		raw.Close()
		t.Fatal(err)
	}
	return raw
}
