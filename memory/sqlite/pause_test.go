package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
)

// schemaV4 is the schema of version 4, which had neither claims nor pauses.
const schemaV4 = `
CREATE TABLE messages (session TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE turns (session TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE call_ids (session TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (session, id)) WITHOUT ROWID;
CREATE TRIGGER messages_index AFTER INSERT ON messages WHEN json_valid(NEW.message)
BEGIN
	INSERT OR IGNORE INTO turns (session, seq)
		SELECT NEW.session, NEW.seq WHERE json_extract(NEW.message, '$.role') = 'user';
	INSERT OR IGNORE INTO call_ids (session, id)
		SELECT NEW.session, json_extract(NEW.message, fullkey || '.id') FROM json_each(NEW.message, '$.tool_calls')
		WHERE json_type(NEW.message, fullkey || '.id') = 'text';
END;
CREATE TABLE summaries (session TEXT NOT NULL PRIMARY KEY, folded INTEGER NOT NULL, fingerprint INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locks (session TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL, token INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
PRAGMA user_version = 4;
`

// A database of version 4 is upgraded when opened: its sessions load as they were, and it
// gets a ledger and a pause store.
func TestUpgradesVersion4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	db := rawDB(t, path)
	if _, err := db.Exec(schemaV4); err != nil {
		t.Fatal(err)
	}
	msgs := recentTurnsSession()
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO messages (session, seq, message) VALUES (?, ?, ?)", "s", i, string(b)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := openStore(t, path)
	checkSameLoads(t, s, "s", msgs)
	ctx := context.Background()
	if won, err := s.Claim(ctx, "k"); err != nil || !won {
		t.Errorf("Claim after the upgrade = %v, %v; want true", won, err)
	}
	if err := s.SavePause(ctx, "s", []byte(`{}`)); err != nil {
		t.Errorf("SavePause after the upgrade: %v", err)
	}
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 5 {
		t.Errorf("schema version after the upgrade = %d, %v; want 5", v, err)
	}
}

// Two Stores on one file — two processes — claim a key once between them, take a pause
// once between them, and a pause saved before a restart is there after it.
func TestPauseAcrossStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	a, b := openStore(t, path), openStore(t, path)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			won, err := s.Claim(ctx, "agentkit.pause:x")
			if err != nil {
				t.Error(err)
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
		t.Errorf("claims won across two stores: %d, want 1", wins)
	}

	if err := a.SavePause(ctx, "s", []byte(`{"id":"p"}`)); err != nil {
		t.Fatal(err)
	}
	a.Close()
	c := openStore(t, path) // the restarted process
	if got, err := c.LoadPause(ctx, "s"); err != nil || string(got) != `{"id":"p"}` {
		t.Fatalf("LoadPause after a restart = %q, %v", got, err)
	}
	taken := 0
	for i := range 16 {
		s := b
		if i%2 == 1 {
			s = c
		}
		wg.Go(func() {
			_, err := s.TakePause(ctx, "s")
			switch {
			case err == nil:
				mu.Lock()
				taken++
				mu.Unlock()
			case !errors.Is(err, agentkit.ErrNoPause):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if taken != 1 {
		t.Errorf("pauses taken across two stores: %d, want 1", taken)
	}
}
